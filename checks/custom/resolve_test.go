package custom_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/agentready/agentready/checks/custom"
	"github.com/agentready/agentready/internal/config"
	"github.com/agentready/agentready/internal/longtest"
)

// A document that shares its header parameter through components, as most
// published descriptions do.
const refAPI = `openapi: 3.1.0
info: {title: t, version: "1"}
paths:
  /orders:
    post:
      parameters:
        - $ref: '#/components/parameters/IdempotencyKey'
      responses:
        "201": {description: created}
  /payments:
    post:
      parameters:
        - $ref: '#/components/parameters/Page'
      responses:
        "201": {description: created}
components:
  parameters:
    IdempotencyKey: {in: header, name: Idempotency-Key, required: true, schema: {type: string}}
    Page:
      in: query
      name: page
      schema: {type: integer}
`

func TestSpecRuleReadsResolvedDocument(t *testing.T) {
	c := compileRules(t, docRule(t, "post-idempotency-key"))["custom-post-idempotency-key"]
	fs := run(t, c, specInput(t, refAPI))
	if len(fs) != 1 {
		t.Fatalf("findings = %+v, want only /payments", fs)
	}
	if p := fs[0].Evidence[0].JSONPath; p != "$['paths']['/payments']['post']" {
		t.Errorf("path = %s", p)
	}
	if l := fs[0].Location; l == nil || l.Line != 11 || l.Pointer != "/paths/~1payments/post" {
		t.Errorf("location = %+v, want line 11", l)
	}
}

// A value inside an inlined reference is reported at its path in the
// resolved document, and located where it is written.
func TestSpecFindingInsideInlinedRef(t *testing.T) {
	rules := `
rules:
  header-params:
    target: spec
    given: "$.paths[*][*].parameters[*]"
    then: {field: in, function: enumeration, functionOptions: {values: [header]}}
`
	c := compileRules(t, rules)["custom-header-params"]
	fs := run(t, c, specInput(t, refAPI))
	if len(fs) != 1 {
		t.Fatalf("findings = %+v, want the Page parameter", fs)
	}
	f := fs[0]
	if p := f.Evidence[0].JSONPath; p != "$['paths']['/payments']['post']['parameters'][0]['in']" {
		t.Errorf("path = %s", p)
	}
	if p := f.Evidence[0].JSONPointer; p != "/components/parameters/Page/in" {
		t.Errorf("pointer = %q, want where the value is written", p)
	}
	if l := f.Location; l == nil || l.Line != 20 || l.Pointer != "/components/parameters/Page/in" {
		t.Errorf("location = %+v, want line 20 in components", l)
	}
	if !strings.Contains(f.Message, "(inlined from #/components/parameters/Page)") {
		t.Errorf("message = %q", f.Message)
	}
	// An absent member is located at its closest ancestor that is written.
	described := compileRules(t, strings.Replace(rules, "{field: in, function: enumeration, functionOptions: {values: [header]}}", "{field: description, function: truthy}", 1))
	for _, f := range run(t, described["custom-header-params"], specInput(t, refAPI)) {
		want := map[string]int{"/components/parameters/Page/description": 19, "/components/parameters/IdempotencyKey/description": 18}[f.Location.Pointer]
		if f.Location.Line != want || want == 0 {
			t.Errorf("%s: line %d, want %d", f.Location.Pointer, f.Location.Line, want)
		}
	}
}

func TestSpecRuleResolvedFalse(t *testing.T) {
	rules := strings.Replace(docRule(t, "post-idempotency-key"), "    target: spec\n", "    target: spec\n    resolved: false\n", 1)
	c := compileRules(t, rules)["custom-post-idempotency-key"]
	fs := run(t, c, specInput(t, refAPI))
	if len(fs) != 2 {
		t.Fatalf("findings = %d, want both POSTs (their parameters are $ref objects)", len(fs))
	}
	for _, f := range fs {
		if strings.Contains(f.Message, "inlined") || f.Evidence[0].JSONPointer != "" {
			t.Errorf("unresolved finding names an inlined ref: %+v", f)
		}
	}
}

func TestResolvedOnlyForSpec(t *testing.T) {
	f, err := config.Parse([]byte(`
rules:
  x:
    target: mcp-tool
    given: "$"
    resolved: false
    then: {function: truthy}
`))
	if err != nil {
		t.Fatal(err)
	}
	_, err = custom.Checks(f.Rules)
	if err == nil || !strings.Contains(err.Error(), "line 6") || !strings.Contains(err.Error(), "spec target only") {
		t.Errorf("err = %v", err)
	}
}

const cyclicAPI = `openapi: 3.1.0
info: {title: t, version: "1"}
paths: {}
components:
  schemas:
    Node:
      type: object
      properties:
        children: {type: array, items: {$ref: '#/components/schemas/Node'}}
        parent: {$ref: '#/components/schemas/Node'}
        owner: {$ref: 'people.yaml#/Person'}
        lost: {$ref: '#/components/schemas/Nothing'}
`

// A cyclic schema is inlined once; the reference that would repeat it is
// kept as the $ref object, which a rule can see.
func TestSpecCyclicRefKept(t *testing.T) {
	rules := `
rules:
  no-refs:
    target: spec
    given: "$..['$ref']"
    then: {function: falsy}
`
	c := compileRules(t, rules)["custom-no-refs"]
	in := specInput(t, cyclicAPI)
	fs := run(t, c, in)
	got := map[string]bool{}
	for _, f := range fs {
		got[f.Evidence[0].JSONPath] = true
	}
	for _, p := range []string{
		"$['components']['schemas']['Node']['properties']['parent']['properties']['parent']['$ref']",
		"$['components']['schemas']['Node']['properties']['children']['items']['properties']['children']['items']['$ref']",
		"$['components']['schemas']['Node']['properties']['owner']['$ref']",
		"$['components']['schemas']['Node']['properties']['lost']['$ref']",
	} {
		if !got[p] {
			t.Errorf("no finding at %s; got %v", p, got)
		}
	}
	obs := strings.Join(in.Observations(c.Meta().ID), "\n")
	for _, want := range []string{"1 to other documents", "cyclic, kept as $ref objects", "1 to nothing in the document"} {
		if !strings.Contains(obs, want) {
			t.Errorf("observations %q lack %q", obs, want)
		}
	}
}

// Documents whose references double at each level would expand to 2^n
// values: the resolution stops at its bounds and says so. Twenty levels
// resolve each target once and share it, and stop at the values a rule may
// walk; forty are deeper than the references nested one in another may be,
// so each use is resolved apart, and stop at the objects allocated.
func TestSpecRefExpansionBounded(t *testing.T) {
	longtest.Skip(t, "expands references until the bounds stop them")
	for _, levels := range []int{24, 40} {
		var b strings.Builder
		b.WriteString("openapi: 3.1.0\ninfo: {title: t, version: \"1\"}\npaths: {}\ncomponents:\n  schemas:\n")
		for i := range levels {
			fmt.Fprintf(&b, "    S%d: {properties: {a: {$ref: '#/components/schemas/S%d'}, b: {$ref: '#/components/schemas/S%d'}}}\n", i, i+1, i+1)
		}
		fmt.Fprintf(&b, "    S%d: {type: string}\n", levels)
		rules := `
rules:
  typed:
    target: spec
    given: "$.components.schemas[*]"
    then: {field: type, function: defined}
`
		c := compileRules(t, rules)["custom-typed"]
		in := specInput(t, b.String())
		start := time.Now()
		fs := run(t, c, in)
		if d := time.Since(start); d > 20*time.Second {
			t.Errorf("%d levels took %v", levels, d)
		}
		if len(fs) != levels {
			t.Errorf("%d levels: %d findings, want S0..S%d", levels, len(fs), levels-1)
		}
		obs := strings.Join(in.Observations(c.Meta().ID), "\n")
		if !strings.Contains(obs, "inlining stopped at") {
			t.Errorf("%d levels: observations = %q, want the bound named", levels, obs)
		}
	}
}
