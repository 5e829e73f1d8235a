package problemjson

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/spec"
)

// declaration is the response an operation declares for an observed status.
type declaration struct {
	op   *spec.Operation
	key  string // "404", "4XX" or "default", as written
	resp spec.Response
}

// declared finds the operation that x exercised and the response it
// declares for x's status: the exact code, then the range, then default
// (OpenAPI 3 §4.8.16). ok is false when no operation matches; d.key is ""
// when the operation declares nothing that covers the status.
func declared(doc *spec.Document, x *exchange.Exchange) (d declaration, ok bool) {
	if doc == nil || doc.Swagger2 {
		return declaration{}, false
	}
	op := doc.Index().Match(x.Request.Method, x.Request.URL)
	if op == nil {
		return declaration{}, false
	}
	d.op = op
	status := strconv.Itoa(x.Response.Status)
	candidates := []string{status, status[:1] + "XX", status[:1] + "xx", "default"}
	for _, k := range candidates {
		if r, found := op.Responses[k]; found {
			d.key, d.resp = k, r
			return d, true
		}
	}
	return d, true
}

// problemSchema returns the schema declared for application/problem+json,
// and whether that media type is declared at all.
func (d declaration) problemSchema() (map[string]any, bool) {
	for mt, schema := range d.resp.Content {
		if t, _ := exchange.MediaTypeOf(mt); t == mediaProblemJSON {
			return schema, true
		}
	}
	return nil, false
}

// declaredProblem reports whether the spec declares problem+json for x.
func declaredProblem(in *checks.Input, x *exchange.Exchange) (declaration, bool) {
	d, ok := declared(in.Spec, x)
	if !ok || d.key == "" {
		return declaration{}, false
	}
	_, has := d.problemSchema()
	return d, has
}

func needSpec(in *checks.Input) error {
	if err := in.NeedSpec(); err != nil {
		return err
	}
	if in.Spec.Swagger2 {
		return checks.Skip("the OpenAPI document is Swagger 2.0, whose responses are not matched operation by operation")
	}
	return nil
}

func withLocation(f finding.Finding, op *spec.Operation) finding.Finding {
	if op != nil && op.Location.File != "" {
		loc := op.Location
		f.Location = &loc
	}
	return f
}

// DeclaredMediaType checks that the app keeps its own contract for errors.
type DeclaredMediaType struct{ probes }

func (DeclaredMediaType) Meta() checks.Meta {
	return checks.Meta{
		ID:       "problem-json-declared-media-type",
		Since:    checks.FirstRelease,
		Family:   checks.FamilyProblemJSON,
		Title:    "Errors the OpenAPI document declares as problem+json are problem+json",
		Severity: finding.SeverityError,
		// The error rests on the app's own contract, not on an RFC keyword.
		SpecRefs: []finding.SpecRef{{
			Doc: "OpenAPI 3.1", Section: "4.8.17", Level: "contract", URL: "https://spec.openapis.org/oas/v3.1.0#response-object",
		}, rfc9457("3", "")},
		Help: `The OpenAPI document promises ` + "`application/problem+json`" + ` for this status, and
agents (and the clients generated from the document) parse the error that
way. Answering with HTML or plain text breaks the app's own contract, so this
is an error where an undeclared error format is only a readiness warning.

**How to fix:** make the error handler that produced this status write
problem details, or correct the document if it is the document that is wrong.`,
	}
}

func (c DeclaredMediaType) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	if err := needSpec(in); err != nil {
		return nil, err
	}
	ops := map[string]*spec.Operation{}
	occs, err := eachError(ctx, in, func(x *exchange.Exchange) []occurrence {
		mt := x.Response.MediaType()
		d, ok := declaredProblem(in, x)
		if !ok || mt == mediaProblemJSON {
			return nil
		}
		got := mediaOrNone(x)
		msg := fmt.Sprintf("%d to %s answered with %s; the OpenAPI document declares %s for %s (responses.%s)",
			x.Response.Status, describe(x), got, mediaProblemJSON, d.op.Key(), d.key)
		ev := evidence(x, got, mediaProblemJSON)
		ev.Header = "Content-Type"
		ev.Excerpt = checks.Excerpt(x)
		ops[d.op.Key()] = d.op
		return []occurrence{{x: x, subject: d.op.Key(), message: msg, ev: ev}}
	})
	if err != nil {
		return nil, err
	}
	return locate(group(c.Meta(), occs), ops), nil
}

func locate(fs []finding.Finding, ops map[string]*spec.Operation) []finding.Finding {
	for i := range fs {
		fs[i] = withLocation(fs[i], ops[fs[i].Subject])
	}
	return fs
}

// DeclaredType checks observed problem types and statuses against the ones
// the document's problem schemas allow.
type DeclaredType struct{ probes }

func (DeclaredType) Meta() checks.Meta {
	return checks.Meta{
		ID:       "problem-json-declared-type",
		Since:    checks.FirstRelease,
		Family:   checks.FamilyProblemJSON,
		Title:    "Observed problem types and statuses are the ones the OpenAPI document declares",
		Severity: finding.SeverityError,
		SpecRefs: []finding.SpecRef{{
			Doc: "OpenAPI 3.1", Section: "4.8.17", Level: "contract", URL: "https://spec.openapis.org/oas/v3.1.0#response-object",
		}, rfc9457("4", "")},
		Help: `When the problem schema of a response pins ` + "`type`" + ` or ` + "`status`" + ` with ` + "`const`" + ` or
` + "`enum`" + `, that list is the set of problems an agent is told to expect (RFC 9457 §4:
a problem type is defined by its URI, title and status). A problem outside
it reaches code paths no client was written for.

**How to fix:** return one of the declared problem types, or add the new
type (with its documentation) to the document.`,
	}
}

func (c DeclaredType) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	if err := needSpec(in); err != nil {
		return nil, err
	}
	ps, err := problemsToJudge(ctx, in)
	if err != nil {
		return nil, err
	}
	var occs []occurrence
	ops := map[string]*spec.Operation{}
	for _, jp := range ps {
		d, ok := declaredProblem(in, jp.x)
		if !ok {
			continue
		}
		schema, _ := d.problemSchema()
		for _, member := range []string{"type", "status"} {
			allowed := allowedValues(schema, member)
			if len(allowed) == 0 {
				continue
			}
			observed, present := observedValue(jp.p, member)
			if !present || contains(allowed, observed) {
				continue
			}
			msg := fmt.Sprintf("problem %s %s in the %d to %s is not among %s declared for %s (responses.%s)",
				member, observed, jp.x.Response.Status, describe(jp.x), strings.Join(allowed, ", "), d.op.Key(), d.key)
			occs = append(occs, occurrence{x: jp.x, subject: d.op.Key() + " " + member, message: msg,
				ev: pointerEvidence(jp.x, member, observed, strings.Join(allowed, " | "))})
			ops[d.op.Key()+" "+member] = d.op
		}
	}
	return locate(group(c.Meta(), occs), ops), nil
}

// observedValue renders a member for comparison with declared values; the
// type member defaults to about:blank.
func observedValue(p problem, member string) (string, bool) {
	if member == "type" {
		return strconv.Quote(p.typeURI()), true
	}
	n, ok := p.members["status"].(json.Number)
	if !ok {
		return "", false
	}
	return canonicalNumber(n.String()), true
}

// allowedValues are the values the schema pins a member to (spec.PinnedValues),
// as quoted strings or canonical numbers.
func allowedValues(schema map[string]any, member string) []string {
	var out []string
	for _, v := range spec.PinnedValues(schema, member) {
		out = append(out, render(v))
	}
	return out
}

func render(v any) string {
	if s, ok := v.(string); ok {
		return strconv.Quote(s)
	}
	return canonicalNumber(fmt.Sprint(v))
}

func canonicalNumber(s string) string {
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	return s
}

func contains(xs []string, x string) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

// UndeclaredStatus notes error statuses an operation does not document.
type UndeclaredStatus struct{ probes }

func (UndeclaredStatus) Meta() checks.Meta {
	return checks.Meta{
		ID:       "problem-json-undeclared-status",
		Since:    checks.FirstRelease,
		Family:   checks.FamilyProblemJSON,
		Title:    "Error statuses an operation answers with are declared in the OpenAPI document",
		Severity: finding.SeverityInfo,
		SpecRefs: []finding.SpecRef{{
			Doc: "OpenAPI 3.1", Section: "4.8.16", Level: "readiness", URL: "https://spec.openapis.org/oas/v3.1.0#responses-object",
		}},
		Help: `OpenAPI does not require every possible status to be documented, but an
agent planning from the document only knows about the errors listed there.
Only 4xx are noted: a 5xx is a failure, not part of the contract.
An operation that answers 404 or 400 without declaring it (nor a ` + "`4XX`" + ` range
or ` + "`default`" + `) leaves the agent without the error's shape or meaning.

**How to fix:** declare the status (or a ` + "`4XX`" + `/` + "`default`" + ` response) with an
` + "`application/problem+json`" + ` schema.`,
	}
}

func (c UndeclaredStatus) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	if err := needSpec(in); err != nil {
		return nil, err
	}
	ops := map[string]*spec.Operation{}
	occs, err := eachError(ctx, in, func(x *exchange.Exchange) []occurrence {
		if x.Response.Status >= 500 {
			return nil // a failure, not part of the contract; ServerError judges it
		}
		d, ok := declared(in.Spec, x)
		if !ok || d.key != "" {
			return nil
		}
		msg := fmt.Sprintf("%s answered %d, which %s does not declare (nor a 4XX range or default)",
			describe(x), x.Response.Status, d.op.Key())
		ops[d.op.Key()] = d.op
		return []occurrence{{x: x, subject: d.op.Key(), message: msg, ev: evidence(x, strconv.Itoa(x.Response.Status), "a declared status")}}
	})
	if err != nil {
		return nil, err
	}
	return locate(group(c.Meta(), occs), ops), nil
}
