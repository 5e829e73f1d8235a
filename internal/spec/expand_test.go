package spec_test

import (
	"reflect"
	"testing"

	"github.com/agentready/agentready/internal/spec"
)

func TestBindAndExpand(t *testing.T) {
	doc := &spec.Document{BasePaths: []string{"/v1"}}
	for _, p := range []string{"/orders/{id}", "/orders/{id}/payment", "/reports/{year}-{month}.json", "/orders/mine"} {
		doc.Operations = append(doc.Operations, &spec.Operation{Method: "GET", PathTemplate: p})
	}
	ix := doc.Index()
	tests := []struct {
		path, template string
		vars           map[string]string
	}{
		{"/v1/orders/a%2Fb", "/orders/{id}", map[string]string{"id": "a%2Fb"}},
		{"/orders/7/payment", "/orders/{id}/payment", map[string]string{"id": "7"}},
		{"/v1/reports/2026-01.json", "/reports/{year}-{month}.json", map[string]string{"year": "2026", "month": "01"}},
		{"/v1/orders/mine", "/orders/mine", map[string]string{}},
	}
	for _, tt := range tests {
		got, vars, ok := ix.Bind(tt.path)
		if !ok || got != tt.template || !reflect.DeepEqual(vars, tt.vars) {
			t.Errorf("Bind(%q) = %q %v %v", tt.path, got, vars, ok)
		}
	}
	if _, _, ok := ix.Bind("/nowhere"); ok {
		t.Error("Bind matched an unknown path")
	}
	if got, ok := spec.Expand("/orders/{id}/payment", map[string]string{"id": "7"}); !ok || got != "/orders/7/payment" {
		t.Errorf("Expand = %q %v", got, ok)
	}
	if _, ok := spec.Expand("/customers/{cid}", map[string]string{"id": "7"}); ok {
		t.Error("Expand invented a value")
	}
	if !spec.HasTemplatePrefix("/orders/{id}/payment", "/orders/{id}") || spec.HasTemplatePrefix("/customers/{id}", "/orders/{id}") || spec.HasTemplatePrefix("/orders", "/orders/{id}") {
		t.Error("HasTemplatePrefix")
	}
	if got := spec.TemplateVars("/a/{x}/b{y}.json"); !reflect.DeepEqual(got, []string{"x", "y"}) {
		t.Errorf("TemplateVars = %v", got)
	}
}
