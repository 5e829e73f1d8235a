package openapihal

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/dlclark/regexp2"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/internal/schemacache"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/sanitize"
	"github.com/agentready/agentready/internal/spec"
)

// Bounds of the response schema check: how many bodies of one operation,
// status and media type are validated, how large a body may be, and how
// many errors of one body are reported.
const (
	maxSchemaSamples   = 4
	maxSchemaBodyBytes = 1 << 20
	maxSchemaErrors    = 3
)

var oasMediaType = finding.SpecRef{Doc: "OpenAPI 3.1", Section: "Media Type Object (schema)", Level: "SHOULD",
	URL: "https://spec.openapis.org/oas/v3.1.2#media-type-object"}

// ResponseSchema: sampled JSON bodies, successes and errors alike, validate
// against the schema the document declares for their status and media type.
type ResponseSchema struct{}

func (ResponseSchema) Meta() checks.Meta {
	return checks.Meta{
		ID:       "openapi-hal-response-schema",
		Since:    checks.FirstRelease,
		Family:   checks.FamilyOpenAPIHAL,
		Title:    "Response bodies fit the schema the OpenAPI document declares",
		Severity: finding.SeverityWarning,
		SpecRefs: []finding.SpecRef{oasMediaType, oasResponses},
		Help: `Shapes belong in schemas: agents and generated clients read a response's types
from the OpenAPI document, not from the prose around it. A body whose member
has another type, a required member that is missing, or a value outside its
enum breaks every client built from the document, and it breaks them only at
run time.

Every sampled GET that answered JSON (2xx and errors alike, the crawl and the
error probes) is validated against the schema of the matching operation,
status and media type, in the document's dialect: OpenAPI 3.1 schemas as
JSON Schema 2020-12, OpenAPI 3.0 schemas after translating ` + "`nullable`" + ` and the
boolean ` + "`exclusiveMinimum`" + `/` + "`exclusiveMaximum`" + `. ` + "`writeOnly`" + ` members are not required of a
response, ` + "`format`" + ` is not asserted, and requests that asked for a minimal
representation (` + "`Prefer`" + `) are left out. At most four bodies per operation,
status and media type are validated, bodies over 1 MiB are not, and each
finding shows up to three errors, each with the instance pointer and the
keyword's place in the response schema; the finding is located on that
schema in the document.

**How to fix:** fix the server, or the schema if the server is right; a
schema generated from the same types the server serializes cannot drift.`,
	}
}

func (c ResponseSchema) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	if err := needDocument(in); err != nil {
		return nil, err
	}
	v := &schemaValidator{doc: in.Spec, compiled: map[string]*compiledSchema{}}
	ix := in.Spec.Index()
	samples := map[string]int{}
	seen := map[string]bool{}
	judged := 0
	var out []finding.Finding
	for _, x := range in.Recording.Exchanges {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if !validatable(x) {
			continue
		}
		op := ix.Match(http.MethodGet, x.Request.URL)
		if op == nil {
			continue
		}
		declared, ok := declaredResponse(op, x.Response.Status)
		if !ok {
			continue
		}
		mt, schema := declaredSchema(declared, x.Response.MediaType())
		if schema == nil {
			continue
		}
		key := op.Key() + " " + strconv.Itoa(x.Response.Status) + " " + mt
		if samples[key] >= maxSchemaSamples {
			continue
		}
		samples[key]++
		cs := v.compile(key, schema)
		if cs == nil {
			continue
		}
		judged++
		errs := cs.validate(x.Response)
		if len(errs) == 0 {
			continue
		}
		if seen[key+" "+errs[0].keyword] {
			continue
		}
		seen[key+" "+errs[0].keyword] = true
		out = append(out, c.finding(op, x, mt, declared.SchemaLocations[mt], errs))
	}
	if judged == 0 {
		return nil, checks.Skip("no sampled JSON response matched an operation whose declared response has a schema")
	}
	return out, nil
}

// validatable: a GET that answered JSON, kept whole and within bounds, for a
// request that did not ask for a shortened representation.
func validatable(x *exchange.Exchange) bool {
	r := x.Response
	return r != nil && x.Request.Method == http.MethodGet && !r.Truncated && !r.Dropped &&
		len(r.Body) > 0 && len(r.Body) <= maxSchemaBodyBytes && exchange.IsJSONMediaType(r.MediaType()) &&
		x.Request.Header.Get("Prefer") == ""
}

// declaredSchema picks the schema of the declared media type that matches
// mt, the exact type before ranges.
func declaredSchema(r spec.Response, mt string) (string, map[string]any) {
	if s, ok := r.Content[mt]; ok {
		return mt, s
	}
	keys := make([]string, 0, len(r.Content))
	for k := range r.Content {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if d, _ := exchange.MediaTypeOf(k); d == mt {
			return k, r.Content[k]
		}
	}
	for _, k := range keys {
		if mediaMatch(k, mt) {
			return k, r.Content[k]
		}
	}
	return "", nil
}

func (c ResponseSchema) finding(op *spec.Operation, x *exchange.Exchange, mt string, loc finding.SourceLocation, errs []schemaError) finding.Finding {
	evs := make([]finding.Evidence, 0, len(errs))
	for _, e := range errs {
		ev := checks.Evidence(x, []string{"Accept"}, []string{"Content-Type"})
		ev.JSONPointer = e.instance
		ev.Expected = "schema " + loc.Pointer + e.keyword
		ev.Actual = e.message
		evs = append(evs, ev)
	}
	first := errs[0]
	at := first.instance
	if at == "" {
		at = "the body"
	}
	msg := fmt.Sprintf("GET %s answered %d %s whose %s does not fit the schema %s declares: %s",
		exchange.PathOf(x.Request.URL), x.Response.Status, mt, at, op.Key(), first.message)
	f := checks.New(c.Meta(), op.Key()+" "+strconv.Itoa(x.Response.Status)+" "+first.keyword, msg, evs...)
	if loc.File != "" || loc.Line > 0 {
		l := loc
		l.Pointer += first.keyword
		f.Location = &l
	}
	return f
}

// schemaValidator compiles each declared schema once per run.
type schemaValidator struct {
	doc      *spec.Document
	compiled map[string]*compiledSchema
}

type compiledSchema struct{ s *jsonschema.Schema }

// schemaError is one leaf error: where in the body, which keyword of the
// response schema (a pointer relative to it), and what.
type schemaError struct{ instance, keyword, message string }

const schemaURL = "urn:agentready:response-schema"

// compile translates and compiles a response schema; nil when it cannot be
// compiled (an external $ref, a regex the engine rejects), since a schema the
// scanner cannot read is no evidence against the server.
func (v *schemaValidator) compile(key string, schema map[string]any) *compiledSchema {
	if cs, ok := v.compiled[key]; ok {
		return cs
	}
	v.compiled[key] = nil
	raw, err := json.Marshal(responseDialect(schema, strings.HasPrefix(v.doc.Version, "3.0")))
	if err != nil {
		return nil
	}
	v.compiled[key] = compiledSchemas.Get(string(raw), func() *compiledSchema { return compileSchemaText(raw) })
	return v.compiled[key]
}

// compiledSchemas holds what compiling each schema text gave: operations
// share their response schemas, and a validated schema is left as it was,
// so that scans after the first reuse it.
var compiledSchemas schemacache.Cache[*compiledSchema]

func compileSchemaText(raw []byte) *compiledSchema {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(refuseLoader{})
	c.UseRegexpEngine(ecmaRegexp)
	if c.AddResource(schemaURL, doc) != nil {
		return nil
	}
	s, err := c.Compile(schemaURL)
	if err != nil {
		return nil
	}
	return &compiledSchema{s: s}
}

func (cs *compiledSchema) validate(r *exchange.Response) []schemaError {
	inst, ok := instance(r)
	if !ok {
		return nil // not JSON: the problem-json and negotiation families judge that
	}
	var ve *jsonschema.ValidationError
	if !errors.As(cs.s.Validate(inst), &ve) {
		return nil
	}
	var out []schemaError
	for _, u := range ve.BasicOutput().Errors {
		if u.Error != nil && isLeaf(u.Error.Kind) {
			out = append(out, schemaError{instance: u.InstanceLocation, keyword: u.KeywordLocation, message: sanitize.Truncate(u.Error.String(), 160)})
		}
	}
	// The validator visits properties in map order: sorting makes the
	// errors reported, and the finding's subject, the same on every run.
	slices.SortFunc(out, func(a, b schemaError) int {
		return cmp.Or(cmp.Compare(a.instance, b.instance), cmp.Compare(a.keyword, b.keyword))
	})
	return out[:min(len(out), maxSchemaErrors)]
}

// instance is r's body as the validator reads it, one JSON value with
// numbers kept as json.Number, and whether the body is one. A whole body
// shares the decoding the other checks made (Response.JSON, which reads the
// first value) once json.Valid has said nothing follows it; any other body
// is decoded here, as the validator's own reader would.
func instance(r *exchange.Response) (any, bool) {
	if !r.Whole() {
		inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(r.Body))
		return inst, err == nil
	}
	inst, err := r.JSON()
	if err != nil || !json.Valid(r.Body) {
		return nil, false
	}
	return inst, true
}

// isLeaf leaves out the errors that only say "a subschema failed", and a
// oneOf that failed because several branches matched: documents write
// oneOf where they mean anyOf far more often than servers send a body that
// fits two shapes, and such a body fits what the document describes.
func isLeaf(k jsonschema.ErrorKind) bool {
	switch k := k.(type) {
	case *kind.Group, *kind.Schema, *kind.Reference, *kind.AllOf:
		return false
	case *kind.OneOf:
		return len(k.Subschemas) == 0
	}
	return true
}

// refuseLoader fetches nothing: a response schema that refers outside the
// document is not compiled.
type refuseLoader struct{}

func (refuseLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("%s: schemas outside the document are not fetched", url)
}

func ecmaRegexp(s string) (jsonschema.Regexp, error) {
	re, err := regexp2.Compile(s, regexp2.ECMAScript)
	if err != nil {
		return nil, err
	}
	return ecma{re}, nil
}

type ecma struct{ re *regexp2.Regexp }

func (r ecma) MatchString(s string) bool { ok, _ := r.re.MatchString(s); return ok }
func (r ecma) String() string            { return r.re.String() }
