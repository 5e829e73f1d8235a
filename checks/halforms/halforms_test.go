package halforms_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/checkstest"
	"github.com/agentready/agentready/checks/halforms"
	"github.com/agentready/agentready/checks/internal/hypermedia"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/spec"
)

const base = "http://api.test"

func forms(path, body string) *exchange.Exchange {
	return checkstest.Exchange(hypermedia.PurposeFetch, "GET", base+path).BasedOn(base+path).
		ReqHeader("Accept", hypermedia.MediaHALForms).Status(200).
		Header("Content-Type", hypermedia.MediaHALForms).Body(body).Build()
}

func input(doc *spec.Document, xs ...*exchange.Exchange) *checks.Input {
	in := checkstest.Input(base+"/", nil, xs...)
	in.Spec = doc
	return in
}

func run(t *testing.T, in *checks.Input) []finding.Finding {
	t.Helper()
	var all []finding.Finding
	for _, c := range halforms.All() {
		fs, _ := checkstest.Run(t, c, in)
		all = append(all, fs...)
	}
	return all
}

// specExample is the HAL-FORMS spec's hal-forms-response.json.
const specExample = `{
  "_links": { "self": { "href": "http://api.example.org/rels/create" } },
  "_templates": {
    "default": {
      "title": "Create",
      "method": "POST",
      "contentType": "application/json",
      "properties": [
        {"name": "title", "required": true, "value": "", "prompt": "Title", "regex": "", "templated": false},
        {"name": "completed", "required": false, "value": "false", "prompt": "Completed", "regex": ""}
      ]
    }
  }
}`

// spring3 is Spring HATEOAS 3's hal-forms-custom.json: templates keyed by
// handler method, no "default", upper-case methods, no target.
const spring3 = `{
  "name": "Frodo Baggins", "role": "ring bearer",
  "_links": { "self": { "href": "http://localhost/employees/0" },
              "employees": { "href": "http://localhost/employees" } },
  "_templates": {
    "updateEmployee": { "method": "PUT",
      "properties": [ { "name": "name", "required": true, "type": "text" },
                      { "name": "role", "type": "text" } ] },
    "partiallyUpdateEmployee": { "method": "PATCH",
      "properties": [ { "name": "name", "type": "text" }, { "name": "role", "type": "text" } ] }
  }
}`

// spring1 is the Spring HATEOAS 1.x shape: "default" first, lower case.
const spring1 = `{
  "name": "Frodo Baggins",
  "_links": { "self": { "href": "http://localhost/employees/0" } },
  "_templates": {
    "default": { "method": "put", "properties": [ { "name": "name", "required": true } ] },
    "partiallyUpdateEmployee": { "method": "patch", "properties": [ { "name": "name" } ] }
  }
}`

func tpl(template string) string {
	return `{"_links":{"self":{"href":"/orders/1"}},"_templates":{"pay":` + template + `}}`
}

func TestDocumentRules(t *testing.T) {
	tests := []struct {
		name    string
		body    string
		want    []string
		pointer string
	}{
		{"spec example", specExample, nil, ""},
		{"Spring HATEOAS 3", spring3, nil, ""},
		{"Spring HATEOAS 1.x lower case", spring1, []string{"hal-forms-method-unrecognized"}, "/_templates/default/method"},
		{"no _templates", `{"_links":{"self":{"href":"/"}}}`, []string{"hal-forms-templates-missing"}, ""},
		{"_templates array", `{"_templates":[]}`, []string{"hal-forms-templates-missing"}, "/_templates"},
		{"not JSON", `nope`, []string{"hal-forms-templates-missing"}, ""},
		{"empty _templates", `{"_templates":{}}`, []string{"hal-forms-templates-empty"}, "/_templates"},
		{"no method", tpl(`{"target":"/orders/1/payment"}`), []string{"hal-forms-method-missing"}, "/_templates/pay"},
		{"empty method", tpl(`{"method":""}`), []string{"hal-forms-method-missing"}, "/_templates/pay"},
		{"template not an object", tpl(`"POST"`), []string{"hal-forms-method-missing"}, "/_templates/pay"},
		{"method not a token", tpl(`{"method":"PO ST"}`), []string{"hal-forms-method-invalid"}, "/_templates/pay/method"},
		{"lower-case method", tpl(`{"method":"post"}`), []string{"hal-forms-method-unrecognized"}, "/_templates/pay/method"},
		{"unregistered method", tpl(`{"method":"FROB"}`), []string{"hal-forms-method-unrecognized"}, "/_templates/pay/method"},
		{"no target and no self", `{"_templates":{"pay":{"method":"POST"}}}`, []string{"hal-forms-target-unresolvable"}, "/_templates/pay"},
		{"bad target and no self", `{"_templates":{"pay":{"method":"POST","target":"http://[::1"}}}`, []string{"hal-forms-target-unresolvable"}, "/_templates/pay/target"},
		{"bad target falls back on self", tpl(`{"method":"POST","target":"http://[::1"}`), nil, ""},
		{"property without name", tpl(`{"method":"POST","properties":[{"prompt":"x"}]}`), []string{"hal-forms-property-name"}, "/_templates/pay/properties/0"},
		{"properties not an array", tpl(`{"method":"POST","properties":{"name":"x"}}`), []string{"hal-forms-property-name"}, "/_templates/pay/properties"},
		{"duplicate property", tpl(`{"method":"POST","properties":[{"name":"a"},{"name":"a"}]}`), []string{"hal-forms-property-duplicate"}, "/_templates/pay/properties/1/name"},
		{"bad regex", tpl(`{"method":"POST","properties":[{"name":"a","regex":"[a-z"}]}`), []string{"hal-forms-regex"}, "/_templates/pay/properties/0/regex"},
		{"lookahead is not judged", tpl(`{"method":"POST","properties":[{"name":"a","regex":"(?=.*\\d)\\w+"}]}`), nil, ""},
		{"good regex", tpl(`{"method":"POST","properties":[{"name":"a","regex":"^[A-Z]{2}\\d+$"}]}`), nil, ""},
		{"min over max", tpl(`{"method":"POST","properties":[{"name":"a","min":5,"max":1}]}`), []string{"hal-forms-bounds"}, "/_templates/pay/properties/0/min"},
		{"minLength over maxLength", tpl(`{"method":"POST","properties":[{"name":"a","minLength":9,"maxLength":2}]}`), []string{"hal-forms-bounds"}, "/_templates/pay/properties/0/minLength"},
		{"date bounds are not compared", tpl(`{"method":"POST","properties":[{"name":"a","type":"date","min":"2030-01-01","max":"2020-01-01"}]}`), nil, ""},
		{"required with minItems 0", tpl(`{"method":"POST","properties":[{"name":"a","required":true,"options":{"inline":["x"],"minItems":0}}]}`), []string{"hal-forms-required-min-items"}, "/_templates/pay/properties/0/options/minItems"},
		{"minItems without required", tpl(`{"method":"POST","properties":[{"name":"a","options":{"inline":["x"],"minItems":1}}]}`), []string{"hal-forms-required-min-items"}, "/_templates/pay/properties/0/options/minItems"},
		{"options without source", tpl(`{"method":"POST","properties":[{"name":"a","options":{"maxItems":1}}]}`), []string{"hal-forms-options-source"}, "/_templates/pay/properties/0/options"},
		{"options link without href", tpl(`{"method":"POST","properties":[{"name":"a","options":{"link":{"type":"application/json"}}}]}`), []string{"hal-forms-options-link-href"}, "/_templates/pay/properties/0/options/link"},
		{"options with inline values", tpl(`{"method":"POST","properties":[{"name":"a","required":true,"options":{"inline":[{"prompt":"A","value":"a"}],"minItems":1}}]}`), nil, ""},
		{"unlisted type", tpl(`{"method":"POST","properties":[{"name":"a","type":"checkbox"}]}`), []string{"hal-forms-property-type"}, "/_templates/pay/properties/0/type"},
		{"xml content type", tpl(`{"method":"POST","contentType":"application/xml"}`), []string{"hal-forms-content-type"}, "/_templates/pay/contentType"},
		{"form content type", tpl(`{"method":"POST","contentType":"application/x-www-form-urlencoded"}`), nil, ""},
		{"extensions are allowed", tpl(`{"method":"POST","x-agent-hint":"pay first","properties":[{"name":"a","x-ui":{"w":3}}]}`), nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := run(t, input(nil, forms("/orders/1", tt.body)))
			if got := checkstest.IDs(fs); !slices.Equal(got, tt.want) {
				t.Fatalf("fired %v, want %v: %v", got, tt.want, messages(fs))
			}
			if tt.want != nil && fs[0].Evidence[0].JSONPointer != tt.pointer {
				t.Errorf("pointer %q, want %q", fs[0].Evidence[0].JSONPointer, tt.pointer)
			}
		})
	}
}

func TestNotServedAsHALFormsIsNotJudged(t *testing.T) {
	refused := checkstest.Exchange(hypermedia.PurposeFetch, "GET", base+"/orders/4").BasedOn(base+"/orders/4").
		Status(406).Header("Content-Type", "application/problem+json").Body(`{"status":406}`).Build()
	plain := checkstest.Exchange(hypermedia.PurposeFetch, "GET", base+"/orders/5").BasedOn(base+"/orders/5").
		Status(200).Header("Content-Type", "application/hal+json").Body(`{"_links":{}}`).Build()
	in := input(nil, refused, plain)
	for _, c := range halforms.All() {
		fs, reason := checkstest.Run(t, c, in)
		if len(fs) != 0 || reason == "" {
			t.Errorf("%s: %d findings, skip %q; want a skip", c.Meta().ID, len(fs), reason)
		}
	}
}

func TestDefaultTemplateIsObservedInDocumentOrder(t *testing.T) {
	in := input(nil, forms("/employees/0", spring3))
	run(t, in)
	obs := in.Observations("hal-forms-templates-missing")
	if len(obs) != 1 || !strings.Contains(obs[0], `"updateEmployee"`) {
		t.Errorf("observations %v, want the first template in document order", obs)
	}
}

func ordersSpec() *spec.Document {
	body := map[string]any{"application/json": map[string]any{
		"type": "object", "required": []any{"reference"},
		"properties": map[string]any{"reference": map[string]any{"type": "string"}, "note": map[string]any{"type": "string"}},
	}}
	return &spec.Document{UsesHALRel: true, Operations: []*spec.Operation{
		{Method: "GET", PathTemplate: "/orders/{id}", OperationID: "getOrder"},
		{Method: "POST", PathTemplate: "/orders/{id}/payment", OperationID: "payOrder", HALRels: []string{"ord:pay"}, RequestBody: body},
		{Method: "PATCH", PathTemplate: "/orders/{id}", OperationID: "updateOrder", HALRels: []string{"edit"}, RequestBody: body},
	}}
}

func TestSpecRules(t *testing.T) {
	tests := []struct {
		name string
		body string
		want []string
	}{
		{"matches", tpl(`{"method":"POST","target":"/orders/1/payment","properties":[{"name":"reference","required":true}]}`), nil},
		{"namespaced key", `{"_links":{"self":{"href":"/orders/1"}},"_templates":{"ord:pay":{"method":"POST","target":"/orders/1/payment","properties":[{"name":"reference","required":true}]}}}`, nil},
		{"default key needs no relation", `{"_links":{"self":{"href":"/orders/1"}},"_templates":{"default":{"method":"POST","target":"/orders/1/payment","properties":[{"name":"reference","required":true}]}}}`, nil},
		{"no such operation", tpl(`{"method":"POST","target":"/orders/1/refund"}`), []string{"hal-forms-template-operation"}},
		{"wrong method", tpl(`{"method":"PUT","target":"/orders/1/payment"}`), []string{"hal-forms-template-operation"}},
		{"relation not declared", `{"_links":{"self":{"href":"/orders/1"}},"_templates":{"settle":{"method":"POST","target":"/orders/1/payment","properties":[{"name":"reference","required":true}]}}}`, []string{"hal-forms-template-operation"}},
		{"required property unknown", tpl(`{"method":"POST","target":"/orders/1/payment","properties":[{"name":"reference","required":true},{"name":"iban","required":true}]}`), []string{"hal-forms-required-property-unknown"}},
		{"optional property unknown", tpl(`{"method":"POST","target":"/orders/1/payment","properties":[{"name":"reference","required":true},{"name":"iban"}]}`), []string{"hal-forms-property-schema"}},
		{"required field not required", tpl(`{"method":"POST","target":"/orders/1/payment","properties":[{"name":"reference"}]}`), []string{"hal-forms-property-schema"}},
		{"required field missing", tpl(`{"method":"POST","target":"/orders/1/payment","properties":[{"name":"note"}]}`), []string{"hal-forms-property-schema"}},
		{"PATCH may leave fields optional", `{"_links":{"self":{"href":"/orders/1"}},"_templates":{"edit":{"method":"PATCH","properties":[{"name":"note"}]}}}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := run(t, input(ordersSpec(), forms("/orders/1", tt.body)))
			if got := checkstest.IDs(fs); !slices.Equal(got, tt.want) {
				t.Fatalf("fired %v, want %v: %v", got, tt.want, messages(fs))
			}
			for _, f := range fs {
				if f.Evidence[0].JSONPointer == "" {
					t.Errorf("%s has no JSON pointer", f.CheckID)
				}
			}
		})
	}
}

func TestSpecRulesSkipWithoutSpec(t *testing.T) {
	in := input(nil, forms("/orders/1", tpl(`{"method":"POST"}`)))
	for _, c := range halforms.All() {
		id := c.Meta().ID
		if id != "hal-forms-template-operation" && id != "hal-forms-required-property-unknown" && id != "hal-forms-property-schema" {
			continue
		}
		if _, reason := checkstest.Run(t, c, in); !strings.Contains(reason, "OpenAPI") {
			t.Errorf("%s: skip reason %q", id, reason)
		}
	}
}

func TestPlanAsksForHALFormsOnHALAndStates(t *testing.T) {
	hal := func(path, state string) *exchange.Exchange {
		return checkstest.Exchange(exchange.PurposeCrawl, "GET", base+path).Status(200).
			Header("Content-Type", "application/hal+json").Body(`{"state":"` + state + `"}`).Build()
	}
	plain := checkstest.Exchange(exchange.PurposeCrawl, "GET", base+"/x").Status(200).Header("Content-Type", "application/json").Body(`{}`).Build()
	advertised := checkstest.Exchange(exchange.PurposeCrawl, "GET", base+"/y").Status(200).Header("Content-Type", "application/json").
		Header("Link", `</y>; rel="alternate"; type="application/prs.hal-forms+json"`).Body(`{}`).Build()
	o1, o2, o3, o4 := hal("/orders/1", "pending"), hal("/orders/2", "pending"), hal("/orders/3", "shipped"), hal("/orders/4", "shipped")
	pin := &checks.PlanInput{Samples: []*exchange.Exchange{o1, plain, advertised}, Crawled: []*exchange.Exchange{o1, o2, o3, o4, plain, advertised}}
	var urls []string
	for _, p := range halforms.All()[0].(checks.Prober).Plan(pin) {
		if p.Header.Get("Accept") != hypermedia.MediaHALForms || p.Method != "GET" || p.Purpose != hypermedia.PurposeFetch {
			t.Errorf("planned %+v", p)
		}
		urls = append(urls, strings.TrimPrefix(p.URL, base))
	}
	if want := []string{"/orders/1", "/y", "/orders/3"}; !slices.Equal(urls, want) {
		t.Errorf("planned %v, want %v", urls, want)
	}
}

func messages(fs []finding.Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.CheckID+": "+f.Message+" @"+f.Evidence[0].JSONPointer)
	}
	return out
}

func FuzzHALFormsDocument(f *testing.F) {
	f.Add(specExample)
	f.Add(spring3)
	f.Add(`{"_templates":{"a":{"method":1,"properties":[{"name":"x","options":{"link":{}},"min":1e400}]}}}`)
	doc := ordersSpec()
	f.Fuzz(func(t *testing.T, body string) {
		run(t, input(doc, forms("/orders/1", body)))
	})
}

func TestTemplatesCarriedInHALAreJudged(t *testing.T) {
	carried := func(mt, body string) *exchange.Exchange {
		return checkstest.Exchange(exchange.PurposeCrawl, "GET", base+"/orders/6").
			Status(200).Header("Content-Type", mt).Body(body).Build()
	}
	bad := `{"_links":{"self":{"href":"/orders/6"}},"_templates":{"default":{"method":"FROB ME","properties":[]}}}`
	for _, mt := range []string{"application/hal+json", "application/json"} {
		fs := run(t, input(nil, carried(mt, bad)))
		if len(fs) == 0 {
			t.Fatalf("%s: _templates carried in it were not judged", mt)
		}
		for _, f := range fs {
			if !strings.Contains(f.Message, "carried in "+mt) {
				t.Errorf("%s: message %q does not name the carrying type", mt, f.Message)
			}
		}
	}
	good := `{"_links":{"self":{"href":"/orders/6"}},"_templates":{"default":{"method":"POST","properties":[{"name":"note"}]}}}`
	in := input(nil, carried("application/hal+json", good))
	if fs := run(t, in); len(fs) != 0 {
		t.Errorf("conformant _templates in HAL: %v", checkstest.IDs(fs))
	}
	if _, reason := checkstest.Run(t, halforms.All()[0], in); reason != "" {
		t.Errorf("conformant _templates in HAL left the family not assessed: %s", reason)
	}
}
