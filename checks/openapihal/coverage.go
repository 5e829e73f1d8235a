package openapihal

import (
	"context"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/spec"
)

// NeverOffered: an operation with x-hal-rel whose relations no observed
// representation offered.
type NeverOffered struct{ probes }

func (NeverOffered) Meta() checks.Meta {
	return checks.Meta{
		ID:       "openapi-hal-rel-never-offered",
		Since:    checks.FirstRelease,
		Family:   checks.FamilyOpenAPIHAL,
		Title:    "Every x-hal-rel relation is offered by some observed representation",
		Severity: finding.SeverityInfo,
		SpecRefs: []finding.SpecRef{hdtcCoverage},
		Help: `An operation whose ` + "`x-hal-rel`" + ` relations appear in no representation cannot be
reached by an agent that follows HDTC. That is often fine: the crawl sees
only the states it can reach with safe requests (an order that is never
refunded in the sample data never offers ` + "`order:refund`" + `). So this is
information, not a defect: a list of operations to verify by hand or with
data in the missing states.

An operation counts as offered when any one of its relations appeared, or
when a HAL-FORMS ` + "`default`" + ` template targets it. An operation the scanned
caller may not call (its OpenAPI security requirement or the configuration's
` + "`access`" + ` mapping says so, or cannot say) is rightly absent from that caller's
view and is not judged; the check says so in its observations.

**How to fix:** nothing, if the state exists and offers the relation; otherwise
offer the relation where the operation applies, or remove the stale
` + "`x-hal-rel`" + `.`,
	}
}

func (c NeverOffered) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	if err := needHALRel(in); err != nil {
		return nil, err
	}
	a := analyze(in)
	if a.docs == 0 {
		return nil, checks.Skip("the scan saw no HAL representation")
	}
	byTemplate := map[*spec.Operation]bool{}
	for _, m := range matches(in) {
		if m.o.template && m.o.rel == "default" {
			for _, op := range m.at {
				if op.Method == m.o.method {
					byTemplate[op] = true
				}
			}
		}
	}
	var out checks.Findings
	for _, op := range in.Spec.Operations {
		rels := relsOf(op)
		if len(rels) == 0 || byTemplate[op] || offeredAny(a, rels) || !in.JudgesAbsence(c.Meta().ID, op) {
			continue
		}
		msg := fmt.Sprintf("%s lists %s in x-hal-rel, but none of the %d HAL representations the scan saw offered it; the crawl may not have reached a state that does",
			op.Key(), checks.JoinFew(rels), a.docs)
		f := checks.New(c.Meta(), op.Key(), msg, specEvidence(op, "offered by some representation", "never offered"))
		f.Location = locationOf(op, true)
		out.Add(f)
	}
	return out.List(), ctx.Err()
}

func offeredAny(a *analysis, rels []string) bool {
	for _, r := range rels {
		if a.offered[strings.ToLower(r)] {
			return true
		}
	}
	return false
}

// UndeclaredResponse: the status and Content-Type of each crawled GET are
// declared for the operation it matched.
type UndeclaredResponse struct{}

func (UndeclaredResponse) Meta() checks.Meta {
	return checks.Meta{
		ID:       "openapi-hal-undeclared-response",
		Since:    checks.FirstRelease,
		Family:   checks.FamilyOpenAPIHAL,
		Title:    "Crawled responses have a status and media type the OpenAPI document declares",
		Severity: finding.SeverityWarning,
		SpecRefs: []finding.SpecRef{oasResponses},
		Help: `Agents and generated clients decide how to parse a response from the
OpenAPI document. A status the operation does not declare (and no ` + "`4XX`" + ` or
` + "`default`" + ` covers), or a Content-Type missing from the declared ` + "`content`" + `, is a
response they were not told to expect. The OpenAPI Responses Object need not
list every status, but it is expected to cover the successful response and
the known errors, hence a warning.

Only the crawl's GETs are compared, against the operation their URL matches;
media type ranges such as ` + "`application/*`" + ` in the document are honoured.

**How to fix:** declare the status and media type under the operation's
` + "`responses`" + `, or fix the server if the document is right.`,
	}
}

func (c UndeclaredResponse) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	if err := needDocument(in); err != nil {
		return nil, err
	}
	ix := in.Spec.Index()
	var out []finding.Finding
	seen := map[string]bool{}
	judged := 0
	for x := range in.Recording.Crawled() {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if x.Request.Method != http.MethodGet || x.Response == nil {
			continue
		}
		op := ix.Match(http.MethodGet, x.Request.URL)
		if op == nil || len(op.Responses) == 0 {
			continue
		}
		judged++
		problem, expected, actual := undeclared(op, x.Response)
		if problem == "" {
			continue
		}
		k := op.Key() + "\x00" + actual
		if seen[k] {
			continue
		}
		seen[k] = true
		ev := checks.Evidence(x, []string{"Accept"}, []string{"Content-Type"})
		ev.Expected, ev.Actual = expected, actual
		f := checks.New(c.Meta(), op.Key()+" "+actual, fmt.Sprintf("GET %s answered %s, which %s (%s) does not declare", exchange.PathOf(x.Request.URL), actual, op.Key(), problem), ev)
		f.Location = locationOf(op, false)
		out = append(out, f)
	}
	if judged == 0 {
		return nil, checks.Skip("no crawled GET matched an operation of the OpenAPI document")
	}
	return out, nil
}

// undeclared compares one response with the operation's responses.
func undeclared(op *spec.Operation, r *exchange.Response) (problem, expected, actual string) {
	status := strconv.Itoa(r.Status)
	declared, ok := declaredResponse(op, r.Status)
	if !ok {
		return "status not declared", "one of " + statusKeys(op), status
	}
	mt := r.MediaType()
	if len(declared.Content) == 0 || mt == "" {
		return "", "", ""
	}
	var types []string
	for declaredType := range declared.Content {
		if mediaMatch(declaredType, mt) {
			return "", "", ""
		}
		types = append(types, declaredType)
	}
	sort.Strings(types)
	return "media type not declared for " + status, strings.Join(types, ", "), status + " " + mt
}

// declaredResponse finds the response for status: the exact code, then the
// range (2XX), then default.
func declaredResponse(op *spec.Operation, status int) (spec.Response, bool) {
	code := strconv.Itoa(status)
	if r, ok := op.Responses[code]; ok {
		return r, true
	}
	for k, r := range op.Responses {
		if len(k) == 3 && strings.EqualFold(k[1:], "XX") && k[0] == code[0] {
			return r, true
		}
	}
	r, ok := op.Responses["default"]
	return r, ok
}

func statusKeys(op *spec.Operation) string {
	var ks []string
	for k := range op.Responses {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return strings.Join(ks, ", ")
}

// mediaMatch reports whether a declared media type or range covers mt.
func mediaMatch(declared, mt string) bool {
	d, _ := exchange.MediaTypeOf(declared)
	switch {
	case d == mt || d == "*/*":
		return true
	case strings.HasSuffix(d, "/*"):
		return strings.HasPrefix(mt, strings.TrimSuffix(d, "*"))
	}
	return false
}
