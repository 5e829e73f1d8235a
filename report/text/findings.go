package text

import (
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strings"

	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/report/internal/view"
)

// Indentation of the parts of a check block.
const (
	occurrenceIndent = 2
	detailIndent     = 4
	severityWidth    = 8
)

// maxSummarized is how many checks with findings the first screen names;
// the details name them all.
const maxSummarized = 8

// summary is the first screen's account of the findings: their count by
// severity, then the checks that found them, most severe first, one line
// each (the title cut to fit), so that the gravest show above the fold.
func (p *printer) summary(r *finding.Report, groups []*view.Group) {
	p.blank()
	line := styleHeading.Render("Findings") + ": none"
	if len(groups) > 0 {
		line = styleHeading.Render("Findings") + fmt.Sprintf(": %d (%s) in %d %s, most severe first",
			len(r.Findings), severityCounts(r), len(groups), view.Plural(len(groups), "check", "checks"))
	}
	p.wrapped(0, 2, line)
	shown := groups[:min(len(groups), maxSummarized)]
	rows := make([][]string, len(shown))
	for i, g := range shown {
		title := ""
		if g.Rule != nil {
			title = clean(g.Rule.Title)
		}
		rows[i] = []string{severityLabel(g.Severity), fmt.Sprint(len(g.Findings)), styleStrong.Render(clean(g.CheckID)), title}
	}
	if !p.grid(2, grid{rows: rows, right: map[int]bool{1: true}, cut: true}) {
		// Too narrow for even a cut title: the check IDs say enough.
		for i := range rows {
			rows[i] = rows[i][:3]
		}
		p.grid(2, grid{rows: rows, right: map[int]bool{1: true}})
	}
	if rest := len(groups) - len(shown); rest > 0 {
		p.wrapped(2, 2, fmt.Sprintf("… and %d more %s, in the details below", rest, view.Plural(rest, "check", "checks")))
	}
}

// findings prints each check's occurrences with their evidence, in the
// order of the summary.
func (p *printer) findings(groups []*view.Group) {
	if len(groups) == 0 {
		return
	}
	p.heading("Findings by check")
	for _, g := range groups {
		p.blank()
		p.checkHeader(g)
		shown := g.Findings
		if !p.opts.Verbose && len(shown) > p.opts.MaxURLs {
			shown = shown[:p.opts.MaxURLs]
		}
		for i := range shown {
			p.occurrence(g, &shown[i])
		}
		if rest := len(g.Findings) - len(shown); rest > 0 {
			p.wrapped(occurrenceIndent, 2, fmt.Sprintf("… and %d more", rest))
		}
	}
}

func (p *printer) checkHeader(g *view.Group) {
	title := ""
	if g.Rule != nil {
		title = clean(g.Rule.Title)
	}
	n := len(g.Findings)
	line := pad(severityLabel(g.Severity), severityWidth) + styleStrong.Render(clean(g.CheckID))
	if title != "" {
		line += "  " + title
	}
	line += fmt.Sprintf(" (%d %s)", n, view.Plural(n, "occurrence", "occurrences"))
	p.wrapped(0, severityWidth, line)

	if g.Rule == nil {
		return
	}
	if refs := specRefs(g.Rule.SpecRefs); refs != "" {
		p.wrapped(severityWidth, 2, refs)
	}
	// Kept whole so that terminals still recognise it as a link.
	if docs := clean(g.Rule.DocsURL); docs != "" {
		p.raw(severityWidth, styleDim.Render(docs))
	}
}

func (p *printer) occurrence(g *view.Group, f *finding.Finding) {
	msg := "- " + clean(f.Message)
	if f.Severity != g.Severity {
		msg += " [" + f.Severity.String() + "]"
	}
	if f.Security {
		msg += " [security]"
	}
	if state := clean(f.BaselineState); state != "" {
		msg += " [" + state + "]"
	}
	p.wrapped(occurrenceIndent, 2, msg)

	for i := range f.Evidence {
		p.evidence(&f.Evidence[i])
	}
	if loc := location(f.Location); loc != "" {
		// "at", not "spec": lint also locates findings in a tool catalog.
		p.wrapped(detailIndent, 2, "at: "+loc)
	}
	if g.Rule == nil || !slices.Equal(f.SpecRefs, g.Rule.SpecRefs) {
		if refs := specRefs(f.SpecRefs); refs != "" {
			p.wrapped(detailIndent, 2, refs)
		}
	}
}

func (p *printer) evidence(e *finding.Evidence) {
	line := clean(e.Method) + " " + clean(view.URL(e.URL))
	if e.Status != 0 {
		line += fmt.Sprintf(" → %d", e.Status)
	}
	if purpose := clean(e.Purpose); purpose != "" {
		line += styleDim.Render("  (" + purpose + ")")
	}
	p.wrapped(detailIndent, 2, strings.TrimSpace(line))

	if diff := expectedActual(e); diff != "" {
		p.wrapped(detailIndent, 2, diff)
	}
	if ptr := clean(e.JSONPointer); ptr != "" {
		p.wrapped(detailIndent, 2, "pointer: "+ptr)
	}
	if ex := clean(e.Excerpt); ex != "" {
		p.wrapped(detailIndent, 2, "excerpt: "+ex)
	}
	if p.opts.Verbose {
		p.headers("request", e.RequestHeaders)
		p.headers("response", e.ResponseHeaders)
	}
	if c := curl(e.Curl); c != "" {
		p.raw(detailIndent, styleDim.Render("$ ")+c)
	}
}

// expectedActual renders `Header: expected "x", got "y"`, leaving out what
// the evidence does not say.
func expectedActual(e *finding.Evidence) string {
	var parts []string
	if e.Expected != "" {
		parts = append(parts, fmt.Sprintf("expected %q", clean(e.Expected)))
	}
	if e.Actual != "" {
		parts = append(parts, fmt.Sprintf("got %q", clean(e.Actual)))
	}
	header := clean(e.Header)
	switch {
	case header != "" && len(parts) > 0:
		return header + ": " + strings.Join(parts, ", ")
	case header != "":
		return "header: " + header
	}
	return strings.Join(parts, ", ")
}

func (p *printer) headers(kind string, h http.Header) {
	if len(h) == 0 {
		return
	}
	names := make([]string, 0, len(h))
	for name := range h {
		names = append(names, name)
	}
	sort.Strings(names)
	p.wrapped(detailIndent, 2, kind+" headers:")
	for _, name := range names {
		for _, v := range h[name] {
			p.wrapped(detailIndent+2, 2, clean(name)+": "+clean(v))
		}
	}
}

// specRefs renders clauses as `RFC 9110 §8.6 (MUST)`, joined by "; ".
func specRefs(refs []finding.SpecRef) string {
	parts := make([]string, 0, len(refs))
	for _, r := range refs {
		s := clean(r.String())
		if level := clean(r.Level); level != "" {
			s += " (" + level + ")"
		}
		if s != "" {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, "; ")
}

func location(l *finding.SourceLocation) string {
	if l == nil || l.File == "" {
		return ""
	}
	s := fmt.Sprintf("%s:%d", clean(l.File), l.Line)
	if l.Column > 0 {
		s += fmt.Sprintf(":%d", l.Column)
	}
	if ptr := clean(l.Pointer); ptr != "" {
		s += " (" + ptr + ")"
	}
	return s
}
