package trialplan

import (
	"slices"
	"strings"
	"testing"

	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/spec"
)

// flowDoc declares three steps of an order's flow: a verification that
// takes nothing, a confirmation whose values are all declared but its
// idempotency key, and a patch whose content only the user knows.
const flowDoc = `{"openapi":"3.1.0","info":{"title":"t","version":"1"},"paths":{
 "/orders/{id}":{"get":{"operationId":"getOrder","parameters":[{"$ref":"#/components/parameters/id"}],"responses":{"200":{"description":"ok"}}}},
 "/orders/{id}/verification":{"post":{"operationId":"verifyOrder","parameters":[{"$ref":"#/components/parameters/id"}],
   "responses":{"200":{"description":"ok","content":{"application/json":{"schema":{"properties":{"state":{"const":"verified"}}}}}}}}},
 "/orders/{id}/confirmation":{"post":{"operationId":"confirmOrder","parameters":[{"$ref":"#/components/parameters/id"}],
   "requestBody":{"required":true,"content":{"application/json":{"schema":{"type":"object","required":["approval","idempotency_key","version"],
     "properties":{"approval":{"type":"string","enum":["approved"]},"idempotency_key":{"type":"string"},"version":{"type":"integer"}}}}}},
   "responses":{"200":{"description":"ok"}}}},
 "/orders/{id}/patch":{"post":{"operationId":"patchOrder","parameters":[{"$ref":"#/components/parameters/id"}],
   "requestBody":{"required":true,"content":{"application/json":{"schema":{"type":"object","required":["version","patch"],
     "properties":{"version":{"type":"integer"},"patch":{"type":"object"}}}}}},
   "responses":{"200":{"description":"ok"}}}}},
 "components":{"parameters":{"id":{"name":"id","in":"path","required":true,"schema":{"type":"integer"}}}}}`

// Steps next_actions alone names are played where every value is
// declared: by A from the catalog, and by B when the entry links the
// target; a step that needs a made-up value is left out with a note.
func TestFlowSteps(t *testing.T) {
	doc, err := spec.Load([]byte(flowDoc), "http://a/openapi.json", "openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	page := jsonPage("/orders/1", `{"id":1,"state":"open","version":3,"next_actions":[
		{"operation":"verifyOrder","target":"/orders/1/verification"},{"operation":"patchOrder"},{"operation":"confirmOrder"}]}`)
	p := Plan(Input{Recording: recording(page), Spec: doc, Identity: "user", Rules: rules(t, "POST /orders/*/*"), Reset: exchange.ResetRestart})
	var tasks []string
	for _, tk := range p.Tasks {
		tasks = append(tasks, tk.Operation+" → "+tk.Target)
	}
	if want := []string{"verifyOrder → verified", "confirmOrder → "}; !slices.Equal(tasks, want) {
		t.Errorf("tasks %q, want %q", tasks, want)
	}
	if len(p.Notes) != 1 || !strings.Contains(p.Notes[0], `patchOrder on /orders/{id} (open) is not played: its required member "patch" has no declared value`) {
		t.Errorf("notes %q, want the patch left out", p.Notes)
	}
	want := []runLine{{"A", "/orders/1", "http"}, {"B", "/orders/1", "http"}, {"A", "/orders/1", "http"}}
	if got := lines(p); !slices.Equal(got, want) {
		t.Errorf("runs %v, want %v (B only where the entry links the target)", got, want)
	}
	confirm := p.Runs[2].Steps[1]
	if confirm.URL != "http://a/orders/1/confirmation" || !strings.Contains(string(confirm.Body), `"approval":"approved"`) ||
		!strings.Contains(string(confirm.Body), `"version":3`) || !strings.Contains(string(confirm.Body), `"idempotency_key":"agentready-`) {
		t.Errorf("confirm = %s %s", confirm.URL, confirm.Body)
	}
	// Through the MCP tool that projects it, with the same values.
	tool := `{"name":"confirmOrder","inputSchema":{"type":"object","required":["id","approval","idempotency_key"],
		"properties":{"id":{"type":"integer"},"approval":{"type":"string"},"idempotency_key":{"type":"string"},"version":{"type":"integer"}}}}`
	p = Plan(Input{Recording: recording(page), Spec: doc, MCP: snapshot(tool), Rules: rules(t, "mcp:*"), Reset: exchange.ResetRestart})
	if len(p.Runs) != 1 || p.Runs[0].Steps[1].Via != exchange.ViaMCP ||
		!strings.Contains(string(p.Runs[0].Steps[1].Body), `"arguments":{"approval":"approved","id":1,"idempotency_key":"agentready-`) {
		t.Errorf("runs %+v", p.Runs)
	}
}
