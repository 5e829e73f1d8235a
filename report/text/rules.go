package text

import (
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"

	"charm.land/lipgloss/v2"

	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/sanitize"
	"github.com/agentready/agentready/report/internal/view"
)

// maxHelp bounds a check's help: a house rule's comes from a configuration
// file.
const maxHelp = 64 << 10

// WriteRules lists checks, for `agentready checks`: under each family's
// name, one row per check with its severity, ID and title when the longest
// of each fit the width side by side, and otherwise the title under the
// severity and ID, wrapped.
func (rp *Reporter) WriteRules(w io.Writer, rules []finding.RuleInfo) error {
	p := &printer{opts: rp.opts, b: &strings.Builder{}}
	var families []string
	byFamily := map[string][][]string{}
	lint := map[string]int{}
	idWidth, titleWidth := 0, 0
	for _, r := range rules {
		f := view.NonEmpty(clean(r.Family), "?")
		if _, seen := byFamily[f]; !seen {
			families = append(families, f)
		}
		row := []string{severityWord(r.Severity), clean(r.ID), clean(r.Title)}
		byFamily[f] = append(byFamily[f], row)
		if len(r.Documents) > 0 {
			lint[f]++
		}
		idWidth, titleWidth = max(idWidth, lipgloss.Width(row[1])), max(titleWidth, lipgloss.Width(row[2]))
	}
	sevWidth := len(finding.SeverityWarning.String())
	sideBySide := 2+sevWidth+columnGap+idWidth+columnGap+titleWidth <= p.opts.Width
	for i, f := range families {
		if i > 0 {
			p.blank()
		}
		rows := byFamily[f]
		p.wrapped(0, 2, styleHeading.Render(f)+fmt.Sprintf(" (%d %s%s)", len(rows), view.Plural(len(rows), "check", "checks"), inLint(lint[f], len(rows))))
		if sideBySide {
			for _, row := range rows {
				// Every family's columns line up with the others'.
				row[0], row[1] = pad(row[0], sevWidth), pad(row[1], idWidth)
			}
			p.grid(2, grid{rows: rows})
			continue
		}
		for _, row := range rows {
			p.raw(2, pad(row[0], sevWidth+columnGap)+row[1])
			p.wrapped(2+sevWidth+columnGap, 0, row[2])
		}
	}
	return rp.emit(w, p.b.String())
}

// inLint says how many of a family's checks `agentready lint` runs on
// documents alone, and that the others need a live scan.
func inLint(static, all int) string {
	switch static {
	case 0:
		return "; each needs a live scan"
	case all:
		return "; lint runs each on documents alone"
	}
	return fmt.Sprintf("; lint runs %d on documents alone, %d %s a live scan", static, all-static, view.Plural(all-static, "needs", "need"))
}

// WriteRule explains one check, for `agentready explain`: its title, family,
// severity and clauses, then its help rendered from Markdown, then where
// its documentation is. preface, when set, is a paragraph said first.
func (rp *Reporter) WriteRule(w io.Writer, r finding.RuleInfo, preface string) error {
	p := &printer{opts: rp.opts, b: &strings.Builder{}}
	if preface = clean(preface); preface != "" {
		p.wrapped(0, 0, preface)
		p.blank()
	}
	p.wrapped(0, 2, styleStrong.Render(clean(r.ID))+" — "+clean(r.Title))
	p.blank()
	p.wrapped(0, 10, "Family:   "+clean(r.Family))
	p.wrapped(0, 10, "Severity: "+severityWord(r.Severity))
	if r.Security {
		p.wrapped(0, 10, "Security: yes")
	}
	p.wrapped(0, 0, "Clauses:")
	// Each clause's URL goes beside it when every one fits so, and under
	// each otherwise, so that the list reads alike.
	clauses := make([]string, len(r.SpecRefs))
	beside := true
	for i, ref := range r.SpecRefs {
		clauses[i] = "- " + clean(ref.String())
		if level := clean(ref.Level); level != "" {
			clauses[i] += " (" + level + ")"
		}
		beside = beside && p.fits(2, clauses[i], clean(ref.URL))
	}
	for i, ref := range r.SpecRefs {
		p.labelled(2, clauses[i], clean(ref.URL), beside)
	}
	p.blank()
	p.markdown(0, r.Help)
	p.blank()
	docs := clean(r.DocsURL)
	p.labelled(0, "Docs:", docs, p.fits(0, "Docs:", docs))
	return rp.emit(w, p.b.String())
}

// fits reports whether label and url fit on one line at indent.
func (p *printer) fits(indent int, label, url string) bool {
	return indent+lipgloss.Width(label)+columnGap+lipgloss.Width(url) <= p.opts.Width
}

// labelled writes label, then url beside it or on a line of its own below
// it. A URL is never broken, so that a terminal still recognises it.
func (p *printer) labelled(indent int, label, url string, beside bool) {
	switch {
	case url == "":
		p.wrapped(indent, 2, label)
	case beside:
		p.raw(indent, label+strings.Repeat(" ", columnGap)+url)
	default:
		p.wrapped(indent, 2, label)
		p.raw(indent+2, url)
	}
}

func severityWord(s finding.Severity) string {
	if st, ok := severityStyles[s]; ok {
		return st.Render(s.String())
	}
	return clean(s.String())
}

// markdown writes help written in the Markdown the checks use
// (paragraphs, "- " lists, **strong**, *emphasis*, `code`) as wrapped
// lines: the markers become styles, and a code span keeps its backticks
// when there is no colour to set it apart.
func (p *printer) markdown(indent int, md string) {
	md = sanitize.Truncate(sanitize.Terminal(strings.ReplaceAll(md, "\r\n", "\n")), maxHelp)
	for i, block := range strings.Split(strings.TrimSpace(md), "\n\n") {
		if strings.TrimSpace(block) == "" {
			continue
		}
		if i > 0 {
			p.blank()
		}
		text, items := listItems(block)
		if text != "" {
			p.wrapped(indent, 0, p.inline(text))
		}
		for _, item := range items {
			p.wrapped(indent, 2, "- "+p.inline(item))
		}
	}
}

// listItems splits a block into the paragraph it opens with and the list
// that follows, each item's continuation lines joined to it.
func listItems(block string) (text string, items []string) {
	var lead []string
	for _, line := range strings.Split(block, "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(trimmed, "- ") || strings.HasPrefix(trimmed, "* "):
			items = append(items, trimmed[2:])
		case items == nil:
			lead = append(lead, trimmed)
		default:
			items[len(items)-1] += " " + trimmed
		}
	}
	return strings.Join(lead, " "), items
}

// inline renders one paragraph's text: its lines joined, then its code
// spans, strong and emphasised words styled.
func (p *printer) inline(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	var b strings.Builder
	// Backticks alternate between text and code; an unmatched one is
	// text.
	parts := strings.Split(s, "`")
	for i, part := range parts {
		switch {
		case i%2 == 0:
			b.WriteString(emphasis(part))
		case i == len(parts)-1:
			b.WriteString("`" + emphasis(part))
		case p.opts.Color:
			b.WriteString(styleCode.Render(part))
		default:
			b.WriteString("`" + part + "`")
		}
	}
	return b.String()
}

// emphasis styles **strong** and *emphasised* text. A single star is
// emphasis only around a word or words ("*not templated*"): media ranges
// written without backticks ("type/*, then */*") keep their stars.
func emphasis(s string) string {
	s = delimited(s, "**", styleStrong, func(inner string) bool {
		return !strings.HasPrefix(inner, " ") && !strings.HasSuffix(inner, " ")
	})
	return delimited(s, "*", styleEmphasis, func(inner string) bool {
		first, _ := utf8.DecodeRuneInString(inner)
		last, _ := utf8.DecodeLastRuneInString(inner)
		return isWordRune(first) && isWordRune(last)
	})
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// delimited styles what pairs of mark enclose, where ok accepts the text
// within.
func delimited(s, mark string, st lipgloss.Style, ok func(inner string) bool) string {
	var b strings.Builder
	for {
		open := strings.Index(s, mark)
		if open < 0 {
			break
		}
		rest := s[open+len(mark):]
		end := strings.Index(rest, mark)
		if end <= 0 || !ok(rest[:end]) {
			b.WriteString(s[:open+len(mark)])
			s = rest
			continue
		}
		b.WriteString(s[:open] + st.Render(rest[:end]))
		s = rest[end+len(mark):]
	}
	return b.String() + s
}
