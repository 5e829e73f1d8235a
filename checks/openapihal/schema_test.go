package openapihal

import (
	"slices"
	"strings"
	"testing"

	"github.com/agentready/agentready/checks/checkstest"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/spec"
)

// orderSchemaDoc declares GET /orders/{id}: an order for 200 in version
// version's dialect, and a problem for 404.
func orderSchemaDoc(version string, order map[string]any) *spec.Document {
	get := op(10, "GET", "/orders/{id}")
	problem := map[string]any{"type": "object", "required": []any{"status"},
		"properties": map[string]any{"status": map[string]any{"type": "integer"}, "title": map[string]any{"type": "string"}}}
	get.Responses = map[string]spec.Response{
		"200": {Content: map[string]map[string]any{"application/json": order},
			SchemaLocations: map[string]finding.SourceLocation{"application/json": {File: "openapi.yaml", Line: 14,
				Pointer: "/paths/~1orders~1{id}/get/responses/200/content/application~1json/schema"}}},
		"404": {Content: map[string]map[string]any{"application/problem+json": problem},
			SchemaLocations: map[string]finding.SourceLocation{"application/problem+json": {File: "openapi.yaml", Line: 20,
				Pointer: "/paths/~1orders~1{id}/get/responses/404/content/application~1problem+json/schema"}}},
	}
	d := doc(get)
	d.Version = version
	return d
}

func order31() map[string]any {
	return map[string]any{"type": "object", "required": []any{"id", "state", "secret"},
		"properties": map[string]any{
			"id":       map[string]any{"type": "integer"},
			"state":    map[string]any{"type": "string", "enum": []any{"pending", "paid"}},
			"quantity": map[string]any{"type": "integer", "minimum": 1},
			"note":     map[string]any{"type": []any{"string", "null"}},
			"created":  map[string]any{"type": "string", "format": "date-time"},
			"secret":   map[string]any{"type": "string", "writeOnly": true},
		}}
}

func order30() map[string]any {
	return map[string]any{"type": "object", "required": []any{"id", "state"},
		"properties": map[string]any{
			"id":       map[string]any{"type": "integer"},
			"state":    map[string]any{"type": "string", "enum": []any{"pending", "paid"}, "nullable": true},
			"quantity": map[string]any{"type": "integer", "minimum": 0, "exclusiveMinimum": true},
			"note":     map[string]any{"type": "string", "nullable": true},
		}}
}

func jsonAt(path string, status int, ct, body string, reqHeaders ...string) *exchange.Exchange {
	b := checkstest.Exchange(exchange.PurposeCrawl, "GET", target+strings.TrimPrefix(path, "/")).Status(status).Header("Content-Type", ct).Body(body)
	for i := 0; i+1 < len(reqHeaders); i += 2 {
		b.ReqHeader(reqHeaders[i], reqHeaders[i+1])
	}
	return b.Build()
}

func TestResponseSchema(t *testing.T) {
	tests := []struct {
		name     string
		doc      *spec.Document
		x        *exchange.Exchange
		instance string // the first error's instance pointer; "" for none
		keyword  string
	}{
		{"3.1 conforming, null allowed by type, format not asserted, writeOnly not required", orderSchemaDoc("3.1.0", order31()),
			jsonAt("/orders/1", 200, "application/json", `{"id":1,"state":"paid","note":null,"created":"yesterday"}`), "", ""},
		{"3.1 wrong type", orderSchemaDoc("3.1.0", order31()),
			jsonAt("/orders/1", 200, "application/json", `{"id":1,"state":"paid","quantity":"2"}`), "/quantity", "/properties/quantity/type"},
		{"3.1 outside the enum", orderSchemaDoc("3.1.0", order31()),
			jsonAt("/orders/1", 200, "application/json", `{"id":1,"state":"lost"}`), "/state", "/properties/state/enum"},
		{"3.1 missing required member", orderSchemaDoc("3.1.0", order31()),
			jsonAt("/orders/1", 200, "application/json", `{"state":"paid"}`), "", "/required"},
		{"3.0 nullable members accept null", orderSchemaDoc("3.0.3", order30()),
			jsonAt("/orders/1", 200, "application/json", `{"id":1,"state":null,"note":null,"quantity":1}`), "", ""},
		{"3.0 boolean exclusiveMinimum", orderSchemaDoc("3.0.3", order30()),
			jsonAt("/orders/1", 200, "application/json", `{"id":1,"state":"paid","quantity":0}`), "/quantity", "/properties/quantity/exclusiveMinimum"},
		{"3.0 without nullable, null is a wrong type", orderSchemaDoc("3.0.3", order30()),
			jsonAt("/orders/1", 200, "application/json", `{"id":null,"state":"paid"}`), "/id", "/properties/id/type"},
		{"an error body against its problem schema", orderSchemaDoc("3.1.0", order31()),
			jsonAt("/orders/9", 404, "application/problem+json", `{"status":"404","title":"Not Found"}`), "/status", "/properties/status/type"},
		{"a minimal representation is not judged", orderSchemaDoc("3.1.0", order31()),
			jsonAt("/orders/1", 200, "application/json", `{"id":1}`, "Prefer", "return=minimal"), "", ""},
		{"overlapping oneOf branches are not held against the body", orderSchemaDoc("3.1.0", map[string]any{"oneOf": []any{
			map[string]any{"type": "object", "properties": map[string]any{"id": map[string]any{"type": "integer"}}},
			map[string]any{"type": "object", "required": []any{"id"}}}}),
			jsonAt("/orders/1", 200, "application/json", `{"id":1}`), "", ""},
		{"a body that fits no branch", orderSchemaDoc("3.1.0", map[string]any{"oneOf": []any{
			map[string]any{"type": "array"}, map[string]any{"type": "string"}}}),
			jsonAt("/orders/1", 200, "application/json", `{"id":1}`), "", "/oneOf"},
		{"a required member the properties never define", orderSchemaDoc("3.1.0", map[string]any{"type": "object", "required": []any{"id", "items"},
			"properties": map[string]any{"id": map[string]any{"type": "integer"}}}),
			jsonAt("/orders/1", 200, "application/json", `{"id":1}`), "", ""},
		{"a body followed by white space is judged", orderSchemaDoc("3.1.0", order31()),
			jsonAt("/orders/1", 200, "application/json", "{\"id\":1,\"state\":\"lost\"}\r\n"), "/state", "/properties/state/enum"},
		{"a body with anything after its value is not JSON, and not judged", orderSchemaDoc("3.1.0", order31()),
			jsonAt("/orders/1", 200, "application/json", `{"id":1,"state":"lost"} {"id":2}`), "", ""},
		{"an undeclared media type is another check's", orderSchemaDoc("3.1.0", order31()),
			jsonAt("/orders/1", 200, "application/hal+json", `{"id":"x"}`), "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs, _ := run(t, ResponseSchema{}, input(tt.doc, nil, tt.x))
			if tt.instance == "" && tt.keyword == "" {
				if len(fs) > 0 {
					t.Fatalf("unexpected: %s", fs[0].Message)
				}
				return
			}
			if len(fs) != 1 {
				t.Fatalf("findings %d, want 1", len(fs))
			}
			ev := fs[0].Evidence[0]
			if ev.JSONPointer != tt.instance || !strings.HasSuffix(ev.Expected, tt.keyword) || !strings.HasPrefix(ev.Expected, "schema /paths/~1orders~1{id}/get/responses/") {
				t.Errorf("evidence pointer %q expected %q, want %q and a schema pointer ending %q", ev.JSONPointer, ev.Expected, tt.instance, tt.keyword)
			}
			loc := fs[0].Location
			if loc == nil || loc.File != "openapi.yaml" || !strings.HasSuffix(loc.Pointer, "/schema"+tt.keyword) {
				t.Errorf("location %+v, want the response schema's node", loc)
			}
		})
	}
}

func TestResponseSchemaIsBounded(t *testing.T) {
	d := orderSchemaDoc("3.1.0", order31())
	var xs []*exchange.Exchange
	for i := range 10 {
		xs = append(xs, jsonAt("/orders/"+string(rune('1'+i)), 200, "application/json", `{"id":"one","state":"lost","quantity":"2","note":5}`))
	}
	fs, _ := run(t, ResponseSchema{}, input(d, nil, xs...))
	if len(fs) != 1 || len(fs[0].Evidence) != maxSchemaErrors {
		t.Fatalf("ten bodies that fail alike: %d findings, evidence %d; want one finding with %d errors", len(fs), len(fs[0].Evidence), maxSchemaErrors)
	}
	var urls []string
	for _, ev := range fs[0].Evidence {
		urls = append(urls, ev.URL)
	}
	if len(slices.Compact(urls)) != 1 {
		t.Errorf("the errors of one body: %v", urls)
	}
}

func TestResponseSchemaSaysNothingWhenUnsure(t *testing.T) {
	external := map[string]any{"$ref": "https://schemas.example/order.json"}
	cut := map[string]any{"type": "object", "properties": map[string]any{"parent": nil}}
	for name, s := range map[string]map[string]any{"external $ref": external, "cut cycle": cut} {
		fs, reason := run(t, ResponseSchema{}, input(orderSchemaDoc("3.1.0", s), nil,
			jsonAt("/orders/1", 200, "application/json", `{"parent":{"id":"x"}}`)))
		if len(fs) > 0 {
			t.Errorf("%s: %s", name, fs[0].Message)
		}
		if name == "external $ref" && reason == "" {
			t.Errorf("%s: a schema that cannot be compiled judged nothing, so the check skips", name)
		}
	}
	if _, reason := run(t, ResponseSchema{}, input(nil, nil)); reason == "" {
		t.Error("no document: want a skip")
	}
}
