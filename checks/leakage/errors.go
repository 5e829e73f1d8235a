package leakage

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/internal/errorleak"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
)

// ErrorDetail flags error bodies that show a less privileged identity
// implementation details (stack frames, SQL, paths, debug pages), internal
// hosts, or the roles and permissions that would let it in, where the most
// privileged identity was shown no such detail of that kind at the same
// URL. The patterns are errorleak's, shared with problem-json-leak, which
// judges the privileged identity's own view; this check covers only what
// differs across callers.
type ErrorDetail struct{ family }

func (ErrorDetail) Meta() checks.Meta {
	return checks.Meta{
		ID:       "leakage-error-detail",
		Since:    checks.FirstRelease,
		Family:   checks.FamilyLeakage,
		Title:    "Less privileged callers are not shown internal details or policy names in error bodies",
		Severity: finding.SeverityWarning,
		Security: true,
		SpecRefs: []finding.SpecRef{
			{Doc: "RFC 9457", Section: "5", Level: "SHOULD", URL: "https://www.rfc-editor.org/rfc/rfc9457#section-5"},
		},
		Help: `Error handling often branches on who is asking: the authenticated path
returns a tidy problem document while the anonymous or low-privilege path
falls through to a framework's default error page, with its stack trace,
SQL or file paths, or a 403 that names the rule, role or permission the
caller lacks (` + "`requires_role_admin`" + `, ` + "`missing permission 'orders:refund'`" + `), or
the internal host that failed. A scan as one privileged identity never sees
it. RFC 9457 §5 warns that problem details must not disclose implementation
internals; a policy name tells an attacker which identity to go after.

**How to fix:** route every caller's errors through the same problem+json
writer, tell a refused caller that it may not do this rather than which rule
said so, and test the unauthenticated path explicitly.`,
	}
}

func (c ErrorDetail) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	vs, err := views(in)
	if err != nil {
		return nil, err
	}
	privileged := byRequest(top(vs).Recording)
	m := c.Meta()
	var out []finding.Finding
	for _, v := range vs[:len(vs)-1] {
		if v.Recording == nil {
			continue
		}
		for _, x := range v.Recording.Exchanges {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			leaks := onlyLower(errorLeaks(x), errorLeaks(privileged[requestKey(x)]))
			if len(leaks) == 0 {
				continue
			}
			said := make([]string, len(leaks))
			for i, l := range leaks {
				said[i] = l.Phrase() + " (" + l.Excerpt + ")"
			}
			msg := fmt.Sprintf("as %q, the %d error body of %s %s %s; not seen in the most privileged identity's view",
				v.Name, x.Response.Status, x.Request.Method, exchange.PathOf(x.Request.URL), strings.Join(said, " and "))
			out = append(out, checks.New(m, v.Name+" "+string(leaks[0].Kind), msg, checks.Evidence(x, nil, []string{"Content-Type"})))
		}
	}
	return out, nil
}

func errorLeaks(x *exchange.Exchange) []errorleak.Leak {
	if x == nil || x.Response == nil || x.Response.Status < 400 || !whole(x) {
		return nil
	}
	return errorleak.Find(x.Response.Body, x.Response.MediaType(), x.Request.URL)
}

// onlyLower keeps the leaks of kinds the privileged view does not show:
// those it shows are problem-json-leak's, or (a policy named to a caller
// with credentials) no leak.
func onlyLower(lower, privileged []errorleak.Leak) []errorleak.Leak {
	var out []errorleak.Leak
	for _, l := range lower {
		if !slices.ContainsFunc(privileged, func(p errorleak.Leak) bool { return p.Kind == l.Kind }) {
			out = append(out, l)
		}
	}
	return out
}

func requestKey(x *exchange.Exchange) string { return x.Request.Method + " " + x.Request.URL }

func byRequest(rec *exchange.Recording) map[string]*exchange.Exchange {
	out := map[string]*exchange.Exchange{}
	if rec == nil {
		return out
	}
	for _, x := range rec.Exchanges {
		if _, ok := out[requestKey(x)]; !ok {
			out[requestKey(x)] = x
		}
	}
	return out
}
