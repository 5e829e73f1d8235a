package trialplan

import (
	"slices"
	"strings"
	"testing"

	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/spec"
)

// targetsDoc declares cancelOrder's target state through allOf, payOrder's
// by a one-value enum, and shipOrder's in two success responses that
// disagree.
const targetsDoc = `{"openapi":"3.1.0","info":{"title":"t","version":"1"},"paths":{
 "/orders/{id}":{"get":{"operationId":"getOrder","parameters":[{"name":"id","in":"path","required":true,"schema":{"type":"integer"}}],
   "responses":{"200":{"description":"ok","content":{"application/json":{"schema":{"type":"object"}}}}}}},
 "/orders/{id}/cancellation":{"post":{"operationId":"cancelOrder","parameters":[{"name":"id","in":"path","required":true,"schema":{"type":"integer"}}],
   "responses":{"200":{"description":"ok","content":{"application/hal+json":{"schema":{"allOf":[{"$ref":"#/components/schemas/Order"},
     {"properties":{"state":{"const":"cancelled"}}}]}}}},
   "409":{"description":"no","content":{"application/problem+json":{"schema":{"properties":{"state":{"const":"pending"}}}}}}}}},
 "/orders/{id}/payment":{"post":{"operationId":"payOrder","parameters":[{"name":"id","in":"path","required":true,"schema":{"type":"integer"}}],
   "responses":{"200":{"description":"ok","content":{"application/json":{"schema":{"properties":{"state":{"enum":["paid"]}}}}}}}}},
 "/orders/{id}/shipment":{"post":{"operationId":"shipOrder","parameters":[{"name":"id","in":"path","required":true,"schema":{"type":"integer"}}],
   "responses":{"200":{"description":"ok","content":{"application/json":{"schema":{"properties":{"state":{"const":"shipped"}}}}}},
   "202":{"description":"queued","content":{"application/json":{"schema":{"properties":{"state":{"const":"paid"}}}}}}}}}},
 "components":{"schemas":{"Order":{"type":"object","properties":{"state":{"type":"string","enum":["pending","paid","cancelled"]}}}}}}`

func TestDeclaredTarget(t *testing.T) {
	doc, err := spec.Load([]byte(targetsDoc), "http://a/openapi.json", "openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"cancelOrder": "cancelled", "payOrder": "paid", "shipOrder": "", "getOrder": ""}
	for _, op := range doc.Operations {
		if got := declaredTarget(op, "state"); got != want[op.OperationID] {
			t.Errorf("%s: target %q, want %q", op.OperationID, got, want[op.OperationID])
		}
		if got := declaredTarget(op, "status"); got != "" {
			t.Errorf("%s: status target %q, declared nowhere", op.OperationID, got)
		}
	}
	// The task carries the target of the operation its name resolves to.
	p := Plan(Input{Recording: recording(orderPage(1, "pending")), Spec: doc, Rules: rules(t, "POST /orders/*/cancellation"), Reset: exchange.ResetRestart})
	if len(p.Tasks) != 1 || p.Tasks[0].Target != "cancelled" || !p.Tasks[0].NextAction {
		t.Errorf("tasks %+v, want cancelOrder → cancelled, listed in next_actions", p.Tasks)
	}
}

// B takes an affordance bound to a version once more after it succeeded,
// on the entity tag of its read; an affordance without validForVersion,
// and the other players, do not.
func TestStaleSteps(t *testing.T) {
	bound := orderPage(1, "pending")
	bound.Response.Body = []byte(strings.Replace(string(bound.Response.Body), `"arguments":{"id":1}`, `"arguments":{"id":1},"validForVersion":"1"`, 1))
	rs := rules(t, "mcp:*", "POST /orders/*/cancellation")
	roles := func(r exchange.TrialRun) []string {
		var out []string
		for _, s := range r.Steps {
			out = append(out, s.Role)
		}
		return out
	}
	p := Plan(Input{Recording: recording(bound), MCP: snapshot(cancelTool), Rules: rs, Reset: exchange.ResetRestart})
	b := p.Runs[1]
	if want := []string{"read", "call", "reread", "stale", "reread"}; b.Player != "B" || !slices.Equal(roles(b), want) {
		t.Fatalf("B's steps %v, want %v", roles(b), want)
	}
	if st := b.Steps[3]; st.Header.Get("If-Match") != exchange.StaleETag || st.URL != b.Steps[1].URL || string(st.Body) != string(b.Steps[1].Body) || b.Steps[1].Header.Get("If-Match") != "" {
		t.Errorf("stale step %s %s %q, If-Match %q: want the call again, conditional on the read's tag", st.Method, st.URL, st.Body, st.Header.Get("If-Match"))
	}
	if c := p.Runs[2]; slices.Contains(roles(c), exchange.StepStale) {
		t.Errorf("C's steps %v: a template carries no version", roles(c))
	}
	p = Plan(Input{Recording: recording(orderPage(1, "pending")), MCP: snapshot(cancelTool), Rules: rs, Reset: exchange.ResetRestart})
	if slices.Contains(roles(p.Runs[1]), exchange.StepStale) {
		t.Error("an affordance without validForVersion was taken again")
	}
}
