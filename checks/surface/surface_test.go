package surface_test

import (
	"encoding/base64"
	"slices"
	"strings"
	"testing"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/checkstest"
	"github.com/agentready/agentready/checks/internal/purpose"
	"github.com/agentready/agentready/checks/surface"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/mcp"
	"github.com/agentready/agentready/internal/spec"
)

const origin = "http://api.test"

func doc() *spec.Document {
	return &spec.Document{Source: origin + "/openapi.json", Operations: []*spec.Operation{
		{Method: "GET", PathTemplate: "/orders", OperationID: "listOrders"},
		{Method: "GET", PathTemplate: "/orders/{id}", OperationID: "getOrder"},
		{Method: "POST", PathTemplate: "/orders/{id}/payment", OperationID: "payOrder"},
	}}
}

const goodLLMs = "# Demo\n## Operations\n- [listOrders](/orders): Find orders\n" +
	"- [payOrder](/openapi.json#/paths/~1orders~1%7Bid%7D~1payment/post): Pay\n- [Guide](/guide.md)\n"

const goodCard = `{"skills":[{"id":"getOrder","name":"Order","description":"Order: GET /orders/{id}","tags":["orders"]},
 {"id":"support","name":"Talk to support","description":"Free text","tags":["help"]}]}`

type fixture struct {
	llms, card string
	tools      []mcp.Tool
	// skillRefs are the operations the SKILL.md names besides payOrder's.
	skillRefs []string
}

const skillsIndex = `{"$schema":"https://schemas.agentskills.io/discovery/0.2.0/schema.json","skills":[{"name":"pay-orders","type":"skill-md",` +
	`"description":"Pay an order after reading it with GET /orders/{id}.","url":"/skills/pay/SKILL.md","digest":"sha256:x"}]}`

func (f fixture) skill() string {
	body := "---\nname: pay-orders\n---\n\n- `POST /orders/{id}/payment`: pay it.\n"
	for _, r := range f.skillRefs {
		body += "- `" + r + "`\n"
	}
	return body
}

func (f fixture) input(withSpec bool) *checks.Input {
	xs := []*exchange.Exchange{
		checkstest.Exchange(exchange.PurposeCrawl, "GET", origin+"/").Status(200).Header("Content-Type", "application/hal+json").
			Body(`{"_links":{"self":{"href":"/"},"orders":{"href":"/orders"}},"_templates":{"pay":{"method":"POST","target":"/orders/1/payment"}}}`).Build(),
		checkstest.Exchange(purpose.LLMs, "GET", origin+"/llms.txt").BasedOn(origin+"/llms.txt").Status(200).
			Header("Content-Type", "text/markdown; charset=utf-8").Body(f.llms).Build(),
		checkstest.Exchange(purpose.AgentCard, "GET", origin+"/.well-known/agent-card.json").BasedOn(origin+"/.well-known/agent-card.json").
			Status(200).Header("Content-Type", "application/json").Body(f.card).Build(),
		checkstest.Exchange(purpose.SkillsIndex, "GET", origin+"/.well-known/agent-skills/index.json").BasedOn(origin+"/.well-known/agent-skills/index.json").
			Status(200).Header("Content-Type", "application/json").Body(skillsIndex).Build(),
		checkstest.Exchange(purpose.Skill, "GET", origin+"/skills/pay/SKILL.md").BasedOn(origin+"/skills/pay/SKILL.md").
			Status(200).Header("Content-Type", "text/markdown").Body(f.skill()).Build(),
		checkstest.Exchange(purpose.Sitemap, "GET", origin+"/sitemap.xml").BasedOn(origin+"/sitemap.xml").Status(200).
			Header("Content-Type", "application/xml").Body(`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>` + origin +
			`/</loc></url><url><loc>` + origin + `/orders</loc></url><url><loc>` + origin + `/orders/7</loc></url></urlset>`).Build(),
		checkstest.Exchange(exchange.PurposeCrawl, "GET", origin+"/orders/7").Status(402).
			Header("PAYMENT-REQUIRED", base64.StdEncoding.EncodeToString([]byte(paymentRequired))).Build(),
	}
	list := checkstest.Exchange("mcp/tools-list", "POST", origin+"/mcp").Status(200).Build()
	xs = append(xs, list)
	in := checkstest.Input(origin+"/", nil, xs...)
	if withSpec {
		in.Spec = doc()
	}
	if f.tools != nil {
		for i := range f.tools {
			f.tools[i].NameValid = true
		}
		in.MCP = &mcp.Snapshot{
			Verdict:  mcp.Verdict{Era: mcp.EraModern},
			Listings: []mcp.Listing{{Complete: true, Tools: f.tools, Pages: []mcp.Page{{Call: &mcp.Call{Exchange: list}}}}},
		}
	}
	return in
}

// paymentRequired prices reading an order with x402.
const paymentRequired = `{"x402Version":2,"resource":{"url":"http://api.test/orders/7"},"accepts":[{"scheme":"exact",` +
	`"network":"eip155:8453","amount":"500","asset":"0xA","payTo":"0xB","maxTimeoutSeconds":30}]}`

func yes() *bool { b := true; return &b }

func goodTools() []mcp.Tool {
	return []mcp.Tool{
		{Name: "listOrders", Annotations: &mcp.Annotations{ReadOnlyHint: yes()}},
		{Name: "getOrder", Annotations: &mcp.Annotations{ReadOnlyHint: yes()}},
		{Name: "payOrder"},
	}
}

func fired(t *testing.T, in *checks.Input) []string {
	t.Helper()
	var got []string
	for _, c := range surface.All() {
		fs, _ := checkstest.Run(t, c, in)
		got = append(got, checkstest.IDs(fs)...)
	}
	slices.Sort(got)
	return got
}

func TestSurfaceChecks(t *testing.T) {
	tests := []struct {
		what string
		f    fixture
		want []string
	}{
		{"agreeing projections", fixture{goodLLMs, goodCard, goodTools(), nil}, nil},
		{"a skill names a missing operation", fixture{goodLLMs, goodCard, nil, []string{"POST /orders/{id}/gift-wrap"}}, []string{"surface-unknown-operation"}},
		{"tool renamed", fixture{goodLLMs, goodCard, []mcp.Tool{{Name: "listOrders", Annotations: &mcp.Annotations{ReadOnlyHint: yes()}}, {Name: "pay_orders"}}, nil}, []string{"surface-renamed"}},
		{"renamed tool with a lying hint", fixture{goodLLMs, goodCard, []mcp.Tool{{Name: "payOrders", Annotations: &mcp.Annotations{ReadOnlyHint: yes()}}}, nil},
			[]string{"surface-mcp-hints", "surface-renamed"}},
		{"unrelated tool is the mcp family's", fixture{goodLLMs, goodCard, []mcp.Tool{{Name: "sendInvoice"}}, nil}, nil},
		{"llms.txt renames by pointer", fixture{strings.Replace(goodLLMs, "[payOrder]", "[payOrders]", 1), goodCard, nil, nil}, []string{"surface-renamed"}},
		{"llms.txt prose titles are not names", fixture{strings.Replace(goodLLMs, "[listOrders]", "[Find all the orders]", 1), goodCard, nil, nil}, nil},
		{"llms.txt points at a missing operation", fixture{goodLLMs + "- [refundOrder](/openapi.json#/paths/~1orders~1%7Bid%7D~1refund/post)\n", goodCard, nil, nil},
			[]string{"surface-unknown-operation"}},
		{"skill renamed by path", fixture{goodLLMs, strings.Replace(goodCard, `"id":"getOrder"`, `"id":"fetchOrder"`, 1), nil, nil}, []string{"surface-renamed"}},
		{"skill near-identical id", fixture{goodLLMs, `{"skills":[{"id":"get-order","name":"x","description":"y","tags":[]}]}`, nil, nil}, []string{"surface-renamed"}},
		{"skill names a missing operation", fixture{goodLLMs, `{"skills":[{"id":"giftWrap","name":"Gift wrap","description":"POST /orders/{id}/gift-wrap","tags":[]}]}`, nil, nil},
			[]string{"surface-unknown-operation"}},
	}
	for _, tt := range tests {
		t.Run(tt.what, func(t *testing.T) {
			if got := fired(t, tt.f.input(true)); !slices.Equal(got, tt.want) {
				t.Errorf("fired %v, want %v", got, tt.want)
			}
		})
	}
}

func TestSkipsWithoutSpecOrMCP(t *testing.T) {
	in := fixture{goodLLMs, goodCard, nil, nil}.input(false)
	for _, c := range surface.All() {
		if _, reason := checkstest.Run(t, c, in); reason == "" {
			t.Errorf("%s ran without a spec", c.Meta().ID)
		}
	}
	if _, reason := checkstest.Run(t, surface.MCPHints{}, fixture{goodLLMs, goodCard, nil, nil}.input(true)); !strings.Contains(reason, "MCP") {
		t.Errorf("mcp hints skip reason %q", reason)
	}
	if surface.Matrix(in) != nil {
		t.Error("a matrix without a spec to anchor it")
	}
}

func TestMatrix(t *testing.T) {
	f := fixture{strings.Replace(goodLLMs, "[payOrder]", "[payOrders]", 1) + "- [refundOrder](/openapi.json#/paths/~1r/post)\n", goodCard, goodTools(), nil}
	m := surface.Matrix(f.input(true))
	var cols []string
	for _, p := range m.Projections {
		cols = append(cols, p.Name)
		if !p.Assessed {
			t.Errorf("%s not assessed: %s", p.Name, p.Reason)
		}
	}
	if want := []string{"OpenAPI", "MCP tools", "llms.txt", "agent card", "hypermedia", "skills index", "sitemap", "x402"}; !slices.Equal(cols, want) {
		t.Fatalf("columns %v", cols)
	}
	got := map[string][][]string{}
	for _, r := range m.Rows {
		got[r.Operation] = r.Names
	}
	want := map[string][][]string{
		"GET /orders":               {{"listOrders"}, {"listOrders"}, {"listOrders"}, nil, {"orders"}, nil, {"/orders"}, nil},
		"GET /orders/{id}":          {{"getOrder"}, {"getOrder"}, nil, {"getOrder"}, nil, {"pay-orders"}, {"/orders/7"}, {"x402 v2: exact 500 on eip155:8453"}},
		"POST /orders/{id}/payment": {{"payOrder"}, {"payOrder"}, {"payOrders"}, nil, {"_templates.pay"}, {"pay-orders"}, nil, nil},
		"POST /r":                   {nil, nil, {"refundOrder"}, nil, nil, nil, nil, nil},
	}
	for op, names := range want {
		if !slices.EqualFunc(got[op], names, func(a, b []string) bool { return slices.Equal(a, b) }) {
			t.Errorf("%s: %v, want %v", op, got[op], names)
		}
	}
	if len(m.Rows) != len(want) {
		t.Errorf("%d rows, want %d", len(m.Rows), len(want))
	}
}

// TestMatrixMarksWhatTheCallerMayNotCall: the MCP catalog and hypermedia
// show each caller its own operations, so an operation the scanned caller
// may not call is "not assessed for this caller" there, not missing; the
// documents that describe the whole API are still compared as usual.
func TestMatrixMarksWhatTheCallerMayNotCall(t *testing.T) {
	for _, tt := range []struct {
		name   string
		caller exchange.Caller
		want   string
	}{
		{"anonymous", exchange.Caller{}, "this caller sent no credentials"},
		{"the required role", exchange.Caller{Name: "admin", Credentials: []string{"Authorization"}, Roles: []string{"admin"}}, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			in := fixture{goodLLMs, goodCard, goodTools(), nil}.input(true)
			in.Spec.Operations = append(in.Spec.Operations, &spec.Operation{Method: "POST", PathTemplate: "/orders/{id}/refund", OperationID: "refundOrder",
				Security: []map[string][]string{{"bearer": {"admin"}}}})
			in.Spec.SecuritySchemes = map[string]spec.SecurityScheme{"bearer": {Type: "http", Scheme: "bearer"}}
			in.Caller = tt.caller
			m := surface.Matrix(in)
			var perCaller []string
			for _, p := range m.Projections {
				if p.PerCaller {
					perCaller = append(perCaller, p.Name)
				}
			}
			if !slices.Equal(perCaller, []string{"MCP tools", "hypermedia"}) {
				t.Errorf("per-caller projections %v", perCaller)
			}
			for _, r := range m.Rows {
				switch {
				case r.Operation != "POST /orders/{id}/refund":
					if r.NotForCaller != "" {
						t.Errorf("%s: %q, but every caller may call it", r.Operation, r.NotForCaller)
					}
				case tt.want == "" && r.NotForCaller != "", !strings.Contains(r.NotForCaller, tt.want):
					t.Errorf("refund: %q, want %q", r.NotForCaller, tt.want)
				default:
					var cells []bool
					for col := range m.Projections {
						cells = append(cells, m.NotAssessedForCaller(r, col))
					}
					if want := []bool{false, tt.want != "", false, false, tt.want != "", false, false, false}; !slices.Equal(cells, want) {
						t.Errorf("refund cells not assessed for the caller: %v, want %v", cells, want)
					}
				}
			}
		})
	}
}
