package openapidoc

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/checkstest"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/spec"
)

func staticInput(t *testing.T, file string) *checks.Input {
	t.Helper()
	doc, err := spec.LoadFile("../../testdata/specs/"+file, spec.DefaultMaxSize)
	if err != nil {
		t.Fatal(err)
	}
	return checks.NewStaticInput(&url.URL{Scheme: "file", Path: file}, doc)
}

// summary is "severity line message-prefix" per finding, sorted.
func summary(fs []finding.Finding) []string {
	var out []string
	for _, f := range fs {
		line := 0
		if f.Location != nil {
			line = f.Location.Line
		}
		out = append(out, fmt.Sprintf("%s %02d %s", f.Severity, line, f.Message))
	}
	slices.Sort(out)
	return out
}

// run is checkstest.Run for static checks, whose findings carry a location
// in the document instead of an exchange.
func run(t *testing.T, c checks.Check, in *checks.Input) ([]finding.Finding, string) {
	t.Helper()
	fs, err := c.Run(context.Background(), in)
	if reason, ok := checks.IsSkip(err); ok {
		return nil, reason
	}
	if err != nil {
		t.Fatalf("%s: %v", c.Meta().ID, err)
	}
	for _, f := range fs {
		if f.CheckID != c.Meta().ID || f.Message == "" || f.Location == nil || f.Location.Line == 0 {
			t.Errorf("%s: malformed finding %+v", c.Meta().ID, f)
		}
	}
	return fs, ""
}

func TestAllAreStaticAndValid(t *testing.T) {
	if _, err := checks.NewRegistry(All()...); err != nil {
		t.Fatal(err)
	}
	for _, c := range All() {
		if !checks.IsStatic(c) {
			t.Errorf("%s is not static", c.Meta().ID)
		}
	}
}

func TestOperationIDUnique(t *testing.T) {
	tests := []struct {
		file string
		want []string
	}{
		{"lint-bad.yaml", []string{
			`error 08 operationId "listOrders" of POST /orders is already used by GET /orders (line 5); operationIds must be unique`,
			`warning 12 operationId "ListOrders" of GET /Orders differs only in case from "listOrders" of GET /orders (line 5); generators that change case merge them`,
		}},
		{"lint-good.yaml", nil},
		{"orders31.yaml", nil},
	}
	for _, tt := range tests {
		fs, reason := run(t, OperationIDUnique{}, staticInput(t, tt.file))
		if got := summary(fs); !slices.Equal(got, tt.want) || reason != "" {
			t.Errorf("%s:\n got %q\nwant %q (skip %q)", tt.file, got, tt.want, reason)
		}
	}
}

func TestPathTemplateValid(t *testing.T) {
	tests := []struct {
		file string
		want []string
	}{
		{"lint-bad.yaml", []string{
			`error 16 GET /orders/{id} has the expression {id} in its path but declares no in: path parameter "id"`,
			`error 22 path parameter "itemId" of GET /orders/{orderId}/items matches no expression of the path template "/orders/{orderId}/items"`,
			`error 29 path "/orders/{key}" differs from "/orders/{id}" (line 15) only in variable names; such paths are identical and must not both exist`,
			`error 33 path parameter "key" of DELETE /orders/{key} is not required: true; path parameters must be required`,
			`error 35 path "/reports/{id.json" is not a valid template: '{' at offset 9 is never closed`,
		}},
		{"lint-good.yaml", nil},
		{"orders31.yaml", nil},
		{"orders30.json", nil},
	}
	for _, tt := range tests {
		fs, reason := run(t, PathTemplateValid{}, staticInput(t, tt.file))
		if got := summary(fs); !slices.Equal(got, tt.want) || reason != "" {
			t.Errorf("%s:\n got %q\nwant %q (skip %q)", tt.file, got, tt.want, reason)
		}
		for _, f := range fs {
			if f.Location == nil || f.Location.File == "" || f.Location.Column == 0 || f.Location.Pointer == "" {
				t.Errorf("%s: finding without a full location: %+v", tt.file, f.Location)
			}
		}
	}
}

func TestTemplateExpr(t *testing.T) {
	tests := []struct {
		path  string
		names []string
		err   string
	}{
		{"/a/{x}/b/{y}.json", []string{"x", "y"}, ""},
		{"/a", nil, ""},
		{"/a/{x", nil, "never closed"},
		{"/a/x}", nil, "without '{'"},
		{"/a/{{x}}", nil, "nested"},
		{"/a/{}", nil, "empty expression"},
		{"/a/{x/y}", nil, "spans a '/'"},
	}
	for _, tt := range tests {
		names, err := templateExpr(tt.path)
		if !slices.Equal(names, tt.names) || (err == nil) != (tt.err == "") || (err != nil && !strings.Contains(err.Error(), tt.err)) {
			t.Errorf("templateExpr(%q) = %v, %v; want %v, %q", tt.path, names, err, tt.names, tt.err)
		}
	}
	if got := normalizedTemplate("/pets/{petId}/x{a}.json"); got != "/pets/{}/x{}.json" {
		t.Errorf("normalizedTemplate = %q", got)
	}
}

func TestSpecInvalid(t *testing.T) {
	tests := []struct {
		file string
		want []string
	}{
		{"syntax.yaml", []string{"error 07 syntax error: did not find expected ',' or ']' (while parsing a flow sequence)"}},
		{"badref.yaml", []string{"error 13 unresolvable reference: component `#/components/schemas/Missing` does not exist in the specification"}},
		{"mixed31.yaml", []string{
			"error 16 exclusiveMinimum is a boolean, which is OpenAPI 3.0; in 3.1.0 it must be the bound itself (a number)",
			`warning 14 nullable is OpenAPI 3.0 and is ignored in 3.1.0: add "null" to type instead`,
		}},
		{"orders31.yaml", nil},
		{"swagger2.yaml", nil},
	}
	for _, tt := range tests {
		fs, _ := run(t, SpecInvalid{}, staticInput(t, tt.file))
		if got := summary(fs); !slices.Equal(got, tt.want) {
			t.Errorf("%s:\n got %q\nwant %q", tt.file, got, tt.want)
		}
	}
}

func TestSkips(t *testing.T) {
	noSpec := checks.NewInput(&url.URL{Scheme: "http", Host: "h.test", Path: "/"}, &exchange.Recording{})
	for _, c := range All() {
		if _, reason := run(t, c, noSpec); reason == "" {
			t.Errorf("%s: no skip without a document", c.Meta().ID)
		}
	}
	sw := staticInput(t, "swagger2.yaml")
	for _, c := range []checks.Check{OperationIDUnique{}, PathTemplateValid{}} {
		if _, reason := run(t, c, sw); !strings.Contains(reason, "Swagger 2.0") {
			t.Errorf("%s on Swagger 2.0: skip reason %q", c.Meta().ID, reason)
		}
	}
}

func TestSpecInvalidCarriesFetchEvidence(t *testing.T) {
	doc, err := spec.Load([]byte("openapi: 3.1.0\ninfo: {title: t, version: '1'}\npaths:\n  /a: [\n"), "http://h.test/openapi.yaml", "")
	if err != nil {
		t.Fatal(err)
	}
	in := checkstest.Input("http://h.test/", nil,
		checkstest.Exchange(checks.PurposeOpenAPI, "GET", "http://h.test/openapi.yaml").Status(200).Header("Content-Type", "application/yaml").Build())
	in.Spec = doc
	fs, _ := run(t, SpecInvalid{}, in)
	if len(fs) != 1 || len(fs[0].Evidence) != 1 || fs[0].Evidence[0].URL != "http://h.test/openapi.yaml" || fs[0].Location == nil {
		t.Fatalf("findings %+v", fs)
	}
}
