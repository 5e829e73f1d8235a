// Package markdown writes a report as GitHub-flavoured Markdown for
// $GITHUB_STEP_SUMMARY and pull-request comments: the grade and per-family
// scores, then the findings grouped by check, most severe first, with the
// first few URLs and the rest folded in <details>.
//
// The output is stable (no clock, no durations), so it diffs cleanly between
// runs, and it stays under GitHub's 1 MiB step-summary limit, or a smaller
// bound such as a pull-request comment's, by cutting with a note. Every string that may come from the scanned app is escaped: it can
// neither break a table, open a link or code span, inject HTML, nor mention
// anyone.
package markdown

import (
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/report/internal/view"
)

// Defaults for the zero Options.
const (
	// DefaultMaxBytes stays under the 1024 KiB GitHub accepts in a step
	// summary, with room for whatever else a workflow appends.
	DefaultMaxBytes = 1000 << 10
	DefaultMaxURLs  = 3
)

// Bounds on one field, before escaping.
const (
	maxField = 300
	maxURL   = 500
	// reserve is kept free for closing a <details> block and the
	// truncation note.
	reserve = 1 << 10
)

// Options shape the output.
type Options struct {
	// MaxURLs is how many occurrences of a check are shown before the
	// collapsed rest; 0 means DefaultMaxURLs.
	MaxURLs int
	// MaxBytes bounds the document; 0 means DefaultMaxBytes, and less than
	// MinMaxBytes means MinMaxBytes.
	MaxBytes int
	// FullReport is where the whole report can be read (a CI run's page); a
	// document that had to be cut links it from its note. Anything but a
	// plain web URL is left out.
	FullReport string
}

// MinMaxBytes is the least MaxBytes: room for the grade, the families and
// the gate of any report, and the closing note.
const MinMaxBytes = 8 * reserve

// Reporter writes Markdown.
type Reporter struct{ opts Options }

// New returns a Markdown reporter.
func New(opts Options) *Reporter {
	if opts.MaxURLs <= 0 {
		opts.MaxURLs = DefaultMaxURLs
	}
	if opts.MaxBytes <= 0 {
		opts.MaxBytes = DefaultMaxBytes
	}
	opts.MaxBytes = max(opts.MaxBytes, MinMaxBytes)
	return &Reporter{opts: opts}
}

// Write renders r.
func (rp *Reporter) Write(w io.Writer, r *finding.Report) error {
	if r == nil {
		return errors.New("markdown report: nil report")
	}
	d := &doc{maxURLs: rp.opts.MaxURLs, maxBytes: rp.opts.MaxBytes}
	if l := link("The full report", rp.opts.FullReport); l != "The full report" {
		d.fullReport = l
	}
	// The link is written in the closing note, from the reserve: the body
	// gives up its length.
	d.limit = rp.opts.MaxBytes - reserve - len(d.fullReport)
	d.header(r)
	d.families(r)
	d.gate(r)
	d.findings(r)
	d.checks(r)
	d.unreached(r)
	d.interfaces(r)
	d.trials(r)
	d.scan(r)
	d.truncationNote()
	_, err := io.WriteString(w, d.b.String())
	return err
}

// doc accumulates the document within a byte budget.
type doc struct {
	b        strings.Builder
	limit    int
	maxURLs  int
	maxBytes int
	// fullReport is the Markdown link to the whole report, if any.
	fullReport string
	// omitted counts what the budget left out.
	omittedChecks, omittedOccurrences int
	cut                               bool
}

func (d *doc) fits(s string) bool { return !d.cut && d.b.Len()+len(s) <= d.limit }

// add writes s when it fits and reports whether it did; once something has
// not fitted nothing more is written, so the document never skips ahead.
func (d *doc) add(s string) bool {
	if !d.fits(s) {
		d.cut = true
		return false
	}
	d.b.WriteString(s)
	return true
}

// must writes s regardless of the budget: closing tags, from the reserve.
func (d *doc) must(s string) { d.b.WriteString(s) }

func (d *doc) header(r *finding.Report) {
	tool := view.NonEmpty(text(r.Tool.Name, 100), "agentready")
	grade := view.Grade(r)
	line := fmt.Sprintf("## %s: grade **%s**", tool, text(grade, 10))
	switch {
	case grade != finding.GradeNotAssessed:
		line += fmt.Sprintf(" (%d/100)", r.Score.Value)
		if f := view.FractionLabel(r); f != "" {
			line += " · " + text(f, 100)
		}
	default:
		line += " (" + text(view.NoGrade(r), maxField) + ")"
	}
	d.add(line + "\n\n")
	if b := view.Basis(r); b != "" && grade != finding.GradeNotAssessed {
		d.add(text(b, maxField) + "\n\n")
	}
	if cause := view.Cause(r); cause != "" {
		d.add("> **Cause:** " + text(cause, 2*maxField) + "\n\n")
	}
	if warning := view.TLSUnverifiedLine(r); warning != "" {
		d.add("> **Warning:** " + text(warning, 2*maxField) + "\n\n")
	}
	var reach []string
	for _, l := range []string{view.CoverageLine(r), view.OperationsLine(r), view.ThrottlingLine(r), view.PartialLine(r)} {
		if l != "" {
			reach = append(reach, text(l, 2*maxField))
		}
	}
	if len(reach) > 0 {
		d.add("Coverage: " + strings.Join(reach, " · ") + "\n\n")
	}

	s := view.Summarize(r)
	parts := []string{}
	if t := code(view.URL(r.Target), maxURL, false); t != "" {
		parts = append(parts, t)
	}
	if sh := view.ShardLabel(r); sh != "" {
		parts = append(parts, "**"+sh+"**")
	}
	parts = append(parts, s.GradedOn("checks"))
	if v := text(r.Score.PolicyVersion, 20); v != "" {
		parts = append(parts, "scoring policy v"+v)
	}
	if r.Stats.Interrupted {
		parts = append(parts, "**interrupted: results are partial**")
	}
	d.add(strings.Join(parts, " · ") + "\n\n")
}

func (d *doc) families(r *finding.Report) {
	if len(r.Score.Families) == 0 {
		return
	}
	var b strings.Builder
	b.WriteString("| Family | Grade | Score | Judged | Passed | Failed | Skipped | Errored | Note |\n")
	b.WriteString("| --- | :---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n")
	for _, f := range r.Score.Families {
		grade, score, judged, note := "–", "–", "–", ""
		if view.Graded(f) {
			grade, score, judged = text(f.Grade, 10), fmt.Sprint(f.Value), view.Judged(f)
		} else {
			note = view.StateLabel(f) + ": " + text(f.Reason, maxField)
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %d | %d | %d | %d | %s |\n",
			view.NonEmpty(text(f.Family, 100), "?"), grade, score, judged, f.Passed, f.Failed, f.Skipped, f.Errored, note)
	}
	b.WriteString("\n")
	d.add(b.String())
}

func (d *doc) gate(r *finding.Report) {
	g := r.Gate
	if g == nil {
		return
	}
	verdict := "passed"
	if !g.Passed {
		verdict = "failed"
	}
	line := fmt.Sprintf("> **Gate %s** (fail on %s)", verdict, g.FailOn)
	if reason := text(g.Reason, maxField); reason != "" {
		line += ": " + reason
	}
	d.add(line + "\n\n")
}

var severityMark = map[finding.Severity]string{
	finding.SeverityError:   "🔴 error",
	finding.SeverityWarning: "🟡 warning",
	finding.SeverityInfo:    "🔵 info",
}

func (d *doc) findings(r *finding.Report) {
	groups := view.Groups(r)
	d.add("### Findings\n\n")
	if len(groups) == 0 {
		d.add("No findings.\n\n")
		return
	}
	d.add(fmt.Sprintf("%d %s failed, %d %s in all.\n\n",
		len(groups), view.Plural(len(groups), "check", "checks"), len(r.Findings), view.Plural(len(r.Findings), "occurrence", "occurrences")))
	blocks := make([]block, len(groups))
	for i, g := range groups {
		blocks[i] = d.block(g)
	}
	room := 0
	if !d.cut {
		room = d.limit - d.b.Len()
	}
	// What does not fit is left out from the end, in two rounds: first the
	// folded occurrences, then whole checks. So a document that is cut
	// (a pull-request comment far smaller than the report) still names
	// every failing check it can, the most severe first, with its first
	// occurrences, rather than spend itself on the first check's long list.
	heads := 0
	for _, b := range blocks {
		if len(b.head) > room {
			break
		}
		room -= len(b.head)
		heads++
	}
	folded := make([]int, heads)
	for i := range folded {
		b := &blocks[i]
		if len(b.rest) == 0 {
			continue
		}
		if cost := b.foldedCost(len(b.rest)); cost <= room {
			folded[i] = len(b.rest)
			room -= cost
			continue
		}
		for folded[i] < len(b.rest) && b.foldedCost(folded[i]+1) <= room {
			folded[i]++
		}
		// Never skip ahead to a later check's folded list.
		break
	}
	// The room was measured above: what is written here fits.
	for i, b := range blocks {
		if i >= heads {
			d.cut = true
			d.omittedChecks++
			d.omittedOccurrences += len(groups[i].Findings)
			continue
		}
		d.b.WriteString(b.head)
		if n := folded[i]; n > 0 {
			d.b.WriteString(b.folded(n))
		}
		if left := len(b.rest) - folded[i]; left > 0 {
			d.cut = true
			d.omittedOccurrences += left
		}
	}
}

// block is one check's part of the findings: its heading with the first
// occurrences, then the rest folded in <details>.
type block struct {
	head string
	rest []string
	// restBytes[n] is the length of the first n of rest.
	restBytes []int
}

// folded is the <details> block of the first n folded occurrences.
func (b *block) folded(n int) string {
	return b.summary(n) + strings.Join(b.rest[:n], "") + closeDetails
}

func (b *block) foldedCost(n int) int {
	return len(b.summary(n)) + b.restBytes[n] + len(closeDetails)
}

// summary says how many occurrences are folded, and how many of them
// are shown when the budget cut the list.
func (b *block) summary(n int) string {
	all := len(b.rest)
	more := view.Plural(all, "occurrence", "occurrences")
	if n < all {
		return fmt.Sprintf("<details><summary>%d of %d more %s</summary>\n\n", n, all, more)
	}
	return fmt.Sprintf("<details><summary>%d more %s</summary>\n\n", all, more)
}

const closeDetails = "\n</details>\n\n"

func (d *doc) block(g *view.Group) block {
	n := len(g.Findings)
	mark := severityMark[g.Severity]
	if mark == "" {
		mark = text(g.Severity.String(), 20)
	}
	var head strings.Builder
	fmt.Fprintf(&head, "#### %s: %s %s (%d)\n\n", mark, code(g.CheckID, 200, false), text(g.Title(), maxField), n)
	var meta []string
	if g.Rule != nil {
		if c := text(view.Clauses(g.Rule.SpecRefs), maxField); c != "" {
			meta = append(meta, c)
		}
		if docs := link("docs", g.Rule.DocsURL); docs != "docs" {
			meta = append(meta, docs)
		}
	}
	if len(meta) > 0 {
		head.WriteString(strings.Join(meta, " · ") + "\n\n")
	}
	shown := min(n, d.maxURLs)
	for i := range g.Findings[:shown] {
		head.WriteString(occurrence(g, &g.Findings[i]))
	}
	head.WriteString("\n")
	b := block{head: head.String(), restBytes: []int{0}}
	rest := g.Findings[shown:]
	for i := range rest {
		o := occurrence(g, &rest[i])
		b.rest = append(b.rest, o)
		b.restBytes = append(b.restBytes, b.restBytes[i]+len(o))
	}
	return b
}

// occurrence is one list item: the exchange, then the message.
func occurrence(g *view.Group, f *finding.Finding) string {
	var parts []string
	if len(f.Evidence) > 0 {
		e := &f.Evidence[0]
		ex := strings.TrimSpace(text(e.Method, 20) + " " + code(view.URL(e.URL), maxURL, false))
		if e.Status > 0 {
			ex += fmt.Sprintf(" → %d", e.Status)
		}
		if ex != "" {
			parts = append(parts, ex)
		}
	}
	msg := text(f.Message, maxField)
	if f.Severity != g.Severity {
		msg += " [" + f.Severity.String() + "]"
	}
	if f.Security {
		msg += " [security]"
	}
	if st := text(f.BaselineState, 20); st != "" {
		msg += " [" + st + "]"
	}
	parts = append(parts, msg)
	if l := f.Location; l != nil && l.File != "" && l.Line > 0 {
		parts = append(parts, "spec "+code(fmt.Sprintf("%s:%d", l.File, l.Line), maxURL, false))
	}
	return "- " + strings.Join(parts, ": ") + "\n"
}

// checks folds the table of every check, with skip and error reasons: what
// the grade does not cover.
func (d *doc) checks(r *finding.Report) {
	results := view.Checks(r)
	if len(results) == 0 || d.cut {
		return
	}
	s := view.Summarize(r)
	if !d.add(fmt.Sprintf("<details><summary>%d checks: %d passed, %d failed, %d skipped, %d errored</summary>\n\n",
		s.Total, s.Passed, s.Failed, s.Skipped, s.Errored)) {
		return
	}
	d.add("| Check | Family | Status | Detail |\n| --- | --- | --- | --- |\n")
	for _, c := range results {
		status := view.StatusLabel(c.Status)
		if status == "" {
			status = text(string(c.Status), 20)
		}
		detail := text(c.Reason, maxField)
		if c.Status == finding.StatusFail {
			detail = view.FailedDetail(c)
		}
		if !d.add(fmt.Sprintf("| %s | %s | %s | %s |\n", code(c.ID, 200, true), text(c.Family, 100), status, detail)) {
			break
		}
	}
	d.must("\n</details>\n\n")
}

// unreached lists the document's GET operations the scan did not reach,
// folded: the first screen has their count per reason.
func (d *doc) unreached(r *finding.Report) {
	ops := view.Unreached(r)
	if len(ops) == 0 || d.cut {
		return
	}
	if !d.add(fmt.Sprintf("<details><summary>%d GET %s not reached</summary>\n\n| Operation | Reason | Status |\n| --- | --- | ---: |\n",
		len(ops), view.Plural(len(ops), "operation", "operations"))) {
		return
	}
	for _, op := range ops {
		status := "–"
		if op.Status != 0 {
			status = fmt.Sprint(op.Status)
		}
		if !d.add(fmt.Sprintf("| %s | %s | %s |\n", code(op.Method+" "+op.Path, 300, true), text(op.Reason, 60), status)) {
			break
		}
	}
	d.must("\n</details>\n\n")
}

// scan gives the counts that explain how much was looked at; no duration,
// so the document is the same for the same app. A lint report fetched
// nothing, so it has no counts to give.
func (d *doc) scan(r *finding.Report) {
	if !r.IsLint() {
		d.crawl(r.Stats)
	}
	if a := r.Active; a != nil {
		d.add(fmt.Sprintf("**Active probes:** %s sent (allowed: %s; confirmed by %s).\n\n",
			view.ActiveSent(a.Sent, view.Plural(len(a.Sent), "request", "requests")), text(strings.Join(a.Allow, ", "), maxField), text(a.Confirmed, 20)))
		for _, s := range a.Sent {
			who := s.Identity
			if who == "" {
				who = "the scan's caller"
			}
			d.add(fmt.Sprintf("- %s %s as %s → %d (%s)\n", text(s.Method, 10), text(view.URL(s.URL), maxField), text(who, 100), s.Status, text(s.Purpose, 100)))
		}
		if len(a.Sent) > 0 {
			d.add("\n")
		}
	}
	for _, n := range r.Notes {
		if !d.add("> " + text(n, maxField) + "\n\n") {
			return
		}
	}
}

func (d *doc) crawl(st finding.Stats) {
	d.add(fmt.Sprintf("Scanned %d %s with %d %s (%d %s).\n\n",
		st.Pages, view.Plural(st.Pages, "page", "pages"), st.Requests, view.Plural(st.Requests, "request", "requests"),
		st.Probes, view.Plural(st.Probes, "probe", "probes")))
	if len(st.Skipped) > 0 {
		reasons := make([]string, 0, len(st.Skipped))
		for reason := range st.Skipped {
			reasons = append(reasons, reason)
		}
		sort.Strings(reasons)
		var parts []string
		for _, reason := range reasons {
			parts = append(parts, fmt.Sprintf("%s: %d", text(reason, 100), st.Skipped[reason]))
		}
		d.add("URLs not fetched: " + strings.Join(parts, ", ") + ".\n\n")
	}
}

func (d *doc) truncationNote() {
	if !d.cut {
		return
	}
	note := "> **Cut to stay under GitHub's 1 MiB summary limit.**"
	if d.maxBytes != DefaultMaxBytes {
		note = fmt.Sprintf("> **Cut to stay under %d bytes.**", d.maxBytes)
	}
	if d.omittedChecks > 0 || d.omittedOccurrences > 0 {
		note += fmt.Sprintf(" Not shown: %d %s and %d %s.", d.omittedChecks, view.Plural(d.omittedChecks, "check", "checks"),
			d.omittedOccurrences, view.Plural(d.omittedOccurrences, "occurrence", "occurrences"))
	}
	if d.fullReport != "" {
		note += " " + d.fullReport + " has everything.\n"
	} else {
		note += " The JSON and HTML reports have everything.\n"
	}
	d.must(note)
}
