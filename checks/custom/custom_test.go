package custom_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/checkstest"
	"github.com/agentready/agentready/checks/custom"
	"github.com/agentready/agentready/internal/config"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/mcp"
	"github.com/agentready/agentready/internal/spec"
)

// docRule reads one of the rules docs/custom-rules.md gives, kept in
// testdata/rules, which the real-server interop test reads too.
func docRule(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "rules", name+".yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func compileRules(t *testing.T, yaml string) map[string]checks.Check {
	t.Helper()
	f, err := config.Parse([]byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	cs, err := custom.Checks(f.Rules)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := checks.NewRegistry(cs...); err != nil {
		t.Fatalf("the registry refuses the rules: %v", err)
	}
	out := map[string]checks.Check{}
	for _, c := range cs {
		out[c.Meta().ID] = c
	}
	return out
}

func run(t *testing.T, c checks.Check, in *checks.Input) []finding.Finding {
	t.Helper()
	fs, reason := checkstest.Run(t, c, in)
	if reason != "" {
		t.Fatalf("%s skipped: %s", c.Meta().ID, reason)
	}
	return fs
}

func toolsInput(names ...string) *checks.Input {
	in := checkstest.Input("http://api.test/", nil)
	l := mcp.Listing{Label: "first", Complete: true}
	for i, n := range names {
		raw, _ := json.Marshal(map[string]any{"name": n, "inputSchema": map[string]any{"type": "object"}})
		l.Tools = append(l.Tools, mcp.Tool{Name: n, Raw: raw, Index: i})
	}
	in.MCP = &mcp.Snapshot{Listings: []mcp.Listing{l}}
	return in
}

func TestToolPrefix(t *testing.T) {
	c := compileRules(t, docRule(t, "house-tool-prefix"))["custom-house-tool-prefix"]
	if m := c.Meta(); m.Severity != finding.SeverityWarning || m.Family != checks.FamilyCustom || !m.Needs.Has(checks.NeedsMCP) {
		t.Errorf("meta = %+v", m)
	}
	fs := run(t, c, toolsInput("acme_orders", "echo", "get-sum"))
	if len(fs) != 2 {
		t.Fatalf("findings = %d, want 2 (echo, get-sum): %+v", len(fs), fs)
	}
	ev := fs[0].Evidence[0]
	if fs[0].Message != `MCP tool "echo" at $['name']: name must match the pattern "^acme_"` ||
		ev.JSONPath != "$['name']" || ev.JSONPointer != "/result/tools/1/name" || ev.Actual != "echo" || ev.Expected != "match ^acme_" {
		t.Errorf("finding = %q, evidence %+v", fs[0].Message, ev)
	}
	if fs := run(t, c, toolsInput("acme_orders", "acme_pay")); len(fs) != 0 {
		t.Errorf("silent catalog fired: %+v", fs)
	}
	if _, reason := checkstest.Run(t, c, checkstest.Input("http://api.test/", nil)); !strings.Contains(reason, "no MCP endpoint") {
		t.Errorf("without MCP: skip reason %q", reason)
	}
}

func halPage(rels ...string) *exchange.Exchange {
	links := map[string]any{}
	for _, r := range rels {
		links[r] = map[string]any{"href": "/orders/" + strings.ReplaceAll(r, ":", "-")}
	}
	body, _ := json.Marshal(map[string]any{"_links": links, "_embedded": map[string]any{
		"item": []any{map[string]any{"_links": map[string]any{"self": map[string]any{"href": "/orders/1"}}}},
	}})
	return checkstest.Exchange(exchange.PurposeCrawl, "GET", "http://api.test/orders").Status(200).
		Header("Content-Type", "application/hal+json").Body(string(body)).Build()
}

func TestCurieRelations(t *testing.T) {
	c := compileRules(t, docRule(t, "curie-relations"))["custom-curie-relations"]
	in := checkstest.Input("http://api.test/", nil, halPage("self", "acme:cancel", "cancel", "curies"))
	fs := run(t, c, in)
	if len(fs) != 1 || fs[0].Severity != finding.SeverityError {
		t.Fatalf("findings = %+v, want one error on cancel", fs)
	}
	if ev := fs[0].Evidence[0]; ev.JSONPointer != "/_links/cancel" || ev.URL != "http://api.test/orders" || ev.Status != 200 || ev.Actual != "cancel" {
		t.Errorf("evidence = %+v", ev)
	}
	if fs := run(t, c, checkstest.Input("http://api.test/", nil, halPage("self", "acme:cancel", "acme:pay", "curies"))); len(fs) != 0 {
		t.Errorf("prefixed relations fired: %+v", fs)
	}
	// The same link on two resources of one shape: one subject, so one
	// fingerprint whichever IDs the crawl saw; the messages name each.
	other := halPage("cancel")
	other.Request.URL = "http://api.test/orders/7"
	seventeen := halPage("cancel")
	seventeen.Request.URL = "http://api.test/orders/17"
	fs = run(t, c, checkstest.Input("http://api.test/", nil, other, seventeen))
	if len(fs) != 2 || fs[0].Subject != fs[1].Subject || fs[0].Message == fs[1].Message || !strings.Contains(fs[0].Subject, "/orders/{id}") {
		t.Errorf("findings on /orders/7 and /orders/17: %+v", fs)
	}
}

const openAPI = `openapi: 3.1.0
info: {title: t, version: "1"}
paths:
  /orders:
    post:
      parameters:
        - {in: header, name: Idempotency-Key, required: true, schema: {type: string}}
      responses:
        "201": {description: created}
  /payments:
    get:
      responses:
        "200": {description: ok}
    post:
      parameters:
        - {in: query, name: idempotency-key, schema: {type: string}}
      responses:
        "201": {description: created}
  /refunds:
    post:
      responses:
        "201": {description: created}
`

func specInput(t *testing.T, text string) *checks.Input {
	t.Helper()
	doc, err := spec.Load([]byte(text), "openapi.yaml", "openapi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	doc.Raw = []byte(text)
	in := checkstest.Input("http://api.test/", nil)
	in.Spec = doc
	return in
}

func TestPostIdempotencyKey(t *testing.T) {
	c := compileRules(t, docRule(t, "post-idempotency-key"))["custom-post-idempotency-key"]
	if !c.Meta().Needs.Has(checks.NeedsSpecText) {
		t.Error("a spec rule must ask for the document's text")
	}
	fs := run(t, c, specInput(t, openAPI))
	got := map[string]string{}
	lines := map[string]int{"$['paths']['/payments']['post']": 14, "$['paths']['/refunds']['post']": 20}
	for _, f := range fs {
		p := f.Evidence[0].JSONPath
		got[p] = f.Message
		if f.Location == nil || f.Location.File != "openapi.yaml" || f.Location.Line != lines[p] {
			t.Errorf("%s: location %+v, want line %d", p, f.Location, lines[p])
		}
	}
	want := map[string]string{
		"$['paths']['/payments']['post']": `the OpenAPI document at $['paths']['/payments']['post']: POST declares no Idempotency-Key header: at "/parameters": no items match contains schema`,
		"$['paths']['/refunds']['post']":  `the OpenAPI document at $['paths']['/refunds']['post']: POST declares no Idempotency-Key header: at "/": missing property 'parameters'`,
	}
	if len(got) != len(want) {
		t.Fatalf("findings = %v, want %v", got, want)
	}
	for p, msg := range want {
		if got[p] != msg {
			t.Errorf("%s:\n got %q\nwant %q", p, got[p], msg)
		}
	}
	fixed := strings.ReplaceAll(openAPI, "in: query, name: idempotency-key", "in: header, name: idempotency-key")
	fixed = strings.Replace(fixed, "  /refunds:\n    post:\n      responses:\n        \"201\": {description: created}\n", "", 1)
	if fs := run(t, c, specInput(t, fixed)); len(fs) != 0 {
		t.Errorf("conforming document fired: %+v", fs)
	}
}
