package scan

import (
	"cmp"
	"net/http"
	"slices"
	"strings"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/jsonorder"
	"github.com/agentready/agentready/internal/score"
)

// Readiness grades the OpenAPI document's own agent readiness over the
// checks its rules mark Readiness, on the share of operations an agent
// could plan without a guess (score.Readiness), and lists the operations
// with the most deductions. It reads the report alone, so that lint, a
// scan and the merge of a scan's shards grade it alike; nil when no
// readiness check passed or failed.
func Readiness(rep *finding.Report) *finding.Readiness {
	mine := map[string]bool{}
	var rules []finding.RuleInfo
	for _, r := range rep.Rules {
		if r.Readiness {
			mine[r.ID] = true
			rules = append(rules, r)
		}
	}
	if len(rules) == 0 {
		return nil
	}
	var results []finding.CheckResult
	judged := false
	for _, c := range rep.Checks {
		if mine[c.ID] {
			results = append(results, c)
			judged = judged || c.Status == finding.StatusPass || c.Status == finding.StatusFail
		}
	}
	if !judged {
		return nil
	}
	operations := 0
	if rep.Spec != nil {
		operations = rep.Spec.Operations
	}
	in := score.ReadinessInput{Families: checks.FamilyNames(), Rules: rules, Results: results, Operations: operations}
	ops, index, deductions := []*operationDeductions{}, map[string]*operationDeductions{}, 0
	for i := range rep.Findings {
		f := &rep.Findings[i]
		if !mine[f.CheckID] {
			continue
		}
		deductions++
		g := score.Guess{CheckID: f.CheckID, Family: f.Family, Severity: f.Severity}
		op := operationOf(f)
		if op == "" {
			in.Document = score.AddGuess(in.Document, g)
			continue
		}
		o := index[op]
		if o == nil {
			o = &operationDeductions{hotspot: finding.Hotspot{Operation: op}}
			index[op] = o
			ops = append(ops, o)
		}
		o.add(f, g)
	}
	for _, o := range ops {
		in.ByOperation = append(in.ByOperation, o.guesses)
	}
	out := &finding.Readiness{Score: score.Readiness(in), Deductions: deductions, Operations: operations}
	out.Hotspots = hotspots(ops)
	out.Deducted = len(ops)
	if len(in.Document) > 0 {
		// A guess about the whole document is one on every operation.
		out.Deducted = max(operations, len(ops))
	}
	return out
}

// operationDeductions are the deductions that name one operation: the
// hotspot they make, and the guesses they leave.
type operationDeductions struct {
	hotspot finding.Hotspot
	guesses []score.Guess
}

func (o *operationDeductions) add(f *finding.Finding, g score.Guess) {
	h := &o.hotspot
	h.Deductions++
	if !slices.Contains(h.Checks, f.CheckID) {
		h.Checks = append(h.Checks, f.CheckID)
	}
	if f.Location != nil && (h.Location == nil || f.Location.Line < h.Location.Line) {
		loc := *f.Location
		h.Location = &loc
	}
	o.guesses = score.AddGuess(o.guesses, g)
}

// hotspots lists the operations with the most deductions, most first,
// then by the line of their first deduction: the first MaxHotspots.
func hotspots(ops []*operationDeductions) []finding.Hotspot {
	line := func(o *operationDeductions) int {
		if o.hotspot.Location == nil {
			return 0
		}
		return o.hotspot.Location.Line
	}
	sorted := slices.Clone(ops)
	slices.SortFunc(sorted, func(a, b *operationDeductions) int {
		return cmp.Or(b.hotspot.Deductions-a.hotspot.Deductions, line(a)-line(b), strings.Compare(a.hotspot.Operation, b.hotspot.Operation))
	})
	out := make([]finding.Hotspot, 0, min(len(sorted), finding.MaxHotspots))
	for _, o := range sorted[:min(len(sorted), finding.MaxHotspots)] {
		h := o.hotspot
		slices.Sort(h.Checks)
		out = append(out, h)
	}
	return out
}

// operationOf names the operation a deduction is about ("POST /orders"),
// or "" for one about the whole document: the operation its location is
// in, else the one its subject begins with. A parameter declared on the
// path, or a schema under components, is located outside the operation,
// and a readiness check's subject is the operation's key, then the
// pointer (checks/openapidoc's deduction).
func operationOf(f *finding.Finding) string {
	if f.Location != nil {
		if op := operationAt(f.Location); op != "" {
			return op
		}
	}
	method, rest, ok := strings.Cut(f.Subject, " ")
	if !ok || !httpMethods[method] || !strings.HasPrefix(rest, "/") {
		return ""
	}
	if f.Location != nil && f.Location.Pointer != "" {
		rest = strings.TrimSuffix(rest, " "+f.Location.Pointer)
	}
	return method + " " + rest
}

// httpMethods are the methods an OpenAPI path item names operations by.
var httpMethods = map[string]bool{
	http.MethodGet: true, http.MethodPut: true, http.MethodPost: true, http.MethodDelete: true,
	http.MethodOptions: true, http.MethodHead: true, http.MethodPatch: true, http.MethodTrace: true, "QUERY": true,
}

// operationAt names the operation a document location is in
// ("/paths/~1orders/post/…" is "POST /orders"), or "".
func operationAt(loc *finding.SourceLocation) string {
	if loc == nil || !strings.HasPrefix(loc.Pointer, "/paths/") {
		return ""
	}
	tokens := strings.SplitN(strings.TrimPrefix(loc.Pointer, "/paths/"), "/", 3)
	if len(tokens) < 2 || tokens[1] == "" || tokens[1] == "parameters" {
		return ""
	}
	return strings.ToUpper(jsonorder.Unescape(tokens[1])) + " " + jsonorder.Unescape(tokens[0])
}
