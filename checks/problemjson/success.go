package problemjson

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/jsonorder"
	"github.com/agentready/agentready/internal/spec"
)

// successHelp is why a success must not be labelled a problem, for both the
// check of served responses and the check of the document.
const successHelp = `` + "`application/problem+json`" + ` identifies a problem details object (RFC 9457 §3,
§6.1): the description of an error. Agents and client libraries dispatch on it,
and route a response so labelled to their error handling, whatever the status.
A successful answer labelled that way is read as a failure, or its content is
looked for in ` + "`title`" + ` and ` + "`detail`" + ` and not found.`

// SuccessLabelled reports 2xx responses labelled application/problem+json
// whose body is not a problem details object.
type SuccessLabelled struct{ probes }

func (SuccessLabelled) Meta() checks.Meta {
	return checks.Meta{
		ID:       "problem-json-success-labelled",
		Since:    checks.FirstRelease,
		Family:   checks.FamilyProblemJSON,
		Title:    "Successful responses are not labelled application/problem+json",
		FiredBy:  "success labelled problem",
		Severity: finding.SeverityWarning,
		SpecRefs: []finding.SpecRef{rfc9457("3", "readiness"), rfc9457("6.1", "")},
		Help: successHelp + `

Responses whose body is a problem details object (an error reported with a 2xx
status) are not reported here.

**How to fix:** label successful responses with the media type of what they
carry (` + "`application/json`" + `, ` + "`application/hal+json`" + `, …); keep
` + "`application/problem+json`" + ` for error responses. Look for a content type set once for
a whole controller or route group.`,
	}
}

func (c SuccessLabelled) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	if len(in.Samples) == 0 {
		return nil, checks.Skip("no resource answered 2xx to the crawl")
	}
	var occs []occurrence
	for _, x := range in.Recording.Exchanges {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if !labelledSuccess(x) {
			continue
		}
		if p, ok := decodeProblem(x); ok && p.shaped() {
			continue
		}
		msg := fmt.Sprintf("%d to %s is labelled %s, but its body is not a problem details object", x.Response.Status, describe(x), mediaProblemJSON)
		ev := evidence(x, mediaProblemJSON, "the media type of the content")
		ev.Header = "Content-Type"
		ev.Excerpt = checks.Excerpt(x)
		occs = append(occs, occurrence{x: x, subject: mediaProblemJSON, message: msg, ev: ev})
	}
	return group(c.Meta(), occs), nil
}

// labelledSuccess reports a whole 2xx answer to a GET this family judges,
// labelled application/problem+json.
func labelledSuccess(x *exchange.Exchange) bool {
	r := x.Response
	return r != nil && x.Request.Method == http.MethodGet && judgedPurpose(x.Purpose) &&
		r.Status >= 200 && r.Status < 300 && r.MediaType() == mediaProblemJSON && readable(x)
}

// SuccessDeclared reports operations whose OpenAPI document declares
// application/problem+json for a 2xx response.
type SuccessDeclared struct{}

// Parts implements checks.WithParts: the family's note on its error probes
// belongs to every check of it, this one included, so that the note is
// told once whichever of them the policy keeps.
func (SuccessDeclared) Parts() []checks.Part { return []checks.Part{probeNote{}} }

func (SuccessDeclared) Meta() checks.Meta {
	return checks.Meta{
		ID:        "problem-json-success-declared",
		Documents: checks.DocOpenAPI,
		Since:     checks.FirstRelease,
		Family:    checks.FamilyProblemJSON,
		Title:     "The OpenAPI document declares application/problem+json for errors only",
		FiredBy:   "success declared as a problem",
		Severity:  finding.SeverityWarning,
		SpecRefs:  []finding.SpecRef{rfc9457("3", "readiness"), rfc9457("6.1", "")},
		Help: successHelp + `

A 2xx response declared with that media type in the OpenAPI document tells
generated clients and agents to expect, on success, a problem; servers built from
the document then send it. The check needs only the document, so
` + "`agentready lint`" + ` runs it.

**How to fix:** declare the success content under its own media type, and move
the problem schema to the 4xx and 5xx responses (or ` + "`default`" + `).`,
	}
}

func (c SuccessDeclared) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	m := c.Meta()
	return in.EachOperation(ctx, func(op *spec.Operation) []finding.Finding {
		var out []finding.Finding
		for _, code := range successCodes(op.Responses) {
			for mt := range op.Responses[code].Content {
				if t, _ := exchange.MediaTypeOf(mt); t != mediaProblemJSON {
					continue
				}
				f := checks.New(m, op.Key()+" "+code, fmt.Sprintf(
					"%s declares %s for its %s response; a success labelled so is read as an error", op.Key(), mt, code))
				loc := op.Location
				loc.Pointer += jsonorder.Pointer([]string{"responses", code, "content", mt})
				f.Location = &loc
				out = append(out, f)
			}
		}
		return out
	})
}

// successCodes are the response keys of the 2xx range, sorted: "200" to
// "299" and "2XX" (OpenAPI allows either case of the range's X).
func successCodes(responses map[string]spec.Response) []string {
	var out []string
	for code := range responses {
		if len(code) == 3 && code[0] == '2' && (strings.EqualFold(code[1:], "XX") || isDigits(code[1:])) {
			out = append(out, code)
		}
	}
	slices.Sort(out)
	return out
}

func isDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}
