package scan_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/openapidoc"
	"github.com/agentready/agentready/fixtures/demo"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/scan"
	"github.com/agentready/agentready/internal/spec"
	"github.com/agentready/agentready/probe"
)

// documentChecks judge the OpenAPI document itself.
var documentChecks = func() map[string]bool {
	m := map[string]bool{}
	for _, c := range openapidoc.All() {
		m[c.Meta().ID] = true
	}
	return m
}()

// scanForDocument scans with discovery on, as the CLI does by default.
func scanForDocument(t *testing.T, srv *httptest.Server, sc probe.SpecConfig) *finding.Report {
	t.Helper()
	return scanServer(t, srv, scan.Options{Probe: probe.Config{Spec: sc}})
}

// TestDemoSpecIsFoundAndReported: the conformant demo links its document
// with rel="service-desc"; the scan loads it, names it in the report, and
// the document checks pass on it rather than skip.
func TestDemoSpecIsFoundAndReported(t *testing.T) {
	t.Parallel()
	scanned := shared(t, conformantDiscovered)
	rep := scanned.rep
	for _, f := range rep.Findings {
		if f.Severity >= finding.SeverityWarning {
			t.Errorf("demo with its document has %s %s: %s", f.Severity, f.CheckID, f.Message)
		}
	}
	if rep.Spec == nil || rep.Spec.Source != scanned.url+"/openapi.json" || rep.Spec.Discovery != probe.SpecLinkHeader || rep.Spec.Operations == 0 {
		t.Fatalf("report spec %+v", rep.Spec)
	}
	for _, c := range rep.Checks {
		if documentChecks[c.ID] {
			if c.Status != finding.StatusPass {
				t.Errorf("%s: %s %s", c.ID, c.Status, c.Reason)
			}
		}
	}
}

// TestFindingsLocatedOnOperations: a finding about a live request is placed
// on the operation its request matches, with file, line and column, when
// the document is given as a file.
func TestFindingsLocatedOnOperations(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(demo.New(demo.DefectNoVaryAccept))
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := spec.Load(body, "api/openapi.json", "api/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	rep := scanForDocument(t, srv, probe.SpecConfig{Document: doc})
	if rep.Spec == nil || rep.Spec.Discovery != probe.SpecGiven {
		t.Fatalf("spec %+v", rep.Spec)
	}
	located := 0
	for _, f := range rep.Findings {
		if f.CheckID != "vary-accept" {
			continue
		}
		op := doc.Index().Match(f.PrimaryMethod(), f.PrimaryURL())
		if op == nil {
			continue
		}
		if f.Location == nil || *f.Location != op.Location || f.Location.File != "api/openapi.json" || f.Location.Line == 0 || f.Location.Column == 0 {
			t.Errorf("%s %s: location %+v, want %+v", f.PrimaryMethod(), f.PrimaryURL(), f.Location, op.Location)
		}
		located++
	}
	if located == 0 {
		t.Error("no vary-accept finding matched an operation")
	}
}

// TestScanWithoutSpecSaysSo: an app that publishes no document gets a note,
// and the openapi-hal checks skip instead of failing.
func TestScanWithoutSpecSaysSo(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/hal+json")
		w.Write([]byte(`{"_links": {"self": {"href": "/"}}}`))
	}))
	defer srv.Close()
	rep := scanForDocument(t, srv, probe.SpecConfig{Discover: true})
	if rep.Spec != nil {
		t.Fatalf("spec %+v", rep.Spec)
	}
	noted := false
	for _, n := range rep.Notes {
		noted = noted || strings.Contains(n, "no OpenAPI document was found")
	}
	if !noted {
		t.Errorf("notes %v", rep.Notes)
	}
	for _, c := range rep.Checks {
		if documentChecks[c.ID] && c.Status != finding.StatusSkip {
			t.Errorf("%s: %s without a document", c.ID, c.Status)
		}
	}
}

// The probe tags the GETs of the OpenAPI document with the purpose the
// checks cite and the fingerprints recognize: a finding about the document
// has the same fingerprint whichever URL served it, and in lint.
func TestTheDocumentsFetchHasThePurposeTheChecksRead(t *testing.T) {
	if probe.PurposeSpecFetch != checks.PurposeOpenAPI {
		t.Errorf("probe tags %q, checks read %q", probe.PurposeSpecFetch, checks.PurposeOpenAPI)
	}
}
