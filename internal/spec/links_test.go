package spec_test

import (
	"reflect"
	"testing"

	"github.com/agentready/agentready/internal/spec"
)

const reachYAML = `openapi: 3.1.0
info: {title: t, version: "1"}
servers:
  - url: "https://{region}.example.com/{version}"
    variables:
      region: {default: eu}
      version: {default: v2}
  - url: /
paths:
  /orders/{id}:
    parameters:
      - name: id
        in: path
        required: true
        schema: {type: integer, example: 5}
        example: 7
        examples: {a: {value: 8}, ext: {externalValue: "https://x/e.json"}}
    get:
      operationId: getOrder
      responses:
        "200":
          description: ok
          links:
            Payment: {operationId: getPayment, parameters: {id: "$request.path.id"}}
            ByRef: {$ref: "#/components/links/Items"}
  /orders/{id}/payment:
    get: {operationId: getPayment, responses: {"200": {description: ok}}}
  /orders/{id}/items:
    get: {operationId: listItems, responses: {"200": {description: ok}}}
components:
  links:
    Items: {operationRef: "#/paths/~1orders~1{id}~1items/get", parameters: {path.id: "$response.body#/id"}}
`

func TestLoadReachFields(t *testing.T) {
	d, err := spec.Load([]byte(reachYAML), "r.yaml", "r.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"https://eu.example.com/v2", "/"}; !reflect.DeepEqual(d.Servers, want) {
		t.Errorf("servers %q, want %q", d.Servers, want)
	}
	get := d.Operations[0]
	if p := get.Parameters[0]; !reflect.DeepEqual(p.Examples, []any{7.0, 8.0}) || p.Schema["example"] != 5.0 {
		t.Errorf("examples %v, schema %v", p.Examples, p.Schema)
	}
	if len(get.Links) != 2 {
		t.Fatalf("links %+v", get.Links)
	}
	pay, items := get.Links[0], get.Links[1]
	if pay.Name != "Payment" || pay.Status != "200" || pay.Parameters["id"] != "$request.path.id" {
		t.Errorf("payment link %+v", pay)
	}
	if target := d.LinkTarget(pay); target == nil || target.OperationID != "getPayment" {
		t.Errorf("payment target %v", target)
	}
	if target := d.LinkTarget(items); target == nil || target.OperationID != "listItems" {
		t.Errorf("items link %+v: target %v", items, target)
	}
	for _, l := range []spec.Link{{OperationID: "nope"}, {OperationRef: "other.yaml#/paths/~1x/get"}, {OperationRef: "#/paths/~1orders~1{id}/post"}} {
		if target := d.LinkTarget(l); target != nil {
			t.Errorf("%+v names %v", l, target.Key())
		}
	}
}
