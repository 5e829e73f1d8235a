package scan_test

import (
	"bytes"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/agentready/agentready/finding"
	"github.com/agentready/agentready/fixtures/demo"
)

// hdtcDefects break one HDTC rule each. The scan finds the demo's OpenAPI
// document through its service-desc link, as the CLI does by default, and
// each defect must fire exactly these checks, across every family.
var hdtcDefects = map[demo.Defect][]string{
	demo.DefectRelUnlisted:        {"openapi-hal-unlisted-rel"},
	demo.DefectRelWrongCoordinate: {"openapi-hal-wrong-coordinate"},
	// hal-forms-template-operation judges every template against the spec;
	// a template whose method matches no operation is its case too.
	demo.DefectFormsMethodMismatch:   {"hal-forms-template-operation", "openapi-hal-method-mismatch"},
	demo.DefectHALRelString:          {"openapi-hal-rel-malformed"},
	demo.DefectHALRelDuplicate:       {"openapi-hal-rel-malformed"},
	demo.DefectCurieUndeclared:       {"openapi-hal-undeclared-curie"},
	demo.DefectBareRelCollision:      {"openapi-hal-bare-rel-collision"},
	demo.DefectRelAmbiguous:          {"openapi-hal-rel-ambiguous"},
	demo.DefectNamespacedRelsIgnored: {"openapi-hal-namespaced-rels"},
	demo.DefectNamespacedNoVary:      {"openapi-hal-namespaced-vary"},
	demo.DefectUnknownPreference400:  {"openapi-hal-unknown-preference"},
	demo.DefectRelNeverOffered:       {"openapi-hal-rel-never-offered"},
	demo.DefectOperationWithoutRel:   {"openapi-hal-unlinked-operation"},
	demo.DefectUndeclaredResponse:    {"openapi-hal-undeclared-response"},
}

var _ = func() bool {
	for _, ids := range hdtcDefects {
		for _, id := range ids {
			coveredElsewhere[id] = true
		}
	}
	return true
}()

func TestHDTCDemoIsCleanWithItsSpec(t *testing.T) {
	srv := httptest.NewServer(demo.New())
	defer srv.Close()
	rep := scanDiscovering(t, srv)
	if rep.Score.Grade != "A+" && rep.Score.Grade != "A" {
		t.Errorf("grade %s (%d), want A or better", rep.Score.Grade, rep.Score.Value)
	}
	for _, f := range rep.Findings {
		t.Errorf("conformant demo with its spec: %s %s: %s", f.Severity, f.CheckID, f.Message)
	}
	ran := 0
	for _, c := range rep.Checks {
		if c.Family == "openapi-hal" && c.Status == finding.StatusPass {
			ran++
		}
		if c.Status == finding.StatusError {
			t.Errorf("check %s errored: %s", c.ID, c.Reason)
		}
	}
	if ran < len(hdtcDefects)-1 {
		t.Errorf("only %d openapi-hal checks passed; the spec was not used", ran)
	}
}

func TestHDTCDefectsFireExactlyTheirChecks(t *testing.T) {
	for d, want := range hdtcDefects {
		t.Run(string(d), func(t *testing.T) {
			t.Parallel()
			srv := httptest.NewServer(demo.New(d))
			defer srv.Close()
			rep := scanDiscovering(t, srv)
			if got := firedChecks(rep); !slices.Equal(got, want) {
				for _, f := range rep.Findings {
					t.Logf("%s: %s", f.CheckID, f.Message)
				}
				t.Errorf("fired %v, want %v", got, want)
			}
			for _, f := range rep.Findings {
				if f.Location == nil && locatedChecks[f.CheckID] {
					t.Errorf("%s has no location in the spec", f.CheckID)
				}
			}
		})
	}
}

// locatedChecks are the checks whose findings are about an operation and so
// point into the spec file.
var locatedChecks = map[string]bool{
	"openapi-hal-wrong-coordinate": true, "openapi-hal-method-mismatch": true, "openapi-hal-rel-malformed": true,
	"openapi-hal-undeclared-curie": true, "openapi-hal-bare-rel-collision": true, "openapi-hal-rel-ambiguous": true,
	"openapi-hal-rel-never-offered": true, "openapi-hal-unlinked-operation": true, "openapi-hal-undeclared-response": true,
}

// TestHDTCGoldenJSON pins the whole JSON report of one broken variant.
func TestHDTCGoldenJSON(t *testing.T) {
	const variant = demo.DefectRelWrongCoordinate
	srv := httptest.NewServer(demo.New(variant))
	defer srv.Close()
	got := renderJSON(t, scanDiscovering(t, srv), srv)
	path := filepath.Join("..", "testdata", "golden", "openapi-hal-"+string(variant)+".json")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./scan -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("JSON report differs from %s; if intended, run go test ./scan -update and review the diff", path)
	}
}
