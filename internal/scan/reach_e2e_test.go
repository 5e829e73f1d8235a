package scan_test

import (
	"net/http"
	"testing"

	"github.com/agentready/agentready/fixtures/reachfix"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/scan"
	"github.com/agentready/agentready/internal/spec"
	"github.com/agentready/agentready/probe"
)

func reachDoc(t *testing.T, yaml string) *spec.Document {
	t.Helper()
	doc, err := spec.Load([]byte(yaml), "openapi.yaml", "openapi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

func reasons(rep *finding.Report) map[string]string {
	out := map[string]string{}
	if rep.Coverage == nil || rep.Coverage.Operations == nil {
		return out
	}
	for _, it := range rep.Coverage.Operations.Items {
		r := it.Reason
		if it.Reached {
			r = "reached"
		}
		out[it.Path] = r
	}
	return out
}

// TestReachCoverage reads, in the report, what the scan reached of each
// fixture's document and why not the rest.
func TestReachCoverage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		h       http.Handler
		doc     string
		cfg     probe.SpecConfig
		headers http.Header
		want    map[string]string
	}{
		{"base path served bare", reachfix.BasePath(false), reachfix.BasePathSpec, probe.SpecConfig{}, nil,
			map[string]string{"/things": "reached", "/status": "reached"}},
		{"base path mismatch", reachfix.BasePath(true), reachfix.BasePathSpec, probe.SpecConfig{Server: 2}, nil,
			map[string]string{"/things": finding.ReasonBasePath, "/status": finding.ReasonBasePath}},
		{"explored", reachfix.Explore(), reachfix.ExploreSpec, probe.SpecConfig{}, nil,
			map[string]string{"/widgets": "reached", "/widgets/{widgetId}": "reached", "/reports/{year}": "reached",
				"/users/me": "reached", "/users/{userUuid}/orders": "reached", "/search": "reached",
				"/secrets/{token}": finding.ReasonPathParameter, "/tenant": finding.ReasonRequiredParameter}},
		{"explored with the header", reachfix.Explore(), reachfix.ExploreSpec, probe.SpecConfig{}, http.Header{"X-Tenant": {"t"}},
			map[string]string{"/widgets": "reached", "/widgets/{widgetId}": "reached", "/reports/{year}": "reached",
				"/users/me": "reached", "/users/{userUuid}/orders": "reached", "/search": "reached",
				"/secrets/{token}": finding.ReasonPathParameter, "/tenant": "reached"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := tt.cfg
			cfg.Document = reachDoc(t, tt.doc)
			rep := mustScan(t, tt.h, scan.Options{Probe: probe.Config{Spec: cfg, Headers: tt.headers}})
			got := reasons(rep)
			if len(got) != len(tt.want) {
				t.Errorf("coverage %v, want %v", got, tt.want)
			}
			for path, want := range tt.want {
				if got[path] != want {
					t.Errorf("%s: %q, want %q", path, got[path], want)
				}
			}
			ops := rep.Coverage.Operations
			reached := 0
			for _, r := range got {
				if r == "reached" {
					reached++
				}
			}
			if ops.Declared != len(tt.want) || ops.Reached != reached {
				t.Errorf("declared %d reached %d", ops.Declared, ops.Reached)
			}
			renderAll(t, rep)
		})
	}
}
