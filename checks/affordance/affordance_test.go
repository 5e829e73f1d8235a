package affordance_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/affordance"
	"github.com/agentready/agentready/checks/checkstest"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/mcp"
	"github.com/agentready/agentready/internal/spec"
)

const base = "http://api.test"

func doc(path, etag, body string) *exchange.Exchange {
	b := checkstest.Exchange(exchange.PurposeCrawl, "GET", base+path).Status(200).
		Header("Content-Type", "application/json").Body(body)
	if etag != "" {
		b.Header("ETag", etag)
	}
	return b.Build()
}

func catalog() *spec.Document {
	cancelBody := map[string]any{"application/json": map[string]any{
		"type": "object", "required": []any{"reason"},
		"properties": map[string]any{
			"reason": map[string]any{"type": "string", "enum": []any{"customer_request", "payment_failure", "inventory_failure"}},
			"amount": map[string]any{"type": "integer", "minimum": 1.0, "maximum": 100.0},
		},
	}}
	return &spec.Document{Operations: []*spec.Operation{
		{Method: "GET", PathTemplate: "/orders/{orderId}", OperationID: "getOrder",
			Parameters: []spec.Parameter{{Name: "orderId", In: "path", Required: true, Schema: map[string]any{"type": "string"}}}},
		{Method: "POST", PathTemplate: "/orders/{orderId}/cancel", OperationID: "cancelOrder",
			OperationURI: "urn:example:operation:cancel-order:v1",
			Parameters:   []spec.Parameter{{Name: "orderId", In: "path", Required: true, Schema: map[string]any{"type": "string"}}},
			RequestBody:  cancelBody},
		{Method: "POST", PathTemplate: "/actions/{id}/advance", OperationID: "advanceAction", MCPTool: "advance_action"},
	}}
}

func run(t *testing.T, doc *spec.Document, xs ...*exchange.Exchange) ([]finding.Finding, *checks.Input) {
	t.Helper()
	in := checkstest.Input(base+"/", nil, xs...)
	in.Spec = doc
	var all []finding.Finding
	for _, c := range affordance.All() {
		fs, _ := checkstest.Run(t, c, in)
		all = append(all, fs...)
	}
	return all, in
}

// seed000 is the hybrid example: a pending order that can be cancelled.
const seed000 = `{
  "id": "order-123", "status": "pending", "version": "7",
  "affordances": [{
    "operation": "urn:example:operation:cancel-order:v1",
    "target": "/orders/123/cancel",
    "arguments": { "orderId": "order-123" },
    "constraints": { "reason": { "required": true } },
    "validForVersion": "7"
  }]
}`

const shipped = `{"id":"order-123","status":"shipped","version":"8","affordances":[],
 "unavailableAffordances":[{"operation":"urn:example:operation:cancel-order:v1","reason":"already_shipped"}]}`

func aff(member string) string {
	return `{"id":"o1","status":"pending","version":"7","affordances":[{"operation":"cancelOrder","target":"/orders/o1/cancel","validForVersion":"7"` + member + `}]}`
}

func TestAffordanceRules(t *testing.T) {
	tests := []struct {
		name    string
		etag    string
		body    string
		want    []string
		pointer string
	}{
		{"seed 000 hybrid", "", seed000, nil, ""},
		{"seed 000 after shipment", "", shipped, nil, ""},
		{"ETag binding", `W/"v7"`, `{"affordances":[{"operation":"cancelOrder","validForVersion":"\"v7\""}]}`, nil, ""},
		{"numeric version", "", `{"version":3,"affordances":[{"operation":"cancelOrder","validForVersion":"3"}]}`, nil, ""},
		{"affordances not an array", "", `{"affordances":{"operation":"cancelOrder"}}`, []string{"affordance-shape"}, "/affordances"},
		{"no operation", "", `{"affordances":[{"target":"/orders/o1/cancel"}]}`, []string{"affordance-shape"}, "/affordances/0"},
		{"arguments not an object", "", aff(`,"arguments":["o1"]`), []string{"affordance-shape"}, "/affordances/0/arguments"},
		{"unresolved operation", "", `{"affordances":[{"operation":"urn:example:operation:refund:v1"}]}`, []string{"affordance-operation-unresolved"}, "/affordances/0/operation"},
		{"unresolved unavailable operation", "", `{"affordances":[],"unavailableAffordances":[{"operation":"refundOrder","reason":"x"}]}`, []string{"affordance-operation-unresolved"}, "/unavailableAffordances/0/operation"},
		{"target on another path", "", `{"version":"7","affordances":[{"operation":"cancelOrder","target":"/orders/o1/refund","validForVersion":"7"}]}`, []string{"affordance-target-mismatch"}, "/affordances/0/target"},
		{"unknown argument", "", aff(`,"arguments":{"customer":"x"}`), []string{"affordance-arguments"}, "/affordances/0/arguments/customer"},
		{"argument of the wrong type", "", aff(`,"arguments":{"orderId":123}`), []string{"affordance-arguments"}, "/affordances/0/arguments/orderId"},
		{"constraint narrows the enum", "", aff(`,"constraints":{"reason":{"enum":["customer_request"]},"amount":{"maximum":50}}`), nil, ""},
		{"constraint on unknown field", "", aff(`,"constraints":{"priority":{"required":true}}`), []string{"affordance-constraints-widen"}, "/affordances/0/constraints/priority"},
		{"constraint relaxes required", "", aff(`,"constraints":{"reason":{"required":false}}`), []string{"affordance-constraints-widen"}, "/affordances/0/constraints/reason"},
		{"constraint widens the enum", "", aff(`,"constraints":{"reason":{"enum":["customer_request","changed_mind"]}}`), []string{"affordance-constraints-widen"}, "/affordances/0/constraints/reason"},
		{"constraint widens a bound", "", aff(`,"constraints":{"amount":{"maximum":500}}`), []string{"affordance-constraints-widen"}, "/affordances/0/constraints/amount"},
		{"constraint redefines the type", "", aff(`,"constraints":{"reason":{"type":"integer"}}`), []string{"affordance-constraints-widen"}, "/affordances/0/constraints/reason"},
		{"stale version", "", `{"version":"8","affordances":[{"operation":"cancelOrder","validForVersion":"7"}]}`, []string{"affordance-version-mismatch"}, "/affordances/0/validForVersion"},
		{"version without anything to compare", "", `{"affordances":[{"operation":"cancelOrder","validForVersion":"7"}]}`, []string{"affordance-version-mismatch"}, "/affordances/0/validForVersion"},
		{"versioned but unbound", "", `{"version":"8","affordances":[{"operation":"cancelOrder"}]}`, []string{"affordance-version-unbound"}, "/affordances"},
		{"ETag but unbound", `"abc"`, `{"affordances":[{"operation":"cancelOrder"}]}`, []string{"affordance-version-unbound"}, "/affordances"},
		{"next action exists", "", `{"node":"ITEMS","next_actions":[{"tool":"advance_action","description":"Fill in"}],"version":3}`, nil, ""},
		{"next action unknown", "", `{"next_actions":[{"tool":"teleport_action"}]}`, []string{"affordance-next-action-unknown"}, "/next_actions/0/tool"},
		{"next action without name", "", `{"next_actions":[{"description":"do something"}]}`, []string{"affordance-shape"}, "/next_actions/0"},
		{"terminal state with next actions", "", `{"status":"cancelled","next_actions":[{"tool":"advance_action"}]}`, []string{"affordance-terminal-next-actions"}, "/next_actions"},
		{"terminal state finished", "", `{"status":"completed","next_actions":[]}`, nil, ""},
		{"shipped may lead on", "", `{"status":"SHIPPED","next_actions":[{"tool":"advance_action"}]}`, nil, ""},
		{"handler leaks", "", `{"handler":"CONFIRM_ORDER","next_actions":[]}`, []string{"affordance-internal-name"}, "/handler"},
		{"class name leaks", "", `{"next_actions":[{"tool":"advance_action","impl":"com.example.orders.CheckoutController#advance"}]}`, []string{"affordance-internal-name"}, "/next_actions/0/impl"},
		{"internal URL leaks", "", `{"next_actions":[],"callback":"http://orders-svc.default.svc.cluster.local:8080/confirm"}`, []string{"affordance-internal-name"}, "/callback"},
		{"own origin is not a leak", "", `{"next_actions":[],"self":"http://api.test/actions/1","docs":"https://docs.example.com/a"}`, nil, ""},
		{"embedded resources are judged", "", `{"_embedded":{"orders":[{"version":"2","affordances":[{"operation":"nope","validForVersion":"2"}]}]}}`, []string{"affordance-operation-unresolved"}, "/_embedded/orders/0/affordances/0/operation"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs, _ := run(t, catalog(), doc("/orders/o1", tt.etag, tt.body))
			if got := checkstest.IDs(fs); !slices.Equal(got, tt.want) {
				t.Fatalf("fired %v, want %v: %v", got, tt.want, messages(fs))
			}
			if tt.want != nil && fs[0].Evidence[0].JSONPointer != tt.pointer {
				t.Errorf("pointer %q, want %q", fs[0].Evidence[0].JSONPointer, tt.pointer)
			}
		})
	}
}

func TestTerminalMessageNamesTheState(t *testing.T) {
	fs, _ := run(t, nil, doc("/a/1", "", `{"state":"refunded","next_actions":[{"tool":"x"}]}`))
	if len(fs) != 1 || !strings.Contains(fs[0].Message, `"refunded"`) {
		t.Errorf("findings %v", messages(fs))
	}
}

func TestWithoutSpecTheCatalogChecksSkip(t *testing.T) {
	in := checkstest.Input(base+"/", nil, doc("/orders/o1", "", seed000))
	for _, c := range affordance.All() {
		_, reason := checkstest.Run(t, c, in)
		id := c.Meta().ID
		needs := id == "affordance-operation-unresolved" || id == "affordance-target-mismatch" ||
			id == "affordance-arguments" || id == "affordance-constraints-widen" || id == "affordance-next-action-unknown"
		if needs != strings.Contains(reason, "OpenAPI") {
			t.Errorf("%s: skip reason %q", id, reason)
		}
	}
}

func TestToolsAreNotJudgedWithoutAToolMapping(t *testing.T) {
	doc0 := catalog()
	doc0.Operations = doc0.Operations[:2] // no x-mcp-tool anywhere
	fs, in := run(t, doc0, doc("/a/1", "", `{"next_actions":[{"tool":"advance_action"}]}`))
	if len(fs) != 0 {
		t.Errorf("findings %v", messages(fs))
	}
	if obs := in.Observations("affordance-next-action-unknown"); len(obs) != 1 || !strings.Contains(obs[0], "MCP") {
		t.Errorf("observations %v", obs)
	}
}

func TestSkipsWithoutAffordances(t *testing.T) {
	in := checkstest.Input(base+"/", nil, doc("/", "", `{"id":1}`))
	for _, c := range affordance.All() {
		if _, reason := checkstest.Run(t, c, in); reason == "" {
			t.Errorf("%s did not skip", c.Meta().ID)
		}
	}
}

func messages(fs []finding.Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.CheckID+": "+f.Message+" @"+f.Evidence[0].JSONPointer)
	}
	return out
}

func FuzzAffordanceDocument(f *testing.F) {
	f.Add(seed000)
	f.Add(`{"next_actions":[1,{"tool":2}],"affordances":[{"operation":"cancelOrder","constraints":{"amount":{"maximum":1e999}}}]}`)
	cat := catalog()
	f.Fuzz(func(t *testing.T, body string) {
		run(t, cat, doc("/orders/o1", `"x"`, body))
	})
}

func TestMCPToolsResolveReferences(t *testing.T) {
	doc0 := catalog()
	doc0.Operations = doc0.Operations[:2] // no x-mcp-tool: only the MCP catalog knows the tools
	snap := &mcp.Snapshot{Catalog: mcp.Catalog{Tools: []mcp.ToolSummary{{Name: "advance_action"}, {Name: "refund_order"}}}}
	tests := []struct {
		what, body string
		want       []string
	}{
		{"next_actions tool in the catalog", `{"next_actions":[{"tool":"advance_action"}]}`, nil},
		{"affordance naming a tool", `{"affordances":[{"operation":"refund_order"}]}`, nil},
		{"next_actions tool missing from the catalog", `{"next_actions":[{"tool":"teleport"}]}`, []string{"affordance-next-action-unknown"}},
		{"affordance naming neither", `{"affordances":[{"operation":"teleport"}]}`, []string{"affordance-operation-unresolved"}},
	}
	for _, tt := range tests {
		t.Run(tt.what, func(t *testing.T) {
			in := checkstest.Input(base+"/", nil, doc("/a/1", "", tt.body))
			in.Spec, in.MCP = doc0, snap
			var got []string
			for _, c := range affordance.All() {
				fs, _ := checkstest.Run(t, c, in)
				got = append(got, checkstest.IDs(fs)...)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("fired %v, want %v", got, tt.want)
			}
		})
	}
}
