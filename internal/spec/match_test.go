package spec_test

import (
	"testing"

	"github.com/agentready/agentready/internal/spec"
)

func TestMatch(t *testing.T) {
	doc := &spec.Document{BasePaths: []string{"/api/v1"}}
	for _, p := range []string{"/pets/{petId}", "/pets/mine", "/reports/{id}.json", "/{entity}/me", "/books/{id}", "/a/{x}/c", "/a/b/{y}"} {
		doc.Operations = append(doc.Operations, &spec.Operation{Method: "GET", PathTemplate: p})
	}
	ix := spec.NewIndex(doc)
	tests := []struct{ path, want string }{
		{"/api/v1/pets/mine", "/pets/mine"},
		{"/api/v1/pets/42", "/pets/{petId}"},
		{"/pets/42", "/pets/{petId}"},
		{"/api/v1/reports/7.json", "/reports/{id}.json"},
		{"/api/v1/reports/7.xml", ""},
		{"/api/v1/books/me", "/books/{id}"},
		{"/api/v1/a/b/c", "/a/b/{y}"},
		{"/api/v1/pets/", ""},
		{"/api/v1/pets/a%2Fb", "/pets/{petId}"},
		{"/api/v1/unknown", ""},
	}
	for _, tt := range tests {
		got, _ := ix.MatchPath(tt.path)
		if got != tt.want {
			t.Errorf("MatchPath(%q) = %q, want %q", tt.path, got, tt.want)
		}
	}
	if op := ix.Match("get", "http://h.test/api/v1/pets/1?x=1"); op == nil || op.PathTemplate != "/pets/{petId}" {
		t.Errorf("Match by URL = %v", op)
	}
	if op := ix.Match("POST", "/pets/1"); op != nil {
		t.Errorf("Match of undeclared method = %v", op)
	}
}
