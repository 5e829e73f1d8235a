package problemjson

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/spec"
)

// ErrorsDeclared reports, from the OpenAPI document alone, operations whose
// declared error responses have no problem details media type. An
// operation that declares no error response at all is the document
// readiness check openapi-hal-errors-undeclared's.
type ErrorsDeclared struct{}

// Parts implements checks.WithParts, as SuccessDeclared does.
func (ErrorsDeclared) Parts() []checks.Part { return []checks.Part{probeNote{}} }

func (ErrorsDeclared) Meta() checks.Meta {
	return checks.Meta{
		ID:        "problem-json-errors-declared",
		Documents: checks.DocOpenAPI,
		Since:     checks.FirstRelease,
		Family:    checks.FamilyProblemJSON,
		Title:     "The OpenAPI document declares each operation's errors as problem details",
		Severity:  finding.SeverityWarning,
		Readiness: true,
		SpecRefs: []finding.SpecRef{rfc9457("3", "readiness"), {
			Doc: "OpenAPI 3.1", Section: "4.8.16", Level: "readiness", URL: "https://spec.openapis.org/oas/v3.1.0#responses-object",
		}},
		Help: `An agent plans from the document: a problem details media type (RFC 9457 §3,
` + "`application/problem+json`" + `) on an error response tells it that each failure
carries a type URI, a title and the status it can branch on. An operation
whose declared error responses (4xx or 5xx statuses, ` + "`4XX`" + ` or ` + "`5XX`" + ` ranges,
` + "`default`" + `) name neither ` + "`application/problem+json`" + ` nor
` + "`application/problem+xml`" + ` (plain JSON, HTML, text, or no content at all)
leaves it to guess, per operation, where the reason is. It is reported once
per operation; the finding lists each such status, and points at the first.

An operation that declares no error response at all is
openapi-hal-errors-undeclared's, not this check's: each defect is reported
once. HEAD and OPTIONS operations are not judged: an agent reads no error
body of theirs. RFC 9457 does not force its use, so this is a readiness
warning, and it counts in the document's readiness grade and hotspots. The
check needs only the document, so ` + "`agentready lint`" + ` runs it;
problem-json-media-type and problem-json-undeclared-status judge what a live
app answers.

**How to fix:** declare the error responses with an ` + "`application/problem+json`" + `
schema, for instance a shared ` + "`$ref: '#/components/responses/Problem'`" + `.`,
	}
}

func (c ErrorsDeclared) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	m := c.Meta()
	return in.EachOperation(ctx, func(op *spec.Operation) []finding.Finding {
		if op.Method == http.MethodHead || op.Method == http.MethodOptions {
			return nil
		}
		codes := slices.Sorted(maps.Keys(op.Responses))
		codes = slices.DeleteFunc(codes, func(code string) bool { return !spec.IsErrorStatus(code) })
		var without []string
		for _, code := range codes {
			declared := declaredMediaTypes(op.Responses[code])
			if slices.ContainsFunc(declared, isProblemMediaType) {
				continue
			}
			with := "no content"
			if len(declared) > 0 {
				with = strings.Join(declared, ", ")
			}
			without = append(without, code+" with "+with)
		}
		if len(without) == 0 {
			return nil
		}
		first, _, _ := strings.Cut(without[0], " ")
		got := strings.Join(without, "; ")
		f := checks.New(m, op.Key(), fmt.Sprintf(
			"%s declares its error responses %s, not %s: an agent is not told the problem's type, title and status",
			op.Key(), got, mediaProblemJSON), operationEvidence(op, mediaProblemJSON, got))
		return []finding.Finding{checks.AtOperation(f, op, "responses", first)}
	})
}

// operationEvidence names the operation a finding of the document is about:
// its method and path template, so that a finding has one fingerprint
// whether lint or a scan read the document.
func operationEvidence(op *spec.Operation, expected, actual string) finding.Evidence {
	return finding.Evidence{Method: op.Method, URL: op.PathTemplate, Expected: expected, Actual: actual}
}

// declaredMediaTypes are a response's media types, sorted.
func declaredMediaTypes(r spec.Response) []string {
	return slices.Sorted(maps.Keys(r.Content))
}

func isProblemMediaType(mt string) bool {
	t, _ := exchange.MediaTypeOf(mt)
	return t == mediaProblemJSON || t == mediaProblemXML
}
