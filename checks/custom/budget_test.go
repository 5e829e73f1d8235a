package custom_test

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/checkstest"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/longtest"
)

// deepDocument is a JSON object of the given depth in which every object
// has fanout members, "k0"..., and a leaf "name"; it has no member "x".
func deepDocument(depth, fanout int) any {
	if depth == 0 {
		return "leaf"
	}
	m := map[string]any{}
	for i := range fanout {
		m[fmt.Sprintf("k%d", i)] = deepDocument(depth-1, fanout)
	}
	return m
}

// valuesIn counts v and the values below it, as the rule's budget does.
func valuesIn(v any) int {
	n := 1
	switch x := v.(type) {
	case map[string]any:
		for _, c := range x {
			n += valuesIn(c)
		}
	case []any:
		for _, c := range x {
			n += valuesIn(c)
		}
	}
	return n
}

// evaluate runs c as a scan does, and returns its result and findings.
func evaluate(c checks.Check, in *checks.Input) (finding.CheckResult, []finding.Finding) {
	results, fs := checks.Evaluate(context.Background(), in, []checks.Check{c})
	return results[0], fs
}

// stoppedRe is how the rule says it was stopped: by its budget of values
// visited, or by its limit of values selected.
var stoppedRe = regexp.MustCompile(`the rule was stopped on GET /orders/1 \(200\) after (visiting|selecting) (\d+) values`)

// Queries that reread a document at every level of it stop at the rule's
// budget for one document, in bounded memory, and the rule says so; it is
// an error, not a pass, when it found nothing in what it evaluated. Before
// the budget, each of these took seconds and one to two gigabytes here.
func TestPathologicalQueriesStopAtTheBudget(t *testing.T) {
	longtest.Skip(t, "runs queries over 3 MB until the rule's budget ends")
	doc := deepDocument(9, 4)
	body, _ := json.Marshal(doc)
	if len(body) < 3<<20 || len(body) > 4<<20 {
		t.Fatalf("document of %d bytes, want about 3.5 MB", len(body))
	}
	in := checkstest.Input("http://api.test/", nil, jsonPage(string(body)))
	// The exchange's own members (method, url, headers, ...) besides the body.
	const around = 64
	budget := max(1<<20, 8*(valuesIn(doc)+around))
	for _, given := range []string{"$..*..*", "$..[?@..x]", "$..*..[?@..x]", "$..[?count(@..*) > 1000000]"} {
		t.Run(given, func(t *testing.T) {
			// defined holds on every selected value: the rule can only
			// pass, or say it could not judge everything.
			c := compileRules(t, fmt.Sprintf("rules:\n  r:\n    target: exchange\n    given: %q\n    then: {function: defined}\n", given))["custom-r"]
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			res, fs := evaluate(c, in)
			runtime.ReadMemStats(&after)
			if res.Status != finding.StatusError || len(fs) != 0 {
				t.Fatalf("status %s with %d findings, want error: %s", res.Status, len(fs), res.Reason)
			}
			m := stoppedRe.FindStringSubmatch(res.Reason)
			if m == nil || !strings.Contains(res.Reason, "found no violation in what it evaluated") {
				t.Fatalf("reason = %q", res.Reason)
			}
			switch n, _ := strconv.Atoi(m[2]); {
			case m[1] == "visiting" && (n > budget || n < 1<<20):
				t.Errorf("visited %d values, want the budget, %d", n, budget)
			case m[1] == "selecting" && n != 100_000:
				t.Errorf("selected %d values, want the limit, 100000", n)
			}
			alloc := after.TotalAlloc - before.TotalAlloc
			t.Logf("%s: %s; %d MB allocated", given, m[0], alloc>>20)
			if alloc > 400<<20 {
				t.Errorf("allocated %d MB", alloc>>20)
			}
		})
	}
}

// A rule the budget stopped keeps the violations it found, and says that
// its verdict covers what it evaluated.
func TestStoppedRuleKeepsItsFindings(t *testing.T) {
	longtest.Skip(t, "walks a document of 262,144 leaves until the rule's budget ends")
	body, _ := json.Marshal(deepDocument(9, 4))
	in := checkstest.Input("http://api.test/", nil, jsonPage(string(body)))
	c := compileRules(t, "rules:\n  r:\n    target: exchange\n    given: \"$..*..*\"\n    then: {function: pattern, functionOptions: {notMatch: leaf}}\n")["custom-r"]
	res, fs := evaluate(c, in)
	if res.Status != finding.StatusFail || len(fs) != 100 {
		t.Fatalf("status %s with %d findings, want fail with 100", res.Status, len(fs))
	}
	var stopped bool
	for _, o := range res.Observations {
		stopped = stopped || strings.HasPrefix(o, "the rule was stopped on GET /orders/1 (200) after visiting") && strings.HasSuffix(o, ": its verdict covers what it evaluated")
	}
	if !stopped {
		t.Errorf("observations = %q", res.Observations)
	}
}

// A rule that reads the document once or a few times runs whole on the
// same document: every violation counted, nothing stopped.
func TestOrdinaryRuleRunsWhole(t *testing.T) {
	longtest.Skip(t, "evaluates three rules over a document of 262,144 leaves")
	body, _ := json.Marshal(deepDocument(9, 4))
	for _, given := range []string{"$..k3", "$.body..[?@.k0 && @.k1].k2", "$..*"} {
		in := checkstest.Input("http://api.test/", nil, jsonPage(string(body)))
		c := compileRules(t, fmt.Sprintf("rules:\n  r:\n    target: exchange\n    given: %q\n    then: {function: pattern, functionOptions: {notMatch: leaf}}\n", given))["custom-r"]
		res, fs := evaluate(c, in)
		want := "65436 more violations not reported (at most 100 per rule)"
		if given == "$..*" {
			want = "262044 more violations not reported (at most 100 per rule)"
		}
		if res.Status != finding.StatusFail || len(fs) != 100 || !slices.Equal(res.Observations, []string{want}) {
			t.Errorf("%s: status %s, %d findings, observations %q; want fail, 100, %q", given, res.Status, len(fs), res.Observations, want)
		}
	}
}
