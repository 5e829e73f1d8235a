package leakage_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/checkstest"
	"github.com/agentready/agentready/checks/leakage"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/mcp"
	"github.com/agentready/agentready/internal/spec"
)

// Tools as servers list them.
const (
	refundTool  = `{"name":"refundOrder","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":false,"destructiveHint":true}}`
	reportTool  = `{"name":"getReport","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":true}}`
	reportBare  = `{"name":"getReport","inputSchema":{"type":"object"}}`
	listTool    = `{"name":"listOrders","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":true}}`
	statsTool   = `{"name":"adminStats","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":true}}`
	unknownTool = `{"name":"exportAll","inputSchema":{"type":"object"}}`
)

// accessDoc declares who may call what: refunds and reports need the admin
// role, orders anyone, and stats declare nothing at all.
func accessDoc() *spec.Document {
	admin := []map[string][]string{{"bearer": {"admin"}}}
	return &spec.Document{
		SecuritySchemes: map[string]spec.SecurityScheme{"bearer": {Type: "http", Scheme: "bearer"}},
		Operations: []*spec.Operation{
			{Method: "GET", PathTemplate: "/orders", OperationID: "listOrders"},
			{Method: "POST", PathTemplate: "/orders/{id}/refund", OperationID: "refundOrder", Security: admin},
			{Method: "GET", PathTemplate: "/reports/{id}", OperationID: "getReport", Security: admin},
			{Method: "GET", PathTemplate: "/admin/stats", OperationID: "adminStats"},
		},
	}
}

// listed is a snapshot whose first tools/list page lists tools.
func listed(identity string, tools ...string) *mcp.Snapshot {
	raw := json.RawMessage(`{"tools":[` + strings.Join(tools, ",") + `]}`)
	ts, _ := mcp.DecodeTools(raw, 0, 0)
	x := checkstest.Exchange("mcp/tools/list", "POST", base+"/mcp").Status(200).
		Header("Content-Type", "application/json").Body(`{"jsonrpc":"2.0","id":2,"result":` + string(raw) + `}`).Build()
	return &mcp.Snapshot{
		Endpoint: mcp.Endpoint{URL: base + "/mcp", Source: "test"}, Identity: identity,
		Verdict: mcp.Verdict{Era: mcp.EraModern, Version: mcp.Modern},
		Listings: []mcp.Listing{{Label: "first", Complete: true, Tools: ts,
			Pages: []mcp.Page{{Call: &mcp.Call{Method: "tools/list", Exchange: x}, Raw: raw}}}},
	}
}

// refusedMCP is a snapshot of an endpoint that refused server/discover.
func refusedMCP(identity string, status int) *mcp.Snapshot {
	return &mcp.Snapshot{
		Endpoint: mcp.Endpoint{URL: base + "/mcp", Source: "test"}, Identity: identity,
		Verdict: mcp.Verdict{Refused: "HTTP 401 says nothing about the era", RefusedStatus: status},
	}
}

// mcpInput is a scan as lower and admin, admin listed every tool.
func mcpInput(lower view, doc *spec.Document, access checks.AccessRules) *checks.Input {
	admin := view{name: "admin", auth: true, roles: []string{"admin"}, xs: []*checkstest.Builder{json200("/", `{}`)},
		snap: listed("admin", refundTool, reportTool, listTool, statsTool)}
	in := input(lower, admin)
	in.MCP, in.Spec, in.Access = admin.snap, doc, access
	return in
}

type mcpCase struct {
	what   string
	lower  view
	doc    *spec.Document
	access checks.AccessRules
	// want are the findings' subjects and severities.
	want []string
}

func runMCP(t *testing.T, c checks.Check, tests []mcpCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.what, func(t *testing.T) {
			fs, reason := run(t, c, mcpInput(tt.lower, tt.doc, tt.access))
			var got []string
			for _, f := range fs {
				got = append(got, f.Subject+" "+f.Severity.String())
				if !f.Security || f.Evidence[0].JSONPointer == "" {
					t.Errorf("finding %+v: want security and a pointer into tools/list", f)
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("got %v (skip %q), want %v", got, reason, tt.want)
			}
		})
	}
}

func TestMCPToolRefused(t *testing.T) {
	user := func(roles []string, tools ...string) view {
		return view{name: "user", auth: true, roles: roles, xs: []*checkstest.Builder{json200("/", `{}`)}, snap: listed("user", tools...)}
	}
	userGot := func(snap *mcp.Snapshot, xs ...*checkstest.Builder) view {
		return view{name: "user", auth: true, xs: xs, snap: snap}
	}
	anon := func(snap *mcp.Snapshot, xs ...*checkstest.Builder) view {
		return view{name: "anonymous", xs: xs, snap: snap}
	}
	runMCP(t, leakage.MCPToolRefused{}, []mcpCase{
		{what: "admin tool listed to a user who holds another role", lower: user([]string{"user"}, refundTool, listTool), doc: accessDoc(),
			want: []string{"user refundOrder error"}},
		{what: "read-only GET tool is a warning", lower: user([]string{"user"}, reportTool), doc: accessDoc(),
			want: []string{"user getReport warning"}},
		{what: "GET tool without readOnlyHint is an error", lower: user([]string{"user"}, reportBare), doc: accessDoc(),
			want: []string{"user getReport error"}},
		{what: "the user holds the role", lower: user([]string{"user", "admin"}, refundTool, reportTool), doc: accessDoc()},
		{what: "roles not configured: undecided", lower: user(nil, refundTool, reportTool), doc: accessDoc()},
		{what: "a tool that maps to no operation says nothing", lower: user([]string{"user"}, unknownTool), doc: accessDoc()},
		{what: "GET of the path refused everywhere", doc: accessDoc(),
			lower: userGot(listed("user", statsTool), get("/admin/stats").Status(403)),
			want:  []string{"user adminStats warning"}},
		{what: "one refused resource among readable ones", doc: accessDoc(),
			lower: userGot(listed("user", reportTool), get("/reports/1").Status(403), json200("/reports/2", `{}`))},
		{what: "anonymous refused by a GET only", doc: accessDoc(),
			lower: anon(listed("anonymous", statsTool, listTool), get("/admin/stats").Status(401)),
			want:  []string{"anonymous adminStats warning"}},
		{what: "anonymous refused by the declared rules goes to the anonymous check", doc: accessDoc(),
			lower: anon(listed("anonymous", refundTool, reportTool))},
		{what: "access mapping without an OpenAPI document", lower: user([]string{"user"}, refundTool, listTool),
			access: checks.AccessRules{"refundOrder": {"admin"}},
			want:   []string{"user refundOrder error"}},
	})
}

func TestMCPPrivilegedToolAnonymous(t *testing.T) {
	anon := func(tools ...string) view {
		return view{name: "anonymous", xs: []*checkstest.Builder{json200("/", `{}`)}, snap: listed("anonymous", tools...)}
	}
	open := accessDoc()
	open.Operations[2].Security = append(open.Operations[2].Security, map[string][]string{})
	runMCP(t, leakage.MCPPrivilegedToolAnonymous{}, []mcpCase{
		{what: "admin tools listed to anonymous callers", lower: anon(refundTool, reportTool, listTool), doc: accessDoc(),
			want: []string{"anonymous refundOrder error", "anonymous getReport error"}},
		{what: "only public tools", lower: anon(listTool, statsTool), doc: accessDoc()},
		{what: "an empty catalog", lower: anon(), doc: accessDoc()},
		{what: "{} alternative lets anyone call it", lower: anon(reportTool), doc: open},
		{what: "access mapping without an OpenAPI document", lower: anon(refundTool, listTool),
			access: checks.AccessRules{"refundOrder": {"admin"}},
			want:   []string{"anonymous refundOrder error"}},
		{what: "access mapping naming no role", lower: anon(refundTool), access: checks.AccessRules{"refundOrder": {}}},
		// -H 'X-Trace: 1' is redacted in the recording like every --header
		// value, and is no credential for that.
		{what: "a shared header is no credential", doc: accessDoc(),
			lower: view{name: "anonymous", xs: []*checkstest.Builder{json200("/", `{}`).ReqHeader("X-Trace", exchange.Redacted)}, snap: listed("anonymous", refundTool)},
			want:  []string{"anonymous refundOrder error"}},
		{what: "access mapping overrides the requirement", lower: anon(reportTool), doc: accessDoc(),
			access: checks.AccessRules{"getReport": {}}},
	})
}

func TestMCPChecksSayWhyNotAssessed(t *testing.T) {
	user := view{name: "user", auth: true, roles: []string{"user"}, snap: listed("user", refundTool)}
	tests := []struct {
		what   string
		in     func() *checks.Input
		checks []checks.Check
		want   string
	}{
		{"one identity", func() *checks.Input {
			in := input(view{name: "admin", auth: true, xs: []*checkstest.Builder{json200("/", `{}`)}})
			in.MCP, in.Spec = listed("admin", refundTool), accessDoc()
			return in
		}, []checks.Check{leakage.MCPToolRefused{}, leakage.MCPPrivilegedToolAnonymous{}}, "not assessed: the scan ran as one identity"},
		{"no MCP endpoint", func() *checks.Input {
			in := mcpInput(user, accessDoc(), nil)
			in.MCP = nil
			return in
		}, []checks.Check{leakage.MCPToolRefused{}, leakage.MCPPrivilegedToolAnonymous{}}, "not assessed: no MCP endpoint"},
		{"the endpoint does not speak MCP", func() *checks.Input {
			in := mcpInput(user, accessDoc(), nil)
			in.MCP = &mcp.Snapshot{Endpoint: mcp.Endpoint{URL: base + "/mcp"}, Verdict: mcp.Verdict{Era: mcp.EraNone}}
			return in
		}, []checks.Check{leakage.MCPToolRefused{}, leakage.MCPPrivilegedToolAnonymous{}}, "did not answer as an MCP endpoint"},
		{"nothing to map tools with", func() *checks.Input { return mcpInput(user, nil, nil) },
			[]checks.Check{leakage.MCPToolRefused{}, leakage.MCPPrivilegedToolAnonymous{}}, "not assessed: neither an OpenAPI document"},
		{"no anonymous identity", func() *checks.Input { return mcpInput(user, accessDoc(), nil) },
			[]checks.Check{leakage.MCPPrivilegedToolAnonymous{}}, "not assessed: every less privileged identity sent credentials"},
		{"a view naming no credentials sent Authorization", func() *checks.Input {
			lower := view{name: "anonymous", xs: []*checkstest.Builder{json200("/", `{}`).ReqHeader("Authorization", exchange.Redacted)}, snap: listed("anonymous", refundTool)}
			return mcpInput(lower, accessDoc(), nil)
		}, []checks.Check{leakage.MCPPrivilegedToolAnonymous{}}, "not assessed: every less privileged identity sent credentials"},
		{"catalog refused with 401", func() *checks.Input {
			return mcpInput(view{name: "anonymous", snap: refusedMCP("anonymous", 401)}, accessDoc(), nil)
		}, []checks.Check{leakage.MCPToolRefused{}, leakage.MCPPrivilegedToolAnonymous{}}, "anonymous: the MCP endpoint answered 401"},
		{"catalog not listed", func() *checks.Input { return mcpInput(view{name: "anonymous"}, accessDoc(), nil) },
			[]checks.Check{leakage.MCPToolRefused{}, leakage.MCPPrivilegedToolAnonymous{}}, "anonymous: the MCP catalog was not listed"},
	}
	for _, tt := range tests {
		for _, c := range tt.checks {
			t.Run(tt.what+"/"+c.Meta().ID, func(t *testing.T) {
				in := tt.in()
				fs, reason := run(t, c, in)
				if len(fs) != 0 || !strings.Contains(reason, tt.want) {
					t.Errorf("findings %d, skip %q; want a skip saying %q", len(fs), reason, tt.want)
				}
			})
		}
	}
}

// TestMCPCatalogFactsAreObserved: a refused catalog is stated, not judged,
// and the catalogs that could be read are still judged.
func TestMCPCatalogFactsAreObserved(t *testing.T) {
	in := input(
		view{name: "anonymous", snap: refusedMCP("anonymous", 401)},
		view{name: "user", auth: true, roles: []string{"user"}, snap: listed("user", refundTool)},
		view{name: "admin", auth: true, roles: []string{"admin"}, snap: listed("admin", refundTool)})
	in.MCP, in.Spec = in.Identities[2].MCP, accessDoc()
	c := leakage.MCPToolRefused{}
	fs, reason := run(t, c, in)
	if len(fs) != 1 || fs[0].Subject != "user refundOrder" {
		t.Fatalf("findings %v (skip %q), want the user's refundOrder", fs, reason)
	}
	if !strings.Contains(fs[0].Message, `"user" holds role user`) {
		t.Errorf("message does not quote the reason: %s", fs[0].Message)
	}
	want := []string{"anonymous: the MCP endpoint answered 401", "user: the MCP catalog lists 1 tool"}
	if got := in.Observations(c.Meta().ID); !slices.Equal(got, want) {
		t.Errorf("observations %v, want %v", got, want)
	}
	// The anonymous catalog could not be read, and no other is anonymous.
	if _, reason := run(t, leakage.MCPPrivilegedToolAnonymous{}, in); !strings.Contains(reason, "answered 401") {
		t.Errorf("skip %q", reason)
	}
}

func TestMCPToolRefusedFailedListing(t *testing.T) {
	refused := &mcp.Call{Method: "tools/list", Exchange: checkstest.Exchange("mcp/tools/list", "POST", base+"/mcp").Status(403).Build()}
	for _, tt := range []struct {
		failed  *mcp.Call
		problem string
		want    string
	}{
		{refused, "page 1: HTTP 403 without a JSON-RPC response", "user: tools/list answered 403"},
		{nil, "page 1: no response: timeout", "user: tools/list failed: page 1: no response: timeout"},
		{nil, "", "user: tools/list was not answered"},
	} {
		snap := listed("user")
		snap.Listings[0].Pages, snap.Listings[0].Tools = nil, nil
		snap.Listings[0].Failed, snap.Listings[0].Problem = tt.failed, tt.problem
		in := mcpInput(view{name: "user", auth: true, roles: []string{"user"}, snap: snap}, accessDoc(), nil)
		if _, reason := run(t, leakage.MCPToolRefused{}, in); !strings.Contains(reason, tt.want) {
			t.Errorf("skip %q, want %q", reason, tt.want)
		}
	}
}

// TestMCPToolMessages pins the message shape.
func TestMCPToolMessages(t *testing.T) {
	in := mcpInput(view{name: "anonymous", snap: listed("anonymous", refundTool)}, accessDoc(), nil)
	fs, _ := run(t, leakage.MCPPrivilegedToolAnonymous{}, in)
	if len(fs) != 1 {
		t.Fatalf("findings %v", fs)
	}
	want := `the MCP catalog listed to "anonymous", which sent no credentials, names tool "refundOrder" (POST /orders/{id}/refund, mapped by operationId), but its OpenAPI operation POST /orders/{id}/refund requires bearer [admin]; this caller sent no credentials; expected a catalog for anonymous callers to name only tools anyone may call`
	if fs[0].Message != want {
		t.Errorf("message\n%s\nwant\n%s", fs[0].Message, want)
	}
	if fs[0].Severity != finding.SeverityError || fs[0].Evidence[0].JSONPointer != "/result/tools/0" {
		t.Errorf("finding %+v", fs[0])
	}
}
