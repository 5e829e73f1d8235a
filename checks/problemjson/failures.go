package problemjson

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"sort"
	"strings"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/internal/conneg"
	"github.com/agentready/agentready/checks/internal/errorleak"
	"github.com/agentready/agentready/checks/internal/purpose"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
)

// ServerError checks that requests an agent can send never crash the server.
type ServerError struct{ probes }

func (ServerError) Meta() checks.Meta {
	return checks.Meta{
		ID:       "problem-json-server-error",
		Since:    checks.FirstRelease,
		Family:   checks.FamilyProblemJSON,
		Title:    "Safe requests an agent can send get no 5xx",
		Severity: finding.SeverityError,
		SpecRefs: []finding.SpecRef{{
			Doc: "RFC 9110", Section: "15.6", Level: "readiness", URL: "https://www.rfc-editor.org/rfc/rfc9110#section-15.6",
		}, {
			Doc: "RFC 9110", Section: "15.5.1", Level: "readiness", URL: "https://www.rfc-editor.org/rfc/rfc9110#section-15.5.1",
		}},
		Help: `A 5xx says the server failed (RFC 9110 §15.6). Here it failed on a safe request
an agent will send: a link the app advertises, an ID that does not exist, a
cursor with an encoded colon, a flag without a value (` + "`?debug&limit=1`" + `),
` + "`limit=-1`" + `, another media type in ` + "`Accept`" + ` (` + "`text/html`" + `, ` + "`text/markdown`" + `), or a
discovery document (` + "`/.well-known/...`" + `). Every safe request the scan sends
is judged, and the finding names the probe that got the failure. Those are
client mistakes and deserve a 4xx (§15.5.1) that says what to change; a 5xx
tells the agent to retry the same thing later, which will fail again. 503
and 504 are left out: they report overload or an upstream timeout, not the
input; so is a 429 or 503 with ` + "`Retry-After`" + ` that the scan waited out. A
failure that does not repeat when the request is sent again is a failure at
random, not reported.

**How to fix:** validate path IDs and query parameters before using them,
and map parse failures to 400 (or 404 for unknown IDs) with a problem
details body naming the parameter.`,
	}
}

func (c ServerError) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	var occs []occurrence
	sent := 0
	for _, x := range in.Recording.Exchanges {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if !safeMethod(x.Request.Method) || conneg.IsRepeat(x.Purpose) || x.Response == nil || conneg.IsUnstable(in, resourceOf(x)) ||
			failureJudgedElsewhere[x.Purpose] {
			continue
		}
		sent++
		if !isServerFailure(x.Response) || !confirmed(in.Index, x) {
			continue
		}
		msg := fmt.Sprintf("%s answered %d: the server failed on a request an agent can send", describe(x), x.Response.Status)
		if x.Purpose != exchange.PurposeCrawl {
			msg += " (" + strings.TrimPrefix(x.Purpose, PurposePrefix) + " probe)"
		}
		ev := evidence(x, fmt.Sprint(x.Response.Status), "a 2xx, or a 4xx naming the problem")
		ev.Excerpt = checks.Excerpt(x)
		occs = append(occs, occurrence{x: x, subject: x.Purpose, message: msg, ev: ev})
	}
	if sent == 0 {
		return nil, checks.Skip("no safe request of the scan got a response")
	}
	in.Observe(c.Meta().ID, probeSummary(in.Recording))
	return group(c.Meta(), occs), nil
}

// failureJudgedElsewhere are the probes whose 5xx is the very defect
// another family's check reports (negotiation-malformed-accept,
// negotiation-unsupported-type, negotiation-options-failed,
// discovery-robots-unreachable): one failure is one finding.
var failureJudgedElsewhere = map[string]bool{
	conneg.PurposeMalformed: true, conneg.PurposeMalformedRange: true, conneg.PurposeUnsupported: true,
	conneg.PurposeOptions: true, purpose.Robots: true,
}

// safeMethod reports the methods every exchange of a scan without active
// probes uses (RFC 9110 §9.2.1): a 5xx to one of them is the server's
// failure on a request that changes nothing. MCP's POSTs are judged by the
// mcp family.
func safeMethod(m string) bool {
	return m == http.MethodGet || m == http.MethodHead || m == http.MethodOptions
}

// isServerFailure reports a 5xx that says the server failed on the request:
// 503 and 504 report overload or an upstream timeout rather than the
// input, and a throttled answer the probe retried as Retry-After said is
// about the rate, not the resource.
func isServerFailure(r *exchange.Response) bool {
	s := r.Status
	return s >= 500 && s <= 599 && s != http.StatusServiceUnavailable && s != http.StatusGatewayTimeout && !r.Throttled()
}

// confirmPrefix starts the purpose of a confirmation: the first-round
// probe's purpose follows it, so that no other purpose's repeats are
// mistaken for it and negotiation-unstable-resource, which compares a
// repeat with the first send of its purpose, never sees one.
const confirmPrefix = PurposePrefix + "confirm-5xx/"

// planConfirmations sends again, twice, every first-round probe of another
// family that failed with a 5xx, as conneg.PlanSuspects does for the
// negotiation probes: one failure at random must not be reported as the
// server's. The follow-up round's own probes have no later round and are
// judged on their one answer.
func planConfirmations(in *checks.PlanInput) []exchange.PlannedRequest {
	var out []exchange.PlannedRequest
	for _, x := range in.Probes {
		// The negotiation probes' 5xx are sent again by their own
		// confirmation rule (conneg.PlanSuspects).
		if x.Response == nil || !safeMethod(x.Request.Method) || conneg.IsRepeat(x.Purpose) ||
			judgedPurpose(x.Purpose) || !isServerFailure(x.Response) {
			continue
		}
		for _, r := range conneg.PlanRepeat(x, 2, 1+conneg.Repeats) {
			r.Purpose = conneg.RepeatPurpose(confirmPrefix+x.Purpose, r.Repeat)
			r.BasedOn = x.BasedOn
			out = append(out, r)
		}
	}
	return out
}

// confirmed reports a 5xx that its confirmations, when it had any, all
// repeated: one that answered otherwise once was a failure at random.
func confirmed(ix *exchange.Index, x *exchange.Exchange) bool {
	for n := 2; n <= 1+conneg.Repeats; n++ {
		r := ix.Get(conneg.RepeatPurpose(confirmPrefix+x.Purpose, n), x.BasedOn)
		if r != nil && r.Response != nil && r.Response.Status != x.Response.Status {
			return false
		}
	}
	return true
}

// probeNote tells the reader how many error probes the family sent: they
// are requests for URLs the app never advertised, and a reader checking the
// target's logs should be able to account for them.
type probeNote struct{}

func (probeNote) Annotate(in *checks.Input, rep *finding.Report) {
	if s := probeSummary(in.Recording); s != "" {
		rep.Notes = append(rep.Notes, s)
	}
	if s := refusedNotFound(in.Recording); s != "" {
		rep.Notes = append(rep.Notes, s)
	}
}

// maxRefusedListed bounds the paths refusedNotFound names.
const maxRefusedListed = 3

// refusedNotFound says which not-found probes the app refused as invalid
// (400 or 422): a validator answered them, so the scan did not see what the
// handler answers for a missing item, and their passing says nothing of
// it. "" when none was.
func refusedNotFound(rec *exchange.Recording) string {
	var paths []string
	for _, x := range rec.Exchanges {
		if x.Response == nil || x.Request.Method != http.MethodGet || !isNotFound(x.Purpose) {
			continue
		}
		if s := x.Response.Status; s == http.StatusBadRequest || s == http.StatusUnprocessableEntity {
			paths = append(paths, fmt.Sprintf("%s (%d)", exchange.PathOf(x.Request.URL), s))
		}
	}
	if len(paths) == 0 {
		return ""
	}
	total, more := len(paths), ""
	if len(paths) > maxRefusedListed {
		more = fmt.Sprintf(" and %d more", len(paths)-maxRefusedListed)
		paths = paths[:maxRefusedListed]
	}
	return fmt.Sprintf("problem-json: %d not-found probes were refused as invalid requests, so what the app answers for a missing item was not seen there: %s%s",
		total, strings.Join(paths, ", "), more)
}

// probeSummary says how many error probes were sent and of which kinds, or
// "" when none were.
func probeSummary(rec *exchange.Recording) string {
	kinds, methods := map[string]int{}, map[string]bool{}
	total := 0
	for _, x := range rec.Exchanges {
		if strings.HasPrefix(x.Purpose, PurposePrefix) {
			kind, _, _ := strings.Cut(strings.TrimPrefix(x.Purpose, PurposePrefix), "#")
			kind, _, _ = strings.Cut(kind, "/")
			kinds[kind]++
			total++
			methods[cmp.Or(x.Request.Method, http.MethodGet)] = true
		}
	}
	if total == 0 {
		return ""
	}
	parts := make([]string, 0, len(kinds))
	for _, k := range slices.Sorted(maps.Keys(kinds)) {
		parts = append(parts, fmt.Sprintf("%d %s", kinds[k], k))
	}
	return fmt.Sprintf("problem-json: %d safe error probes sent (%s): %s", total, strings.Join(slices.Sorted(maps.Keys(methods)), ", "), strings.Join(parts, ", "))
}

// Leak checks that error bodies carry no implementation details, and name
// no internal hosts or, to callers without credentials, policies.
type Leak struct{ probes }

func (Leak) Meta() checks.Meta {
	return checks.Meta{
		ID:       "problem-json-leak",
		Since:    checks.FirstRelease,
		Family:   checks.FamilyProblemJSON,
		Title:    "Error bodies carry no stack traces, SQL, file paths, debug pages, policy names or internal hosts",
		Severity: finding.SeverityWarning,
		Security: true,
		// §5 only encourages; the warning rests on the weakness, CWE-209.
		SpecRefs: []finding.SpecRef{rfc9457("5", "security consideration"), {
			Doc: "CWE-209", URL: "https://cwe.mitre.org/data/definitions/209.html",
		}},
		Help: `RFC 9457 §5 warns that problem details can leak information that helps
compromise the system, and asks generators not to expose implementation
details such as stack dumps (CWE-209). An agent gains nothing from a Java
stack trace, a SQL statement, a server file path or a framework's debug
page; an attacker learns the stack, the schema and the layout. The same
goes for the hosts behind the API (` + "`10.0.3.7:5432`" + `, ` + "`orders-db.prod.internal`" + `)
and, for a caller that sent no credentials, the names of the roles,
permissions, scopes or policies that would let it in (` + "`requires_role_admin`" + `,
` + "`missing permission 'orders:refund'`" + `): a map of what to attack and whom
to impersonate. A caller with credentials may be told what it lacks. The
finding shows a redacted excerpt only.

**How to fix:** turn off debug error pages in production (Django ` + "`DEBUG`" + `,
Flask debug, Rails ` + "`consider_all_requests_local`" + `, ASP.NET developer exception
page, Spring ` + "`server.error.include-stacktrace`" + `), and map exceptions to problem
details whose ` + "`detail`" + ` is written for the client ("you may not refund
this order", not the rule that said so). Log the trace, the upstream and
the rule server-side, keyed by an ` + "`instance`" + ` URI you return.`,
	}
}

func (c Leak) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	occs, err := eachError(ctx, in, func(x *exchange.Exchange) []occurrence {
		if x.Response.Dropped {
			return nil
		}
		var occs []occurrence
		for _, l := range errorleak.Find(x.Response.Body, x.Response.MediaType(), x.Request.URL) {
			if l.Kind == errorleak.KindPolicy && in.Credentialed(x) {
				// RFC 6750 §3 lets a server tell a token which scope it
				// lacks; leakage-error-detail judges what lower identities
				// are told.
				continue
			}
			msg := fmt.Sprintf("the %d to %s %s", x.Response.Status, describe(x), l.Phrase())
			if l.Kind == errorleak.KindPolicy || l.Kind == errorleak.KindHost {
				msg += " (" + l.Excerpt + ")"
			}
			// Only the redacted excerpt: the body itself may hold more.
			ev := evidence(x, l.What, leakExpected[l.Kind])
			ev.Excerpt = l.Excerpt
			occs = append(occs, occurrence{x: x, subject: string(l.Kind), message: msg, ev: ev})
		}
		return occs
	})
	if err != nil {
		return nil, err
	}
	sort.SliceStable(occs, func(i, j int) bool { return occs[i].x.ID < occs[j].x.ID })
	return group(c.Meta(), occs), nil
}

// leakExpected is what a finding's evidence expects instead of the leak.
var leakExpected = map[errorleak.Kind]string{
	errorleak.KindStackTrace: "no implementation details",
	errorleak.KindSQL:        "no implementation details",
	errorleak.KindPath:       "no implementation details",
	errorleak.KindDebugPage:  "no implementation details",
	errorleak.KindPolicy:     "no role, permission, scope or policy names",
	errorleak.KindHost:       "no internal hosts",
}
