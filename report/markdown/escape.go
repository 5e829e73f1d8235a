package markdown

import (
	"errors"
	"strings"

	"github.com/agentready/agentready/internal/sanitize"
	"github.com/agentready/agentready/report/internal/view"
)

// text makes an untrusted string one line of inline Markdown that renders as
// the literal text, bounded to limit bytes before escaping.
func text(s string, limit int) string {
	return sanitize.Markdown(view.Line(s, limit))
}

// code renders an untrusted string as an inline code span: a fence of
// backticks longer than any run inside it, padded when the string starts or
// ends with a backtick. In a table cell, pipes are still escaped, because GFM
// splits cells before it parses code spans.
func code(s string, limit int, inTable bool) string {
	s = view.Line(s, limit)
	if strings.TrimSpace(s) == "" {
		return ""
	}
	longest, run := 0, 0
	for _, r := range s {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", longest+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") || strings.HasPrefix(s, " ") || strings.HasSuffix(s, " ") {
		s = " " + s + " "
	}
	if inTable {
		s = strings.ReplaceAll(s, "|", `\|`)
	}
	return fence + s + fence
}

// link renders [label](url) when url is a plain web URL, else the label
// alone: a report may carry javascript: URLs planted by the app.
func link(label, url string) string {
	if !linkable(url) {
		return label
	}
	return "[" + label + "](" + strings.NewReplacer("(", "%28", ")", "%29").Replace(url) + ")"
}

// maxLink bounds the URL of a link.
const maxLink = 2000

func linkable(url string) bool { return view.IsWebURL(url) && len(url) <= maxLink }

// ValidFullReport reports whether url can be Options.FullReport, which is
// otherwise left out: a plain http or https URL of at most 2000 bytes.
func ValidFullReport(url string) error {
	if !linkable(url) {
		return errors.New("want an absolute http or https URL of at most 2000 bytes, without spaces or quotes")
	}
	return nil
}
