package scan_test

import (
	"bytes"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentready/agentready/checks/openapihal"
	"github.com/agentready/agentready/finding"
	"github.com/agentready/agentready/fixtures/demo"
)

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
	for _, c := range rep.Checks {
		if c.Status == finding.StatusError {
			t.Errorf("check %s errored: %s", c.ID, c.Reason)
		}
	}
	// Passed, not skipped: the spec was used.
	for _, c := range openapihal.All() {
		if st := checkStatus(rep, c.Meta().ID); st.Status != finding.StatusPass {
			t.Errorf("%s: %s %s", c.Meta().ID, st.Status, st.Reason)
		}
	}
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
