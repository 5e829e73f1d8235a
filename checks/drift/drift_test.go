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
}

func tool(name string, schema string, hints string) map[string]any {
	t := map[string]any{"name": name, "description": name + " does its thing", "inputSchema": json.RawMessage(schema)}
	if hints != "" {
		t["annotations"] = json.RawMessage(hints)
	}
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
      responses: {"200": {description: ok}}
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
      responses: {"200": {description: ok}}
`

const readOnly = `{"readOnlyHint":true,"destructiveHint":false,"idempotentHint":true}`

func base() *surface {
	return &surface{
		tools: []map[string]any{
			tool("getOrder", `{"type":"object","properties":{"id":{"type":"integer"},"view":{"type":"string","enum":["short","full"]}},"required":["id"]}`, readOnly),
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
	}
}

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
