// Package llmstxt parses llms.txt files (the llmstxt.org proposal) and pulls
// inline links out of Markdown. It is pure and bounded: parsing is linear in
// the input, never panics, and keeps at most MaxLinks links and MaxBadItems
// malformed list items.
package llmstxt

import (
	"regexp"
	"strings"
)

// Bounds on what is kept from a hostile file.
const (
	MaxLinks    = 1000
	MaxBadItems = 100
	maxItemText = 120
	maxLineLen  = 16 << 10
)

// File is a parsed llms.txt.
type File struct {
	// Title is the text of the H1, the one required part; TitleLine is 0
	// when there is none before the first H2.
	Title     string
	TitleLine int
	// Summary is the blockquote that follows the H1, if any.
	Summary  string
	Sections []Section
}

// Section is an H2 and the file list under it.
type Section struct {
	Title string
	Line  int
	Links []Link
	// BadItems are list items that are not "[name](url)", optionally
	// followed by ": notes".
	BadItems []Item
}

// Link is a list item or an inline Markdown link.
type Link struct {
	Name  string
	URL   string
	Notes string
	Line  int
}

// Item is a list item as written (cut to a readable length).
type Item struct {
	Text string
	Line int
}

// Optional reports the section the proposal lets readers skip.
func (s Section) Optional() bool { return s.Title == "Optional" }

var (
	fileListItem = regexp.MustCompile(`^\[([^\[\]]*)\]\(\s*<?([^()<>\s]+)>?(?:\s+"[^"]*")?\s*\)\s*(?::\s*(.*))?$`)
	inlineLink   = regexp.MustCompile(`\[([^\[\]]*)\]\(\s*<?([^()<>\s]+)>?(?:\s+"[^"]*")?\s*\)`)
)

// Parse reads a whole file. Headings and list items inside fenced code
// blocks are text, not structure.
func Parse(body []byte) *File {
	f := &File{}
	links, bad := 0, 0
	var cur *Section
	inSummary := false
	for n, line := range proseLines(string(body)) {
		trimmed := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(trimmed, "# ") && cur == nil && f.TitleLine == 0:
			f.Title, f.TitleLine = strings.TrimSpace(trimmed[2:]), n+1
			inSummary = true
			continue
		case strings.HasPrefix(trimmed, "## "):
			f.Sections = append(f.Sections, Section{Title: strings.TrimSpace(trimmed[3:]), Line: n + 1})
			cur = &f.Sections[len(f.Sections)-1]
		case strings.HasPrefix(trimmed, ">") && inSummary && cur == nil:
			f.Summary = strings.TrimSpace(f.Summary + " " + strings.TrimSpace(trimmed[1:]))
			continue
		case cur != nil && isListItem(trimmed):
			item := strings.TrimSpace(trimmed[2:])
			if m := fileListItem.FindStringSubmatch(item); m != nil {
				if links < MaxLinks {
					cur.Links = append(cur.Links, Link{Name: m[1], URL: m[2], Notes: m[3], Line: n + 1})
					links++
				}
			} else if bad < MaxBadItems {
				cur.BadItems = append(cur.BadItems, Item{Text: cut(item), Line: n + 1})
				bad++
			}
		}
		if trimmed != "" {
			inSummary = false
		}
	}
	return f
}

// Links returns every file-list link, in order.
func (f *File) Links() []Link {
	var out []Link
	for _, s := range f.Sections {
		out = append(out, s.Links...)
	}
	return out
}

// InlineLinks returns up to MaxLinks Markdown links of a document, outside
// fenced code blocks, in order. Image links count: a broken image is a
// broken link too.
func InlineLinks(body []byte) []Link {
	var out []Link
	for n, line := range proseLines(string(body)) {
		if !strings.Contains(line, "](") {
			continue // most lines have no link; skip the regexp
		}
		for _, m := range inlineLink.FindAllStringSubmatch(line, MaxLinks-len(out)) {
			out = append(out, Link{Name: m[1], URL: m[2], Line: n + 1})
		}
		if len(out) >= MaxLinks {
			break
		}
	}
	return out
}

func isListItem(s string) bool {
	return len(s) >= 2 && (s[0] == '-' || s[0] == '*' || s[0] == '+') && (s[1] == ' ' || s[1] == '\t')
}

// proseLines iterates over the lines of s outside fenced code blocks (``` or
// ~~~), whose headings, list items and links are text, not structure; the
// fences are left out too.
func proseLines(s string) func(yield func(int, string) bool) {
	return func(yield func(int, string) bool) {
		inFence := false
		for n, line := range lines(s) {
			trimmed := strings.TrimSpace(line)
			if strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~") {
				inFence = !inFence
				continue
			}
			if !inFence && !yield(n, line) {
				return
			}
		}
	}
}

// lines iterates over the lines of s, split at LF, CR or CRLF, without
// copying them; over-long lines are cut so that one hostile line cannot make
// every regexp pass expensive.
func lines(s string) func(yield func(int, string) bool) {
	s = strings.TrimPrefix(s, "\ufeff")
	return func(yield func(int, string) bool) {
		for n := 0; ; n++ {
			i := strings.IndexAny(s, "\r\n")
			line := s
			if i >= 0 {
				line = s[:i]
			}
			if len(line) > maxLineLen {
				line = line[:maxLineLen]
			}
			if !yield(n, line) || i < 0 {
				return
			}
			if s[i] == '\r' && i+1 < len(s) && s[i+1] == '\n' {
				i++
			}
			s = s[i+1:]
		}
	}
}

func cut(s string) string {
	if len(s) <= maxItemText {
		return s
	}
	r := []rune(s[:maxItemText])
	return string(r[:len(r)-1]) + "…"
}
