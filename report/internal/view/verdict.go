package view

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/agentready/agentready/internal/finding"
)

// The first screen of every format says what the grade rests on: how it
// follows from the families (Basis), how much of the API the scan reached
// (CoverageLine, OperationsLine) and, when it reached nothing, why (Cause).
// These helpers give every reporter the same words.

// Basis is the one line under the grade that derives it from the families.
func Basis(r *finding.Report) string { return Line(r.Score.Basis, 300) }

// ShardLabel names the shard a report is of, so that no reader takes it
// for the whole scan: "shard 2/4 (partial)"; "" for a whole scan.
func ShardLabel(r *finding.Report) string {
	if r.Shard == nil {
		return ""
	}
	return "shard " + r.Shard.String() + " (partial)"
}

// Cause is the likely reason the scan reached no API resource, with what
// to pass instead; "" when it reached one.
func Cause(r *finding.Report) string {
	if r.Coverage == nil {
		return ""
	}
	return Line(r.Coverage.Cause, 600)
}

// FractionLabel is the share of GET operations reached, for beside the
// grade: "coverage 12% (11 of 88 GET operations)"; "" without a document.
func FractionLabel(r *finding.Report) string {
	c := r.Coverage
	if c == nil || c.Fraction == nil || c.Operations == nil {
		return ""
	}
	return fmt.Sprintf("coverage %d%% (%d of %d GET operations)", c.Percent(), c.Operations.Reached, c.Operations.Declared)
}

// statusClasses are the page classes in the order they are shown.
var statusClasses = []string{"1xx", "2xx", "3xx", "4xx", "5xx", "none"}

// CoverageLine says what the crawl reached: "reached 30 API resources;
// pages: 54 2xx, 5 3xx, 9 4xx"; "" when the report does not measure it.
func CoverageLine(r *finding.Report) string {
	c := r.Coverage
	if c == nil {
		return ""
	}
	var pages []string
	for _, class := range statusClasses {
		if n := c.Pages[class]; n > 0 {
			label := class
			if class == "none" {
				label = "unanswered"
			}
			pages = append(pages, fmt.Sprintf("%d %s", n, label))
		}
	}
	if len(pages) == 0 {
		pages = append(pages, "none")
	}
	s := fmt.Sprintf("reached %d API %s; pages: %s", c.APIResources, Plural(c.APIResources, "resource", "resources"), strings.Join(pages, ", "))
	if surfaces := surfaceNames(c.Surfaces); surfaces != "" {
		s += "; seen: " + surfaces
	}
	return s
}

var surfaceLabels = map[string]string{
	finding.SurfaceOpenAPI:         "OpenAPI document",
	finding.SurfaceHypermedia:      "hypermedia",
	finding.SurfaceMCP:             "MCP endpoint",
	finding.SurfaceStatefulActions: "stateful actions",
}

func surfaceNames(ss []string) string {
	var out []string
	for _, s := range ss {
		if l, ok := surfaceLabels[s]; ok {
			out = append(out, l)
		} else {
			out = append(out, Line(s, 40))
		}
	}
	return strings.Join(out, ", ")
}

// NoGrade says why a report has no grade, for beside "N/A".
func NoGrade(r *finding.Report) string {
	switch {
	case r.Coverage == nil && r.Score.Basis != "":
		// A linted document has no coverage: its grade's basis says why
		// there is none (it does not parse).
		return Line(r.Score.Basis, 200)
	case r.Coverage.Stopped():
		return Line(r.Coverage.Interrupted, 200)
	case r.Coverage.Throttled():
		return "the server throttled the crawl"
	case !r.Coverage.Reached():
		return "the scan reached no API resource"
	}
	return "nothing could be assessed"
}

// TLSUnverifiedLine warns, on the first screen, that the scan did not
// verify the servers' certificates (--insecure); "" when it did.
func TLSUnverifiedLine(r *finding.Report) string {
	if !r.TLSUnverified {
		return ""
	}
	return "TLS not verified (--insecure): the servers' certificates were not checked, so whoever answered may not be the target; the credentials given were sent to it all the same"
}

// PartialLine says, on the first screen, that the scan did not run to its
// end, so that its results are not read as a whole scan's: what stopped it
// and what it had recorded, or which phases its budget cut; "" for a scan
// that ran to its end.
func PartialLine(r *finding.Report) string {
	if r.Coverage.Stopped() {
		graded := 0
		for _, f := range r.Score.Families {
			if Graded(f) {
				graded++
			}
		}
		return fmt.Sprintf("%s: no grade; the findings are on what was recorded before it stopped (%d %s, %d %s, %d %s with checks judged)",
			Line(r.Coverage.Interrupted, 200), r.Stats.Pages, Plural(r.Stats.Pages, "page", "pages"),
			r.Stats.Requests, Plural(r.Stats.Requests, "request", "requests"), graded, Plural(graded, "family", "families"))
	}
	if r.Stats.Interrupted {
		// A report of an earlier release, or read back, without the reason.
		return "interrupted: the results are partial"
	}
	if len(r.Stats.BudgetCut) == 0 {
		return ""
	}
	phases := make([]string, len(r.Stats.BudgetCut))
	for i, p := range r.Stats.BudgetCut {
		phases[i] = cutPhase(p)
	}
	return "cut by the budget during " + joinAnd(phases) + ": graded on what was reached " +
		"(the notes say what was cut; raise --budget, or gate on the share reached with --min-coverage)"
}

// cutPhase names a phase of finding.Stats.BudgetCut.
func cutPhase(p string) string {
	switch p {
	case finding.CutCrawl:
		return "the crawl"
	case finding.CutProbes:
		return "the planned probes"
	case finding.CutMCP:
		return "the MCP examination"
	case finding.CutActive:
		return "the active probes"
	}
	return Line(p, 40)
}

func joinAnd(items []string) string {
	if len(items) < 2 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}

// ThrottlingLine says how many requests the server throttled (429, or 503
// with Retry-After) and how many stayed throttled once retried: "12 of 40
// requests throttled, 3 still throttled after retrying"; "" when none was.
func ThrottlingLine(r *finding.Report) string {
	if r.Coverage == nil || r.Coverage.Throttling == nil {
		return ""
	}
	t := r.Coverage.Throttling
	s := fmt.Sprintf("%d of %d %s throttled, %d still throttled after retrying", t.Throttled, t.Requests, Plural(t.Requests, "request", "requests"), t.StillThrottled)
	if t.CrawlThrottled > 0 {
		s += fmt.Sprintf(" (%d of the crawl's %d GET %s)", t.CrawlThrottled, t.CrawlGETs, Plural(t.CrawlGETs, "request", "requests"))
	}
	return s
}

// OperationsLine counts the document's GET operations reached and, for the
// rest, how many per reason: "GET operations: 11 of 88 reached; not
// reached: 40 needs-path-parameter, 37 answered-error"; "" without a
// document.
func OperationsLine(r *finding.Report) string {
	if r.Coverage == nil || r.Coverage.Operations == nil {
		return ""
	}
	ops := r.Coverage.Operations
	s := fmt.Sprintf("GET operations: %d of %d reached", ops.Reached, ops.Declared)
	if counts := ReasonCounts(ops); len(counts) > 0 {
		parts := make([]string, len(counts))
		for i, rc := range counts {
			parts[i] = fmt.Sprintf("%d %s", rc.Count, rc.Reason)
		}
		s += "; not reached: " + strings.Join(parts, ", ")
	}
	return s
}

// ReasonCount is how many operations were not reached for one reason.
type ReasonCount struct {
	Reason string
	Count  int
}

// ReasonCounts counts the unreached operations by reason, most first, then
// by reason.
func ReasonCounts(ops *finding.OperationCoverage) []ReasonCount {
	counts := map[string]int{}
	for _, it := range ops.Items {
		if !it.Reached {
			counts[Line(NonEmpty(it.Reason, "unknown"), 60)]++
		}
	}
	out := make([]ReasonCount, 0, len(counts))
	for reason, n := range counts {
		out = append(out, ReasonCount{reason, n})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Count != out[j].Count {
			return out[i].Count > out[j].Count
		}
		return out[i].Reason < out[j].Reason
	})
	return out
}

// Unreached lists the operations not reached, by path then method, for
// the detailed sections.
func Unreached(r *finding.Report) []finding.OperationReach {
	if r.Coverage == nil || r.Coverage.Operations == nil {
		return nil
	}
	var out []finding.OperationReach
	for _, it := range r.Coverage.Operations.Items {
		if !it.Reached {
			out = append(out, it)
		}
	}
	slices.SortStableFunc(out, func(a, b finding.OperationReach) int {
		if c := strings.Compare(a.Path, b.Path); c != 0 {
			return c
		}
		return strings.Compare(a.Method, b.Method)
	})
	return out
}

// FamilyState is the family's state, read leniently: a report written
// before states existed has only Assessed.
func FamilyState(f finding.FamilyScore) string {
	switch {
	case f.State != "":
		return f.State
	case f.Assessed:
		return finding.FamilyGraded
	}
	return finding.FamilyNotAssessed
}

// Graded reports a family with a letter.
func Graded(f finding.FamilyScore) bool { return FamilyState(f) == finding.FamilyGraded }

// StateLabel is "not present" or "not assessed" for a family without a
// letter, "" for a graded one.
func StateLabel(f finding.FamilyScore) string {
	switch FamilyState(f) {
	case finding.FamilyGraded:
		return ""
	case finding.FamilyNotPresent:
		return "not present"
	}
	return "not assessed"
}

// Judged is how many of a graded family's checks passed or failed, of all
// it ran: "1/16", so that a letter resting on few checks says so; "" for a
// family without a letter.
func Judged(f finding.FamilyScore) string {
	if !Graded(f) {
		return ""
	}
	return fmt.Sprintf("%d/%d", f.Passed+f.Failed, f.Passed+f.Failed+f.Skipped+f.Errored)
}

// PartlyJudged says on how many of its checks a graded family's letter
// rests, when not on all: "graded on 1 of 16 checks"; "" otherwise.
func PartlyJudged(f finding.FamilyScore) string {
	judged, total := f.Passed+f.Failed, f.Passed+f.Failed+f.Skipped+f.Errored
	if !Graded(f) || judged == total {
		return ""
	}
	return fmt.Sprintf("graded on %d of %d checks", judged, total)
}
