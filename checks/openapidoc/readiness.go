package openapidoc

import (
	"context"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"strings"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/internal/rubric"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/jsonorder"
	"github.com/agentready/agentready/internal/spec"
)

// The checks of the document's own agent readiness judge what an agent
// planning calls from the OpenAPI document alone would have to guess: each
// finding is one operation's deduction, located at the operation, parameter
// or schema that leaves the guess. They carry no evidence, so that a scan
// that fetched the document and lint of the file give each the same
// fingerprint (check, operation and pointer). Reports grade the document's
// readiness over them (Meta.Readiness).

// Clauses the readiness checks cite.
var (
	refOperation = finding.SpecRef{Doc: "OpenAPI 3.1.2", Section: "Operation Object", Level: "readiness",
		URL: "https://spec.openapis.org/oas/v3.1.2#operation-object"}
	refSchema = finding.SpecRef{Doc: "OpenAPI 3.1.2", Section: "Schema Object", Level: "readiness",
		URL: "https://spec.openapis.org/oas/v3.1.2#schema-object"}
	refDiscriminator = finding.SpecRef{Doc: "OpenAPI 3.1.2", Section: "Discriminator Object", Level: "readiness",
		URL: "https://spec.openapis.org/oas/v3.1.2#discriminator-object"}
	refResponses = finding.SpecRef{Doc: "OpenAPI 3.1.2", Section: "Responses Object", Level: "expected",
		URL: "https://spec.openapis.org/oas/v3.1.2#responses-object"}
	refIdempotencyKey = finding.SpecRef{Doc: "IETF draft-ietf-httpapi-idempotency-key-header", Section: "2", Level: "SHOULD",
		URL: "https://datatracker.ietf.org/doc/html/draft-ietf-httpapi-idempotency-key-header#section-2"}
	refIfMatch = finding.SpecRef{Doc: "RFC 9110", Section: "13.1.1", Level: "readiness",
		URL: "https://www.rfc-editor.org/rfc/rfc9110#section-13.1.1"}
	refTooManyRequests = finding.SpecRef{Doc: "RFC 6585", Section: "4", Level: "MAY",
		URL: "https://www.rfc-editor.org/rfc/rfc6585#section-4"}
	refSecurity = finding.SpecRef{Doc: "OpenAPI 3.1.2", Section: "Security Requirement Object", Level: "readiness",
		URL: "https://spec.openapis.org/oas/v3.1.2#security-requirement-object"}
	refLinkHeader = finding.SpecRef{Doc: "RFC 8288", Section: "3", Level: "advice",
		URL: "https://www.rfc-editor.org/rfc/rfc8288#section-3"}
)

// planning cites one point of the planning rubric of the agent-readiness
// guidance (purpose, validation, idempotence, error semantics, …).
func planning(point string) finding.SpecRef {
	return finding.SpecRef{Doc: "agent-readiness guidance", Section: "Stable Verbs, Dynamic Affordances: " + point, Level: "readiness",
		URL: "https://github.com/agentready/agentready/blob/main/docs/openapi.md#the-documents-own-agent-readiness"}
}

// Readiness returns the checks of the document's own agent readiness.
func Readiness() []checks.Check {
	return []checks.Check{OperationPurpose{}, InputUnconstrained{}, PolymorphismAmbiguous{}, ErrorsUndeclared{},
		RetryUnguarded{}, PaginationUndeclared{}, RateLimitUndeclared{}, SecurityUndeclared{}}
}

// readinessMeta fills what the readiness checks share.
func readinessMeta(m checks.Meta) checks.Meta {
	m.Documents, m.Since, m.Family, m.Readiness = checks.DocOpenAPI, checks.FirstRelease, checks.FamilyOpenAPIHAL, true
	return m
}

// eachOperation runs judge over every operation of an OpenAPI 3 document
// (checks.Input.EachOperation), collecting its deductions; a document
// without operations leaves a readiness check nothing to judge.
func eachOperation(ctx context.Context, in *checks.Input, judge func(op *spec.Operation) []finding.Finding) ([]finding.Finding, error) {
	if err := in.NeedOperations(); err != nil {
		return nil, err
	}
	if len(in.Spec.Operations) == 0 {
		return nil, checks.Skip("the document declares no operation")
	}
	return in.EachOperation(ctx, judge)
}

// deduction is a finding about op at loc; the subject names the operation
// and the pointer, which is what tells two deductions of a check apart.
func deduction(m checks.Meta, op *spec.Operation, loc finding.SourceLocation, message string) finding.Finding {
	f := checks.New(m, op.Key()+" "+loc.Pointer, message)
	return located(f, loc)
}

// at is the location of a place inside op, at the operation's line.
func at(op *spec.Operation, tokens ...string) finding.SourceLocation {
	loc := op.Location
	loc.Pointer += jsonorder.Pointer(tokens)
	return loc
}

// names lists at most a few names, and how many more there are.
func names(ns []string) string {
	const shown = 4
	if len(ns) <= shown {
		return strings.Join(ns, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(ns[:shown], ", "), len(ns)-shown)
}

// OperationPurpose reports operations an agent cannot name or cannot tell
// when to call.
type OperationPurpose struct{ static }

func (OperationPurpose) Meta() checks.Meta {
	return readinessMeta(checks.Meta{
		ID:       "openapi-hal-operation-purpose",
		FiredBy:  "no operationId nor summary",
		Title:    "Every operation has an operationId and says what it is for",
		Severity: finding.SeverityWarning,
		SpecRefs: []finding.SpecRef{refOperation, planning("purpose")},
		Help: `An agent planning from the document picks an operation by what it is for,
and calls it by name: MCP tool generators and SDK generators turn the
` + "`operationId`" + ` into the tool's or method's name, and the ` + "`summary`" + ` and
` + "`description`" + ` into the text a model reads to decide "when should this
operation be considered at all". Without an ` + "`operationId`" + ` the generated name
is derived from the method and path (` + "`post_v1_orders_id_items`" + `), differs
from one generator to the next, and changes when the path does; without a
summary or a description the agent guesses the purpose from the path.

**How to fix:** give each operation a stable ` + "`operationId`" + ` (` + "`verbNoun`" + `:
` + "`cancelOrder`" + `) and a ` + "`summary`" + ` that says what it does and when to use it, in
a sentence.`,
	})
}

func (c OperationPurpose) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	m := c.Meta()
	return eachOperation(ctx, in, func(op *spec.Operation) []finding.Finding {
		var missing []string
		if strings.TrimSpace(op.OperationID) == "" {
			missing = append(missing, "no operationId, so a generated tool's name is derived from its path and changes with it")
		}
		if !hasPurpose(op) {
			missing = append(missing, "no summary or description that says more than its name, so an agent guesses from the path when to call it")
		}
		if len(missing) == 0 {
			return nil
		}
		return []finding.Finding{deduction(m, op, at(op), op.Key()+" has "+strings.Join(missing, "; and "))}
	})
}

// hasPurpose reports an operation whose summary or description states a
// purpose by the description rubric: a text that is more than one of the
// operation's names (rubric.Restates, the rubric's purpose test). The
// rubric's other items are not asked here, and its token count, which
// rubric.Judge computes with a tokenizer that costs more to load than a
// small document to lint, is not needed: the other readiness checks judge
// what the document declares of them.
func hasPurpose(op *spec.Operation) bool {
	for _, text := range []string{op.Summary, op.Description} {
		if t := strings.TrimSpace(text); t != "" && !rubric.Restates(t, op.OperationID, op.PathTemplate, op.Key()) {
			return true
		}
	}
	return false
}

// InputUnconstrained reports parameters and request-body fields an agent
// would have to fill by guessing their type or their form.
type InputUnconstrained struct{ static }

func (InputUnconstrained) Meta() checks.Meta {
	return readinessMeta(checks.Meta{
		ID:       "openapi-hal-input-unconstrained",
		Title:    "Parameters and request fields have a type, and a constraint or an example",
		Severity: finding.SeverityWarning,
		SpecRefs: []finding.SpecRef{refSchema, planning("validation")},
		Help: `An agent fills each parameter and request-body field from the schema the
document gives it. A field without a ` + "`type`" + ` leaves it to guess whether
` + "`42`" + ` or ` + "`\"42\"`" + ` is wanted (a warning); a string or number with no
constraint (` + "`enum`" + `, ` + "`format`" + `, ` + "`pattern`" + `, a minimum or maximum, a length)
and no example leaves it to guess the form — a date as ` + "`2024-05-01`" + ` or
` + "`05/01/2024`" + `, a state as ` + "`open`" + ` or ` + "`OPEN`" + ` — and the first call that
teaches it is a rejected one (info). "Which candidate inputs can be rejected
before execution" is what the schema is for. Judged: the parameters, and the
top-level fields of a JSON request body (array items included); booleans
need nothing more than their type.

**How to fix:** give every field a ` + "`type`" + `; give strings an ` + "`enum`" + `, a
` + "`format`" + ` or a ` + "`pattern`" + ` where their values have a form, numbers their
bounds, and free text a ` + "`maxLength`" + ` or an ` + "`example`" + `.`,
	})
}

func (c InputUnconstrained) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	m := c.Meta()
	return eachOperation(ctx, in, func(op *spec.Operation) []finding.Finding {
		var untyped, loose []string
		var untypedAt, looseAt *finding.SourceLocation
		note := func(gap inputGap, name string, loc finding.SourceLocation) {
			switch gap {
			case inputUntyped:
				untyped = append(untyped, name)
				if untypedAt == nil {
					untypedAt = &loc
				}
			case inputLoose:
				loose = append(loose, name)
				if looseAt == nil {
					looseAt = &loc
				}
			}
		}
		for _, p := range op.Parameters {
			if ignoredHeader(p) {
				continue
			}
			gap := judgeInput(p.Schema)
			if gap == inputLoose && len(p.Examples) > 0 {
				gap = inputFine
			}
			note(gap, p.In+" parameter "+p.Name, p.Location)
		}
		if mt, body := jsonBody(op); body != nil {
			loc, ok := op.RequestBodyLocations[mt]
			if !ok {
				loc = at(op, "requestBody")
			}
			props, _ := body["properties"].(map[string]any)
			for _, name := range sortedKeys(props) {
				field, _ := props[name].(map[string]any)
				fieldAt := loc
				fieldAt.Pointer = jsonorder.Join(loc.Pointer+"/properties", name)
				note(judgeInput(field), "body field "+name, fieldAt)
			}
		}
		var out []finding.Finding
		if untypedAt != nil {
			out = append(out, deduction(m, op, *untypedAt, fmt.Sprintf(
				"%s: %s %s no type; an agent guesses whether to send a string, a number or an object",
				op.Key(), names(untyped), plural(len(untyped), "has", "have"))))
		}
		if looseAt != nil {
			f := deduction(m, op, *looseAt, fmt.Sprintf(
				"%s: %s %s no enum, format, pattern, bounds or example; an agent guesses the form of the value",
				op.Key(), names(loose), plural(len(loose), "has", "have")))
			f.Severity = finding.SeverityInfo
			out = append(out, f)
		}
		return out
	})
}

// inputGap is what a field's schema leaves an agent to guess.
type inputGap int

const (
	inputFine inputGap = iota
	inputUntyped
	inputLoose
)

// constraintKeywords say something about a value's form beyond its type.
var constraintKeywords = []string{"enum", "const", "format", "pattern", "minimum", "maximum", "exclusiveMinimum",
	"exclusiveMaximum", "minLength", "maxLength", "multipleOf", "example", "examples", "default", "contentMediaType"}

// judgeInput says what a field's schema leaves to guess. A composition
// (allOf, oneOf, anyOf) or a recursive reference is judged as typed: its
// parts say the rest. An array is judged by its items.
func judgeInput(s map[string]any) inputGap {
	for range 4 {
		if s == nil {
			return inputUntyped
		}
		for _, k := range []string{"allOf", "oneOf", "anyOf", "$ref", "not"} {
			if _, ok := s[k]; ok {
				return inputFine
			}
		}
		switch spec.SchemaType(s) {
		case "":
			if hasAny(s, constraintKeywords) || s["properties"] != nil {
				return inputFine
			}
			return inputUntyped
		case "array":
			items, _ := s["items"].(map[string]any)
			if items == nil {
				return inputFine
			}
			s = items
			continue
		case "string", "number", "integer":
			if hasAny(s, constraintKeywords) {
				return inputFine
			}
			return inputLoose
		default:
			return inputFine
		}
	}
	return inputFine
}

func hasAny(s map[string]any, keys []string) bool {
	for _, k := range keys {
		if _, ok := s[k]; ok {
			return true
		}
	}
	return false
}

// ignoredHeader reports the header parameters OpenAPI says to ignore:
// Accept, Content-Type and Authorization are described elsewhere.
func ignoredHeader(p spec.Parameter) bool {
	if !strings.EqualFold(p.In, "header") {
		return false
	}
	switch http.CanonicalHeaderKey(p.Name) {
	case "Accept", "Content-Type", "Authorization":
		return true
	}
	return false
}

// jsonBody is the first JSON request body schema of op (its media type in
// sorted order), or nil.
func jsonBody(op *spec.Operation) (string, map[string]any) {
	for _, mt := range sortedKeys(op.RequestBody) {
		t, _ := exchange.MediaTypeOf(mt)
		if t == "application/json" || strings.HasSuffix(t, "+json") {
			s, _ := op.RequestBody[mt].(map[string]any)
			return mt, s
		}
	}
	return "", nil
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// PolymorphismAmbiguous reports a oneOf or anyOf of object schemas that
// nothing tells apart.
type PolymorphismAmbiguous struct{ static }

func (PolymorphismAmbiguous) Meta() checks.Meta {
	return readinessMeta(checks.Meta{
		ID:       "openapi-hal-polymorphism-ambiguous",
		FiredBy:  "ambiguous request oneOf",
		Title:    "A oneOf or anyOf of objects says which alternative applies",
		Severity: finding.SeverityWarning,
		SpecRefs: []finding.SpecRef{refDiscriminator, planning("validation")},
		Help: `A ` + "`oneOf`" + ` or ` + "`anyOf`" + ` of object schemas with nothing that tells them apart
leaves an agent to guess which shape to send, and which one it received: two
objects with optional members both fit ` + "`{}`" + `, so a body can match
several alternatives, or none in the way the server meant. OpenAPI's
` + "`discriminator`" + ` names the property whose value selects the alternative;
JSON Schema's own way is a property every alternative declares with a
different ` + "`const`" + ` (or one-value ` + "`enum`" + `), which this check accepts too, as it
accepts alternatives that each require a member no other one declares (a
user that requires ` + "`login`" + `, an organization that requires ` + "`slug`" + `). Judged:
the request bodies and the success responses, through their ` + "`$ref`" + `s.

**How to fix:** add a ` + "`discriminator`" + ` with its ` + "`propertyName`" + ` (and a
` + "`mapping`" + ` when the values are not the schema names), or give each
alternative a ` + "`type`" + ` property with its own ` + "`const`" + `.`,
	})
}

func (c PolymorphismAmbiguous) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	m := c.Meta()
	w := &polyWalker{seen: map[uintptr]polyResult{}}
	return eachOperation(ctx, in, func(op *spec.Operation) []finding.Finding {
		var out []finding.Finding
		judge := func(where string, mt string, schema any, loc finding.SourceLocation, ok bool) {
			s, _ := schema.(map[string]any)
			found := w.find(s)
			if found == nil {
				return
			}
			if !ok {
				loc = at(op)
			}
			loc.Pointer += jsonorder.Pointer(found.path)
			out = append(out, deduction(m, op, loc, fmt.Sprintf(
				"%s: the %s (%s) has a %s of %d object schemas without a discriminator; an agent guesses which one %s",
				op.Key(), where, mt, found.keyword, found.objects, map[string]string{
					"request body": "to send", "response": "it received",
				}[where])))
		}
		for _, mt := range sortedKeys(op.RequestBody) {
			loc, ok := op.RequestBodyLocations[mt]
			if judge("request body", mt, op.RequestBody[mt], loc, ok); len(out) > 0 {
				break
			}
		}
		before := len(out)
		for _, code := range successCodes(op.Responses) {
			r := op.Responses[code]
			for _, mt := range sortedKeys(r.Content) {
				loc, ok := r.SchemaLocations[mt]
				if judge("response", code+" "+mt, r.Content[mt], loc, ok); len(out) > before {
					return out
				}
			}
		}
		return out
	})
}

// polyResult is where, under a schema, the first ambiguous alternation is.
type polyResult struct {
	path    []string
	keyword string
	objects int
}

// polyWalker finds ambiguous alternations in resolved schemas, which the
// loader shares between the operations that use them: each schema is
// walked once, however many operations and $refs reach it.
type polyWalker struct {
	seen map[uintptr]polyResult
	// budget bounds the walk of a hostile document.
	walked int
}

const maxPolyWalk = 1 << 20

// find returns the first ambiguous alternation under s, or nil.
func (w *polyWalker) find(s map[string]any) *polyResult {
	r := w.walk(s, 0)
	if r.keyword == "" {
		return nil
	}
	return &r
}

func (w *polyWalker) walk(s map[string]any, depth int) polyResult {
	if s == nil || depth > 64 || w.walked > maxPolyWalk {
		return polyResult{}
	}
	// A map is a reference: its pointer is the schema's identity.
	key := reflect.ValueOf(s).Pointer()
	if r, ok := w.seen[key]; ok {
		return r
	}
	w.seen[key] = polyResult{} // a cycle met again finds nothing new
	w.walked++
	var r polyResult
	for _, kw := range []string{"oneOf", "anyOf"} {
		alts, _ := s[kw].([]any)
		if n := objectAlternatives(alts); n >= 2 && s["discriminator"] == nil && !constTagged(alts) && !requiredApart(alts) {
			r = polyResult{path: []string{kw}, keyword: kw, objects: n}
			break
		}
	}
	if r.keyword == "" {
		r = w.children(s, depth)
	}
	w.seen[key] = r
	return r
}

// children walks the subschemas of s, in a fixed order.
func (w *polyWalker) children(s map[string]any, depth int) polyResult {
	for _, kw := range []string{"allOf", "oneOf", "anyOf"} {
		alts, _ := s[kw].([]any)
		for i, a := range alts {
			sub, _ := a.(map[string]any)
			if r := w.walk(sub, depth+1); r.keyword != "" {
				r.path = append([]string{kw, fmt.Sprint(i)}, r.path...)
				return r
			}
		}
	}
	for _, kw := range []string{"items", "additionalProperties"} {
		sub, _ := s[kw].(map[string]any)
		if r := w.walk(sub, depth+1); r.keyword != "" {
			r.path = append([]string{kw}, r.path...)
			return r
		}
	}
	props, _ := s["properties"].(map[string]any)
	for _, name := range sortedKeys(props) {
		sub, _ := props[name].(map[string]any)
		if r := w.walk(sub, depth+1); r.keyword != "" {
			r.path = append([]string{"properties", name}, r.path...)
			return r
		}
	}
	return polyResult{}
}

// objectAlternatives counts the alternatives that are object schemas.
func objectAlternatives(alts []any) int {
	n := 0
	for _, a := range alts {
		s, _ := a.(map[string]any)
		if s != nil && (spec.SchemaType(s) == "object" || s["properties"] != nil) {
			n++
		}
	}
	return n
}

// requiredApart reports object alternatives that their required members
// tell apart: each requires a member no other one declares, so an object
// that has it can be only that one (GitHub's app owner, a simple-user that
// requires login or an enterprise that requires slug).
func requiredApart(alts []any) bool {
	var objects []map[string]any
	for _, a := range alts {
		if s, _ := a.(map[string]any); s != nil && (spec.SchemaType(s) == "object" || s["properties"] != nil) {
			objects = append(objects, s)
		}
	}
	declares := func(o map[string]any, name string) bool {
		props, _ := o["properties"].(map[string]any)
		if _, ok := props[name]; ok {
			return true
		}
		required, _ := o["required"].([]any)
		return slices.Contains(required, any(name))
	}
	for i, o := range objects {
		required, _ := o["required"].([]any)
		own := slices.ContainsFunc(required, func(r any) bool {
			name, ok := r.(string)
			if !ok {
				return false
			}
			for j, other := range objects {
				if j != i && declares(other, name) {
					return false
				}
			}
			return true
		})
		if !own {
			return false
		}
	}
	return len(objects) > 0
}

// constTagged reports alternatives that one property tells apart: every
// object alternative declares it with a const, or a one-value enum, and no
// two with the same value.
func constTagged(alts []any) bool {
	var objects []map[string]any
	for _, a := range alts {
		if s, _ := a.(map[string]any); s != nil && (spec.SchemaType(s) == "object" || s["properties"] != nil) {
			objects = append(objects, s)
		}
	}
	if len(objects) == 0 {
		return false
	}
	first, _ := objects[0]["properties"].(map[string]any)
	for _, name := range sortedKeys(first) {
		values := map[string]bool{}
		tagged := true
		for _, o := range objects {
			props, _ := o["properties"].(map[string]any)
			v, ok := tagValue(props[name])
			if !ok || values[v] {
				tagged = false
				break
			}
			values[v] = true
		}
		if tagged {
			return true
		}
	}
	return false
}

// tagValue is the one value a property schema allows, as text.
func tagValue(p any) (string, bool) {
	s, _ := p.(map[string]any)
	if s == nil {
		return "", false
	}
	if v, ok := s["const"]; ok {
		return fmt.Sprint(v), true
	}
	if e, ok := s["enum"].([]any); ok && len(e) == 1 {
		return fmt.Sprint(e[0]), true
	}
	return "", false
}
