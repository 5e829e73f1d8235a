package html

import (
	"cmp"
	"fmt"
	"html/template"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/report/internal/view"
)

// Bounds on what one field shows; the JSON report keeps everything.
const (
	maxField   = 1000
	maxURL     = 2000
	maxExcerpt = 4000
	maxCurl    = 4096
)

// data is what the template sees: strings already bounded and stripped of
// control characters, left for html/template to escape.
type data struct {
	CSP, Tool, Version, Target, ToolURL string
	Grade, GradeClass, Coverage         string
	NoGrade, Fraction, Basis, Cause     string
	Reach                               []string
	Unreached                           []unreachedView
	Score                               int
	Graded, Interrupted                 bool
	Started                             string
	Families                            []familyView
	ChartHeight                         int
	Gate                                *gateView
	Readiness                           *readinessView
	Severities, FindingFamilies         []string
	Groups                              []groupView
	Matrices                            []matrixView
	Surface                             *matrixView
	Interfaces                          *interfacesView
	Trials                              *trialsView
	Summary                             view.Summary
	Checks                              []checkView
	Stats                               *statsView
	Notes                               []string
	Active                              *activeProbes
	CSS                                 template.CSS
	JS                                  template.JS
}

type familyView struct {
	Name, Grade, GradeClass, Reason         string
	State, Judged                           string
	Assessed                                bool
	Value, Passed, Failed, Skipped, Errored int
	Y, TextY, Bar                           int
}

type unreachedView struct{ Operation, Reason, Status string }

type gateView struct{ Verdict, Class, FailOn, Reason string }

// readinessView is the document's own readiness grade and its hotspot
// operations.
type readinessView struct {
	Grade, GradeClass                       string
	Value, Deductions, Deducted, Operations int
	Hotspots                                []hotspotView
}

type hotspotView struct {
	Operation, Checks string
	Deductions, Line  int
}

type clauseView struct{ Label, URL, Level string }

type groupView struct {
	CheckID, Title, Severity, Family string
	Security                         bool
	Count, Hidden                    int
	Clauses                          []clauseView
	DocsURL                          string
	Occurrences                      []occurrenceView
}

type occurrenceView struct {
	Message, Severity, Baseline, Location, Clauses string
	OtherSeverity                                  bool
	Evidence                                       []evidenceView
}

type evidenceView struct {
	Method, URL, Purpose, Diff, JSONPointer, Excerpt, Curl string
	Status                                                 int
	RequestHeaders, ResponseHeaders                        []view.Header
}

type checkView struct{ ID, Family, Status, Label, Detail string }

type statsView struct {
	Pages, Requests, Probes int
	Duration                string
	Sampling                []finding.ShapeSample
	Skipped                 []skipView
}

type skipView struct {
	Reason string
	Count  int
}

// matrixView is one state matrix: states across, controls down.
type matrixView struct {
	Caption string
	Columns []string
	Rows    []matrixRow
}

type matrixRow struct {
	Name  string
	Cells []matrixCell
}

// matrixCell is one cell of a matrix; Title, when set, explains it on hover.
type matrixCell struct{ Text, Class, Title string }

func line(s string) string { return view.Line(s, maxField) }

func build(r *finding.Report, opts Options) *data {
	d := &data{
		CSP:         CSP,
		CSS:         template.CSS(css),
		JS:          template.JS(js),
		Tool:        view.NonEmpty(line(r.Tool.Name), "agentready"),
		Version:     line(r.Tool.Version),
		Target:      withShard(view.Line(view.URL(r.Target), maxURL), r),
		Grade:       view.Line(view.Grade(r), 10),
		Score:       r.Score.Value,
		Summary:     view.Summarize(r),
		Interrupted: r.Stats.Interrupted,
	}
	if view.IsWebURL(r.Tool.DocsURL) {
		d.ToolURL = r.Tool.DocsURL
	}
	d.Graded = d.Grade != finding.GradeNotAssessed
	d.GradeClass = gradeClass(d.Grade)
	if !d.Graded {
		d.GradeClass = "grade-na"
	}
	d.Coverage = coverage(r, d.Summary)
	verdict(d, r)
	if !r.StartedAt.IsZero() {
		d.Started = r.StartedAt.UTC().Format(time.RFC3339)
	}
	d.Families, d.ChartHeight = families(r)
	d.Gate = gate(r.Gate)
	d.Readiness = readiness(r.Readiness)
	d.Groups, d.Severities, d.FindingFamilies = groups(r, opts)
	d.Matrices = matrices(r.States)
	d.Surface = surface(r.Surface)
	d.Interfaces = interfaces(r.Interfaces)
	d.Trials = trials(r.Trials)
	d.Checks = checkViews(r)
	// A lint report fetched nothing: it has no scan statistics to show.
	if !r.IsLint() {
		d.Stats = stats(r.Stats)
	}
	for _, n := range r.Notes {
		d.Notes = append(d.Notes, line(n))
	}
	d.Active = activeView(r.Active)
	return d
}

func coverage(r *finding.Report, s view.Summary) string {
	c := s.GradedOn("checks")
	if v := view.Line(r.Score.PolicyVersion, 20); v != "" {
		c += "; scoring policy v" + v
	}
	return c
}

// verdict fills what the first screen says the grade rests on.
func verdict(d *data, r *finding.Report) {
	d.NoGrade = line(view.NoGrade(r))
	d.Fraction, d.Cause = line(view.FractionLabel(r)), line(view.Cause(r))
	if d.Graded {
		d.Basis = line(view.Basis(r))
	}
	for _, l := range []string{view.TLSUnverifiedLine(r), view.CoverageLine(r), view.OperationsLine(r), view.ThrottlingLine(r), view.PartialLine(r)} {
		if l != "" {
			d.Reach = append(d.Reach, line(l))
		}
	}
	for _, op := range view.Unreached(r) {
		u := unreachedView{Operation: line(op.Method + " " + op.Path), Reason: line(op.Reason), Status: "–"}
		if op.Status != 0 {
			u.Status = fmt.Sprint(op.Status)
		}
		d.Unreached = append(d.Unreached, u)
	}
}

// families lays out one chart row per family: a 200-unit bar for 0–100.
func families(r *finding.Report) ([]familyView, int) {
	const rowHeight = 24
	var out []familyView
	for i, f := range r.Score.Families {
		v := familyView{
			Name: view.Line(f.Family, 100), Grade: view.Line(f.Grade, 10), Assessed: view.Graded(f),
			State: view.StateLabel(f), Judged: view.Judged(f),
			Reason: line(f.Reason), Value: f.Value, Passed: f.Passed, Failed: f.Failed, Skipped: f.Skipped, Errored: f.Errored,
			Y: i*rowHeight + 4, TextY: i*rowHeight + 17, Bar: min(max(f.Value, 0), 100) * 2,
		}
		v.GradeClass = gradeClass(v.Grade)
		out = append(out, v)
	}
	return out, len(out)*rowHeight + 4
}

func gate(g *finding.Gate) *gateView {
	if g == nil {
		return nil
	}
	v := &gateView{Verdict: "passed", Class: "passed", FailOn: g.FailOn.String(), Reason: line(g.Reason)}
	if !g.Passed {
		v.Verdict, v.Class = "failed", "failed"
	}
	return v
}

func readiness(rd *finding.Readiness) *readinessView {
	if rd == nil {
		return nil
	}
	v := &readinessView{Grade: view.Line(rd.Score.Grade, 10), Value: rd.Score.Value, Deductions: rd.Deductions, Deducted: rd.Deducted, Operations: rd.Operations}
	v.GradeClass = gradeClass(v.Grade)
	for _, h := range rd.Hotspots {
		hv := hotspotView{Operation: line(h.Operation), Checks: line(strings.Join(h.Checks, ", ")), Deductions: h.Deductions}
		if h.Location != nil {
			hv.Line = h.Location.Line
		}
		v.Hotspots = append(v.Hotspots, hv)
	}
	return v
}

func groups(r *finding.Report, opts Options) ([]groupView, []string, []string) {
	var out []groupView
	sevSet, famSet := map[string]bool{}, map[string]bool{}
	for _, g := range view.Groups(r) {
		gv := groupView{
			CheckID:  view.Line(g.CheckID, 200),
			Title:    line(g.Title()),
			Severity: g.Severity.String(),
			Family:   view.NonEmpty(view.Line(g.Family, 100), "unknown"),
			Count:    len(g.Findings),
		}
		if g.Rule != nil {
			gv.Clauses = clauses(g.Rule.SpecRefs)
			gv.Security = g.Rule.Security
			if view.IsWebURL(g.Rule.DocsURL) && len(g.Rule.DocsURL) <= maxURL {
				gv.DocsURL = g.Rule.DocsURL
			}
		}
		shown := g.Findings
		if len(shown) > opts.MaxOccurrences {
			gv.Hidden = len(shown) - opts.MaxOccurrences
			shown = shown[:opts.MaxOccurrences]
		}
		for i := range shown {
			gv.Occurrences = append(gv.Occurrences, occurrence(g, &shown[i]))
			gv.Security = gv.Security || shown[i].Security
		}
		sevSet[gv.Severity] = true
		famSet[gv.Family] = true
		out = append(out, gv)
	}
	var sevs []string
	for _, s := range []finding.Severity{finding.SeverityError, finding.SeverityWarning, finding.SeverityInfo} {
		if sevSet[s.String()] {
			sevs = append(sevs, s.String())
		}
	}
	fams := make([]string, 0, len(famSet))
	for f := range famSet {
		fams = append(fams, f)
	}
	sort.Strings(fams)
	return out, sevs, fams
}

func clauses(refs []finding.SpecRef) []clauseView {
	var out []clauseView
	for _, ref := range refs {
		c := clauseView{Label: line(ref.String()), Level: view.Line(ref.Level, 20)}
		if view.IsWebURL(ref.URL) && len(ref.URL) <= maxURL {
			c.URL = ref.URL
		}
		if strings.TrimSpace(c.Label) != "" {
			out = append(out, c)
		}
	}
	return out
}

func occurrence(g *view.Group, f *finding.Finding) occurrenceView {
	o := occurrenceView{
		Message:       line(f.Message),
		Severity:      f.Severity.String(),
		OtherSeverity: f.Severity != g.Severity,
		Baseline:      view.Line(f.BaselineState, 20),
	}
	if l := f.Location; l != nil && l.File != "" && l.Line > 0 {
		o.Location = fmt.Sprintf("%s:%d", view.Line(l.File, maxURL), l.Line)
		if l.Column > 0 {
			o.Location += fmt.Sprintf(":%d", l.Column)
		}
		if p := view.Line(l.Pointer, maxURL); p != "" {
			o.Location += " (" + p + ")"
		}
	}
	if g.Rule == nil || !slices.Equal(f.SpecRefs, g.Rule.SpecRefs) {
		o.Clauses = line(view.Clauses(f.SpecRefs))
	}
	for i := range f.Evidence {
		o.Evidence = append(o.Evidence, evidence(&f.Evidence[i]))
	}
	return o
}

func evidence(e *finding.Evidence) evidenceView {
	v := evidenceView{
		Method:          view.Line(e.Method, 20),
		URL:             view.Line(view.URL(e.URL), maxURL),
		Status:          e.Status,
		Purpose:         view.Line(e.Purpose, 200),
		JSONPointer:     view.Line(e.JSONPointer, maxURL),
		Excerpt:         view.Line(e.Excerpt, maxExcerpt),
		Curl:            view.Line(view.Curl(e.Curl), maxCurl),
		RequestHeaders:  headers(e.RequestHeaders),
		ResponseHeaders: headers(e.ResponseHeaders),
	}
	var parts []string
	if e.Expected != "" {
		parts = append(parts, fmt.Sprintf("expected %q", line(e.Expected)))
	}
	if e.Actual != "" {
		parts = append(parts, fmt.Sprintf("got %q", line(e.Actual)))
	}
	if h := view.Line(e.Header, 200); h != "" && len(parts) > 0 {
		v.Diff = h + ": " + strings.Join(parts, ", ")
	} else {
		v.Diff = strings.Join(parts, ", ")
	}
	return v
}

func headers(h map[string][]string) []view.Header {
	lines := view.Headers(h)
	for i := range lines {
		lines[i] = view.Header{Name: view.Line(lines[i].Name, 200), Value: line(lines[i].Value)}
	}
	return lines
}

func checkViews(r *finding.Report) []checkView {
	var out []checkView
	for _, c := range view.Checks(r) {
		status := string(c.Status)
		label := view.StatusLabel(c.Status)
		if label == "" {
			label, status = view.Line(status, 20), "error"
		}
		detail := line(c.Reason)
		if c.Status == finding.StatusFail {
			detail = view.FailedDetail(c)
		}
		out = append(out, checkView{ID: view.Line(c.ID, 200), Family: view.Line(c.Family, 100), Status: status, Label: label, Detail: detail})
	}
	return out
}

func stats(st finding.Stats) *statsView {
	v := &statsView{Pages: st.Pages, Requests: st.Requests, Probes: st.Probes}
	if st.DurationMS > 0 {
		v.Duration = (time.Duration(st.DurationMS) * time.Millisecond).Round(time.Millisecond).String()
	}
	samples := append([]finding.ShapeSample(nil), st.Sampling...)
	sort.SliceStable(samples, func(i, j int) bool { return samples[i].Shape < samples[j].Shape })
	for _, s := range samples {
		s.Shape = view.Line(s.Shape, maxURL)
		v.Sampling = append(v.Sampling, s)
	}
	reasons := make([]string, 0, len(st.Skipped))
	for reason := range st.Skipped {
		reasons = append(reasons, reason)
	}
	sort.Strings(reasons)
	for _, reason := range reasons {
		v.Skipped = append(v.Skipped, skipView{Reason: line(reason), Count: st.Skipped[reason]})
	}
	return v
}

// maxStates and maxControls bound a state matrix: an app that reports a
// new state on every resource must not produce a page-wide table.
const (
	maxStates   = 30
	maxControls = 100
)

// matrices lays out the report's state matrices.
func matrices(ms []finding.StateMatrix) []matrixView {
	var out []matrixView
	for _, m := range ms {
		states := m.States
		if len(states) > maxStates {
			states = states[:maxStates]
		}
		v := matrixView{Caption: fmt.Sprintf("%s (state from %q, %d %s)", view.Line(m.Kind, maxURL),
			view.Line(m.Member, 100), m.Resources, view.Plural(m.Resources, "resource", "resources"))}
		for _, s := range states {
			v.Columns = append(v.Columns, view.Line(s, 100))
		}
		for i, c := range m.Controls {
			if i == maxControls {
				break
			}
			offered := map[string]bool{}
			for _, s := range c.OfferedIn {
				offered[s] = true
			}
			row := matrixRow{Name: view.Line(c.Type, 50) + " " + view.Line(c.Name, 200)}
			for _, s := range states {
				cell := matrixCell{Text: "–", Class: "no"}
				if offered[s] {
					cell = matrixCell{Text: "✓", Class: "yes"}
				}
				row.Cells = append(row.Cells, cell)
			}
			v.Rows = append(v.Rows, row)
		}
		out = append(out, v)
	}
	return out
}

// maxSurfaceRows bounds the surface matrix the way maxControls bounds a
// state matrix.
const maxSurfaceRows = 500

// surface lays out the operation × projection matrix: each cell holds the
// names a projection uses for the operation, "–" when it names none, "not
// assessed" for a projection the scan could not read, and "not assessed for
// this caller" where a per-caller projection rightly omits an operation the
// scanned caller may not call.
func surface(m *finding.SurfaceMatrix) *matrixView {
	if m == nil || len(m.Rows) == 0 {
		return nil
	}
	v := &matrixView{Caption: "operations by projection"}
	for _, p := range m.Projections {
		v.Columns = append(v.Columns, view.Line(p.Name, 100))
	}
	for i, r := range m.Rows {
		if i == maxSurfaceRows {
			break
		}
		row := matrixRow{Name: view.Line(r.Operation, maxURL)}
		for j, p := range m.Projections {
			cell := matrixCell{Text: "–", Class: "no"}
			switch {
			case !p.Assessed:
				cell = matrixCell{Text: "not assessed", Class: "na"}
			case m.NotAssessedForCaller(r, j):
				cell = matrixCell{Text: "not assessed for this caller", Class: "na", Title: view.Line(r.NotForCaller, 300)}
			case j < len(r.Names) && len(r.Names[j]) > 0:
				names := make([]string, len(r.Names[j]))
				for k, n := range r.Names[j] {
					names[k] = view.Line(n, 200)
				}
				cell = matrixCell{Text: strings.Join(names, ", "), Class: "yes"}
			}
			row.Cells = append(row.Cells, cell)
		}
		v.Rows = append(v.Rows, row)
	}
	return v
}

// activeProbes is the HTML view of the state-changing requests sent.
type activeProbes struct {
	Allow, Confirmed string
	// Count says how many were sent, and how many of them changed state.
	Count string
	Sent  []activeSent
}

type activeSent struct {
	Method, URL, Identity, Purpose string
	Status                         int
}

func activeView(a *finding.ActiveInfo) *activeProbes {
	if a == nil {
		return nil
	}
	out := &activeProbes{Allow: line(strings.Join(a.Allow, ", ")), Confirmed: line(a.Confirmed), Count: view.ActiveSent(a.Sent, "request(s)")}
	for _, s := range a.Sent {
		who := s.Identity
		if who == "" {
			who = "the scan's caller"
		}
		out.Sent = append(out.Sent, activeSent{Method: line(s.Method), URL: line(view.URL(s.URL)), Identity: line(who), Purpose: line(s.Purpose), Status: s.Status})
	}
	return out
}

// withShard adds to the target the shard a report is of, if any.
func withShard(target string, r *finding.Report) string {
	if sh := view.ShardLabel(r); sh != "" {
		return target + " — " + sh
	}
	return target
}

// interfacesView is the interfaces section: the table, a bar per offered
// interface's choices per step, and the per-kind lines.
type interfacesView struct {
	Caption string
	Columns []string
	Rows    []interfaceRow
	Bars    []interfaceBar
	Kinds   [][]string
	Height  int
}

type interfaceRow struct {
	Name  string
	Cells []string
	// Span is the columns a "not offered" cell spans, 0 for a row of figures.
	Span int
}

// interfaceBar is one bar of the chart, its geometry computed here so the
// template only places numbers and escaped text.
type interfaceBar struct {
	Label, Value string
	Y, Width     int
}

// barSpan is the width in pixels of the longest bar.
const barSpan = 300

func interfaces(s *finding.Interfaces) *interfacesView {
	if s == nil {
		return nil
	}
	v := &interfacesView{Columns: finding.InterfaceColumns,
		Caption: fmt.Sprintf("catalog: %s; tokens: %s; medians over %d resources with an operation to choose",
			cmp.Or(s.Catalog, "none"), cmp.Or(s.Tokenizer, "not counted"), s.Resources)}
	most := 0.0
	for _, c := range s.Entries {
		if c.ChoicesPerStep != nil {
			most = max(most, *c.ChoicesPerStep)
		}
	}
	for _, c := range s.Entries {
		name := finding.InterfaceLetter(c.Interface) + " " + c.Interface
		row := interfaceRow{Name: name, Cells: finding.InterfaceRow(c)}
		if len(row.Cells) == 1 {
			row.Span = len(finding.InterfaceColumns)
		}
		v.Rows = append(v.Rows, row)
		if c.ChoicesPerStep == nil {
			continue
		}
		w := 0
		if most > 0 {
			w = int(*c.ChoicesPerStep / most * barSpan)
		}
		v.Bars = append(v.Bars, interfaceBar{Label: name, Value: finding.Figure(c.ChoicesPerStep), Y: 24 * len(v.Bars), Width: w})
	}
	v.Height = 24 * len(v.Bars)
	for _, k := range s.Kinds {
		row := []string{k.Kind, k.State, fmt.Sprint(k.Resources)}
		for _, c := range k.Entries {
			row = append(row, finding.KindSummary(c))
		}
		v.Kinds = append(v.Kinds, row)
	}
	return v
}

// trialsView is the trials section: the players' table, a bar per player
// of the tasks it completed, and one row per task.
type trialsView struct {
	Caption  string
	Columns  []string
	PlanOnly bool
	Rows     []interfaceRow
	Bars     []interfaceBar
	Height   int
	Tasks    [][]string
	// Cleanup totals what the trial created, cleaned and left; Left lists
	// what it left.
	Cleanup string
	Left    []string
}

func trials(t *finding.Trials) *trialsView {
	if t == nil {
		return nil
	}
	v := &trialsView{Caption: view.TrialCaption(t), Columns: view.TrialColumns, PlanOnly: t.PlanOnly,
		Cleanup: view.TrialCleanup(t), Left: view.TrialLeftLines(t)}
	most := 0
	for _, p := range t.Players {
		most = max(most, p.Tasks)
	}
	for _, p := range t.Players {
		name := p.Player + " " + p.Interface
		v.Rows = append(v.Rows, interfaceRow{Name: name, Cells: view.TrialPlayerRow(p)})
		if t.PlanOnly {
			continue
		}
		w := 0
		if most > 0 {
			w = p.Completed * barSpan / most
		}
		v.Bars = append(v.Bars, interfaceBar{Label: name, Value: fmt.Sprintf("%d of %d", p.Completed, p.Tasks), Y: 24 * len(v.Bars), Width: w})
	}
	v.Height = 24 * len(v.Bars)
	for _, task := range t.Tasks {
		what, runs := view.TrialTaskLine(task)
		v.Tasks = append(v.Tasks, []string{what, strings.Join(runs, "; ")})
	}
	return v
}
