package scan_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/agentready/agentready/fixtures/unreached"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/scan"
	"github.com/agentready/agentready/internal/spec"
	"github.com/agentready/agentready/probe"
)

func scanHandler(t *testing.T, h http.Handler, opts scan.Options) *finding.Report {
	t.Helper()
	srv := httptest.NewServer(h)
	defer srv.Close()
	return scanServer(t, srv, opts)
}

// noGrade holds a scan that reached nothing to N/A, with a cause that
// names what to pass.
func noGrade(t *testing.T, rep *finding.Report, causeHas ...string) {
	t.Helper()
	if rep.Score.Grade != finding.GradeNotAssessed || rep.Score.Value != 0 {
		t.Errorf("grade %s (%d), want N/A: %s", rep.Score.Grade, rep.Score.Value, rep.Score.Basis)
	}
	c := rep.Coverage
	if c == nil || c.Reached() || c.APIResources != 0 {
		t.Fatalf("coverage %+v, want nothing reached", c)
	}
	for _, want := range causeHas {
		if !strings.Contains(c.Cause, want) {
			t.Errorf("cause %q lacks %q", c.Cause, want)
		}
	}
}

func TestEveryPage404UnderADeclaredBasePathHasNoGrade(t *testing.T) {
	t.Parallel()
	doc, err := spec.Load(unreached.BasePathSpec, "openapi.json", "openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	rep := scanHandler(t, unreached.EveryPage404(), scan.Options{Probe: probe.Config{Spec: probe.SpecConfig{Document: doc}}})
	noGrade(t, rep, "every page answered 4xx", "servers put the API under /v1", "--openapi")
	if rep.Coverage.Pages["4xx"] == 0 || rep.Coverage.Pages["2xx"] != 0 {
		t.Errorf("pages %v, want 4xx only", rep.Coverage.Pages)
	}
	// Checks that passed on the 404s do not make the document's family
	// look judged: the grade is N/A whatever the table shows.
	if !rep.Coverage.Has(finding.SurfaceOpenAPI) {
		t.Errorf("surfaces %v: the document was loaded", rep.Coverage.Surfaces)
	}
}

func TestCredentialsOnlyHasNoGrade(t *testing.T) {
	t.Parallel()
	rep := scanHandler(t, unreached.CredentialsOnly(), scan.Options{})
	noGrade(t, rep, "answered 401 or 403", "needs credentials", "-H")
}

func TestHTMLStartPageWithoutLinksHasNoGrade(t *testing.T) {
	t.Parallel()
	rep := scanHandler(t, unreached.HTMLStart(), scan.Options{})
	noGrade(t, rep, "start page is HTML", "start the scan at an API resource", "--openapi")
	if rep.Coverage.Pages["2xx"] == 0 {
		t.Errorf("pages %v: the start page answered 200", rep.Coverage.Pages)
	}
}

func TestReachedAPIIsGradedWithAbsentFamiliesNotPresent(t *testing.T) {
	t.Parallel()
	rep := scanHandler(t, unreached.Partly(), scan.Options{})
	if rep.Score.Grade == finding.GradeNotAssessed || !strings.HasPrefix(rep.Score.Basis, "overall = the lowest of") {
		t.Fatalf("grade %s %q, want a letter", rep.Score.Grade, rep.Score.Basis)
	}
	if rep.Coverage.APIResources < 2 || rep.Coverage.Cause != "" || rep.Coverage.Fraction != nil {
		t.Errorf("coverage %+v, want the root and /items, no cause, no fraction without a document", rep.Coverage)
	}
	states := map[string]string{}
	for _, f := range rep.Score.Families {
		states[f.Family] = f.State
		if f.State != finding.FamilyGraded && f.Grade != "" {
			t.Errorf("family %s is %s with grade %s", f.Family, f.State, f.Grade)
		}
	}
	for _, fam := range []string{"openapi-hal", "surface", "hal", "hal-forms", "affordance", "mcp"} {
		if states[fam] != finding.FamilyNotPresent {
			t.Errorf("family %s is %q, want not present", fam, states[fam])
		}
	}
	// One identity judges exposed credentials alone of the leakage family:
	// a credential in a response is exposed whoever asks.
	if states["leakage"] != finding.FamilyGraded {
		t.Errorf("leakage is %q: one identity judges exposed credentials", states["leakage"])
	}
}
