package text

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"

	"charm.land/lipgloss/v2"

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
// indentation; minChunk is the least room worth starting a broken word in.
const (
	minText  = 20
	minChunk = 10
)

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

// wrapLines fills lines greedily, breaking at spaces: the first line holds
// first columns, the others rest. Runs of spaces inside a line are kept, so
// padded columns survive. A word longer than a whole line (a long URL, a
// hostile 100 KB header) is cut, preferably after a slash or hyphen.
// Widths are measured with lipgloss.Width, so styled words count for what
// they show.
func wrapLines(s string, first, rest int) []string {
	var lines []string
	var cur strings.Builder
	curWidth, words, avail := 0, 0, first
	flush := func() {
		lines = append(lines, strings.TrimRight(cur.String(), " "))
		cur.Reset()
		curWidth, words, avail = 0, 0, rest
	}
	add := func(word string, w int) {
		if words > 0 {
			cur.WriteByte(' ')
			curWidth++
		}
		cur.WriteString(word)
		curWidth += w
		words++
	}
	for _, word := range strings.Split(s, " ") {
		w := lipgloss.Width(word)
		if word == "" && words == 0 && len(lines) > 0 {
			continue // spaces where a line was broken
		}
		sep := min(words, 1)
		switch {
		case curWidth+sep+w <= avail:
			add(word, w)
		case w <= rest:
			flush()
			if word != "" {
				add(word, w)
			}
		default:
			if avail-curWidth-sep < minChunk {
				flush()
			}
			chunks := cutWord(word, avail-curWidth-min(words, 1), rest)
			for _, c := range chunks[:len(chunks)-1] {
				add(c, lipgloss.Width(c))
				flush()
			}
			last := chunks[len(chunks)-1]
			add(last, lipgloss.Width(last))
		}
	}
	if cur.Len() > 0 || len(lines) == 0 {
		flush()
	}
	return lines
}

// cutWord splits a word that fits on no line: the first piece into room
// columns, the others into rest.
func cutWord(word string, room, rest int) []string {
	head, tail, _ := strings.Cut(lipgloss.Wrap(word, room, "/"), "\n")
	pieces := []string{head}
	if tail != "" {
		pieces = append(pieces, strings.Split(lipgloss.Wrap(strings.ReplaceAll(tail, "\n", ""), rest, "/"), "\n")...)
	}
	return pieces
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

// coverage says how much of the scan the grade rests on, so a good grade
// from few checks is not mistaken for a thorough one.
func coverage(r *finding.Report) string {
	n := view.Summarize(r)
	s := fmt.Sprintf("graded on %d of %d %s", n.Passed+n.Failed, n.Total, view.Plural(n.Total, "check", "checks"))
	var extra []string
	if n.Skipped > 0 {
		extra = append(extra, fmt.Sprintf("%d skipped", n.Skipped))
	}
	if n.Errored > 0 {
		extra = append(extra, fmt.Sprintf("%d errored", n.Errored))
	}
	if len(extra) > 0 {
		s += " (" + strings.Join(extra, ", ") + ")"
	}
	if v := clean(r.Score.PolicyVersion); v != "" {
		s += "; scoring policy v" + v
	}
	return s
}

var familyColumns = []string{"Grade", "Score", "Passed", "Failed", "Skipped", "Errored"}

// columnGap separates table columns.
const columnGap = 2

// families prints the per-family table. Rows are never wrapped, since a
// wrapped row no longer reads as a table; the reason a family was not
// assessed follows its row when it fits and goes below it otherwise.
func (p *printer) families(r *finding.Report) {
	fams := r.Score.Families
	if len(fams) == 0 {
		return
	}
	nameWidth := len("Family")
	for _, f := range fams {
		nameWidth = max(nameWidth, lipgloss.Width(clean(f.Family)))
	}
	nameWidth += columnGap

	cells := func(name string, values []string) string {
		row := pad(name, nameWidth)
		for i, v := range values {
			row += pad(v, len(familyColumns[i])+columnGap)
		}
		return row
	}

	p.blank()
	p.raw(2, styleHeading.Render(strings.TrimRight(cells("Family", familyColumns), " ")))
	for _, f := range fams {
		grade, score := "-", "-"
		if view.Graded(f) {
			grade, score = gradeLabel(clean(f.Grade)), fmt.Sprint(f.Value)
		}
		row := cells(clean(f.Family), []string{grade, score,
			fmt.Sprint(f.Passed), fmt.Sprint(f.Failed), fmt.Sprint(f.Skipped), fmt.Sprint(f.Errored)})
		note := view.StateLabel(f) + " — " + clean(f.Reason)
		if view.Graded(f) {
			// A letter resting on part of the family says on how much.
			note = view.PartlyJudged(f)
		}
		if note == "" {
			p.raw(2, strings.TrimRight(row, " "))
			continue
		}
		reason := styleDim.Render(note)
		if 2+lipgloss.Width(row)+lipgloss.Width(reason) <= p.opts.Width {
			p.raw(2, row+reason)
			continue
		}
		p.raw(2, strings.TrimRight(row, " "))
		p.wrapped(2+nameWidth, 2, reason)
	}
}

// checks summarises how every check ended. Skip and error reasons are always
// shown: they say what the grade does not cover.
func (p *printer) checks(r *finding.Report) {
	if len(r.Checks) == 0 {
		return
	}
	results := append([]finding.CheckResult(nil), r.Checks...)
	sort.SliceStable(results, func(i, j int) bool { return results[i].ID < results[j].ID })

	var listed []finding.CheckResult
	idWidth := 0
	for _, c := range results {
		if p.opts.Verbose || c.Status == finding.StatusSkip || c.Status == finding.StatusError {
			listed = append(listed, c)
			idWidth = max(idWidth, lipgloss.Width(clean(c.ID)))
		}
	}
	p.heading("Checks")
	n := view.Summarize(r)
	p.wrapped(2, 2, fmt.Sprintf("%d run: %d passed, %d failed, %d skipped, %d errored",
		n.Total, n.Passed, n.Failed, n.Skipped, n.Errored))

	for _, c := range listed {
		line := pad(statusLabel(c.Status), 9) + pad(clean(c.ID), idWidth+2)
		switch {
		case c.Status == finding.StatusFail:
			line += view.FailedDetail(c)
		case c.Reason != "":
			line += clean(c.Reason)
		}
		p.wrapped(2, 9+idWidth+2, strings.TrimRight(line, " "))
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
		p.wrapped(2, 2, fmt.Sprintf("%d state-changing request(s) sent (allowed: %s; confirmed by %s)",
			len(a.Sent), clean(strings.Join(a.Allow, ", ")), clean(a.Confirmed)))
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

func (p *printer) gate(r *finding.Report) {
	g := r.Gate
	if g == nil {
		return
	}
	p.blank()
	verdict := styleGood.Render("passed")
	if !g.Passed {
		verdict = styleBad.Render("FAILED")
	}
	line := styleStrong.Render("Gate ") + verdict + " (fail on " + g.FailOn.String() + ")"
	if reason := clean(g.Reason); reason != "" {
		line += ": " + reason
	}
	p.wrapped(0, 2, line)
}

// curl bounds a curl line without folding it.
func curl(s string) string { return sanitize.Truncate(sanitize.Line(view.Curl(s)), maxCurl) }
