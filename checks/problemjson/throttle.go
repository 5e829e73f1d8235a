package problemjson

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/spec"
)

// RetryAfter checks that an answer asking the client to slow down or come
// back later says when.
type RetryAfter struct{ probes }

func (RetryAfter) Meta() checks.Meta {
	return checks.Meta{
		ID:       "problem-json-retry-after",
		Since:    checks.FirstRelease,
		Family:   checks.FamilyProblemJSON,
		Title:    "429 and 503 answers carry a valid Retry-After",
		Severity: finding.SeverityInfo,
		SpecRefs: []finding.SpecRef{
			{Doc: "RFC 6585", Section: "4", Level: "MAY", URL: "https://www.rfc-editor.org/rfc/rfc6585#section-4"},
			{Doc: "RFC 9110", Section: "10.2.3", Level: "MAY", URL: "https://www.rfc-editor.org/rfc/rfc9110#section-10.2.3"},
			{Doc: "agent-readiness guidance", Section: "Stable Verbs, Dynamic Affordances: error semantics", Level: "readiness",
				URL: "https://github.com/agentready/agentready/blob/main/docs/problem-json.md#throttling"},
		},
		Help: `A 429 (Too Many Requests, RFC 6585 §4) or a 503 (Service Unavailable, RFC
9110 §15.6.4) tells the client to wait; ` + "`Retry-After`" + ` (RFC 9110 §10.2.3) tells it
how long, as delay-seconds (` + "`120`" + `) or an HTTP-date. Both RFCs make it a MAY,
but an error should tell an agent whether to "stop, wait, refresh state or
try a different operation": without a delay, an agent either retries at once,
adding to the load that throttled it, or gives up on a request that would
have succeeded a minute later. A value that is neither form (` + "`soon`" + `, ` + "`1.5`" + `, a
date in another format) counts as none.

Every 429 and 503 the scan recorded is judged, whichever request got it. Where
the OpenAPI document itself declares ` + "`Retry-After`" + ` on the response for that
status, a missing or invalid one breaks the app's own contract, and the
finding is a warning. A 429 the document does not declare at all is
` + "`problem-json-undeclared-status`" + `'s, like any undeclared 4xx. The scan waits out a
throttled answer and sends the request again (see ` + "`--rate`" + `); when a retry is
answered otherwise, the recording keeps the first throttled answer's status,
` + "`Retry-After`" + ` and ` + "`Content-Type`" + ` beside it, and that answer is judged too: the
agent that meets it gets no more help than the scan did.

**How to fix:** send ` + "`Retry-After`" + ` with every 429 and 503, in seconds (or as an
HTTP-date), computed from the limit's window or the expected recovery.`,
	}
}

func (c RetryAfter) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	m := c.Meta()
	var undeclared, declared []occurrence
	ops := map[string]*spec.Operation{}
	seen := 0
	for _, a := range throttlingAnswers(in) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		x := a.x
		seen++
		values := x.Response.Header.Values("Retry-After")
		value := strings.Join(values, ", ")
		if _, ok := exchange.RetryAfter(value, time.Time{}); ok && len(values) == 1 {
			continue
		}
		got, what := "(absent)", "carries no Retry-After"
		if len(values) > 0 {
			got = value
			what = fmt.Sprintf("carries Retry-After %s, which is neither delay-seconds nor an HTTP-date", strconv.Quote(value))
		}
		msg := fmt.Sprintf("the %d to %s %s: an agent is not told when to try again, so it retries at once or gives up",
			x.Response.Status, describe(x), what)
		if a.retried {
			msg = fmt.Sprintf("the %d to %s (answered otherwise when the scan sent it again) %s: an agent is not told when to try again, so it retries at once or gives up",
				x.Response.Status, describe(x), what)
		}
		ev := checks.Evidence(x, nil, []string{"Retry-After", "Content-Type"})
		ev.Header, ev.Actual, ev.Expected = "Retry-After", got, "delay-seconds or an HTTP-date"
		if d, ok := declaresRetryAfter(in.Spec, x); ok {
			msg += fmt.Sprintf(", although the OpenAPI document declares Retry-After on %s (responses.%s)", d.op.Key(), d.key)
			subject := d.op.Key() + " Retry-After"
			declared = append(declared, occurrence{x: x, subject: subject, message: msg, ev: ev})
			ops[subject] = d.op
			continue
		}
		undeclared = append(undeclared, occurrence{x: x, subject: "Retry-After", message: msg, ev: ev})
	}
	if seen == 0 {
		return nil, checks.Skip("no response the scan recorded was a 429 or a 503")
	}
	out := group(m, undeclared)
	for _, f := range locate(group(m, declared), ops) {
		f.Severity = finding.SeverityWarning
		out = append(out, f)
	}
	return out, nil
}

// throttlingAnswer is one 429 or 503; retried marks the first answer of a
// request that the scan sent again and got another answer to.
type throttlingAnswer struct {
	x       *exchange.Exchange
	retried bool
}

// throttlingAnswers are the 429s and 503s of every identity's recording,
// whichever request got them: a throttled answer tells the client to wait
// whatever it asked for.
func throttlingAnswers(in *checks.Input) []throttlingAnswer {
	var out []throttlingAnswer
	add := func(r *exchange.Recording) {
		for _, x := range r.Exchanges {
			if x.Response != nil && (x.Response.Status == http.StatusTooManyRequests || x.Response.Status == http.StatusServiceUnavailable) {
				out = append(out, throttlingAnswer{x: x})
			}
			// The request was throttled first, and the scan's retry got
			// another answer: the throttled one still told the client
			// nothing of when to come back.
			if t := x.ThrottledExchange(); t != nil {
				out = append(out, throttlingAnswer{x: t, retried: true})
			}
		}
	}
	if in.Recording != nil {
		add(in.Recording)
	}
	for _, v := range in.Identities {
		if v.Recording != nil && v.Recording != in.Recording && v.Name != in.Caller.Name {
			add(v.Recording)
		}
	}
	return out
}

// declaresRetryAfter finds the response the OpenAPI document declares for
// x's status, when it lists Retry-After among its headers.
func declaresRetryAfter(doc *spec.Document, x *exchange.Exchange) (declaration, bool) {
	d, ok := declared(doc, x)
	if !ok || d.key == "" || !slices.Contains(d.resp.Headers, "Retry-After") {
		return declaration{}, false
	}
	return d, true
}
