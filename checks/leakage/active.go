package leakage

import (
	"context"
	"fmt"
	"net/http"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/internal/activeplan"
	"github.com/agentready/agentready/checks/internal/purpose"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
)

var refHiddenAdvice = finding.SpecRef{Doc: "Dynamic affordances (operation availability)", Section: "availability is advice, not authorization", Level: "advice", URL: "https://github.com/agentready/agentready/blob/main/docs/identities.md#active-probes"}

// HiddenExecuted flags a state-changing request that succeeded for an
// identity whose view omitted its control: the omission was the only gate.
type HiddenExecuted struct{ family }

func (HiddenExecuted) Meta() checks.Meta {
	return checks.Meta{
		ID:       "leakage-hidden-operation-executed",
		Since:    checks.FirstRelease,
		Family:   checks.FamilyLeakage,
		Needs:    checks.NeedsActiveHidden,
		Title:    "Operations hidden from a caller refuse that caller when called anyway",
		Severity: finding.SeverityError,
		Security: true,
		SpecRefs: []finding.SpecRef{
			{Doc: "OWASP API Security Top 10", Section: "API5:2023", Level: "advice", URL: "https://owasp.org/API-Security/editions/2023/en/0xa5-broken-function-level-authorization/"},
			refHiddenAdvice,
		},
		Help: `Omitting a link or template is not access control. An agent, a script or an
attacker can send the request anyway, from documentation, an OpenAPI
document or another caller's view. This active probe (sent only with
` + "`--active`" + ` and an ` + "`--active-allow`" + ` entry naming the operation) sends, as the less
privileged identity, the request behind a control that only a more privileged
identity was offered on the same resource. A 2xx answer means the server
executed it: the hidden control was the only gate. A redirect is recorded as
an observation, not judged.

**How to fix:** enforce the same authorization rule in the handler that
decides whether the control is shown, and answer 401, 403 or 404 with
problem+json.`,
	}
}

func (c HiddenExecuted) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	m := c.Meta()
	return judgeHidden(in, func(p hiddenProbe) *finding.Finding {
		st := p.x.Response.Status
		if st >= 300 && st < 400 {
			// A redirect to a sign-in page or a canonical URL performs
			// nothing; whether it did cannot be told from here.
			in.Observe(m.ID, fmt.Sprintf("as %q, %s was redirected (%d): not judged", p.identity, activeplan.Operation(p.x), st))
			return nil
		}
		if activeplan.OutcomeOf(p.x, activeplan.RefusesHidden) != activeplan.Executed {
			return nil // leakage-hidden-operation-refusal's
		}
		msg := fmt.Sprintf("as %q, %s %s was answered %d although %s offered it only to %q; expected 401, 403, 404 or 409: the hidden control was the only gate",
			p.identity, p.x.Request.Method, exchange.PathOf(p.x.Request.URL), st, exchange.PathOf(p.x.BasedOn), top(in.Identities).Name)
		f := checks.New(m, p.identity+" "+activeplan.Operation(p.x), msg,
			checks.Evidence(p.x, []string{"Content-Type"}, []string{"Content-Type", "Location"}))
		return &f
	})
}

// HiddenRefusal flags a hidden operation refused in a way an agent cannot
// read: a status other than 401, 403, 404 or 409, or no problem details.
type HiddenRefusal struct{ family }

func (HiddenRefusal) Meta() checks.Meta {
	return checks.Meta{
		ID:       "leakage-hidden-operation-refusal",
		Since:    checks.FirstRelease,
		Family:   checks.FamilyLeakage,
		Needs:    checks.NeedsActiveHidden,
		Title:    "Hidden operations are refused with 401, 403, 404 or 409 and problem details",
		Severity: finding.SeverityWarning,
		SpecRefs: []finding.SpecRef{
			{Doc: "RFC 9110", Section: "15.5", Level: "SHOULD", URL: "https://www.rfc-editor.org/rfc/rfc9110#section-15.5"},
			{Doc: "RFC 9457", Section: "3", Level: "SHOULD", URL: "https://www.rfc-editor.org/rfc/rfc9457#section-3"},
			refHiddenAdvice,
		},
		Help: `When a caller sends a request for an operation it was not offered, the
refusal should say so in terms a client can act on: 401 (authenticate),
403 (not allowed), 404 (no such resource for this caller, which also hides its
existence) or 409 (not in this state), as problem+json. A 400 or 422 means the
server validated the request before deciding whether the caller may make it,
and a 5xx means the refusal path is broken. Judged on the active probes of
` + "`leakage-hidden-operation-executed`" + `.

**How to fix:** check authorization first, and answer with the problem+json
writer the rest of the API uses.`,
	}
}

// transient statuses say "not now" whoever asks: they prove nothing about
// the authorization check.
var transient = map[int]bool{http.StatusRequestTimeout: true, http.StatusTooManyRequests: true, http.StatusBadGateway: true, http.StatusServiceUnavailable: true, http.StatusGatewayTimeout: true}

func (c HiddenRefusal) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	m := c.Meta()
	return judgeHidden(in, func(p hiddenProbe) *finding.Finding {
		st := p.x.Response.Status
		var why string
		switch activeplan.OutcomeOf(p.x, activeplan.RefusesHidden) {
		case activeplan.OtherStatus:
			if st < 400 {
				return nil // leakage-hidden-operation-executed's
			}
			if transient[st] {
				in.Observe(m.ID, fmt.Sprintf("as %q, %s answered %d, a transient refusal: not judged", p.identity, activeplan.Operation(p.x), st))
				return nil
			}
			why = fmt.Sprintf("status %d", st)
		case activeplan.RefusedWithoutProblem:
			why = fmt.Sprintf("status %d with Content-Type %q, not application/problem+json", st, p.x.Response.MediaType())
		default:
			return nil // executed (leakage-hidden-operation-executed's), or refused as it should be
		}
		msg := fmt.Sprintf("as %q, %s %s (not offered to this caller) was refused with %s; expected 401, 403, 404 or 409 with application/problem+json",
			p.identity, p.x.Request.Method, exchange.PathOf(p.x.Request.URL), why)
		f := checks.New(m, p.identity+" "+activeplan.Operation(p.x), msg,
			checks.Evidence(p.x, []string{"Content-Type"}, []string{"Content-Type"}))
		return &f
	})
}

// hiddenProbe is a hidden-operation probe and the identity that sent it.
type hiddenProbe struct {
	identity string
	x        *exchange.Exchange
}

// judgeHidden is activeplan.Judge over the answered hidden-operation probes
// of every identity but the most privileged, which sends none.
func judgeHidden(in *checks.Input, judge func(hiddenProbe) *finding.Finding) ([]finding.Finding, error) {
	if err := in.NeedActive(); err != nil {
		return nil, err
	}
	if len(in.Identities) < 2 {
		return nil, checks.Skip("not assessed: active hidden-operation probes need two or more identities (--identity)")
	}
	var probes []hiddenProbe
	for _, v := range in.Identities[:len(in.Identities)-1] {
		for _, x := range activeplan.Answered(v.Recording, purpose.ActiveHidden) {
			probes = append(probes, hiddenProbe{identity: v.Name, x: x})
		}
	}
	return activeplan.Judge(in, probes, "no operation named by --active-allow was offered to a more privileged identity and hidden from a less privileged one on the same resource", judge)
}
