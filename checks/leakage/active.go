package leakage

import (
	"context"
	"fmt"
	"net/http"

	"github.com/agentready/agentready/checks"
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
	probes, err := hiddenProbes(in)
	if err != nil {
		return nil, err
	}
	m := c.Meta()
	var out []finding.Finding
	for _, p := range probes {
		st := p.x.Response.Status
		if st >= 300 && st < 400 {
			// A redirect to a sign-in page or a canonical URL performs
			// nothing; whether it did cannot be told from here.
			in.Observe(m.ID, fmt.Sprintf("as %q, %s was redirected (%d): not judged", p.identity, p.operation(), st))
			continue
		}
		if st >= 200 && st < 300 {
			msg := fmt.Sprintf("as %q, %s %s was answered %d although %s offered it only to %q; expected 401, 403, 404 or 409: the hidden control was the only gate",
				p.identity, p.x.Request.Method, exchange.PathOf(p.x.Request.URL), st, exchange.PathOf(p.x.BasedOn), top(in.Identities).Name)
			out = append(out, checks.New(m, p.identity+" "+p.operation(), msg,
				checks.Evidence(p.x, []string{"Content-Type"}, []string{"Content-Type", "Location"})))
		}
	}
	return out, nil
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

var refusalStatuses = map[int]bool{http.StatusUnauthorized: true, http.StatusForbidden: true, http.StatusNotFound: true, http.StatusConflict: true}

func (c HiddenRefusal) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	probes, err := hiddenProbes(in)
	if err != nil {
		return nil, err
	}
	m := c.Meta()
	var out []finding.Finding
	for _, p := range probes {
		st := p.x.Response.Status
		if st < 400 {
			continue // leakage-hidden-operation-executed's
		}
		if transient[st] {
			in.Observe(m.ID, fmt.Sprintf("as %q, %s answered %d, a transient refusal: not judged", p.identity, p.operation(), st))
			continue
		}
		var why string
		switch mt := p.x.Response.MediaType(); {
		case !refusalStatuses[st]:
			why = fmt.Sprintf("status %d", st)
		case mt != "application/problem+json":
			why = fmt.Sprintf("status %d with Content-Type %q, not application/problem+json", st, mt)
		default:
			continue
		}
		msg := fmt.Sprintf("as %q, %s %s (not offered to this caller) was refused with %s; expected 401, 403, 404 or 409 with application/problem+json",
			p.identity, p.x.Request.Method, exchange.PathOf(p.x.Request.URL), why)
		out = append(out, checks.New(m, p.identity+" "+p.operation(), msg,
			checks.Evidence(p.x, []string{"Content-Type"}, []string{"Content-Type"})))
	}
	return out, nil
}

type hiddenProbe struct {
	identity string
	x        *exchange.Exchange
}

// operation names the probed operation by method and path shape, the same
// for every resource it was sent to.
func (p hiddenProbe) operation() string {
	return p.x.Request.Method + " " + exchange.PathShape(exchange.PathOf(p.x.Request.URL))
}

// hiddenProbes returns the answered hidden-operation probes, or the skip
// that says why there are none.
func hiddenProbes(in *checks.Input) ([]hiddenProbe, error) {
	if err := in.NeedActive(); err != nil {
		return nil, err
	}
	if len(in.Identities) < 2 {
		return nil, checks.Skip("not assessed: active hidden-operation probes need two or more identities (--identity)")
	}
	var out []hiddenProbe
	for _, v := range in.Identities[:len(in.Identities)-1] {
		if v.Recording == nil {
			continue
		}
		for _, x := range v.Recording.Exchanges {
			if x.Purpose == purpose.ActiveHidden && x.Response != nil {
				out = append(out, hiddenProbe{identity: v.Name, x: x})
			}
		}
	}
	if len(out) == 0 {
		return nil, checks.Skip("no operation named by --active-allow was offered to a more privileged identity and hidden from a less privileged one on the same resource")
	}
	return out, nil
}
