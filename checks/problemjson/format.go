package problemjson

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
)

// MediaType checks that error responses are problem details.
type MediaType struct{ probes }

func (MediaType) Meta() checks.Meta {
	return checks.Meta{
		ID:       "problem-json-media-type",
		Since:    checks.FirstRelease,
		Family:   checks.FamilyProblemJSON,
		Title:    "Error responses are application/problem+json",
		Severity: finding.SeverityWarning,
		SpecRefs: []finding.SpecRef{rfc9457("3", "readiness")},
		Help: `An agent that receives an error needs to tell what went wrong and whether to
retry, wait, refresh its state or give up, and it needs that in a form it can
parse. RFC 9457 problem details (` + "`application/problem+json`" + `) give every error a
type URI, a title, the status and a detail. An HTML error page, a bare string
or a framework's ad-hoc JSON makes the agent guess. RFC 9457 does not force
its use, so this is a readiness warning, not a conformance error.

**How to fix:** answer every 4xx and 5xx, including the router's own 404,
405 and 406, with ` + "`Content-Type: application/problem+json`" + ` and a body such as
` + "`{\"type\":\"https://example.com/problems/not-found\",\"title\":\"Not Found\",\"status\":404,\"detail\":\"...\"}`" + `.
Most frameworks have a switch for this (Spring ` + "`spring.mvc.problemdetails.enabled`" + `,
ASP.NET Core ` + "`AddProblemDetails()`" + `).`,
	}
}

func (c MediaType) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	occs, err := eachError(ctx, in, func(x *exchange.Exchange) []occurrence {
		mt := x.Response.MediaType()
		switch {
		case mt == mediaProblemJSON || mt == mediaProblemXML:
			return nil
		case exchange.IsJSONMediaType(mt) && !readable(x):
			return nil // a cut JSON body may well be a problem
		}
		if _, shaped := decodeProblem(x); shaped {
			return nil // ServedAsJSON reports it
		}
		if _, declared := declaredProblem(in, x); declared {
			return nil // DeclaredMediaType reports it, as an error
		}
		got := mediaOrNone(x)
		msg := fmt.Sprintf("%d to %s answered with %s, not %s", x.Response.Status, describe(x), got, mediaProblemJSON)
		ev := evidence(x, got, mediaProblemJSON)
		ev.Header = "Content-Type"
		ev.Excerpt = checks.Excerpt(x)
		return []occurrence{{x: x, subject: got, message: msg, ev: ev}}
	})
	if err != nil {
		return nil, err
	}
	return group(c.Meta(), occs), nil
}

// ServedAsJSON checks that problem-shaped bodies use the registered type.
type ServedAsJSON struct{ probes }

func (ServedAsJSON) Meta() checks.Meta {
	return checks.Meta{
		ID:       "problem-json-served-as-json",
		Since:    checks.FirstRelease,
		Family:   checks.FamilyProblemJSON,
		Title:    "Problem details are served as application/problem+json, not plain JSON",
		Severity: finding.SeverityWarning,
		SpecRefs: []finding.SpecRef{rfc9457("3", "SHOULD")},
		Help: `The body has the members of a problem details object (` + "`type`" + `, ` + "`title`" + `,
` + "`status`" + `, ` + "`detail`" + `) but is labelled ` + "`application/json`" + ` or another JSON type. Clients
recognise problem details by ` + "`application/problem+json`" + ` (RFC 9457 §3); under a
generic JSON type an agent cannot tell an error document from a resource
that happens to have a ` + "`title`" + `.

**How to fix:** set ` + "`Content-Type: application/problem+json`" + ` on error responses.
The body can stay as it is.`,
	}
}

func (c ServedAsJSON) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	occs, err := eachError(ctx, in, func(x *exchange.Exchange) []occurrence {
		mt := x.Response.MediaType()
		if mt == mediaProblemJSON {
			return nil
		}
		if _, shaped := decodeProblem(x); !shaped {
			return nil
		}
		if _, declared := declaredProblem(in, x); declared {
			return nil // DeclaredMediaType reports it, as an error
		}
		msg := fmt.Sprintf("%d to %s is a problem details object served as %s", x.Response.Status, describe(x), mt)
		ev := evidence(x, mt, mediaProblemJSON)
		ev.Header = "Content-Type"
		return []occurrence{{x: x, subject: mt, message: msg, ev: ev}}
	})
	if err != nil {
		return nil, err
	}
	return group(c.Meta(), occs), nil
}

// InvalidJSON checks that problem+json bodies are JSON objects.
type InvalidJSON struct{ probes }

func (InvalidJSON) Meta() checks.Meta {
	return checks.Meta{
		ID:       "problem-json-invalid-json",
		Since:    checks.FirstRelease,
		Family:   checks.FamilyProblemJSON,
		Title:    "application/problem+json bodies are JSON objects",
		Severity: finding.SeverityError,
		SpecRefs: []finding.SpecRef{rfc9457("3", "MUST"), {
			Doc: "RFC 8259", Section: "2", Level: "MUST", URL: "https://www.rfc-editor.org/rfc/rfc8259#section-2",
		}},
		Help: `A response labelled ` + "`application/problem+json`" + ` promises a problem details
object: a JSON object (RFC 9457 §3). An empty body, HTML, plain text or a
JSON array under that type makes a client's parser fail exactly when it
needs to understand the error.

**How to fix:** serialize the problem object with a JSON encoder, and only
set the problem+json type when a problem object is written. Check error
paths that write before the error handler runs (middleware, proxies).`,
	}
}

func (c InvalidJSON) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	occs, err := eachError(ctx, in, func(x *exchange.Exchange) []occurrence {
		if x.Response.MediaType() != mediaProblemJSON || !readable(x) {
			return nil
		}
		what := invalidBody(x.Response.Body)
		if what == "" {
			return nil
		}
		msg := fmt.Sprintf("%d to %s is served as %s but its body %s", x.Response.Status, describe(x), mediaProblemJSON, what)
		ev := evidence(x, what, "a JSON object")
		ev.Excerpt = checks.Excerpt(x)
		return []occurrence{{x: x, subject: "", message: msg, ev: ev}}
	})
	if err != nil {
		return nil, err
	}
	return group(c.Meta(), occs), nil
}

// invalidBody says what is wrong with a problem+json body, or "".
func invalidBody(body []byte) string {
	if len(body) == 0 {
		return "is empty"
	}
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		return "is not valid JSON"
	}
	if _, ok := v.(map[string]any); !ok {
		return "is JSON but not an object"
	}
	return ""
}
