package activeplan

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/internal/purpose"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/spec"
)

var str = map[string]any{"type": "string"}

func jsonBody(schema map[string]any) map[string]any {
	return map[string]any{"application/json": schema}
}

// flowDoc describes a checkout as seed 003 does, under the base path /api.
func flowDoc() *spec.Document {
	patch := map[string]any{"type": "object", "properties": map[string]any{
		"items":        map[string]any{"type": "array"},
		"address_id":   str,
		"coupon_id":    str,
		"payment_type": map[string]any{"type": "string", "enum": []any{"balance", "card"}},
	}}
	return &spec.Document{BasePaths: []string{"/api"}, Operations: []*spec.Operation{
		{Method: "GET", PathTemplate: "/checkouts/{id}", OperationID: "getCheckout"},
		{Method: "POST", PathTemplate: "/checkouts/{id}/advance", OperationID: "advanceAction", MCPTool: "advance_action",
			RequestBody: jsonBody(map[string]any{"type": "object", "required": []any{"version", "patch"},
				"properties": map[string]any{"version": map[string]any{"type": "integer"}, "patch": patch}})},
		{Method: "POST", PathTemplate: "/checkouts/{id}/confirm", OperationID: "confirm_action",
			RequestBody: jsonBody(map[string]any{"type": "object", "required": []any{"approval", "idempotency_key", "action_id"},
				"properties": map[string]any{"approval": map[string]any{"type": "string", "enum": []any{"approved"}}, "idempotency_key": str, "action_id": str}})},
		{Method: "POST", PathTemplate: "/checkouts/{id}/recover", OperationID: "recover_action",
			Parameters: []spec.Parameter{{Name: "Idempotency-Key", In: "header", Required: true, Schema: str}}},
		{Method: "POST", PathTemplate: "/checkouts/{id}/verify", OperationID: "verify_action"},
		{Method: "POST", PathTemplate: "/carts/{cart}/items/{item}/remove", OperationID: "remove_item"},
	}}
}

func node(id, nodeName, allowed string, tools ...string) *exchange.Exchange {
	var entries []string
	for _, t := range tools {
		entries = append(entries, `{"tool":"`+t+`"}`)
	}
	body := `{"action_id":"checkout-` + id + `","node":"` + nodeName + `","version":4,"next_actions":[` + strings.Join(entries, ",") + `]`
	if allowed != "" {
		body += `,"allowed_patch":` + allowed
	}
	x := get("c"+id, "http://a/api/checkouts/"+id, 200, "", body+"}")
	x.Request.Header = http.Header{"Accept": {"application/hal+json"}}
	return x
}

func flowView(xs ...*exchange.Exchange) checks.IdentityView {
	return checks.IdentityView{Caller: exchange.Caller{Name: "user"}, Recording: &exchange.Recording{Exchanges: xs}}
}

func checkoutFlow() checks.IdentityView {
	return flowView(
		node("1", "ITEMS", `["items[].quantity","address_id","coupon_id","payment_type"]`, "advance_action"),
		node("2", "CONFIRM_ORDER", `["coupon_id"]`, "advance_action", "confirm_action"),
		node("3", "PAYMENT_SUBMITTED", "", "verify_action"),
		node("4", "PAYMENT_UNKNOWN", "", "verify_action", "recover_action"),
		node("5", "COMPLETED", ""),
	)
}

func describe(plan []exchange.ActiveRequest) []string {
	var out []string
	for _, r := range plan {
		out = append(out, fmt.Sprintf("%s %s %s", r.Purpose, r.Method, exchange.PathOf(r.URL)))
	}
	return out
}

func TestFlowNodesResolveEntriesAndTargets(t *testing.T) {
	doc := flowDoc()
	nodes := FlowNodes(checkoutFlow().Recording, doc)
	if len(nodes) != 5 {
		t.Fatalf("%d nodes, want 5", len(nodes))
	}
	n := nodes[1]
	if n.State != "CONFIRM_ORDER" || len(n.Listed) != 2 || n.Listed[0].OperationID != "advanceAction" || !slices.Equal(n.AllowedPatch, []string{"coupon_id"}) {
		t.Errorf("node 2: %+v", n)
	}
	if u, ok := n.Target(n.Listed[1]); !ok || u != "http://a/api/checkouts/2/confirm" {
		t.Errorf("confirm on node 2: %q %v, want it under the base path", u, ok)
	}
	if u, ok := n.Target(doc.Operations[5]); ok {
		t.Errorf("an operation of another resource got a target: %q", u)
	}
	if got := FlowNodes(checkoutFlow().Recording, nil); got != nil {
		t.Errorf("without a document: %d nodes, want none (a step's URL cannot be told)", len(got))
	}
}

func TestFlowKindsPlan(t *testing.T) {
	rules, _ := ParseRules([]string{"advance_action", "advanceAction", "confirm_action", "recover_action", "verify_action"})
	plan := Plan([]checks.IdentityView{checkoutFlow()}, flowDoc(), rules, Kinds{OffList: true, Patch: true, Replay: true})
	want := []string{
		// Node 1 allows every declared field; node 2's allowed_patch
		// leaves out address_id (payment_type has an enum).
		"active/patch-outside POST /api/checkouts/2/advance",
		"active/patch-outside/re-read GET /api/checkouts/2",
		// confirm is on node 2, which the patch took; recover on node 4.
		"active/idempotent-replay POST /api/checkouts/4/recover",
		"active/idempotent-replay/re-read GET /api/checkouts/4",
		"active/idempotent-replay/re-read GET /api/checkouts/4",
		"active/idempotent-replay POST /api/checkouts/4/recover",
		"active/idempotent-replay/re-read GET /api/checkouts/4",
		// One per operation in path order, each on the first node no other
		// probe acts on; verify finds none left.
		"active/off-list POST /api/checkouts/3/advance",
		"active/off-list POST /api/checkouts/1/confirm",
		"active/off-list POST /api/checkouts/5/recover",
	}
	if got := describe(plan); !slices.Equal(got, want) {
		t.Fatalf("planned\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	patch := plan[0]
	if string(patch.Body) != `{"patch":{"address_id":"agentready-patch-outside"},"version":4}` || patch.BasedOn != "http://a/api/checkouts/2" {
		t.Errorf("patch body %s based on %s", patch.Body, patch.BasedOn)
	}
	if reread := plan[1]; reread.BasedOn != patch.URL || reread.Header.Get("Accept") != "application/hal+json" || len(reread.Body) != 0 {
		t.Errorf("re-read %+v: want the node's crawl Accept, paired with the probe by its URL", reread)
	}
	first, second := plan[2], plan[5]
	if key := first.Header.Get("Idempotency-Key"); key == "" || key != second.Header.Get("Idempotency-Key") || first.Repeat != 0 || second.Repeat != 1 {
		t.Errorf("replay keys %q %q repeats %d %d: want one key, two sends", key, second.Header.Get("Idempotency-Key"), first.Repeat, second.Repeat)
	}
	confirm := plan[8]
	if want := `{"action_id":"checkout-1","approval":"approved","idempotency_key":"` + ProbeKey("POST", confirm.URL) + `"}`; string(confirm.Body) != want {
		t.Errorf("off-list confirm body %s, want %s", confirm.Body, want)
	}
	if again := Plan([]checks.IdentityView{checkoutFlow()}, flowDoc(), rules, Kinds{OffList: true, Patch: true, Replay: true}); !slices.Equal(describe(again), want) {
		t.Error("the plan is not the same twice")
	}

	// Each kind alone, and only what the allow-list names.
	if got := describe(Plan([]checks.IdentityView{checkoutFlow()}, flowDoc(), rules, Kinds{Replay: true})); len(got) != 10 || !strings.Contains(got[0], "/checkouts/2/confirm") || !strings.Contains(got[5], "/checkouts/4/recover") {
		t.Errorf("replay alone: %v", got)
	}
	onlyConfirm, _ := ParseRules([]string{"POST /api/checkouts/*/confirm"})
	if got := describe(Plan([]checks.IdentityView{checkoutFlow()}, flowDoc(), onlyConfirm, Kinds{OffList: true, Patch: true})); !slices.Equal(got, []string{"active/off-list POST /api/checkouts/1/confirm"}) {
		t.Errorf("confirm allowed: %v", got)
	}
	if got := Plan([]checks.IdentityView{checkoutFlow()}, flowDoc(), rules, Kinds{Hidden: true, Stale: true, State: true}); len(got) != 0 {
		t.Errorf("no flow kind selected, planned %v", describe(got))
	}
}

// A target another kind takes is not a flow probe's, nor is its node.
func TestFlowKindsLeaveOtherKindsTargets(t *testing.T) {
	f := &flowPlanner{top: checkoutFlow(), nodes: FlowNodes(checkoutFlow().Recording, flowDoc()),
		allowed: func(string, string, *spec.Operation) bool { return true },
		taken:   map[string]bool{"http://a/api/checkouts/1": true, "http://a/api/checkouts/3/advance": true}}
	var urls []string
	for _, r := range f.offList() {
		urls = append(urls, exchange.PathOf(r.URL))
	}
	// advance: node 3's target is taken, so 4; confirm: node 1 is taken,
	// and 3 is free; recover: 2; verify: 5.
	want := []string{"/api/checkouts/4/advance", "/api/checkouts/3/confirm", "/api/checkouts/2/recover", "/api/checkouts/5/verify"}
	if !slices.Equal(urls, want) {
		t.Errorf("off-list targets %v, want %v", urls, want)
	}
}

func TestFlowKindsAreBounded(t *testing.T) {
	var ops []*spec.Operation
	var xs []*exchange.Exchange
	for i := range MaxPerKind + 5 {
		kind := fmt.Sprintf("/k%d/{id}", i)
		ops = append(ops, &spec.Operation{Method: "GET", PathTemplate: kind},
			&spec.Operation{Method: "POST", PathTemplate: kind + "/go", OperationID: fmt.Sprintf("go%d", i),
				Parameters: []spec.Parameter{{Name: "Idempotency-Key", In: "header"}}})
		xs = append(xs,
			get(fmt.Sprintf("a%d", i), fmt.Sprintf("http://a/k%d/1", i), 200, "", fmt.Sprintf(`{"next_actions":[{"tool":"go%d"}]}`, i)),
			get(fmt.Sprintf("b%d", i), fmt.Sprintf("http://a/k%d/2", i), 200, "", `{"next_actions":[]}`))
	}
	rules, _ := ParseRules([]string{"POST /*/*/go"})
	plan := Plan([]checks.IdentityView{flowView(xs...)}, &spec.Document{Operations: ops}, rules, Kinds{OffList: true, Replay: true})
	if n := countKind(plan, purpose.ActiveOffList); n != MaxPerKind {
		t.Errorf("%d off-list probes, want %d", n, MaxPerKind)
	}
	if n := countKind(plan, purpose.ActiveReplay); n != 2*MaxPerKind {
		t.Errorf("%d replay sends, want two for each of %d probes", n, MaxPerKind)
	}
}

func TestOutsideField(t *testing.T) {
	doc := flowDoc()
	tests := []struct {
		op      *spec.Operation
		allowed []string
		field   string
		nested  bool
	}{
		{doc.Operations[1], []string{"coupon_id"}, "address_id", true},
		{doc.Operations[1], []string{"address_id", "coupon_id"}, "", false}, // payment_type has an enum
		{doc.Operations[1], []string{"items"}, "address_id", true},
		// A PATCH takes the fields at its top level.
		{&spec.Operation{Method: "PATCH", RequestBody: jsonBody(map[string]any{"properties": map[string]any{"note": str, "email": map[string]any{"type": "string", "format": "email"}}})},
			[]string{"coupon_id"}, "note", false},
		// A POST without a patch member sets no fields.
		{&spec.Operation{Method: "POST", RequestBody: jsonBody(map[string]any{"properties": map[string]any{"note": str}})}, nil, "", false},
	}
	for i, tt := range tests {
		if field, nested := outsideField(tt.op, tt.allowed); field != tt.field || nested != tt.nested {
			t.Errorf("%d: outsideField = %q %v, want %q %v", i, field, nested, tt.field, tt.nested)
		}
	}
	if !namedBy("items", []string{"items[].quantity"}) || !namedBy("items[].quantity", []string{"items"}) || namedBy("item", []string{"items"}) {
		t.Error("namedBy relates a field to the entries inside and above it, and to no other")
	}
	if got := PatchedField([]byte(`{"patch":{"a":"x","b":"` + PatchSentinel + `"},"version":1}`)); got != "b" {
		t.Errorf("PatchedField = %q", got)
	}
}

func reread(body string) *exchange.Exchange {
	return get("r", "http://a/c/1", 200, "", body)
}

func TestChanged(t *testing.T) {
	tests := []struct {
		a, b, ptr string
	}{
		{`{"node":"A","version":4}`, `{"node":"A","version":4}`, ""},
		{`{"node":"A","version":4}`, `{"node":"A","version":5}`, "/version"},
		{`{"node":"A","servedAt":"1","requestId":"x","updated_at":"y"}`, `{"node":"A","servedAt":"2","requestId":"z","updated_at":"w"}`, ""},
		{`{"charges":[{"id":1}]}`, `{"charges":[{"id":1},{"id":2}]}`, "/charges"},
		{`{"a":{"b":1}}`, `{"a":{"b":2}}`, "/a/b"},
		{`{"a":1}`, `{"a":1,"b":2}`, "/b"},
	}
	for _, tt := range tests {
		ptr, ok := Changed(reread(tt.a), reread(tt.b))
		if !ok || ptr != tt.ptr {
			t.Errorf("Changed(%s, %s) = %q %v, want %q", tt.a, tt.b, ptr, ok, tt.ptr)
		}
	}
	if _, ok := Changed(reread(`{}`), get("r", "http://a/c/1", 404, "", `{}`)); ok {
		t.Error("a 404 re-read was compared")
	}
	if !Contains(reread(`{"summary":{"address":"`+PatchSentinel+`"}}`), PatchSentinel) || Contains(reread(`{"note":"agentready"}`), PatchSentinel) {
		t.Error("Contains finds the value anywhere, and only the value")
	}
}

func TestSequencesPairProbesWithTheirRereads(t *testing.T) {
	probe := func(id, u string) *exchange.Exchange {
		x := get(id, u, 200, "", `{}`)
		x.Purpose, x.Request.Method = purpose.ActiveReplay, "POST"
		return x
	}
	read := func(id, after string) *exchange.Exchange {
		x := get(id, "http://a/c/1", 200, "", `{}`)
		x.Purpose, x.BasedOn = purpose.ActiveReplayReread, after
		return x
	}
	rec := &exchange.Recording{Exchanges: []*exchange.Exchange{
		read("r0", "http://a/c/9/go"), probe("p1", "http://a/c/1/go"), read("r1", "http://a/c/1/go"), probe("p2", "http://a/c/2/go"),
		probe("p3", "http://a/c/1/go"), read("r2", "http://a/c/1/go"), read("r3", "http://a/c/2/go")}}
	seqs := Sequences(rec, purpose.ActiveReplay, purpose.ActiveReplayReread)
	if len(seqs) != 2 || seqs[0].Probes[0].ID != "p1" || seqs[1].Probes[0].ID != "p2" {
		t.Fatalf("sequences %+v", seqs)
	}
	one, two := seqs[0], seqs[1]
	if len(one.Probes) != 2 || one.Probes[1].ID != "p3" || len(one.Rereads) != 2 || one.Rereads[1].ID != "r2" || len(two.Probes) != 1 || len(two.Rereads) != 1 {
		t.Errorf("sequences %+v %+v", one, two)
	}
}
