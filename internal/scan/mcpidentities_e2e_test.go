package scan_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/agentready/agentready/fixtures/hostile"
	"github.com/agentready/agentready/fixtures/mcpfix"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/scan"
	"github.com/agentready/agentready/probe"
	"github.com/agentready/agentready/probe/mcpclient"
)

const (
	mcpToolRefused   = "leakage-mcp-tool-refused"
	mcpToolAnonymous = "leakage-mcp-privileged-tool-anonymous"
)

// callerLog records, for every JSON-RPC request, its method and whose
// bearer token it carried, and every request's method and path.
type callerLog struct {
	next     http.Handler
	mu       sync.Mutex
	rpc      []string // "method as caller"
	requests []string
}

func (l *callerLog) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	entry := r.Method + " " + r.URL.Path
	if r.Method == http.MethodPost {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		var msg struct {
			Method string `json:"method"`
		}
		_ = json.Unmarshal(body, &msg)
		who := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		if who == "" {
			who = "anonymous"
		}
		l.mu.Lock()
		l.rpc = append(l.rpc, msg.Method+" as "+who)
		l.mu.Unlock()
	}
	l.mu.Lock()
	l.requests = append(l.requests, entry)
	l.mu.Unlock()
	l.next.ServeHTTP(w, r)
}

func bearer(name, token string, roles ...string) probe.Identity {
	return probe.Identity{Caller: exchange.Caller{Name: name, Roles: roles}, Header: http.Header{"Authorization": {"Bearer " + token}}}
}

// scanRoles scans the role-aware app as ids, discovering its OpenAPI
// document and MCP endpoint as the CLI does.
func scanRoles(t *testing.T, app http.Handler, ids []probe.Identity) (*finding.Report, *callerLog) {
	t.Helper()
	log := &callerLog{next: app}
	rep := mustScan(t, log, scan.Options{Probe: probe.Config{Spec: probe.SpecConfig{Discover: true}}, Identities: probe.Describe(ids, nil)})
	return rep, log
}

func TestMCPCatalogPerIdentity(t *testing.T) {
	anonymous := probe.Identity{Caller: exchange.Caller{Name: "anonymous"}}
	user := bearer("user", mcpfix.UserToken, "user")
	admin := bearer("admin", mcpfix.AdminToken, "admin")
	tests := []struct {
		what string
		app  mcpfix.RoleApp
		ids  []probe.Identity
		// status of each check: "fail", "pass" or a skip reason's fragment.
		refused, anon string
		// tools listed to the lower identity (the SDK sorts them by name).
		tools []string
	}{
		{"conformant, anonymous and admin", mcpfix.RoleApp{}, []probe.Identity{anonymous, admin},
			"pass", "pass", []string{"getOrder", "listOrders"}},
		{"conformant, user and admin", mcpfix.RoleApp{}, []probe.Identity{user, admin},
			"pass", "every less privileged identity sent credentials", []string{"getOrder", "listOrders"}},
		{"admin tool leaked, anonymous and admin", mcpfix.RoleApp{LeakAdminTool: true}, []probe.Identity{anonymous, admin},
			"pass", "fail", []string{"getOrder", "listOrders", "refundOrder"}},
		{"admin tool leaked, user and admin", mcpfix.RoleApp{LeakAdminTool: true}, []probe.Identity{user, admin},
			"fail", "every less privileged identity sent credentials", []string{"getOrder", "listOrders", "refundOrder"}},
		{"anonymous refused with 401", mcpfix.RoleApp{LeakAdminTool: true, AuthenticateFirst: true}, []probe.Identity{anonymous, admin},
			"anonymous: the MCP endpoint answered 401", "anonymous: the MCP endpoint answered 401", []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.what, func(t *testing.T) {
			t.Parallel()
			rep, log := scanRoles(t, mcpfix.NewRoleApp(tt.app), tt.ids)
			for id, want := range map[string]string{mcpToolRefused: tt.refused, mcpToolAnonymous: tt.anon} {
				st := checkStatus(rep, id)
				switch want {
				case "fail", "pass":
					if string(st.Status) != want {
						t.Errorf("%s: %s (%s), want %s", id, st.Status, st.Reason, want)
					}
				default:
					if st.Status != finding.StatusSkip || !strings.Contains(st.Reason, want) {
						t.Errorf("%s: %s %q, want a skip saying %q", id, st.Status, st.Reason, want)
					}
				}
			}
			for _, f := range rep.Findings {
				if !strings.HasPrefix(f.CheckID, "leakage-mcp-") {
					continue
				}
				lower := tt.ids[0].Name
				if f.Subject != lower+" refundOrder" || f.Severity != finding.SeverityError || len(f.Evidence) == 0 {
					t.Errorf("%s: subject %q severity %s, want %s's refundOrder, error", f.CheckID, f.Subject, f.Severity, lower)
				}
				if ev := f.Evidence[0]; ev.Method != "POST" || !strings.Contains(ev.Curl, "REDACTED") == (lower != "anonymous") {
					t.Errorf("%s: evidence %s %s, curl %s", f.CheckID, ev.Method, ev.URL, ev.Curl)
				}
			}
			if rep.MCP == nil || len(rep.MCP.Identities) != 1 {
				t.Fatalf("MCP section %+v, want the lower identity's catalog", rep.MCP)
			}
			got := rep.MCP.Identities[0]
			if got.Identity != tt.ids[0].Name || !slices.Equal(got.Tools, tt.tools) {
				t.Errorf("lower catalog %+v, want %v", got, tt.tools)
			}
			if rep.MCP.Identity != "admin" {
				t.Errorf("privileged catalog identity %q", rep.MCP.Identity)
			}
			if !slices.ContainsFunc(rep.Notes, func(n string) bool { return strings.Contains(n, "MCP catalog also listed as") }) {
				t.Errorf("no note on the per-identity bounds: %v", rep.Notes)
			}
			assertReadOnlyMCP(t, log, tt.ids[0])
		})
	}
}

// assertReadOnlyMCP: every JSON-RPC method sent is on the read-only list,
// only the MCP endpoint got anything but safe methods, and the lower
// identity's catalog was listed with its own credentials, within its cap.
func assertReadOnlyMCP(t *testing.T, log *callerLog, lower probe.Identity) {
	t.Helper()
	allowed := mcpclient.AllowedMethods()
	who := "anonymous"
	if h := lower.Header.Get("Authorization"); h != "" {
		who = strings.TrimPrefix(h, "Bearer ")
	}
	lowerCalls := 0
	for _, call := range log.rpc {
		method, as, _ := strings.Cut(call, " as ")
		if !slices.Contains(allowed, method) {
			t.Errorf("the scan sent JSON-RPC %s", call)
		}
		if as == who {
			lowerCalls++
		}
	}
	if !slices.Contains(log.rpc, "server/discover as "+who) || lowerCalls > 8 {
		t.Errorf("calls as %s: %d of %v; want the catalog listed as it, within 8 requests", who, lowerCalls, log.rpc)
	}
	for _, req := range log.requests {
		method, path, _ := strings.Cut(req, " ")
		switch method {
		case http.MethodGet, http.MethodHead, http.MethodOptions:
		default:
			if method != http.MethodPost || path != "/mcp" {
				t.Errorf("the scan sent %s", req)
			}
		}
	}
}

// TestMCPIdentityCredentialsNeverPrinted lists the catalog with a
// recognizable secret as the lower identity, so that a finding quotes that
// identity's tools/list request, and greps every report format for it.
func TestMCPIdentityCredentialsNeverPrinted(t *testing.T) {
	t.Parallel()
	ids := []probe.Identity{
		{Caller: exchange.Caller{Name: "user", Roles: []string{"user"}}, Header: http.Header{"Authorization": {"Bearer " + canary}, "X-Tenant-Secret": {canary + "-tenant"}}},
		bearer("admin", mcpfix.AdminToken, "admin"),
	}
	// The server echoes the credentials it gets into every tool's
	// description and into its headers, so that findings quote them back.
	app := hostile.EchoCredentials(mcpfix.NewRoleApp(mcpfix.RoleApp{LeakAdminTool: true}), "Authorization", "X-Tenant-Secret")
	rep, log := scanRoles(t, app, ids)
	if !slices.Contains(log.rpc, "tools/list as "+canary) {
		t.Fatalf("the catalog was not listed with the user's credentials: %v", log.rpc)
	}
	quoted := false
	for _, f := range rep.Findings {
		if len(f.Evidence) == 0 {
			continue // a finding about a document quotes no exchange
		}
		ev := f.Evidence[0]
		if f.CheckID == mcpToolRefused && strings.Contains(ev.Curl, "Authorization: REDACTED") && strings.Contains(ev.Curl, "X-Tenant-Secret: REDACTED") &&
			strings.Contains(ev.Excerpt, "Authorization: REDACTED; X-Tenant-Secret: REDACTED") && strings.Contains(ev.ResponseHeaders.Get("Content-Type"), "x-caller") {
			quoted = true
		}
	}
	if !quoted {
		t.Fatal("no finding quotes the user's tools/list request with its credentials redacted, and the tool and headers that echo them")
	}
	assertNoSecret(t, rep, "s3cr3t")
}
