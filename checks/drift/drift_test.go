package drift_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/checkstest"
	"github.com/agentready/agentready/checks/drift"
	"github.com/agentready/agentready/checks/internal/purpose"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/mcp"
	"github.com/agentready/agentready/internal/spec"
)

const target = "http://api.test/"

// surface is what an app shows agents, in the forms the scan records it.
type surface struct {
	tools []map[string]any
	// toolsIncomplete: the listing stopped before its last page.
	toolsIncomplete bool
	spec            string
	// hal maps paths to the _links relations their resource offers.
	hal map[string][]string
	// card is the agent card's body; "404" when it answers 404, "" when
	// it was not fetched.
	card string
	// prompts, resources and templates are what prompts/list,
	// resources/list and resources/templates/list answer; nil when they
	// were not answered.
	prompts, resources, templates []map[string]any
}

func tool(name string, schema string, hints string) map[string]any {
	t := map[string]any{"name": name, "description": name + " does its thing", "inputSchema": json.RawMessage(schema)}
	if hints != "" {
		t["annotations"] = json.RawMessage(hints)
	}
	return t
}

func withOutput(t map[string]any, schema string) map[string]any {
	t["outputSchema"] = json.RawMessage(schema)
	return t
}

const baseSpec = `openapi: 3.1.0
info: {title: orders, version: "1"}
paths:
  /orders:
    get:
      operationId: listOrders
      x-hal-rel: [orders]
      parameters:
        - {name: page, in: query, schema: {type: integer}}
      responses: {"200": {description: ok}}
  /orders/{id}:
    get:
      operationId: getOrder
      x-hal-rel: [order]
      parameters:
        - {name: id, in: path, required: true, schema: {type: integer}}
      responses:
        "200":
          description: ok
          content:
            application/hal+json:
              schema:
                type: object
                required: [id, state]
                properties:
                  id: {type: integer}
                  state: {type: string, enum: [open, paid, cancelled]}
                  note: {type: string}
        "404":
          description: no such order
          content:
            application/problem+json:
              schema: {type: object, properties: {type: {type: string}}}
  /orders/{id}/cancellation:
    post:
      operationId: cancelOrder
      x-hal-rel: [cancel, "ex:cancel"]
      parameters:
        - {name: id, in: path, required: true, schema: {type: integer}}
      requestBody:
        content:
          application/json:
            schema: {type: object, properties: {reason: {type: string}, description: {type: string}}}
      responses:
        "200": {description: ok}
        "409":
          description: the order can no longer be cancelled
          content:
            application/problem+json:
              schema: {type: object, properties: {type: {type: string, enum: ["https://api.test/problems/shipped"]}}}
`

const readOnly = `{"readOnlyHint":true,"destructiveHint":false,"idempotentHint":true}`

func base() *surface {
	return &surface{
		tools: []map[string]any{
			withOutput(tool("getOrder", `{"type":"object","properties":{"id":{"type":"integer"},"view":{"type":"string","enum":["short","full"]}},"required":["id"]}`, readOnly), baseOutput),
			tool("listOrders", `{"type":"object","properties":{"page":{"type":"number"}}}`, readOnly),
			tool("cancelOrder", `{"type":"object","properties":{"id":{"type":"integer"},"reason":{"type":"string"}},"required":["id"]}`, `{"destructiveHint":true}`),
		},
		spec: baseSpec,
		hal: map[string][]string{
			"/orders":   {"self", "next"},
			"/orders/1": {"self", "collection", "cancel"},
			"/orders/2": {"self", "collection"},
		},
		card: `{"name":"orders","skills":[{"id":"getOrder","name":"Order"},{"id":"listOrders","name":"Find orders"}]}`,
		prompts: []map[string]any{{"name": "summarize", "description": "Summarize an order",
			"arguments": []any{map[string]any{"name": "id", "required": true}, map[string]any{"name": "tone"}}}},
		resources: []map[string]any{{"uri": "file:///orders.csv", "name": "orders", "mimeType": "text/csv"}},
		templates: []map[string]any{{"uriTemplate": "orders://{id}", "name": "order", "mimeType": "application/json"}},
	}
}

// baseOutput is the getOrder tool's outputSchema in the base surface.
const baseOutput = `{"type":"object","properties":{"id":{"type":"integer"},"state":{"type":"string"}},"required":["id"]}`

// input records the surface as a scan of it would.
func (s *surface) input(t *testing.T) *checks.Input {
	t.Helper()
	var xs []*exchange.Exchange
	for _, path := range slices.Sorted(func(yield func(string) bool) {
		for p := range s.hal {
			if !yield(p) {
				return
			}
		}
	}) {
		links := map[string]any{}
		for _, rel := range s.hal[path] {
			links[rel] = map[string]string{"href": path}
		}
		body, _ := json.Marshal(map[string]any{"_links": links})
		xs = append(xs, checkstest.Exchange(exchange.PurposeCrawl, "GET", strings.TrimSuffix(target, "/")+path).
			Status(200).Header("Content-Type", "application/hal+json").Body(string(body)).Build())
	}
	switch card := checkstest.Exchange(purpose.AgentCard, "GET", target+".well-known/agent-card.json").BasedOn(target + ".well-known/agent-card.json"); s.card {
	case "":
	case "404":
		xs = append(xs, card.Status(404).Build())
	default:
		xs = append(xs, card.Status(200).Header("Content-Type", "application/json").Body(s.card).Build())
	}
	in := checkstest.Input(target, nil, xs...)
	if s.spec != "" {
		doc, err := spec.Load([]byte(s.spec), target+"openapi.yaml", "")
		if err != nil {
			t.Fatal(err)
		}
		in.Spec = doc
	}
	if s.tools != nil {
		result, _ := json.Marshal(map[string]any{"tools": s.tools})
		tools, problems := mcp.DecodeTools(result, 0, 0)
		if len(problems) > 0 {
			t.Fatal(problems)
		}
		in.MCP = &mcp.Snapshot{Endpoint: mcp.Endpoint{URL: target + "mcp"}, Verdict: mcp.Verdict{Era: mcp.EraModern},
			Listings: []mcp.Listing{{Tools: tools, Complete: !s.toolsIncomplete}}}
		for _, l := range []struct {
			method, member string
			entries        []map[string]any
		}{{"prompts/list", "prompts", s.prompts}, {"resources/list", "resources", s.resources}, {"resources/templates/list", "resourceTemplates", s.templates}} {
			if l.entries != nil {
				result, _ := json.Marshal(map[string]any{l.member: l.entries})
				in.MCP.Calls = append(in.MCP.Calls, &mcp.Call{Method: l.method, Era: mcp.EraModern, Message: &mcp.Message{Result: result}})
			}
		}
	}
	return in
}

// snapshot is the surface's snapshot as a baseline file gives it back.
func (s *surface) snapshot(t *testing.T) *finding.Snapshot {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	if err := enc.Encode(drift.Snapshot(s.input(t))); err != nil {
		t.Fatal(err)
	}
	var out finding.Snapshot
	if err := json.Unmarshal(buf.Bytes(), &out); err != nil {
		t.Fatal(err)
	}
	return &out
}

func (s *surface) toolSchema(name, schema string) {
	for _, t := range s.tools {
		if t["name"] == name {
			t["inputSchema"] = json.RawMessage(schema)
		}
	}
}

func (s *surface) toolHints(name, hints string) {
	for _, t := range s.tools {
		if t["name"] == name {
			if hints == "" {
				delete(t, "annotations")
			} else {
				t["annotations"] = json.RawMessage(hints)
			}
		}
	}
}

// fired is what one change fires: "check-id severity subject" per finding.
type fired []string

var cases = []struct {
	name   string
	change func(s *surface)
	want   fired
}{
	{"unchanged", func(*surface) {}, nil},
	{"tool removed", func(s *surface) { s.tools = s.tools[1:] },
		fired{"drift-removed error tool getOrder"}},
	{"tool renamed", func(s *surface) { s.tools[1]["name"] = "findOrders" },
		fired{"drift-renamed error tool listOrders"}},
	{"tools with one schema renamed together are not guessed", func(s *surface) {
		s.tools = append(s.tools, tool("exportA", `{"type":"object"}`, ""), tool("exportB", `{"type":"object"}`, ""))
	}, nil},
	{"operation removed", func(s *surface) {
		s.spec = strings.Replace(s.spec, "  /orders/{id}/cancellation:", "  /orders/{id}/cancel-request:", 1)
		s.spec = strings.Replace(s.spec, "operationId: cancelOrder", "operationId: requestCancellation", 1)
	}, fired{"drift-removed error operation POST /orders/{id}/cancellation"}},
	{"operationId renamed", func(s *surface) {
		s.spec = strings.Replace(s.spec, "operationId: getOrder", "operationId: fetchOrder", 1)
	},
		fired{"drift-renamed error operation GET /orders/{id}"}},
	{"operation moved under its operationId", func(s *surface) {
		s.spec = strings.Replace(s.spec, "  /orders/{id}/cancellation:", "  /orders/{id}/cancel:", 1)
	}, fired{"drift-renamed error operation POST /orders/{id}/cancellation"}},
	{"property removed", func(s *surface) {
		s.toolSchema("cancelOrder", `{"type":"object","properties":{"id":{"type":"integer"}},"required":["id"]}`)
	}, fired{"drift-input-schema error tool cancelOrder"}},
	{"new required property", func(s *surface) {
		s.toolSchema("listOrders", `{"type":"object","properties":{"page":{"type":"number"},"tenant":{"type":"string"}},"required":["tenant"]}`)
	}, fired{"drift-input-schema error tool listOrders"}},
	{"property made required", func(s *surface) {
		s.toolSchema("cancelOrder", `{"type":"object","properties":{"id":{"type":"integer"},"reason":{"type":"string"}},"required":["id","reason"]}`)
	}, fired{"drift-input-schema error tool cancelOrder"}},
	{"type narrowed", func(s *surface) {
		s.toolSchema("listOrders", `{"type":"object","properties":{"page":{"type":"integer"}}}`)
	}, fired{"drift-input-schema error tool listOrders"}},
	{"enum shrunk", func(s *surface) {
		s.toolSchema("getOrder", `{"type":"object","properties":{"id":{"type":"integer"},"view":{"type":"string","enum":["short"]}},"required":["id"]}`)
	}, fired{"drift-input-schema error tool getOrder"}},
	{"optional property added", func(s *surface) {
		s.toolSchema("listOrders", `{"type":"object","properties":{"page":{"type":"number"},"sort":{"type":"string"}}}`)
	}, fired{"drift-input-schema info tool listOrders"}},
	{"type widened, enum grown, requirement dropped", func(s *surface) {
		s.toolSchema("getOrder", `{"type":"object","properties":{"id":{"type":["integer","string"]},"view":{"type":"string","enum":["short","full","raw"]}}}`)
	}, fired{"drift-input-schema info tool getOrder"}},
	{"schema rewritten in another key order and layout", func(s *surface) {
		s.toolSchema("getOrder", `{ "required": ["id"], "properties": {"view": {"enum": ["short","full"], "type": "string"}, "id": {"type": "integer"}}, "type": "object" }`)
	}, nil},
	{"new required query parameter", func(s *surface) {
		s.spec = strings.Replace(s.spec, "        - {name: page, in: query, schema: {type: integer}}",
			"        - {name: page, in: query, schema: {type: integer}}\n        - {name: tenant, in: query, required: true, schema: {type: string}}", 1)
	}, fired{"drift-input-schema error operation GET /orders"}},
	{"parameter description reworded", func(s *surface) {
		s.spec = strings.Replace(s.spec, "{name: page, in: query, schema: {type: integer}}", "{name: page, in: query, description: Page to read, schema: {type: integer, description: one-based}}", 1)
	}, nil},
	{"body property named like a keyword removed", func(s *surface) {
		s.spec = strings.Replace(s.spec, ", description: {type: string}}}", "}}", 1)
	}, fired{"drift-input-schema error operation POST /orders/{id}/cancellation"}},
	{"readOnlyHint turned off", func(s *surface) {
		s.toolHints("getOrder", `{"readOnlyHint":false,"destructiveHint":false,"idempotentHint":true}`)
	},
		fired{"drift-annotations error tool getOrder"}},
	{"annotations dropped", func(s *surface) { s.toolHints("listOrders", "") },
		fired{"drift-annotations error tool listOrders"}},
	{"destructiveHint turned on", func(s *surface) {
		s.toolHints("getOrder", `{"readOnlyHint":true,"destructiveHint":true,"idempotentHint":true}`)
	},
		fired{"drift-annotations error tool getOrder"}},
	{"idempotentHint dropped and a title added", func(s *surface) {
		s.toolHints("getOrder", `{"title":"Order","readOnlyHint":true,"destructiveHint":false}`)
	}, fired{"drift-annotations info tool getOrder"}},
	{"destructive tool made safe", func(s *surface) { s.toolHints("cancelOrder", `{"destructiveHint":false}`) },
		fired{"drift-annotations info tool cancelOrder"}},
	{"x-hal-rel lost a relation", func(s *surface) { s.spec = strings.Replace(s.spec, `[cancel, "ex:cancel"]`, `[cancel]`, 1) },
		fired{"drift-relations error operation POST /orders/{id}/cancellation"}},
	{"relation no longer offered", func(s *surface) {
		s.hal["/orders/1"] = []string{"self", "cancel"}
		s.hal["/orders/2"] = []string{"self"}
	}, fired{"drift-relations error relation collection of /orders/{id}"}},
	{"relation only some resources offered is gone", func(s *surface) { s.hal["/orders/1"] = []string{"self", "collection"} }, nil},
	{"pagination relation gone", func(s *surface) { s.hal["/orders"] = []string{"self"} }, nil},
	{"path shape not reached", func(s *surface) { delete(s.hal, "/orders/1"); delete(s.hal, "/orders/2") }, nil},
	{"skill removed", func(s *surface) { s.card = `{"name":"orders","skills":[{"id":"getOrder","name":"Order"}]}` },
		fired{"drift-skills error skill listOrders"}},
	{"agent card gone", func(s *surface) { s.card = "404" },
		fired{"drift-skills error skill getOrder", "drift-skills error skill listOrders"}},
	{"agent card not fetched", func(s *surface) { s.card = "" }, nil},
	{"tool listing incomplete", func(s *surface) { s.tools = s.tools[:1]; s.toolsIncomplete = true }, nil},
	{"response property removed", func(s *surface) { s.spec = strings.Replace(s.spec, "                  note: {type: string}\n", "", 1) },
		fired{"drift-response-schema error operation GET /orders/{id}"}},
	{"response enum narrowed", func(s *surface) { s.spec = strings.Replace(s.spec, "[open, paid, cancelled]", "[open, paid]", 1) },
		fired{"drift-response-schema error operation GET /orders/{id}"}},
	{"response property no longer required", func(s *surface) { s.spec = strings.Replace(s.spec, "required: [id, state]", "required: [id]", 1) },
		fired{"drift-response-schema error operation GET /orders/{id}"}},
	{"response type changed", func(s *surface) {
		s.spec = strings.Replace(s.spec, "id: {type: integer}\n", "id: {type: [integer, string]}\n", 1)
	},
		fired{"drift-response-schema error operation GET /orders/{id}"}},
	{"response media type dropped", func(s *surface) { s.spec = strings.Replace(s.spec, "application/hal+json:", "application/json:", 1) },
		fired{"drift-response-schema error operation GET /orders/{id}"}},
	{"response property added, enum grown, property made required", func(s *surface) {
		s.spec = strings.Replace(s.spec, "                  note: {type: string}\n", "                  note: {type: string}\n                  total: {type: number}\n", 1)
		s.spec = strings.Replace(s.spec, "[open, paid, cancelled]", "[open, paid, cancelled, refunded]", 1)
		s.spec = strings.Replace(s.spec, "required: [id, state]", "required: [id, state, note]", 1)
	}, fired{"drift-response-schema info operation GET /orders/{id}"}},
	{"response description reworded", func(s *surface) {
		s.spec = strings.Replace(s.spec, "description: no such order", "description: not found", 1)
	}, nil},
	{"declared 409 dropped", func(s *surface) {
		s.spec = s.spec[:strings.Index(s.spec, `        "409":`)]
	}, fired{"drift-problem-types error operation POST /orders/{id}/cancellation"}},
	{"problem type narrowed", func(s *surface) {
		s.spec = strings.Replace(s.spec, `enum: ["https://api.test/problems/shipped"]`, `enum: ["https://api.test/problems/delivered"]`, 1)
	}, fired{"drift-problem-types error operation POST /orders/{id}/cancellation"}},
	{"error response added", func(s *surface) {
		s.spec = strings.Replace(s.spec, `        "200": {description: ok}
        "409":`, `        "200": {description: ok}
        "412": {description: stale}
        "409":`, 1)
	}, fired{"drift-problem-types info operation POST /orders/{id}/cancellation"}},
	{"output schema property removed", func(s *surface) {
		withOutput(s.tools[0], `{"type":"object","properties":{"id":{"type":"integer"}},"required":["id"]}`)
	}, fired{"drift-output-schema error tool getOrder"}},
	{"output schema dropped", func(s *surface) { delete(s.tools[0], "outputSchema") },
		fired{"drift-output-schema error tool getOrder"}},
	{"output schema property added", func(s *surface) {
		withOutput(s.tools[0], `{"type":"object","properties":{"id":{"type":"integer"},"state":{"type":"string"},"total":{"type":"number"}},"required":["id"]}`)
	}, fired{"drift-output-schema info tool getOrder"}},
	{"output schema declared", func(s *surface) { withOutput(s.tools[1], `{"type":"object"}`) },
		fired{"drift-output-schema info tool listOrders"}},
	{"prompt removed", func(s *surface) { s.prompts = []map[string]any{} }, fired{"drift-prompts error prompt summarize"}},
	{"prompt argument made required", func(s *surface) {
		s.prompts[0]["arguments"] = []any{map[string]any{"name": "id", "required": true}, map[string]any{"name": "tone", "required": true}}
	}, fired{"drift-prompts error prompt summarize"}},
	{"prompt rewritten", func(s *surface) { s.prompts[0]["description"] = "Summarize an order, then cancel it" },
		fired{"drift-prompts info prompt summarize"}},
	{"prompt added", func(s *surface) { s.prompts = append(s.prompts, map[string]any{"name": "triage"}) }, nil},
	{"prompts not listed", func(s *surface) { s.prompts = nil }, nil},
	{"resource media type changed", func(s *surface) { s.resources[0]["mimeType"] = "application/json" },
		fired{"drift-resources error resource file:///orders.csv"}},
	{"resource template removed", func(s *surface) { s.templates = []map[string]any{} },
		fired{"drift-resources error resource template orders://{id}"}},
	{"resource renamed in its title", func(s *surface) { s.resources[0]["title"] = "All orders" },
		fired{"drift-resources info resource file:///orders.csv"}},
	{"resource added", func(s *surface) { s.resources = append(s.resources, map[string]any{"uri": "file:///customers.csv"}) }, nil},
	{"no MCP endpoint", func(s *surface) { s.tools = nil }, nil},
}

func run(t *testing.T, before, after *surface) fired {
	t.Helper()
	in := after.input(t)
	in.Baseline = before.snapshot(t)
	var got fired
	for _, c := range drift.All() {
		fs, _ := checkstest.Run(t, c, in)
		for _, f := range fs {
			got = append(got, fmt.Sprintf("%s %s %s", f.CheckID, f.Severity, f.Subject))
			assertDiffEvidence(t, f)
		}
	}
	slices.Sort(got)
	return got
}

// assertDiffEvidence: each finding gives every change as a JSON pointer
// with the value before or after.
func assertDiffEvidence(t *testing.T, f finding.Finding) {
	t.Helper()
	for _, e := range f.Evidence {
		if !strings.HasPrefix(e.JSONPointer, "/") || e.Expected == "" && e.Actual == "" || e.Method == "" || e.URL == "" {
			t.Errorf("%s: evidence without a pointer diff: %+v", f.CheckID, e)
		}
	}
}

func TestDrift(t *testing.T) {
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			after := base()
			c.change(after)
			if got := run(t, base(), after); !slices.Equal(got, c.want) {
				t.Errorf("fired %q, want %q", got, c.want)
			}
		})
	}
}

func TestFiredBy(t *testing.T) {
	checkstest.FiredBy(t, drift.All(), func(t *testing.T, name string) ([]string, bool) {
		for _, c := range cases {
			if c.name == name {
				after := base()
				c.change(after)
				var ids []string
				for _, f := range run(t, base(), after) {
					id, _, _ := strings.Cut(f, " ")
					ids = append(ids, id)
				}
				return ids, true
			}
		}
		return nil, false
	})
}

func TestWithoutBaselineEveryCheckSkips(t *testing.T) {
	in := base().input(t)
	for _, c := range drift.All() {
		if fs, reason := checkstest.Run(t, c, in); len(fs) > 0 || !strings.Contains(reason, "--baseline") {
			t.Errorf("%s: %d findings, skip reason %q", c.Meta().ID, len(fs), reason)
		}
	}
}

func TestPartsNeitherSideSawSkip(t *testing.T) {
	s := base()
	s.card = ""
	in := s.input(t)
	in.Baseline = base().snapshot(t)
	for _, c := range drift.All() {
		_, reason := checkstest.Run(t, c, in)
		if want := c.Meta().ID == "drift-skills"; want != (reason != "") {
			t.Errorf("%s: skip reason %q", c.Meta().ID, reason)
		}
	}
}

func TestSnapshotKeepsPathsOfTheOriginInLLMs(t *testing.T) {
	x := checkstest.Exchange(purpose.LLMs, "GET", target+"llms.txt").BasedOn(target+"llms.txt").Status(200).Header("Content-Type", "text/plain").
		Body("# Orders\n\n## Docs\n\n- [API](http://api.test/openapi.yaml): the document\n- [Elsewhere](https://other.test/x)\n").Build()
	in := checkstest.Input(target, nil, x)
	got := drift.Snapshot(in).LLMs
	want := map[string]string{"API": "/openapi.yaml", "Elsewhere": "https://other.test/x"}
	if got == nil || fmt.Sprint(got.Entries) != fmt.Sprint(want) {
		t.Fatalf("llms entries %+v, want %v", got, want)
	}
	if _, err := url.Parse(got.URL); err != nil {
		t.Error(err)
	}
}

func TestNoSkillsInTheBaselineIsNotJudged(t *testing.T) {
	before := base()
	before.card = "404"
	in := base().input(t)
	in.Baseline = before.snapshot(t)
	for _, c := range drift.All() {
		if c.Meta().ID != "drift-skills" {
			continue
		}
		if fs, reason := checkstest.Run(t, c, in); len(fs) > 0 || reason == "" {
			t.Errorf("%d findings, skip reason %q", len(fs), reason)
		}
	}
}

// TestOlderBaselineIsNotOutputDrift: a baseline written before snapshots
// recorded the output side has none of it; that is unknown, so removals on
// the output side find nothing and the output-side checks skip.
func TestOlderBaselineIsNotOutputDrift(t *testing.T) {
	old := base().snapshot(t)
	raw, err := json.Marshal(old)
	if err != nil {
		t.Fatal(err)
	}
	var generic map[string]any
	if err := json.Unmarshal(raw, &generic); err != nil {
		t.Fatal(err)
	}
	m := generic["mcp"].(map[string]any)
	delete(m, "outputSchemas")
	delete(m, "prompts")
	delete(m, "resources")
	for _, tl := range m["tools"].(map[string]any) {
		delete(tl.(map[string]any), "outputSchema")
	}
	for _, op := range generic["openapi"].(map[string]any)["operations"].(map[string]any) {
		delete(op.(map[string]any), "responses")
	}
	raw, _ = json.Marshal(generic)
	var before finding.Snapshot
	if err := json.Unmarshal(raw, &before); err != nil {
		t.Fatal(err)
	}
	after := base()
	after.spec = strings.Replace(after.spec, "                  note: {type: string}\n", "", 1)
	after.spec = after.spec[:strings.Index(after.spec, `        "409":`)]
	delete(after.tools[0], "outputSchema")
	after.prompts, after.resources = []map[string]any{}, []map[string]any{}
	in := after.input(t)
	in.Baseline = &before
	for _, c := range drift.All() {
		fs, reason := checkstest.Run(t, c, in)
		if len(fs) > 0 {
			t.Errorf("%s: %d findings against an older baseline: %s", c.Meta().ID, len(fs), fs[0].Message)
		}
		switch c.Meta().ID {
		case "drift-response-schema", "drift-problem-types", "drift-output-schema", "drift-prompts", "drift-resources":
			if !strings.Contains(reason, "does not record") {
				t.Errorf("%s: skip reason %q", c.Meta().ID, reason)
			}
		}
	}
}

// TestLargeResponsesAreUnknownPastTheBound: past the bytes of response
// schemas a snapshot keeps, operations have unknown responses, which a note
// names, and are not compared, rather than seen to lose them.
func TestLargeResponsesAreUnknownPastTheBound(t *testing.T) {
	values := make([]string, 150000)
	for i := range values {
		values[i] = fmt.Sprintf("value-%012d", i)
	}
	paths := map[string]any{}
	for _, p := range []string{"/a", "/b", "/c"} {
		paths[p] = map[string]any{"get": map[string]any{"responses": map[string]any{"200": map[string]any{
			"description": "ok", "content": map[string]any{"application/json": map[string]any{"schema": map[string]any{"$ref": "#/components/schemas/Big"}}},
		}}}}
	}
	raw, err := json.Marshal(map[string]any{"openapi": "3.1.0", "info": map[string]any{"title": "big", "version": "1"}, "paths": paths,
		"components": map[string]any{"schemas": map[string]any{"Big": map[string]any{"type": "string", "enum": values}}}})
	if err != nil {
		t.Fatal(err)
	}
	doc, err := spec.Load(raw, target+"openapi.json", "")
	if err != nil {
		t.Fatal(err)
	}
	in := checkstest.Input(target, nil)
	in.Spec = doc
	ops := drift.Snapshot(in).OpenAPI.Operations
	var known []string
	for _, key := range []string{"GET /a", "GET /b", "GET /c"} {
		if ops[key].Responses != nil {
			known = append(known, key)
		}
	}
	if !slices.Equal(known, []string{"GET /a"}) {
		t.Errorf("operations with known responses %v, want the first only", known)
	}
	rep := &finding.Report{}
	for _, p := range checks.PartsOf(drift.All()) {
		if a, ok := p.(checks.Annotator); ok {
			a.Annotate(in, rep)
		}
	}
	if len(rep.Notes) != 1 || !strings.Contains(rep.Notes[0], "responses of 2 operation(s) were not recorded") {
		t.Errorf("notes %q", rep.Notes)
	}
}

// pinnedSpec declares a 409 whose problem schema pins its type through a
// $ref and allOf, as documents that share one Problem schema do.
const pinnedSpec = `openapi: 3.1.0
info: {title: orders, version: "1"}
paths:
  /orders:
    post:
      operationId: createOrder
      responses:
        "201":
          description: created
          content:
            application/json:
              schema: {type: object, properties: {id: {type: string}}}
        "409":
          description: conflict
          content:
            application/problem+json:
              schema:
                allOf:
                  - $ref: '#/components/schemas/Problem'
                  - type: object
                    properties:
                      type: {TYPES}
components:
  schemas:
    Problem:
      type: object
      properties:
        type: {type: string, format: uri}
        title: {type: string}
`

// A problem type pinned in the schema is compared by its URI: dropping one
// is one breaking change of drift-problem-types that names it, not a
// change of the schema; adding one is compatible.
func TestPinnedProblemTypesAreComparedByURI(t *testing.T) {
	const (
		outOfStock = "https://example.com/probs/out-of-stock"
		duplicate  = "https://example.com/probs/duplicate"
	)
	withTypes := func(types string) *surface {
		return &surface{spec: strings.Replace(pinnedSpec, "{TYPES}", types, 1)}
	}
	both := withTypes(`{enum: ["` + outOfStock + `", "` + duplicate + `"]}`)
	if got := drift.Snapshot(both.input(t)).OpenAPI.Operations["POST /orders"].Responses["409"]; !slices.Equal(got.ProblemTypes, []string{duplicate, outOfStock}) ||
		strings.Contains(string(got.Schema), "enum") {
		t.Fatalf("409 recorded %v with schema %s", got.ProblemTypes, got.Schema)
	}
	tests := []struct {
		name, after string
		want        fired
		why         []string
	}{
		{"one dropped", `{enum: ["` + outOfStock + `"]}`, fired{"drift-problem-types error operation POST /orders"},
			[]string{"problem type " + duplicate + " no longer declared for 409"}},
		{"pinned by const", `{const: "` + duplicate + `"}`, fired{"drift-problem-types error operation POST /orders"},
			[]string{"problem type " + outOfStock + " no longer declared for 409"}},
		{"one added", `{enum: ["` + outOfStock + `", "` + duplicate + `", "https://example.com/probs/locked"]}`,
			fired{"drift-problem-types info operation POST /orders"}, []string{"problem type https://example.com/probs/locked declared for 409"}},
		{"reordered", `{enum: ["` + duplicate + `", "` + outOfStock + `"]}`, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			after := withTypes(tt.after)
			if got := run(t, both, after); !slices.Equal(got, tt.want) {
				t.Fatalf("fired %q, want %q", got, tt.want)
			}
			in := after.input(t)
			in.Baseline = both.snapshot(t)
			var whys []string
			for _, c := range drift.All() {
				fs, _ := checkstest.Run(t, c, in)
				for _, f := range fs {
					for _, e := range f.Evidence {
						whys = append(whys, e.JSONPointer)
					}
					if !strings.Contains(f.Message, tt.why[0]) {
						t.Errorf("message %q does not say %q", f.Message, tt.why[0])
					}
				}
			}
			if len(tt.why) > 0 && !slices.Equal(whys, []string{"/openapi/operations/POST ~1orders/responses/409/problemTypes"}) {
				t.Errorf("evidence at %v, want the problem types alone", whys)
			}
		})
	}
}
