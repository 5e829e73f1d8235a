package scan_test

import (
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/problemjson"
	"github.com/agentready/agentready/fixtures/demo"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/scan"
	"github.com/agentready/agentready/internal/spec"
	"github.com/agentready/agentready/probe"
)

func TestErrorProbesAreSentAndListed(t *testing.T) {
	t.Parallel()
	scanned := shared(t, conformantScanned)
	rep, reqs := scanned.rep, scanned.requests
	for _, want := range []string{
		"GET /" + problemjson.MissingID,
		"GET /orders/" + problemjson.MissingID,
		"GET /orders", // the query probes, whose query the log leaves out
	} {
		if !slices.Contains(reqs, want) {
			t.Errorf("no request %q", want)
		}
	}
	// A missing resource is asked with GET, then with HEAD; nothing else.
	for _, r := range reqs {
		if strings.Contains(r, problemjson.MissingID) && !strings.HasPrefix(r, "GET ") && !strings.HasPrefix(r, "HEAD ") {
			t.Errorf("error probe sent as %q", r)
		}
		if path, ok := strings.CutPrefix(r, "HEAD "); ok && strings.Contains(r, problemjson.MissingID) && !slices.Contains(reqs, "GET "+path) {
			t.Errorf("%q sent without its GET", r)
		}
	}
	if !slices.Contains(reqs, "HEAD /orders/"+problemjson.MissingID) {
		t.Errorf("no HEAD of the missing order")
	}
	note := regexp.MustCompile(`^problem-json: (\d+) safe error probes sent \(GET, HEAD\): .*not-found-child.*not-found-head.*unknown-path`)
	found := false
	for _, n := range rep.Notes {
		found = found || note.MatchString(n)
	}
	if !found {
		t.Errorf("notes %q do not count the error probes", rep.Notes)
	}
	for _, c := range rep.Checks {
		if c.Family == string(checks.FamilyProblemJSON) && c.Status == finding.StatusSkip && !strings.Contains(c.Reason, "OpenAPI") && c.ID != neverThrottled {
			t.Errorf("%s skipped on the demo: %s", c.ID, c.Reason)
		}
	}
}

// demoSpec describes the demo's item routes; notFoundType is the problem
// type it pins for a missing order.
func demoSpec(notFoundType string) *spec.Document {
	problem := func(types ...any) spec.Response {
		props := map[string]any{"status": map[string]any{"type": "integer"}}
		if len(types) > 0 {
			props["type"] = map[string]any{"enum": types}
		}
		return spec.Response{Content: map[string]map[string]any{"application/problem+json": {"properties": props}}}
	}
	ok := spec.Response{Content: map[string]map[string]any{"application/hal+json": nil}}
	return &spec.Document{File: "openapi.yaml", Operations: []*spec.Operation{
		// 5XX, which covers none of the 406s the scan is answered: every
		// operation declares its errors as problem details.
		{Method: "GET", PathTemplate: "/", Responses: map[string]spec.Response{"200": ok, "5XX": problem()}},
		{Method: "GET", PathTemplate: "/orders", Responses: map[string]spec.Response{"200": ok, "4XX": problem()}},
		{Method: "GET", PathTemplate: "/orders/{id}", Responses: map[string]spec.Response{"200": ok, "404": problem(notFoundType)}},
		{Method: "GET", PathTemplate: "/subscriptions/{id}", Responses: map[string]spec.Response{"200": ok, "404": problem(notFoundType)}},
		{Method: "GET", PathTemplate: "/checkouts/{id}", Responses: map[string]spec.Response{"200": ok, "404": problem(notFoundType)}},
	}}
}

// neverThrottled is the problem-json check that judges 429 and 503 answers,
// which the demo never sends: it skips on every scan of it.
const neverThrottled = "problem-json-retry-after"

// scanWithSpec scans the demo with a given OpenAPI document (or, when doc
// is nil, with the one the demo serves, discovered) and returns the
// problem-json checks that fired.
func scanWithSpec(t *testing.T, doc *spec.Document, defects ...demo.Defect) []string {
	t.Helper()
	rep := mustScan(t, demo.New(defects...), scan.Options{Probe: probe.Config{Spec: probe.SpecConfig{Document: doc, Discover: doc == nil}}})
	for _, r := range rep.Checks {
		if r.Family == string(checks.FamilyProblemJSON) && (r.Status == finding.StatusError || r.Status == finding.StatusSkip && r.ID != neverThrottled) {
			t.Errorf("%s: %s %s", r.ID, r.Status, r.Reason)
		}
	}
	var ids []string
	for _, f := range rep.Findings {
		if f.Family == string(checks.FamilyProblemJSON) && !slices.Contains(ids, f.CheckID) {
			ids = append(ids, f.CheckID)
		}
	}
	slices.Sort(ids)
	return ids
}

func TestProblemJSONWithSpec(t *testing.T) {
	const declared = "https://agentready.example/problems/not-found"
	tests := []struct {
		what    string
		doc     *spec.Document
		defects []demo.Defect
		want    []string
	}{
		// The negotiation probes' 406s are not in the document: a note only.
		{"conformant", demoSpec(declared), nil, []string{"problem-json-undeclared-status"}},
		{"plain JSON where problem+json is declared", demoSpec(declared), []demo.Defect{demo.DefectProblemAsJSON},
			[]string{"problem-json-declared-media-type", "problem-json-undeclared-status"}},
		{"text where problem+json is declared", demoSpec(declared), []demo.Defect{demo.DefectGoHTTPError},
			[]string{"problem-json-declared-media-type", "problem-json-undeclared-status"}},
		{"type the document does not list", demoSpec("https://agentready.example/problems/gone"), nil,
			[]string{"problem-json-declared-type", "problem-json-undeclared-status"}},
		// The demo's own document declares every error it sends as problem+json.
		{"demo's own document", nil, nil, nil},
		{"demo's own document, plain JSON", nil, []demo.Defect{demo.DefectProblemAsJSON}, []string{"problem-json-declared-media-type"}},
		{"demo's own document, http.Error", nil, []demo.Defect{demo.DefectGoHTTPError}, []string{"problem-json-declared-media-type"}},
		{"demo's own document, HTML 404 on an unknown path", nil, []demo.Defect{demo.DefectHTMLNotFound}, []string{"problem-json-media-type"}},
	}
	for _, tt := range tests {
		t.Run(tt.what, func(t *testing.T) {
			t.Parallel()
			if got := scanWithSpec(t, tt.doc, tt.defects...); !slices.Equal(got, tt.want) {
				t.Errorf("fired %v, want %v", got, tt.want)
			}
		})
	}
}

// TestErrorFindingsCarryTheRequest checks a finding on a probe names the
// probe's request and a curl line that reproduces it.
func TestErrorFindingsCarryTheRequest(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(demo.New(demo.DefectValuelessParam500))
	defer srv.Close()
	rep := scanApp(t, srv)
	for _, f := range rep.Findings {
		if f.CheckID != "problem-json-server-error" {
			continue
		}
		ev := f.Evidence[0]
		if ev.Method != http.MethodGet || !strings.HasSuffix(ev.URL, "/orders?debug&limit=1") || ev.Status != 500 ||
			!strings.Contains(ev.Curl, "curl ") || !strings.Contains(ev.Curl, "/orders?debug&limit=1'") {
			t.Errorf("evidence %+v", ev)
		}
		return
	}
	t.Error("no problem-json-server-error finding")
}
