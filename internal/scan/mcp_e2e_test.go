package scan_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/agentready/agentready/fixtures/demo"
	"github.com/agentready/agentready/fixtures/expect/expecttest"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/scan"
	"github.com/agentready/agentready/probe"
	"github.com/agentready/agentready/probe/mcpclient"
)

// scanMCPApp scans like the CLI does: the OpenAPI document is discovered.
func scanMCPApp(t *testing.T, srv *httptest.Server, mcpEndpoint string) *finding.Report {
	t.Helper()
	return scanServer(t, srv, scan.Options{Probe: probe.Config{Spec: probe.SpecConfig{Discover: true}}, MCPEndpoint: mcpEndpoint})
}

func mcpFired(rep *finding.Report) []string {
	var ids []string
	for _, id := range expecttest.Fired(rep) {
		if strings.HasPrefix(id, "mcp-") {
			ids = append(ids, id)
		}
	}
	return ids
}

// TestDemoMCPIsAssessedAndClean proves that the conformant demo passes the
// family because its MCP face was examined, parity included.
func TestDemoMCPIsAssessedAndClean(t *testing.T) {
	t.Parallel()
	rep := shared(t, conformantDiscovered).rep
	if got := mcpFired(rep); len(got) != 0 {
		t.Errorf("the conformant demo fired %v", got)
	}
	for _, c := range rep.Checks {
		if !strings.HasPrefix(c.ID, "mcp-") || c.Status != finding.StatusSkip {
			continue
		}
		switch c.ID {
		case "mcp-legacy-session", "mcp-revision-drift", "mcp-auth-discovery":
			// Legacy-only, multi-endpoint and authorization rules do not
			// apply to the demo, whose MCP face answers without a 401.
		default:
			t.Errorf("%s skipped on the demo: %s", c.ID, c.Reason)
		}
	}
	info := rep.MCP
	if info == nil || info.Era != "modern" || info.CatalogFingerprint == "" || info.Tokens == 0 || len(info.Tools) < 10 {
		t.Fatalf("report MCP section %+v", info)
	}
	for _, tool := range info.Tools {
		if !strings.HasPrefix(tool.Fingerprint, "sha256:") || tool.Tokens == 0 || tool.Schema == "" {
			t.Errorf("tool %+v", tool)
		}
	}
	if rep.Score.Grade != "A+" && rep.Score.Grade != "A" {
		t.Errorf("grade %s", rep.Score.Grade)
	}
}

// TestMCPFingerprintsAreStable: two scans of the same app give the same
// fingerprints, and a changed definition changes its tool's fingerprint and
// the catalog's, and nothing else.
func TestMCPFingerprintsAreStable(t *testing.T) {
	t.Parallel()
	scanOnce := func(d ...demo.Defect) *finding.MCPInfo {
		srv := httptest.NewServer(demo.New(d...))
		defer srv.Close()
		return scanApp(t, srv).MCP
	}
	a, b, c := scanOnce(), scanOnce(), scanOnce(demo.DefectMCPNoDescription)
	if a.CatalogFingerprint != b.CatalogFingerprint || a.CatalogFingerprint == c.CatalogFingerprint {
		t.Errorf("catalog fingerprints %s %s %s", a.CatalogFingerprint, b.CatalogFingerprint, c.CatalogFingerprint)
	}
	for i := range a.Tools {
		same := a.Tools[i].Fingerprint == c.Tools[i].Fingerprint
		if same == (a.Tools[i].Name == "getOrder") {
			t.Errorf("tool %s: fingerprint unchanged=%v", a.Tools[i].Name, same)
		}
	}
}

// rpcLog records every JSON-RPC method and every method+path that reaches
// the app.
type rpcLog struct {
	next     http.Handler
	mu       sync.Mutex
	rpc      []string
	requests []string
}

func (l *rpcLog) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	entry := r.Method + " " + r.URL.Path
	if r.Method == http.MethodPost {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		var msg struct {
			Method string `json:"method"`
		}
		_ = json.Unmarshal(body, &msg)
		l.mu.Lock()
		l.rpc = append(l.rpc, msg.Method)
		l.mu.Unlock()
	}
	l.mu.Lock()
	l.requests = append(l.requests, entry)
	l.mu.Unlock()
	l.next.ServeHTTP(w, r)
}

// TestScanSendsOnlyReadOnlyMCPMethods records every JSON-RPC method received
// over full demo scans, modern and legacy, and finds none outside the
// read-only list; POST and DELETE go to the MCP endpoints only.
func TestScanSendsOnlyReadOnlyMCPMethods(t *testing.T) {
	t.Parallel()
	for _, d := range [][]demo.Defect{nil, {demo.DefectMCPLegacyEndpoint}, {demo.DefectMCPDiscoverEmpty}} {
		log := &rpcLog{next: demo.New(d...)}
		srv := httptest.NewServer(log)
		scanMCPApp(t, srv, "")
		srv.Close()
		allowed := mcpclient.AllowedMethods()
		if len(log.rpc) == 0 {
			t.Fatalf("%v: no JSON-RPC request was sent", d)
		}
		for _, m := range log.rpc {
			if !slices.Contains(allowed, m) {
				t.Errorf("%v: the scan sent JSON-RPC method %q", d, m)
			}
		}
		for _, req := range log.requests {
			method, path, _ := strings.Cut(req, " ")
			switch method {
			case http.MethodGet, http.MethodHead, http.MethodOptions:
			case http.MethodPost, http.MethodDelete:
				if path != "/mcp" && path != "/legacy/mcp" {
					t.Errorf("%v: %s outside the MCP endpoints", d, req)
				}
			default:
				t.Errorf("%v: the scan sent %s", d, req)
			}
		}
	}
}

// TestDiscover401NeverDowngrades: the probe met a 401, and no initialize
// followed, although the endpoint would have answered it.
func TestDiscover401NeverDowngrades(t *testing.T) {
	t.Parallel()
	log := &rpcLog{next: demo.New(demo.DefectMCPDiscover401)}
	srv := httptest.NewServer(log)
	defer srv.Close()
	rep := scanMCPApp(t, srv, "")
	if slices.Contains(log.rpc, "initialize") {
		t.Errorf("methods %v: the scanner fell back after a 401", log.rpc)
	}
	if rep.MCP == nil || rep.MCP.Refused == "" || rep.MCP.Era != "" {
		t.Errorf("MCP section %+v", rep.MCP)
	}
}

func TestNamedMCPEndpoint(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(demo.New())
	defer srv.Close()
	rep := scanMCPApp(t, srv, srv.URL+"/mcp")
	if rep.MCP == nil || rep.MCP.Source != "--mcp" || rep.MCP.Era != "modern" {
		t.Fatalf("MCP section %+v", rep.MCP)
	}
}

func TestNoMCPEndpointIsNotAssessed(t *testing.T) {
	t.Parallel()
	rep := mustScan(t, http.NotFoundHandler(), scan.Options{})
	if rep.MCP != nil {
		t.Errorf("MCP section on an app without MCP: %+v", rep.MCP)
	}
	for _, c := range rep.Checks {
		if strings.HasPrefix(c.ID, "mcp-") && (c.Status != finding.StatusSkip || !strings.Contains(c.Reason, "no MCP endpoint")) {
			t.Errorf("%s: %s %s", c.ID, c.Status, c.Reason)
		}
	}
	for _, f := range rep.Score.Families {
		if f.Family == "mcp" && f.Assessed {
			t.Error("the mcp family was assessed without an endpoint")
		}
	}
}
