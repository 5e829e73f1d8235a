package activeplan

import (
	"net/http"
	"slices"
	"testing"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/internal/hypermedia"
	"github.com/agentready/agentready/checks/internal/purpose"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/spec"
)

func TestParseRule(t *testing.T) {
	tests := []struct {
		in      string
		want    Rule
		wantErr bool
	}{
		{in: "POST /orders/*/cancel", want: Rule{Raw: "POST /orders/*/cancel", Method: "POST", Path: "/orders/*/cancel"}},
		{in: "  delete /orders/*  ", want: Rule{Raw: "delete /orders/*", Method: "DELETE", Path: "/orders/*"}},
		{in: "cancelOrder", want: Rule{Raw: "cancelOrder", OperationID: "cancelOrder"}},
		{in: "", wantErr: true},
		{in: "/orders/*/cancel", wantErr: true},
		{in: "POST orders/1", wantErr: true},
		{in: "POST /orders?x=1", wantErr: true},
		{in: "P0ST /orders", wantErr: true},
		{in: "POST /orders/[", wantErr: true},
		{in: "mcp:cancelOrder", want: Rule{Raw: "mcp:cancelOrder", Tool: "cancelOrder"}},
		{in: " mcp:order.* ", want: Rule{Raw: "mcp:order.*", Tool: "order.*"}},
		{in: "mcp:", wantErr: true},
		{in: "mcp:cancel order", wantErr: true},
		{in: "mcp:../x", wantErr: true},
	}
	for _, tt := range tests {
		got, err := ParseRule(tt.in)
		if (err != nil) != tt.wantErr {
			t.Errorf("ParseRule(%q) error %v, want error %v", tt.in, err, tt.wantErr)
			continue
		}
		if !tt.wantErr && got != tt.want {
			t.Errorf("ParseRule(%q) = %+v, want %+v", tt.in, got, tt.want)
		}
	}
}

// An mcp: entry allows tools/call of the tools it matches and no HTTP
// request; an HTTP entry or an operationId allows no tool.
func TestAllowsTool(t *testing.T) {
	rules, err := ParseRules([]string{"mcp:cancel*", "payOrder", "POST /orders/*/refund"})
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]bool{"cancelOrder": true, "cancelSubscription": true, "payOrder": false, "refundOrder": false, "": false} {
		if got := rules.AllowsTool(name); got != want {
			t.Errorf("AllowsTool(%q) = %v, want %v", name, got, want)
		}
	}
	cancel := &spec.Operation{Method: "POST", PathTemplate: "/orders/{id}/cancel", OperationID: "cancelOrder"}
	if rules.Allows("POST", "http://a/orders/1/cancel", cancel) {
		t.Error("an mcp: entry allowed an HTTP request")
	}
	all, _ := ParseRules([]string{"mcp:*"})
	if !all.AllowsTool("anything_at-all.v2") {
		t.Error("mcp:* did not allow a tool")
	}
}

func TestAllows(t *testing.T) {
	rules, err := ParseRules([]string{"POST /orders/*/cancel", "refundOrder"})
	if err != nil {
		t.Fatal(err)
	}
	refund := &spec.Operation{Method: "POST", PathTemplate: "/orders/{id}/refund", OperationID: "refundOrder"}
	tests := []struct {
		method, url string
		op          *spec.Operation
		want        bool
	}{
		{"POST", "http://a/orders/6/cancel", nil, true},

		{"PUT", "http://a/orders/6/cancel", nil, false},
		{"POST", "http://a/orders/6/7/cancel", nil, false}, // * is one segment
		{"POST", "http://a/orders/cancel", nil, false},
		{"POST", "http://a/orders//cancel", nil, false},
		{"POST", "http://a/orders/%2e%2e/cancel", nil, false},
		{"POST", "http://a/orders/1%2F..%2F..%2Fadmin/cancel", nil, false},
		{"POST", "http://a/orders/..%5Cadmin/cancel", nil, false},
		{"POST", "http://a/orders/1/cancel?all=true", nil, false},
		{"POST", "http://a/orders/1/cancel?", nil, false},
		{"POST", "http://a/orders/1/cancel/", nil, false}, // another URL than the rule names
		{"POST", "http://a/orders/6/refund", refund, true},
		{"POST", "http://a/orders/6/refund", nil, false},
	}
	for _, tt := range tests {
		if got := rules.Allows(tt.method, tt.url, tt.op); got != tt.want {
			t.Errorf("Allows(%s %s) = %v, want %v", tt.method, tt.url, got, tt.want)
		}
	}
}

func TestBody(t *testing.T) {
	tests := []struct {
		name        string
		control     map[string]any
		body, ctype string
	}{
		{"affordance", map[string]any{"operation": "cancelOrder"}, `{}`, "application/json"},
		{"required and valued properties", map[string]any{"properties": []any{
			map[string]any{"name": "reason", "type": "textarea"},
			map[string]any{"name": "carrier", "required": true},
			map[string]any{"name": "qty", "type": "number", "required": true, "min": 2.0},
			map[string]any{"name": "ref", "value": "R-1"},
		}}, `{"carrier":"agentready active probe","qty":2,"ref":"R-1"}`, "application/json"},
		{"form", map[string]any{"contentType": "application/x-www-form-urlencoded", "properties": []any{
			map[string]any{"name": "a b", "required": true, "type": "email"},
		}}, `a+b=agentready%40example.com`, "application/x-www-form-urlencoded"},
		{"hostile", map[string]any{"properties": "nope", "contentType": 7}, `{}`, "application/json"},
	}
	for _, tt := range tests {
		body, ctype := Body(tt.control, true)
		if string(body) != tt.body || ctype != tt.ctype {
			t.Errorf("%s: Body = %s %s, want %s %s", tt.name, body, ctype, tt.body, tt.ctype)
		}
	}
}

func get(id, u string, status int, etag, body string) *exchange.Exchange {
	h := http.Header{"Content-Type": {"application/hal+json"}}
	if etag != "" {
		h.Set("ETag", etag)
	}
	return &exchange.Exchange{ID: id, Purpose: exchange.PurposeCrawl, Request: exchange.Request{Method: "GET", URL: u},
		Response: &exchange.Response{Status: status, Header: h, Body: []byte(body), BodySize: int64(len(body))}}
}

func TestPlan(t *testing.T) {
	controls := func(id string) string {
		return `{"_templates":{"default":{"method":"POST","target":"/t/` + id + `/close"},"del":{"method":"DELETE","target":"/t/` + id + `"}},` +
			`"affordances":[{"operation":"closeT","method":"POST","target":"/t/` + id + `/close","validForVersion":"3"}],"_links":{"self":{"href":"/t/` + id + `"}}}`
	}
	bare := `{"_links":{"self":{"href":"/t/1"}}}`
	top := checks.IdentityView{Caller: exchange.Caller{Name: "user"}, Recording: &exchange.Recording{Exchanges: []*exchange.Exchange{
		get("x1", "http://a/t/1", 200, `"v1"`, controls("1")), get("x2", "http://a/t/2", 200, `"v1"`, controls("2"))}}}
	low := checks.IdentityView{Caller: exchange.Caller{Name: "anon"}, Recording: &exchange.Recording{Exchanges: []*exchange.Exchange{
		get("x3", "http://a/t/1", 200, `"v1"`, bare), get("x4", "http://a/t/2", 200, `"v1"`, bare)}}}
	rules, _ := ParseRules([]string{"POST /t/*/close"})
	all := Kinds{Hidden: true, Stale: true}
	plan := Plan([]checks.IdentityView{low, top}, nil, rules, all)
	if len(plan) != 2 {
		t.Fatalf("plan %+v, want a stale and a hidden request", plan)
	}
	if p := plan[0]; p.Purpose != purpose.ActiveStale || p.Identity != "user" || p.Header.Get("If-Match") != StaleETag || p.URL != "http://a/t/2/close" || p.Operation != "closeT" {
		t.Errorf("stale %+v: want the versioned affordance, on another resource than the hidden probe", p)
	}
	if p := plan[1]; p.Purpose != purpose.ActiveHidden || p.Identity != "anon" || p.Header.Get("If-Match") != "" || p.Method != "POST" || p.URL != "http://a/t/1/close" {
		t.Errorf("hidden %+v", p)
	}
	if got := Plan([]checks.IdentityView{low, top}, nil, nil, all); len(got) != 0 {
		t.Errorf("an empty allow-list planned %+v", got)
	}
	if got := Plan([]checks.IdentityView{low, top}, nil, rules, Kinds{Stale: true}); len(got) != 1 || got[0].Purpose != purpose.ActiveStale || got[0].URL != "http://a/t/1/close" {
		t.Errorf("stale only: %+v", got)
	}
	if got := Plan([]checks.IdentityView{low, top}, nil, rules, Kinds{}); len(got) != 0 {
		t.Errorf("no kind selected, planned %+v", got)
	}
	// An ETag on the resource does not govern a POST to another URL: without
	// validForVersion, only controls on the resource itself are stale-probed.
	delOnly, _ := ParseRules([]string{"POST /t/*/close", "DELETE /t/*"})
	noVersion := checks.IdentityView{Caller: exchange.Caller{Name: "user"}, Recording: &exchange.Recording{Exchanges: []*exchange.Exchange{
		get("x1", "http://a/t/1", 200, `"v1"`, `{"_templates":{"default":{"method":"POST","target":"/t/1/close"},"del":{"method":"DELETE","target":"/t/1"}}}`)}}}
	got := Plan([]checks.IdentityView{noVersion}, nil, delOnly, Kinds{Stale: true})
	if len(got) != 1 || got[0].Method != "DELETE" {
		t.Errorf("planned %+v, want only the DELETE of the resource itself", got)
	}
	// The lower identity was offered it too: nothing hidden.
	low.Recording.Exchanges[0] = get("x3", "http://a/t/1", 200, "", controls("1"))
	low.Recording.Exchanges[1] = get("x4", "http://a/t/2", 200, "", controls("2"))
	if got := Plan([]checks.IdentityView{low, top}, nil, rules, Kinds{Hidden: true}); len(got) != 0 {
		t.Errorf("planned %+v, want nothing hidden", got)
	}
	// The lower identity could not read the resources: nothing to compare.
	low.Recording.Exchanges[0] = get("x3", "http://a/t/1", 404, "", `{}`)
	low.Recording.Exchanges[1] = get("x4", "http://a/t/2", 404, "", `{}`)
	if got := Plan([]checks.IdentityView{low, top}, nil, rules, Kinds{Hidden: true}); len(got) != 0 {
		t.Errorf("planned %+v for unread resources", got)
	}
}

func TestAffordanceMethodComesFromTheOperation(t *testing.T) {
	doc := &spec.Document{Operations: []*spec.Operation{{Method: "DELETE", PathTemplate: "/t/{id}", OperationID: "deleteT"}}}
	body := `{"affordances":[{"operation":"deleteT","target":"/t/1","validForVersion":"3","arguments":{"reason":"x"}},{"operation":"unknownOp","target":"/t/1/x","validForVersion":"3"}]}`
	top := checks.IdentityView{Caller: exchange.Caller{Name: "user"}, Recording: &exchange.Recording{Exchanges: []*exchange.Exchange{get("x1", "http://a/t/1", 200, "", body)}}}
	rules, _ := ParseRules([]string{"DELETE /t/*", "POST /t/*/x"})
	got := Plan([]checks.IdentityView{top}, doc, rules, Kinds{Stale: true})
	if len(got) != 1 || got[0].Method != "DELETE" || string(got[0].Body) != `{"reason":"x"}` {
		t.Errorf("planned %+v, want the DELETE with its arguments, and nothing for an operation of unknown method", got)
	}
	if got := Plan([]checks.IdentityView{top}, nil, rules, Kinds{Stale: true}); len(got) != 0 {
		t.Errorf("without a document the method cannot be told, yet planned %+v", got)
	}
}

func TestHiddenValuesAreNotReplayedAsAnotherCaller(t *testing.T) {
	control := map[string]any{"properties": []any{
		map[string]any{"name": "csrf", "type": "hidden", "value": "tok-123", "required": true},
		map[string]any{"name": "note", "value": "keep"},
	}}
	if body, _ := Body(control, false); string(body) != `{"csrf":"agentready active probe","note":"keep"}` {
		t.Errorf("as another caller: %s", body)
	}
	if body, _ := Body(control, true); string(body) != `{"csrf":"tok-123","note":"keep"}` {
		t.Errorf("as the same caller: %s", body)
	}
}

func TestEachLowerIdentityProbesAnotherResource(t *testing.T) {
	controls := func(id string) string {
		return `{"_templates":{"default":{"method":"POST","target":"/t/` + id + `/close"}},"_links":{"self":{"href":"/t/` + id + `"}}}`
	}
	bare := `{"_links":{"self":{"href":"/t/1"}}}`
	view := func(name string, body func(string) string) checks.IdentityView {
		return checks.IdentityView{Caller: exchange.Caller{Name: name}, Recording: &exchange.Recording{Exchanges: []*exchange.Exchange{
			get(name+"1", "http://a/t/1", 200, "", body("1")), get(name+"2", "http://a/t/2", 200, "", body("2"))}}}
	}
	plain := func(string) string { return bare }
	rules, _ := ParseRules([]string{"POST /t/*/close"})
	plan := Plan([]checks.IdentityView{view("anon", plain), view("user", plain), view("admin", controls)}, nil, rules, Kinds{Hidden: true})
	if len(plan) != 2 || plan[0].Identity != "anon" || plan[1].Identity != "user" || plan[0].URL == plan[1].URL {
		t.Errorf("plan %+v, want anon and user on two resources", plan)
	}
}

func TestStateTransitionProbes(t *testing.T) {
	open := func(id string) string {
		return `{"state":"open","_links":{"self":{"href":"/t/` + id + `"}},` +
			`"_templates":{"default":{"method":"POST","target":"/t/` + id + `/close"},"note":{"method":"POST","target":"/notes"}},` +
			`"_embedded":{"part":{"state":"closed","_templates":{"default":{"method":"POST","target":"/t/` + id + `/reopen"}}}}}`
	}
	state := func(id, s string) string { return `{"state":"` + s + `","_links":{"self":{"href":"/t/` + id + `"}}}` }
	view := checks.IdentityView{Caller: exchange.Caller{Name: "user"}, Recording: &exchange.Recording{Exchanges: []*exchange.Exchange{
		get("x1", "http://a/t/1", 200, "", open("1")), get("x2", "http://a/t/2", 200, "", state("2", "closed")),
		get("x3", "http://a/t/3", 200, "", state("3", "closed")), get("x4", "http://a/t/4", 200, "", state("4", "archived")),
		get("x5", "http://a/t/5", 404, "", state("5", "gone"))}}}
	rules, _ := ParseRules([]string{"POST /t/*/close", "POST /t/*/reopen", "POST /notes"})
	got := Plan([]checks.IdentityView{view}, nil, rules, Kinds{State: true})
	var urls []string
	for _, r := range got {
		if r.Purpose != purpose.ActiveState || r.Identity != "user" || r.Method != "POST" {
			t.Errorf("planned %+v", r)
		}
		urls = append(urls, r.URL+" from "+r.BasedOn)
	}
	// One per state without the control, on its first resource; nothing for
	// the embedded resource's control, for a control acting elsewhere, or
	// for a resource that could not be read.
	want := []string{"http://a/t/2/close from http://a/t/2", "http://a/t/4/close from http://a/t/4"}
	if !slices.Equal(urls, want) {
		t.Errorf("planned %v, want %v", urls, want)
	}
	// A target another kind of probe takes goes to the next resource in
	// that state.
	all := func(hypermedia.Offer) bool { return true }
	moved := transitions(view, nil, all, map[string]bool{"http://a/t/2/close": true})
	if len(moved) != 2 || moved[0].URL != "http://a/t/3/close" {
		t.Errorf("with /t/2/close taken: %+v", moved)
	}
	if got := Plan([]checks.IdentityView{view}, nil, rules, Kinds{Stale: true, Hidden: true}); len(got) != 0 {
		t.Errorf("state kind not selected, planned %+v", got)
	}
	closeOnly, _ := ParseRules([]string{"POST /t/*/reopen"})
	if got := Plan([]checks.IdentityView{view}, nil, closeOnly, Kinds{State: true}); len(got) != 0 {
		t.Errorf("allow-list names no offered transition, planned %+v", got)
	}
}
