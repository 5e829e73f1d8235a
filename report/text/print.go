package text

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/sanitize"
	"github.com/agentready/agentready/report/internal/view"
)

// printer accumulates the rendered report.
type printer struct {
	opts Options
	b    *strings.Builder
}

// minText is the narrowest column wrapped text is given, however deep the
// indentation.
const minText = 20

// breakAfter are the characters, besides spaces and hyphens, after which
// ansi.Wrap may break a line: none, since a slash would then end a line
// that had room for the whole path. A word longer than a whole line (a
// URL, a hostile 100 KB header) is still cut, at its last hyphen that fits
// or at the edge.
const breakAfter = ""

// wrapped writes s starting at column indent; continuation lines start hang
// columns further in.
func (p *printer) wrapped(indent, hang int, s string) {
	if p.opts.Width-indent-hang < minText {
		// A deep hanging indent on a narrow terminal would leave a sliver.
		hang = max(0, p.opts.Width-indent-minText)
	}
	first := max(p.opts.Width-indent, minText)
	rest := max(p.opts.Width-indent-hang, minText)
	for i, line := range wrapLines(s, first, rest) {
		n := indent
		if i > 0 {
			n += hang
		}
		p.b.WriteString(strings.Repeat(" ", n))
		p.b.WriteString(line)
		p.b.WriteByte('\n')
	}
}

// wrapLines fills lines with ansi.Wrap, which measures what styled text
// shows and keeps runs of spaces inside a line (padded columns survive):
// the first line holds first columns, the others rest.
func wrapLines(s string, first, rest int) []string {
	head, _, _ := strings.Cut(ansi.Wrap(s, first, breakAfter), "\n")
	if !strings.HasPrefix(s, head) {
		// ansi.Wrap drops only the spaces where it breaks a line, so its
		// first line is where s starts; were that to change, the first
		// line would lose its extra room rather than a character.
		return lines(ansi.Wrap(s, rest, breakAfter))
	}
	out := []string{strings.TrimRight(head, " ")}
	if tail := strings.TrimLeft(s[len(head):], " "); tail != "" {
		out = append(out, lines(ansi.Wrap(tail, rest, breakAfter))...)
	}
	return out
}

// lines splits wrapped text into its lines, without the spaces that end
// them.
func lines(s string) []string {
	out := strings.Split(s, "\n")
	for i, line := range out {
		out[i] = strings.TrimRight(line, " ")
	}
	return out
}

// raw writes s at indent without wrapping, for text that must survive a
// copy and paste (curl lines).
func (p *printer) raw(indent int, s string) {
	p.b.WriteString(strings.Repeat(" ", indent))
	p.b.WriteString(s)
	p.b.WriteByte('\n')
}

func (p *printer) blank() { p.b.WriteByte('\n') }

func (p *printer) heading(s string) {
	p.blank()
	p.b.WriteString(styleHeading.Render(s))
	p.b.WriteByte('\n')
}

func (p *printer) header(r *finding.Report) {
	tool := clean(r.Tool.Name)
	if tool == "" {
		tool = "agentready"
	}
	if v := clean(r.Tool.Version); v != "" {
		tool += " " + v
	}
	title := styleStrong.Render(tool)
	if target := clean(view.URL(r.Target)); target != "" {
		title += " — " + target
	}
	if sh := view.ShardLabel(r); sh != "" {
		title += " — " + sh
	}
	p.wrapped(0, 2, title)
	p.blank()

	s := r.Score
	grade := clean(s.Grade)
	if grade == "" || grade == finding.GradeNotAssessed {
		p.wrapped(2, 2, styleStrong.Render("Grade "+finding.GradeNotAssessed)+"  ("+clean(view.NoGrade(r))+")")
	} else {
		line := styleStrong.Render("Grade ") + gradeLabel(grade) + fmt.Sprintf("  (%d/100)", s.Value)
		if f := view.FractionLabel(r); f != "" {
			line += "  " + f
		}
		p.wrapped(2, 2, line)
		if b := clean(view.Basis(r)); b != "" {
			p.wrapped(2, 4, b)
		}
	}
	if cause := clean(view.Cause(r)); cause != "" {
		p.wrapped(2, 4, styleStrong.Render("Cause: ")+cause)
	}
	if g := r.Gate; g != nil {
		verdict := styleGood.Render("passed")
		if !g.Passed {
			verdict = styleBad.Render("FAILED")
		}
		p.wrapped(2, 4, styleStrong.Render("Gate ")+verdict+gateDetail(g))
	}
	p.wrapped(2, 2, styleDim.Render(coverage(r)))
	for _, line := range []string{view.CoverageLine(r), view.OperationsLine(r), view.ThrottlingLine(r)} {
		if line = clean(line); line != "" {
			p.wrapped(2, 4, styleDim.Render(line))
		}
	}
	for _, line := range []string{view.PartialLine(r), view.TLSUnverifiedLine(r)} {
		if line = clean(line); line != "" {
			p.wrapped(2, 4, styleBad.Render(line))
		}
	}
}

// gateDetail is why the gate decided as it did, then the flags it judged
// by: ": 7 finding(s) at or above error (--fail-on error)".
func gateDetail(g *finding.Gate) string {
	s := ""
	if reason := clean(g.Reason); reason != "" {
		s = ": " + reason
	}
	if flags := gateFlags(g); flags != "" {
		s += " (" + flags + ")"
	}
	return s
}

// gateFlags names the flags the gate judged by: "--fail-on error".
func gateFlags(g *finding.Gate) string {
	var flags []string
	if g.FailOn != finding.SeverityNone {
		flags = append(flags, "--fail-on "+g.FailOn.String())
	}
	if u := clean(g.FailUnder); u != "" {
		flags = append(flags, "--fail-under "+u)
	}
	if g.MinCoverage > 0 {
		flags = append(flags, fmt.Sprintf("--min-coverage %d", g.MinCoverage))
	}
	return strings.Join(flags, ", ")
}

// coverage says how much of the scan the grade rests on, so a good grade
// from few checks is not mistaken for a thorough one.
func coverage(r *finding.Report) string {
	n := view.Summarize(r)
	s := n.GradedOn(view.Plural(n.Total, "check", "checks"))
	if v := clean(r.Score.PolicyVersion); v != "" {
		s += "; scoring policy v" + v
	}
	return s
}

// families prints the per-family table. A family's note (on how many of
// its checks its letter rests, or why it has none) is the last column,
// wrapped within it; on a terminal too narrow for that, the notes follow
// the table.
func (p *printer) families(r *finding.Report) {
	fams := r.Score.Families
	if len(fams) == 0 {
		return
	}
	// Errored checks are rare; their column is shown when one is.
	errored := slices.ContainsFunc(fams, func(f finding.FamilyScore) bool { return f.Errored > 0 })
	header := []string{"Family", "Grade", "Score", "Passed", "Failed", "Skipped"}
	if errored {
		header = append(header, "Errored")
	}
	var rows [][]string
	var notes []string
	for _, f := range fams {
		grade, score := "-", "-"
		if view.Graded(f) {
			grade, score = gradeLabel(clean(f.Grade)), fmt.Sprint(f.Value)
		}
		row := []string{clean(f.Family), grade, score, fmt.Sprint(f.Passed), fmt.Sprint(f.Failed), fmt.Sprint(f.Skipped)}
		if errored {
			row = append(row, fmt.Sprint(f.Errored))
		}
		note := view.StateLabel(f) + " — " + clean(f.Reason)
		if view.Graded(f) {
			// A letter resting on part of the family says on how much.
			note = view.PartlyJudged(f)
		}
		rows = append(rows, row)
		notes = append(notes, note)
	}

	p.blank()
	noted := make([][]string, len(rows))
	for i, row := range rows {
		noted[i] = append(slices.Clip(row), styleDim.Render(notes[i]))
	}
	if p.grid(2, grid{header: append(slices.Clip(header), ""), rows: noted}) {
		return
	}
	p.grid(2, grid{header: header, rows: rows})
	for i, f := range fams {
		if notes[i] != "" {
			p.wrapped(2, 4, clean(f.Family)+": "+styleDim.Render(notes[i]))
		}
	}
}

func statusLabel(s finding.CheckStatus) string {
	label := view.StatusLabel(s)
	switch s {
	case finding.StatusPass:
		return styleGood.Render(label)
	case finding.StatusFail, finding.StatusError:
		return styleBad.Render(label)
	case finding.StatusSkip:
		return styleDim.Render(label)
	}
	return clean(string(s))
}

func (p *printer) stats(r *finding.Report) {
	if !r.IsLint() {
		p.crawl(r.Stats)
	}
	if a := r.Active; a != nil {
		p.heading("Active probes")
		p.wrapped(2, 2, fmt.Sprintf("%s sent (allowed: %s; confirmed by %s)",
			view.ActiveSent(a.Sent, "request(s)"), clean(strings.Join(a.Allow, ", ")), clean(a.Confirmed)))
		for _, s := range a.Sent {
			p.wrapped(4, 2, fmt.Sprintf("%s %s as %s → %d [%s]", clean(s.Method), clean(view.URL(s.URL)), clean(view.NonEmpty(s.Identity, "the scan's caller")), s.Status, clean(s.Purpose)))
		}
	}

	if len(r.Notes) > 0 {
		p.heading("Notes")
		for _, n := range r.Notes {
			p.wrapped(2, 2, "- "+clean(n))
		}
	}
}

// crawl tells what the scan fetched; a lint report has no crawl to tell.
func (p *printer) crawl(st finding.Stats) {
	p.heading("Scan")
	d := (time.Duration(st.DurationMS) * time.Millisecond).Round(time.Millisecond)
	p.wrapped(2, 2, fmt.Sprintf("%d %s, %d %s, %d %s in %s",
		st.Pages, view.Plural(st.Pages, "page", "pages"),
		st.Requests, view.Plural(st.Requests, "request", "requests"),
		st.Probes, view.Plural(st.Probes, "probe", "probes"), d))
	if st.Interrupted {
		p.wrapped(2, 2, styleBad.Render("interrupted: the results are partial"))
	}
	p.addresses(st.Addresses)

	if len(st.Sampling) > 0 {
		p.wrapped(2, 2, "sampling (shape: seen → sampled)")
		samples := append([]finding.ShapeSample(nil), st.Sampling...)
		sort.SliceStable(samples, func(i, j int) bool { return samples[i].Shape < samples[j].Shape })
		for _, s := range samples {
			p.wrapped(4, 2, fmt.Sprintf("%s: %d → %d", clean(s.Shape), s.Seen, s.Sampled))
		}
	}

	if len(st.Skipped) > 0 {
		p.wrapped(2, 2, "skipped URLs")
		reasons := make([]string, 0, len(st.Skipped))
		for reason := range st.Skipped {
			reasons = append(reasons, reason)
		}
		sort.Strings(reasons)
		for _, reason := range reasons {
			p.wrapped(4, 2, fmt.Sprintf("%s: %d", clean(reason), st.Skipped[reason]))
		}
	}
}

// addresses names where the scan's connections went, one line per host
// name looked up.
func (p *printer) addresses(byHost map[string][]string) {
	if len(byHost) == 0 {
		return
	}
	p.wrapped(2, 2, "addresses connected to (each name looked up once)")
	for _, host := range slices.Sorted(maps.Keys(byHost)) {
		p.wrapped(4, 2, clean(host)+": "+clean(strings.Join(byHost[host], ", ")))
	}
}

// verdict ends the report with one line that repeats what the first
// screen said, for a terminal that scrolled it away: the grade, the gate
// and the findings by severity. The gate's reason is on the first screen;
// here its flags stand for it, so that the line fits 80 columns.
func (p *printer) verdict(r *finding.Report) {
	parts := []string{"grade " + gradeLabel(view.Grade(r))}
	if view.Grade(r) != finding.GradeNotAssessed {
		parts[0] += fmt.Sprintf(" (%d)", r.Score.Value)
	}
	if g := r.Gate; g != nil {
		verdict := styleGood.Render("gate passed")
		if !g.Passed {
			verdict = styleBad.Render("gate failed")
		}
		if flags := gateFlags(g); flags != "" {
			verdict += " (" + flags + ")"
		}
		parts = append(parts, verdict)
	}
	if n := len(r.Findings); n > 0 {
		parts = append(parts, fmt.Sprintf("%d %s: %s", n, view.Plural(n, "finding", "findings"), severityCounts(r)))
	} else {
		parts = append(parts, "no findings")
	}
	p.blank()
	p.wrapped(0, 2, strings.Join(parts, " · "))
}

// severityCounts is "7 error, 16 warning".
func severityCounts(r *finding.Report) string {
	counts := view.SeverityCounts(r)
	parts := make([]string, len(counts))
	for i, c := range counts {
		parts[i] = fmt.Sprintf("%d %s", c.Count, c.Severity)
	}
	return strings.Join(parts, ", ")
}

// curl bounds a curl line without folding it.
func curl(s string) string { return sanitize.Truncate(sanitize.Line(view.Curl(s)), maxCurl) }
