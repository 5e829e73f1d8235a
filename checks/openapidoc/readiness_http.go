package openapidoc

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/internal/activeplan"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/spec"
)

// The readiness checks of what the document says about HTTP itself: errors,
// retries, paging, throttling and credentials.

// ErrorsUndeclared reports operations that declare no error response.
type ErrorsUndeclared struct{ static }

func (ErrorsUndeclared) Meta() checks.Meta {
	return readinessMeta(checks.Meta{
		ID:       "openapi-hal-errors-undeclared",
		Title:    "Every operation declares its error responses",
		Severity: finding.SeverityWarning,
		SpecRefs: []finding.SpecRef{refResponses, planning("error semantics")},
		Help: `OpenAPI expects the documentation of an operation "to cover a successful
operation response and any known errors" (Responses Object). An operation
that declares no 4xx response, no ` + "`4XX`" + ` range and no ` + "`default`" + ` tells an
agent nothing about how it fails: whether a 400 means a field to fix, a 404
a resource to look up again, a 409 a state to refresh. The agent meets each
error for the first time at run time, with no schema to read it by. A live
scan's ` + "`problem-json-undeclared-status`" + ` names each status the app answered
without declaring it; this check needs only the document. Whether the
errors an operation does declare are problem details is
` + "`problem-json-errors-declared`" + `'s to judge, so each defect is reported once.

**How to fix:** declare the errors the operation can answer (at least the 4xx
its validation and lookups produce), or a ` + "`default`" + ` response, each with
an ` + "`application/problem+json`" + ` schema.`,
	})
}

func (c ErrorsUndeclared) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	m := c.Meta()
	return eachOperation(ctx, in, func(op *spec.Operation) []finding.Finding {
		if len(op.Responses) == 0 || slices.ContainsFunc(sortedKeys(op.Responses), clientErrorOrDefault) {
			return nil
		}
		return []finding.Finding{deduction(m, op, at(op, "responses"), fmt.Sprintf(
			"%s declares no 4xx and no default response; an agent cannot tell from the document how it fails or what to do then",
			op.Key()))}
	})
}

// clientErrorOrDefault reports a response key that declares client errors:
// a 4xx status, the 4XX range or default.
func clientErrorOrDefault(code string) bool {
	return code == "default" || (len(code) == 3 && code[0] == '4')
}

// successCodes are the response keys of the 2xx range, sorted.
func successCodes(responses map[string]spec.Response) []string {
	var out []string
	for _, code := range sortedKeys(responses) {
		if len(code) == 3 && code[0] == '2' {
			out = append(out, code)
		}
	}
	return out
}

// RetryUnguarded reports state-changing operations that the document says
// may have to be retried, with nothing that makes a retry safe.
type RetryUnguarded struct{ static }

func (RetryUnguarded) Meta() checks.Meta {
	return readinessMeta(checks.Meta{
		ID:       "openapi-hal-retry-unguarded",
		Title:    "POST and PATCH operations that may be retried declare Idempotency-Key or If-Match",
		Severity: finding.SeverityWarning,
		SpecRefs: []finding.SpecRef{refIdempotencyKey, refIfMatch, planning("idempotence")},
		Help: `When an operation's documented answers ask the client to try again — 409
(Conflict), 412 (Precondition Failed), 429 (Too Many Requests), 503 (Service
Unavailable), or a ` + "`Retry-After`" + ` header — an agent will retry it. For a
POST or a PATCH, "what should the client do after an ambiguous failure?"
has no safe answer unless the document declares how a retry is recognised:
an ` + "`Idempotency-Key`" + ` header (or an ` + "`idempotency_key`" + ` body member) makes a
resubmission the same submission; an ` + "`If-Match`" + ` header makes a stale
update fail with 412 instead of overwriting. Without either the agent must
choose between a duplicate order and a lost update. PUT and DELETE are not
judged: HTTP makes them idempotent (RFC 9110 §9.2.2), so a retry has the
effect of the one call.

A POST or PATCH that names a confirm, recover or retry step (its
operationId, ` + "`x-mcp-tool`" + ` name or last literal path segment) is not judged
here: ` + "`stateful-idempotency-key-declared`" + ` requires its idempotency key
whatever its responses say, so one missing key is reported once.

**How to fix:** declare an ` + "`Idempotency-Key`" + ` header parameter on the POSTs
that create, and ` + "`If-Match`" + ` on the PATCHes that update, and honour them.`,
	})
}

// retryStatuses are the answers that ask a client to try again.
var retryStatuses = []string{"409", "412", "429", "503"}

func (c RetryUnguarded) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	m := c.Meta()
	return eachOperation(ctx, in, func(op *spec.Operation) []finding.Finding {
		// PUT and DELETE are idempotent in HTTP (RFC 9110 §9.2.2): a
		// retry has the effect of the one call, so only the methods that
		// are not, POST and PATCH, need the document to guard a retry.
		if op.Method != http.MethodPost && op.Method != http.MethodPatch || activeplan.SubmissionStep(op) != "" {
			return nil
		}
		why := retryHint(op)
		if why == "" || guardsRetry(op) {
			return nil
		}
		return []finding.Finding{deduction(m, op, at(op), fmt.Sprintf(
			"%s declares %s, so an agent will retry it, but declares no Idempotency-Key or If-Match header: a retry may apply it twice or overwrite a newer state",
			op.Key(), why))}
	})
}

// retryHint says what in op's responses invites a retry, or "".
func retryHint(op *spec.Operation) string {
	for _, code := range retryStatuses {
		if _, ok := op.Responses[code]; ok {
			return "a " + code + " response"
		}
	}
	for _, code := range sortedKeys(op.Responses) {
		if slices.Contains(op.Responses[code].Headers, "Retry-After") {
			return "Retry-After on its " + code + " response"
		}
	}
	return ""
}

// guardsRetry reports an operation that declares an idempotency key (an
// Idempotency-Key header parameter or a key member of its JSON body), or an
// If-Match or If-Unmodified-Since header parameter.
func guardsRetry(op *spec.Operation) bool {
	if header, member := activeplan.KeyCarriers(op); header || member != "" {
		return true
	}
	for _, p := range op.Parameters {
		if strings.EqualFold(p.In, "header") {
			switch http.CanonicalHeaderKey(p.Name) {
			case "If-Match", "If-Unmodified-Since":
				return true
			}
		}
	}
	return false
}

// PaginationUndeclared reports list operations that answer with a bare
// array and declare no way to page through it.
type PaginationUndeclared struct{ static }

func (PaginationUndeclared) Meta() checks.Meta {
	return readinessMeta(checks.Meta{
		ID:       "openapi-hal-pagination-undeclared",
		FiredBy:  "bare array without paging",
		Title:    "Operations that return a list say how to page through it",
		Severity: finding.SeverityInfo,
		SpecRefs: []finding.SpecRef{refLinkHeader, planning("interaction")},
		Help: `A GET whose success response is a JSON array, with no paging parameter
(` + "`page`" + `, ` + "`limit`" + `, ` + "`offset`" + `, ` + "`cursor`" + `, ` + "`after`" + `, …) and no ` + "`Link`" + `
header declared, tells an agent either that the whole list always comes back
or nothing about how to get the rest: it cannot tell a short list from the
first page of a long one, and it may report "these are all the orders" from
a truncated answer. Only bare arrays are judged: a list wrapped in an object
may page through members this check cannot know.

**How to fix:** declare the paging query parameters the operation takes, or
the ` + "`Link`" + ` header (` + "`rel=\"next\"`" + `, RFC 8288) its responses carry; if the
list is always complete, say so in the description.`,
	})
}

func (c PaginationUndeclared) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	m := c.Meta()
	return eachOperation(ctx, in, func(op *spec.Operation) []finding.Finding {
		if op.Method != http.MethodGet {
			return nil
		}
		code, mt := arrayResponse(op)
		if code == "" || pages(op) {
			return nil
		}
		return []finding.Finding{deduction(m, op, at(op, "responses", code), fmt.Sprintf(
			"%s answers %s with a JSON array (%s) but declares no paging parameter and no Link header; an agent cannot tell a complete list from a first page",
			op.Key(), code, mt))}
	})
}

// arrayResponse is the first 2xx response of op whose JSON schema is an
// array, or "".
func arrayResponse(op *spec.Operation) (code, mediaType string) {
	for _, code := range successCodes(op.Responses) {
		r := op.Responses[code]
		for _, mt := range sortedKeys(r.Content) {
			t, _ := exchange.MediaTypeOf(mt)
			if (t == "application/json" || strings.HasSuffix(t, "+json")) && spec.SchemaType(r.Content[mt]) == "array" {
				return code, mt
			}
		}
	}
	return "", ""
}

// pagingWords are what the names of paging parameters contain; pagingNames
// are the whole names that page and mean little else in a query.
var (
	pagingWords = []string{"page", "cursor", "offset", "limit", "marker", "continuation", "after", "before", "skip", "since", "token"}
	pagingNames = []string{"top", "first", "last", "max", "count", "size", "start", "from", "next", "maxresults", "n"}
)

// nameSeparators are what parameter names put between words or around
// them (page_size, page[size], $top), dropped before they are compared.
var nameSeparators = strings.NewReplacer("_", "", "-", "", "$", "", "[", "", "]", "", ".", "")

// pages reports an operation that declares a paging query parameter or a
// Link header on a success response.
func pages(op *spec.Operation) bool {
	for _, p := range op.Parameters {
		if !strings.EqualFold(p.In, "query") {
			continue
		}
		name := strings.ToLower(nameSeparators.Replace(p.Name))
		if slices.Contains(pagingNames, name) || slices.ContainsFunc(pagingWords, func(w string) bool { return strings.Contains(name, w) }) {
			return true
		}
	}
	for _, code := range successCodes(op.Responses) {
		if slices.Contains(op.Responses[code].Headers, "Link") {
			return true
		}
	}
	return false
}

// RateLimitUndeclared reports operations that speak of rate limits but do
// not declare how a throttled call is answered.
type RateLimitUndeclared struct{ static }

func (RateLimitUndeclared) Meta() checks.Meta {
	return readinessMeta(checks.Meta{
		ID:       "openapi-hal-rate-limit-undeclared",
		FiredBy:  "rate limited without 429",
		Title:    "Operations that are rate limited declare 429 or Retry-After",
		Severity: finding.SeverityInfo,
		SpecRefs: []finding.SpecRef{refTooManyRequests, planning("error semantics")},
		Help: `An operation whose description speaks of rate limits or throttling, or
whose responses declare rate-limit headers (` + "`RateLimit`" + `, ` + "`X-RateLimit-*`" + `),
is throttled; if it declares no 429 (Too Many Requests, RFC 6585 §4) and no
` + "`Retry-After`" + `, an agent cannot tell a throttled answer from a failure, nor
how long to wait, and either retries at once or gives up. Only operations
that say they are limited are judged: the document of an API that never
throttles has nothing to declare.

**How to fix:** declare the 429 response, with its ` + "`Retry-After`" + ` header
and a problem schema.`,
	})
}

func (c RateLimitUndeclared) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	m := c.Meta()
	return eachOperation(ctx, in, func(op *spec.Operation) []finding.Finding {
		why := rateLimited(op)
		if why == "" {
			return nil
		}
		if _, ok := op.Responses["429"]; ok || retryAfterDeclared(op) {
			return nil
		}
		return []finding.Finding{deduction(m, op, at(op, "responses"), fmt.Sprintf(
			"%s %s, but declares no 429 response and no Retry-After; an agent cannot tell a throttled answer from a failure, nor how long to wait",
			op.Key(), why))}
	})
}

// rateLimitPhrases say in prose that an operation is throttled.
var rateLimitPhrases = []string{"rate limit", "rate-limit", "ratelimit", "throttl", "too many requests"}

// rateLimited says how op shows it is throttled, or "".
func rateLimited(op *spec.Operation) string {
	text := strings.ToLower(op.Summary + " " + op.Description)
	for _, p := range rateLimitPhrases {
		if strings.Contains(text, p) {
			return "speaks of rate limits in its summary or description"
		}
	}
	for _, code := range sortedKeys(op.Responses) {
		for _, h := range op.Responses[code].Headers {
			l := strings.ToLower(h)
			if strings.HasPrefix(l, "ratelimit") || strings.HasPrefix(l, "x-ratelimit") || strings.HasPrefix(l, "x-rate-limit") {
				return "declares " + h + " on its " + code + " response"
			}
		}
	}
	return ""
}

func retryAfterDeclared(op *spec.Operation) bool {
	for _, r := range op.Responses {
		if slices.Contains(r.Headers, "Retry-After") {
			return true
		}
	}
	return false
}

// SecurityUndeclared reports operations that show they need credentials
// but declare no security requirement.
type SecurityUndeclared struct{ static }

func (SecurityUndeclared) Meta() checks.Meta {
	return readinessMeta(checks.Meta{
		ID:       "openapi-hal-security-undeclared",
		FiredBy:  "401 without security",
		Title:    "Operations that need credentials declare a security requirement",
		Severity: finding.SeverityInfo,
		SpecRefs: []finding.SpecRef{refSecurity, planning("precondition")},
		Help: `An operation that declares a 401 or 403 answer, or takes its credential as a
parameter (an ` + "`Authorization`" + ` header, which OpenAPI says to ignore as a
parameter, or an ` + "`api_key`" + `-like one), needs credentials; without a security
requirement (its own ` + "`security`" + ` or the document's, naming a scheme of
` + "`components.securitySchemes`" + `) an agent, and the MCP server generated from
the document, cannot tell which credential to send, where, or with which
scopes, and learns it from a 401. Operations that show no sign of needing
credentials are not judged: a public API has nothing to declare.

**How to fix:** declare the scheme in ` + "`components.securitySchemes`" + ` and
require it with ` + "`security`" + `, on the document or on the operation.`,
	})
}

// credentialParameters are the normalised names of parameters that carry
// a credential.
var credentialParameters = []string{"authorization", "apikey", "xapikey", "accesstoken", "apitoken", "authtoken"}

func (c SecurityUndeclared) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	m := c.Meta()
	return eachOperation(ctx, in, func(op *spec.Operation) []finding.Finding {
		if requiresSecurity(op) {
			return nil
		}
		why := ""
		for _, code := range []string{"401", "403"} {
			if _, ok := op.Responses[code]; ok {
				why = "declares a " + code + " response"
				break
			}
		}
		for _, p := range op.Parameters {
			name := strings.ToLower(nameSeparators.Replace(p.Name))
			if why == "" && slices.Contains(credentialParameters, name) {
				why = "takes the credential as the " + p.In + " parameter " + p.Name
			}
		}
		if why == "" {
			return nil
		}
		return []finding.Finding{deduction(m, op, at(op), fmt.Sprintf(
			"%s %s but has no security requirement; an agent cannot tell which credential to send, nor where",
			op.Key(), why))}
	})
}

// requiresSecurity reports an operation whose effective security names at
// least one scheme.
func requiresSecurity(op *spec.Operation) bool {
	for _, alt := range op.Security {
		if len(alt) > 0 {
			return true
		}
	}
	return false
}
