package pipeline

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/internal/config"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/spec"
)

// found is a finding of check on method and url, at sev.
func found(check, method, url, subject string, sev finding.Severity) finding.Finding {
	f := finding.Finding{CheckID: check, Family: strings.SplitN(check, "-", 2)[0], Severity: sev, Subject: subject, Message: check + " fired"}
	if url != "" {
		f.Evidence = []finding.Evidence{{Method: method, URL: url}}
	}
	return f
}

func checkIDs(fs []finding.Finding) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.CheckID + "@" + f.PrimaryURL()
	}
	return out
}

const ordersSpec = `openapi: 3.1.0
info: {title: orders, version: "1"}
paths:
  /orders/{id}:
    get:
      operationId: getOrder
      parameters: [{name: id, in: path, required: true, schema: {type: string}}]
      responses: {"200": {description: an order}}
`

func ordersDoc(t *testing.T) *spec.Document {
	t.Helper()
	doc, err := spec.Load([]byte(ordersSpec), "openapi.yaml", "openapi.yaml")
	if err != nil || len(doc.Operations) != 1 {
		t.Fatalf("load: %v, %d operation(s)", err, len(doc.Operations))
	}
	return doc
}

func TestStagesRunInTheDocumentedOrder(t *testing.T) {
	var names []string
	for _, s := range stages {
		names = append(names, s.Name())
	}
	want := []string{"locate", "fingerprint", "dedupe", "shard", "severity", "ignore", "recount", "baseline", "sort"}
	if !slices.Equal(names, want) {
		t.Fatalf("stages %v, want %v", names, want)
	}
}

func TestLocate(t *testing.T) {
	doc := ordersDoc(t)
	own := &finding.SourceLocation{File: "mine.yaml", Line: 3}
	tests := []struct {
		name    string
		doc     *spec.Document
		in      finding.Finding
		located bool
	}{
		{"matching request", doc, found("vary-accept", "GET", "http://h/orders/7", "", finding.SeverityWarning), true},
		{"no document", nil, found("vary-accept", "GET", "http://h/orders/7", "", finding.SeverityWarning), false},
		{"no operation", doc, found("vary-accept", "GET", "http://h/customers/7", "", finding.SeverityWarning), false},
		{"other method", doc, found("vary-accept", "DELETE", "http://h/orders/7", "", finding.SeverityWarning), false},
		{"no evidence", doc, found("vary-accept", "", "", "", finding.SeverityWarning), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := locate(&Pipeline{Doc: tt.doc}, []finding.Finding{tt.in})
			if got := out[0].Location != nil; got != tt.located {
				t.Fatalf("located %v, want %v", got, tt.located)
			}
			if tt.located && *out[0].Location != doc.Operations[0].Location {
				t.Errorf("location %+v, want the operation's %+v", *out[0].Location, doc.Operations[0].Location)
			}
		})
	}
	t.Run("own location kept", func(t *testing.T) {
		f := found("vary-accept", "GET", "http://h/orders/7", "", finding.SeverityWarning)
		f.Location = own
		if out := locate(&Pipeline{Doc: doc}, []finding.Finding{f}); out[0].Location != own {
			t.Errorf("location replaced by %+v", out[0].Location)
		}
	})
}

func TestFingerprint(t *testing.T) {
	fp := func(f finding.Finding) string { return fingerprint(&Pipeline{}, []finding.Finding{f})[0].Fingerprint }
	base := fp(found("vary-accept", "GET", "http://h:1/orders/7", "Accept", finding.SeverityWarning))
	tests := []struct {
		name string
		f    finding.Finding
		same bool
	}{
		{"other ID and port", found("vary-accept", "GET", "http://h:2/orders/8", "Accept", finding.SeverityError), true},
		{"other subject", found("vary-accept", "GET", "http://h:1/orders/7", "Prefer", finding.SeverityWarning), false},
		{"other method", found("vary-accept", "HEAD", "http://h:1/orders/7", "Accept", finding.SeverityWarning), false},
		{"other check", found("vary-prefer", "GET", "http://h:1/orders/7", "Accept", finding.SeverityWarning), false},
	}
	for _, tt := range tests {
		if got := fp(tt.f) == base; got != tt.same {
			t.Errorf("%s: same fingerprint %v, want %v", tt.name, got, tt.same)
		}
	}
}

// A finding about a document (the tool catalog a tools/list answer holds,
// the OpenAPI document a GET fetched) has the fingerprint of its check and
// subject, whichever URL served the document and whether a file held it,
// as lint reads it; any other finding keeps its method and path.
func TestFingerprintOfAFindingAboutADocumentHashesNoURL(t *testing.T) {
	fp := func(f finding.Finding) string { return fingerprint(&Pipeline{}, []finding.Finding{f})[0].Fingerprint }
	with := func(check, subject string, ev ...finding.Evidence) finding.Finding {
		return finding.Finding{CheckID: check, Subject: subject, Evidence: ev}
	}
	tests := []struct {
		name     string
		live     finding.Finding
		other    finding.Finding
		sameFile bool
	}{
		{"a tool",
			with("mcp-tool-name", "tool 0", finding.Evidence{Method: "POST", URL: "http://h:1/mcp", JSONPointer: "/result/tools/0/name"}),
			with("mcp-tool-name", "tool 0", finding.Evidence{Method: "POST", URL: "http://h:1/api/mcp", JSONPointer: "/result/tools/0/name"}), true},
		{"a tool the catalog lacks",
			with("mcp-parity-missing-tool", "POST /orders", finding.Evidence{Method: "POST", URL: "http://h:1/mcp", Purpose: "mcp/tools/list", JSONPointer: "/result/tools"}),
			with("mcp-parity-missing-tool", "POST /orders", finding.Evidence{Method: "POST", URL: "http://h:1/api/mcp", Purpose: "mcp/tools/list", JSONPointer: "/result/tools"}), true},
		{"the OpenAPI document",
			with("openapi-hal-spec-invalid", "bad $ref", finding.Evidence{Method: "GET", URL: "http://h:1/openapi.json", Purpose: checks.PurposeOpenAPI}),
			with("openapi-hal-spec-invalid", "bad $ref", finding.Evidence{Method: "GET", URL: "http://h:1/v3/openapi.yaml", Purpose: checks.PurposeOpenAPI}), true},
		{"a page, which is where it is",
			with("vary-accept", "Accept", finding.Evidence{Method: "GET", URL: "http://h:1/orders"}),
			with("vary-accept", "Accept", finding.Evidence{Method: "GET", URL: "http://h:1/items"}), false},
		{"the MCP endpoint, whose answer is judged",
			with("mcp-origin", "Origin", finding.Evidence{Method: "POST", URL: "http://h:1/mcp", Purpose: "mcp/foreign-origin"}),
			with("mcp-origin", "Origin", finding.Evidence{Method: "POST", URL: "http://h:1/api/mcp", Purpose: "mcp/foreign-origin"}), false},
	}
	for _, tt := range tests {
		if got := fp(tt.live) == fp(tt.other); got != tt.sameFile {
			t.Errorf("%s: served at two URLs, the same fingerprint %v, want %v", tt.name, got, tt.sameFile)
		}
		if !tt.sameFile {
			continue
		}
		// What lint sees: the document read from a file, no URL.
		offline := tt.live
		offline.Evidence = []finding.Evidence{{Method: "POST", JSONPointer: tt.live.Evidence[0].JSONPointer, Purpose: tt.live.Evidence[0].Purpose}}
		if tt.live.Evidence[0].Purpose == checks.PurposeOpenAPI {
			offline.Evidence = nil
		}
		if fp(offline) != fp(tt.live) {
			t.Errorf("%s: lint's fingerprint differs from the live scan's", tt.name)
		}
	}
}

func TestDedupe(t *testing.T) {
	a := found("vary-accept", "GET", "http://h/orders/1", "Accept", finding.SeverityWarning)
	otherURL := found("vary-accept", "GET", "http://h/orders/2", "Accept", finding.SeverityWarning)
	otherMessage := a
	otherMessage.Message = "said differently"
	tests := []struct {
		name string
		in   []finding.Finding
		want int
	}{
		{"same request twice", []finding.Finding{a, a}, 1},
		{"other URL", []finding.Finding{a, otherURL}, 2},
		{"other message", []finding.Finding{a, otherMessage}, 2},
		{"none", nil, 0},
	}
	for _, tt := range tests {
		if got := dedupe(&Pipeline{}, tt.in); len(got) != tt.want {
			t.Errorf("%s: %d left, want %d", tt.name, len(got), tt.want)
		}
	}
}

func TestOverrideSeverity(t *testing.T) {
	tests := []struct {
		name   string
		policy *Policy
		want   finding.Severity
	}{
		{"no policy", nil, finding.SeverityWarning},
		{"overridden", &Policy{Severity: map[string]finding.Severity{"vary-accept": finding.SeverityInfo}}, finding.SeverityInfo},
		{"another check", &Policy{Severity: map[string]finding.Severity{"vary-prefer": finding.SeverityError}}, finding.SeverityWarning},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &Pipeline{
				Policy:  tt.policy,
				Rules:   []finding.RuleInfo{{ID: "vary-accept", Severity: finding.SeverityWarning}},
				Results: []finding.CheckResult{{ID: "vary-accept", Status: finding.StatusFail, Severity: finding.SeverityWarning}},
			}
			fs := overrideSeverity(p, []finding.Finding{found("vary-accept", "GET", "http://h/", "", finding.SeverityWarning)})
			if fs[0].Severity != tt.want || p.Rules[0].Severity != tt.want || p.Results[0].Severity != tt.want {
				t.Errorf("finding %s, rule %s, result %s; want %s for all", fs[0].Severity, p.Rules[0].Severity, p.Results[0].Severity, tt.want)
			}
		})
	}
}

func TestIgnore(t *testing.T) {
	now := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	onOrder := found("vary-accept", "GET", "http://h/orders/1", "Accept", finding.SeverityWarning)
	onRoot := found("vary-accept", "GET", "http://h/", "Accept", finding.SeverityWarning)
	tests := []struct {
		name    string
		ignores []config.Ignore
		kept    int
		ignored int
		note    string
	}{
		{"whole check", []config.Ignore{{Check: "vary-accept", Reason: "legacy"}}, 0, 2, "2 finding(s) of vary-accept ignored by the configuration: legacy"},
		{"by URL", []config.Ignore{{Check: "vary-accept", URL: "/orders/*", Reason: "r"}}, 1, 1, "1 finding(s) of vary-accept (/orders/*) ignored"},
		{"by operation", []config.Ignore{{Check: "vary-accept", Operation: "getOrder", Reason: "r"}}, 1, 1, "1 finding(s) of vary-accept (getOrder) ignored"},
		{"expired", []config.Ignore{{Check: "vary-accept", Reason: "r", Expires: "2026-05-31"}}, 2, 0, "the ignore of vary-accept expired on 2026-05-31; 2 finding(s) it matched count again"},
		{"last day", []config.Ignore{{Check: "vary-accept", Reason: "r", Expires: "2026-06-01"}}, 0, 2, "2 finding(s) of vary-accept ignored"},
		{"matches nothing", []config.Ignore{{Check: "vary-prefer", Reason: "r"}}, 2, 0, "the ignore of vary-prefer matched no finding"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &Pipeline{Doc: ordersDoc(t), Policy: &Policy{Ignores: tt.ignores}, Now: now}
			kept := ignore(p, []finding.Finding{onOrder, onRoot})
			if len(kept) != tt.kept || len(p.Ignored) != tt.ignored {
				t.Fatalf("kept %d, ignored %d; want %d, %d", len(kept), len(p.Ignored), tt.kept, tt.ignored)
			}
			for _, f := range p.Ignored {
				if f.Suppression == nil || f.Suppression.Reason != tt.ignores[0].Reason {
					t.Errorf("ignored finding without its reason: %+v", f.Suppression)
				}
			}
			if len(p.Notes) != 1 || !strings.Contains(p.Notes[0], tt.note) {
				t.Errorf("notes %q, want one containing %q", p.Notes, tt.note)
			}
		})
	}
	t.Run("no policy", func(t *testing.T) {
		p := &Pipeline{}
		if kept := ignore(p, []finding.Finding{onOrder}); len(kept) != 1 || p.Ignored != nil || p.Notes != nil {
			t.Errorf("kept %d, ignored %d, notes %q", len(kept), len(p.Ignored), p.Notes)
		}
	})
}

func TestRecount(t *testing.T) {
	warn, info := finding.SeverityWarning, finding.SeverityInfo
	tests := []struct {
		name     string
		status   finding.CheckStatus
		kept     []finding.Finding
		ignored  []finding.Finding
		want     finding.CheckStatus
		findings int
		severity finding.Severity
	}{
		{"all ignored passes", finding.StatusFail, nil,
			[]finding.Finding{found("vary-accept", "GET", "http://h/1", "", warn)}, finding.StatusPass, 0, warn},
		{"some left keeps the highest left", finding.StatusFail,
			[]finding.Finding{found("vary-accept", "GET", "http://h/2", "", info)},
			[]finding.Finding{found("vary-accept", "GET", "http://h/1", "", warn)}, finding.StatusFail, 1, info},
		{"none ignored is untouched", finding.StatusFail,
			[]finding.Finding{found("vary-accept", "GET", "http://h/2", "", info)}, nil, finding.StatusFail, 2, warn},
		{"skipped is untouched", finding.StatusSkip, nil,
			[]finding.Finding{found("vary-accept", "GET", "http://h/1", "", warn)}, finding.StatusSkip, 2, warn},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &Pipeline{
				Results: []finding.CheckResult{{ID: "vary-accept", Status: tt.status, Findings: 2, Severity: warn}},
				Ignored: tt.ignored,
			}
			recount(p, tt.kept)
			r := p.Results[0]
			if r.Status != tt.want || r.Findings != tt.findings || r.Severity != tt.severity {
				t.Errorf("result %s, %d finding(s) at %s; want %s, %d at %s", r.Status, r.Findings, r.Severity, tt.want, tt.findings, tt.severity)
			}
			if noted := len(r.Observations) > 0; noted != (len(tt.ignored) > 0 && tt.status == finding.StatusFail) {
				t.Errorf("observations %q", r.Observations)
			}
		})
	}
}

func TestCompareBaseline(t *testing.T) {
	prints := func(fs ...finding.Finding) []finding.Finding { return fingerprint(&Pipeline{}, fs) }
	existing := prints(found("vary-accept", "GET", "http://h/orders/1", "Accept", finding.SeverityWarning))[0]
	fresh := prints(found("vary-accept", "GET", "http://h/", "Accept", finding.SeverityWarning))[0]
	ignored := prints(found("vary-prefer", "GET", "http://h/", "Prefer", finding.SeverityWarning))[0]
	fixed := prints(found("negotiation-head-status", "HEAD", "http://h/", "", finding.SeverityError))[0]
	unverified := prints(found("hal-self-link", "GET", "http://h/", "", finding.SeverityWarning))[0]
	b := BaselineFromFindings([]finding.Finding{existing, ignored, fixed, unverified})
	b.Path = "base.json"
	p := &Pipeline{
		Policy:  &Policy{Baseline: b},
		Ignored: []finding.Finding{ignored},
		Results: []finding.CheckResult{
			{ID: "vary-accept", Status: finding.StatusFail},
			{ID: "negotiation-head-status", Status: finding.StatusPass},
			{ID: "hal-self-link", Status: finding.StatusSkip},
		},
	}
	fs := compareBaseline(p, []finding.Finding{existing, fresh})
	if fs[0].BaselineState != finding.BaselineExisting || fs[1].BaselineState != finding.BaselineNew {
		t.Errorf("states %q, %q", fs[0].BaselineState, fs[1].BaselineState)
	}
	sum := p.Baseline
	if sum == nil || sum.New != 1 || sum.Existing != 1 || !sum.Stale {
		t.Fatalf("summary %+v", sum)
	}
	if len(sum.Fixed) != 1 || sum.Fixed[0].CheckID != "negotiation-head-status" {
		t.Errorf("fixed %+v; an ignored finding is not fixed, a skipped check's is not verified", sum.Fixed)
	}
	if len(sum.Unverified) != 1 || sum.Unverified[0].CheckID != "hal-self-link" {
		t.Errorf("unverified %+v", sum.Unverified)
	}
	if want := "baseline base.json: 1 new, 1 existing, 1 fixed, 1 not verified"; len(p.Notes) != 1 || !strings.HasPrefix(p.Notes[0], want) {
		t.Errorf("notes %q, want %q…", p.Notes, want)
	}
	if none := (&Pipeline{}); compareBaseline(none, fs) == nil || none.Baseline != nil {
		t.Error("no baseline gave a comparison")
	}
}

func TestSortFindings(t *testing.T) {
	e, w := finding.SeverityError, finding.SeverityWarning
	in := []finding.Finding{
		found("vary-accept", "GET", "http://h/b", "", w),
		found("vary-accept", "GET", "http://h/a", "", w),
		found("negotiation-head-status", "HEAD", "http://h/", "", w),
		found("vary-prefer", "GET", "http://h/", "", e),
	}
	want := []string{"vary-prefer@http://h/", "negotiation-head-status@http://h/", "vary-accept@http://h/a", "vary-accept@http://h/b"}
	p := &Pipeline{Ignored: slices.Clone(in)}
	if got := checkIDs(sortFindings(p, in)); !slices.Equal(got, want) {
		t.Errorf("findings %v, want %v", got, want)
	}
	if got := checkIDs(p.Ignored); !slices.Equal(got, want) {
		t.Errorf("ignored %v, want %v", got, want)
	}
}

// The tests below hold the order of stages to what depends on it.

func TestRunCountsADuplicateOnceInIgnores(t *testing.T) {
	f := found("vary-accept", "GET", "http://h/", "Accept", finding.SeverityWarning)
	p := &Pipeline{Policy: &Policy{Ignores: []config.Ignore{{Check: "vary-accept", Reason: "r"}}}}
	p.Run([]finding.Finding{f, f})
	if len(p.Ignored) != 1 || !strings.HasPrefix(p.Notes[0], "1 finding(s)") {
		t.Errorf("ignored %d, notes %q", len(p.Ignored), p.Notes)
	}
}

func TestRunSortsBySeverityAfterOverrides(t *testing.T) {
	fs := []finding.Finding{
		found("vary-accept", "GET", "http://h/", "", finding.SeverityError),
		found("vary-prefer", "GET", "http://h/", "", finding.SeverityWarning),
	}
	p := &Pipeline{Policy: &Policy{Severity: map[string]finding.Severity{"vary-accept": finding.SeverityInfo}}}
	if got := checkIDs(p.Run(fs)); got[0] != "vary-prefer@http://h/" {
		t.Errorf("order %v: the overridden info finding comes first", got)
	}
}

func TestRunComparesIgnoredFindingsWithTheBaseline(t *testing.T) {
	f := found("vary-accept", "GET", "http://h/", "Accept", finding.SeverityWarning)
	b := BaselineFromFindings(fingerprint(&Pipeline{}, []finding.Finding{f}))
	p := &Pipeline{
		Policy:  &Policy{Baseline: b, Ignores: []config.Ignore{{Check: "vary-accept", Reason: "r"}}},
		Results: []finding.CheckResult{{ID: "vary-accept", Status: finding.StatusFail, Findings: 1}},
	}
	p.Run([]finding.Finding{f})
	if b := p.Baseline; b == nil || len(b.Fixed) != 0 || b.Existing != 0 || b.New != 0 {
		t.Errorf("baseline %+v: an ignored finding is neither fixed nor counted", p.Baseline)
	}
}
