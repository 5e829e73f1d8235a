package openapidoc

import (
	"context"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/checkstest"
	"github.com/agentready/agentready/internal/spec"
)

// readinessDoc is a document with one path, whose item is given, and a
// bearer scheme that the operations may require.
func readinessDoc(t *testing.T, item string) *checks.Input {
	t.Helper()
	text := `openapi: 3.1.0
info: {title: t, version: "1"}
components:
  securitySchemes:
    bearer: {type: http, scheme: bearer}
paths:
  /things/{id}:
` + indent(item, "    ")
	doc, err := spec.Load([]byte(text), "readiness.yaml", "readiness.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(doc.Problems) > 0 {
		t.Fatalf("the case's document has problems: %+v\n%s", doc.Problems, text)
	}
	return checks.NewStaticInput(&url.URL{Scheme: "file", Path: "readiness.yaml"}, doc)
}

func indent(s, by string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	for i, l := range lines {
		lines[i] = by + l
	}
	return strings.Join(lines, "\n") + "\n"
}

// A clean operation: every readiness check passes it, and each case below
// changes one thing of it.
const (
	idParam  = `- {name: id, in: path, required: true, schema: {type: integer, minimum: 1}}`
	cleanGet = `get:
  operationId: getThing
  summary: Read one thing
  parameters:
    ` + idParam + `
  responses:
    "200":
      description: the thing
      content:
        application/json:
          schema: {type: object, properties: {name: {type: string}}}
    "404":
      description: no such thing
      content:
        application/problem+json:
          schema: {type: object}`
)

var readinessCases = []struct {
	name string
	item string
	want []string
}{
	{"clean", cleanGet, nil},
	{"no operationId", strings.Replace(cleanGet, "  operationId: getThing\n", "", 1), []string{"openapi-hal-operation-purpose"}},
	{"no operationId nor summary", strings.Replace(strings.Replace(cleanGet, "  operationId: getThing\n", "", 1), "  summary: Read one thing\n", "", 1),
		[]string{"openapi-hal-operation-purpose"}},
	{"summary repeats the operationId", strings.Replace(cleanGet, "summary: Read one thing", "summary: getThing", 1),
		[]string{"openapi-hal-operation-purpose"}},
	{"untyped parameter", strings.Replace(cleanGet, idParam, `- {name: id, in: path, required: true, schema: {description: the id}}`, 1),
		[]string{"openapi-hal-input-unconstrained"}},
	{"unconstrained parameter", strings.Replace(cleanGet, idParam, `- {name: id, in: path, required: true, schema: {type: string}}`, 1),
		[]string{"openapi-hal-input-unconstrained"}},
	{"parameter with an example", strings.Replace(cleanGet, idParam, `- {name: id, in: path, required: true, schema: {type: string}, example: th-1}`, 1), nil},
	{"Authorization header parameter", strings.Replace(cleanGet, idParam, idParam+"\n    - {name: Authorization, in: header, schema: {type: string}}", 1),
		[]string{"openapi-hal-security-undeclared"}},
	{"unconstrained body field", `post:
  operationId: makeThing
  summary: Make a thing
  parameters:
    ` + idParam + `
  requestBody:
    content:
      application/json:
        schema:
          type: object
          properties:
            colour: {type: string}
            size: {type: integer, maximum: 9}
            tags: {type: array, items: {type: string, enum: [a, b]}}
  responses:
    "201": {description: made}
    "400": {description: bad, content: {application/problem+json: {schema: {type: object}}}}`,
		[]string{"openapi-hal-input-unconstrained"}},
	{"ambiguous request oneOf", `post:
  operationId: makeThing
  summary: Make a thing
  parameters:
    ` + idParam + `
  requestBody:
    content:
      application/json:
        schema:
          oneOf:
            - {type: object, properties: {a: {type: integer, minimum: 0}}}
            - {type: object, properties: {b: {type: integer, minimum: 0}}}
  responses:
    "201": {description: made}
    "400": {description: bad, content: {application/problem+json: {schema: {type: object}}}}`,
		[]string{"openapi-hal-polymorphism-ambiguous"}},
	// GitHub's app owner: a simple-user requires login, an enterprise slug.
	{"oneOf told apart by what each requires", strings.Replace(cleanGet, "schema: {type: object, properties: {name: {type: string}}}",
		"schema: {oneOf: [{type: object, required: [login], properties: {login: {type: string}, id: {type: integer}}}, {type: object, required: [slug], properties: {slug: {type: string}, id: {type: integer}}}]}", 1), nil},
	{"oneOf whose one alternative requires nothing of its own", strings.Replace(cleanGet, "schema: {type: object, properties: {name: {type: string}}}",
		"schema: {oneOf: [{type: object, required: [id], properties: {login: {type: string}, id: {type: integer}}}, {type: object, required: [slug], properties: {slug: {type: string}, id: {type: integer}}}]}", 1),
		[]string{"openapi-hal-polymorphism-ambiguous"}},
	{"discriminated oneOf", `post:
  operationId: makeThing
  summary: Make a thing
  parameters:
    ` + idParam + `
  requestBody:
    content:
      application/json:
        schema:
          discriminator: {propertyName: kind}
          oneOf:
            - {type: object, properties: {kind: {type: string, enum: [a, b]}}}
            - {type: object, properties: {kind: {type: string, enum: [a, b]}}}
  responses:
    "201": {description: made}
    "400": {description: bad, content: {application/problem+json: {schema: {type: object}}}}`, nil},
	{"const-tagged anyOf in a response", strings.Replace(cleanGet, "schema: {type: object, properties: {name: {type: string}}}",
		"schema: {anyOf: [{type: object, properties: {kind: {const: a}}}, {type: object, properties: {kind: {const: b}}}]}", 1), nil},
	{"ambiguous anyOf nested in a response", strings.Replace(cleanGet, "schema: {type: object, properties: {name: {type: string}}}",
		"schema: {type: array, items: {anyOf: [{type: object}, {properties: {b: {type: string}}}]}}", 1),
		[]string{"openapi-hal-pagination-undeclared", "openapi-hal-polymorphism-ambiguous"}},
	{"bare array without paging", strings.Replace(cleanGet, "schema: {type: object, properties: {name: {type: string}}}",
		"schema: {type: array, items: {type: string}}", 1), []string{"openapi-hal-pagination-undeclared"}},
	{"bare array with a page parameter", strings.Replace(strings.Replace(cleanGet, "schema: {type: object, properties: {name: {type: string}}}",
		"schema: {type: array, items: {type: string}}", 1), idParam, idParam+"\n    - {name: page_token, in: query, schema: {type: string, pattern: '^[a-z]+$'}}", 1), nil},
	{"no error declared", strings.Replace(cleanGet, `    "404":
      description: no such thing
      content:
        application/problem+json:
          schema: {type: object}`, `    "500": {description: it broke}`, 1),
		[]string{"openapi-hal-errors-undeclared"}},
	// Errors declared without problem details are problem-json-errors-declared's.
	{"error not problem+json", strings.Replace(cleanGet, "application/problem+json", "application/json", 1), nil},
	{"unguarded retry", `post:
  operationId: makeThing
  summary: Make a thing
  parameters:
    ` + idParam + `
  responses:
    "201": {description: made}
    "409": {description: conflict, content: {application/problem+json: {schema: {type: object}}}}`,
		[]string{"openapi-hal-retry-unguarded"}},
	// PUT and DELETE are idempotent: a retry after a 429 has the effect of
	// the one call (Spotify's PUT and DELETE /me/albums declare 429 alone).
	{"idempotent PUT that may be retried", `put:
  operationId: saveThing
  summary: Save a thing
  parameters:
    ` + idParam + `
  responses:
    "200": {description: saved}
    "429": {description: slow down, content: {application/problem+json: {schema: {type: object}}}}`, nil},
	{"idempotent DELETE that may be retried", `delete:
  operationId: removeThing
  summary: Remove a thing
  parameters:
    ` + idParam + `
  responses:
    "200": {description: removed}
    "429": {description: slow down, content: {application/problem+json: {schema: {type: object}}}}`, nil},
	{"PATCH that may be retried", `patch:
  operationId: changeThing
  summary: Change a thing
  parameters:
    ` + idParam + `
  responses:
    "200": {description: changed}
    "429": {description: slow down, content: {application/problem+json: {schema: {type: object}}}}`,
		[]string{"openapi-hal-retry-unguarded"}},
	// A confirm step's missing key is stateful-idempotency-key-declared's.
	{"confirm step left to the stateful rule", `post:
  operationId: confirmThing
  summary: Confirm a thing
  parameters:
    ` + idParam + `
  responses:
    "201": {description: made}
    "409": {description: conflict, content: {application/problem+json: {schema: {type: object}}}}`, nil},
	{"retry guarded by If-Match", `post:
  operationId: makeThing
  summary: Make a thing
  parameters:
    ` + idParam + `
    - {name: If-Match, in: header, schema: {type: string}, example: '"1"'}
  responses:
    "201": {description: made}
    "409": {description: conflict, content: {application/problem+json: {schema: {type: object}}}}`, nil},
	{"rate limited without 429", strings.Replace(cleanGet, "summary: Read one thing", "summary: Read one thing (rate limited to 10 a minute)", 1),
		[]string{"openapi-hal-rate-limit-undeclared"}},
	{"rate limited with 429", strings.Replace(cleanGet, "summary: Read one thing", "summary: Read one thing (rate limited to 10 a minute)", 1) + `
    "429": {description: slow down, content: {application/problem+json: {schema: {type: object}}}}`, nil},
	{"401 without security", strings.Replace(cleanGet, `    "404":`, `    "401": {description: who are you, content: {application/problem+json: {schema: {type: object}}}}
    "404":`, 1),
		[]string{"openapi-hal-security-undeclared"}},
	{"401 with security", strings.Replace(cleanGet, `  responses:`, `  security: [{bearer: []}]
  responses:`, 1) + `
    "401": {description: who are you, content: {application/problem+json: {schema: {type: object}}}}`, nil},
}

// fireReadiness runs every readiness check over one case and returns the
// IDs of those that fired, sorted.
func fireReadiness(t *testing.T, item string) []string {
	t.Helper()
	in := readinessDoc(t, item)
	var fired []string
	for _, c := range Readiness() {
		fs, reason := run(t, c, in)
		if reason != "" {
			t.Fatalf("%s skipped: %s", c.Meta().ID, reason)
		}
		for _, f := range fs {
			if !strings.HasPrefix(f.Location.Pointer, "/paths/~1things~1{id}/") || !strings.HasPrefix(f.Subject, strings.ToUpper(strings.SplitN(item, ":", 2)[0])+" /things/{id} ") {
				t.Errorf("%s: located at %q, subject %q", c.Meta().ID, f.Location.Pointer, f.Subject)
			}
		}
		if len(fs) > 0 {
			fired = append(fired, c.Meta().ID)
		}
	}
	slices.Sort(fired)
	return fired
}

func TestReadinessChecks(t *testing.T) {
	for _, tt := range readinessCases {
		t.Run(tt.name, func(t *testing.T) {
			if got := fireReadiness(t, tt.item); !slices.Equal(got, tt.want) {
				t.Errorf("fired %v, want %v", got, tt.want)
			}
		})
	}
}

func TestReadinessFiredBy(t *testing.T) {
	checkstest.FiredBy(t, Readiness(), func(t *testing.T, name string) ([]string, bool) {
		for _, tt := range readinessCases {
			if tt.name == name {
				return fireReadiness(t, tt.item), true
			}
		}
		return nil, false
	})
}

func TestReadinessSkipsSwagger2AndEmptyDocuments(t *testing.T) {
	for _, file := range []string{"swagger2.yaml"} {
		for _, c := range Readiness() {
			if _, reason := run(t, c, staticInput(t, file)); reason == "" {
				t.Errorf("%s did not skip %s", c.Meta().ID, file)
			}
		}
	}
	doc, err := spec.Load([]byte("openapi: 3.1.0\ninfo: {title: t, version: '1'}\npaths: {}\n"), "empty.yaml", "empty.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range Readiness() {
		if _, err := c.Run(context.Background(), checks.NewStaticInput(&url.URL{Scheme: "file", Path: "empty.yaml"}, doc)); err == nil {
			t.Errorf("%s did not skip a document without operations", c.Meta().ID)
		}
	}
}

// A schema shared by many operations, as GitHub's description shares its
// components, is walked once: the walk's budget is spent on distinct
// schemas, not on the paths that reach them.
func TestPolymorphismWalksASharedSchemaOnce(t *testing.T) {
	leaf := map[string]any{"anyOf": []any{map[string]any{"type": "object"}, map[string]any{"type": "object"}}}
	s := leaf
	for range 40 {
		s = map[string]any{"type": "object", "properties": map[string]any{"a": s, "b": s}}
	}
	w := &polyWalker{seen: map[uintptr]polyResult{}}
	if r := w.find(s); r == nil || r.keyword != "anyOf" {
		t.Fatalf("found %+v", r)
	}
	if w.walked > 100 {
		t.Errorf("walked %d schemas for 41 distinct ones", w.walked)
	}
}
