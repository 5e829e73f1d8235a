package negotiation

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/internal/conneg"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
)

// AllowDeclared compares the Allow of every 405 the scan met with the
// methods the OpenAPI document declares on that path.
type AllowDeclared struct{ probes }

func (AllowDeclared) Meta() checks.Meta {
	return checks.Meta{
		ID:       "negotiation-allow-declared",
		Family:   checks.FamilyNegotiation,
		Title:    "A 405's Allow lists the methods the OpenAPI document declares on that path",
		Severity: finding.SeverityError,
		SpecRefs: []finding.SpecRef{
			rfc9110("15.5.6", "MUST"),
			{Doc: "OpenAPI 3.1.2", Section: "Path Item Object", URL: "https://spec.openapis.org/oas/v3.1.2#path-item-object"},
		},
		FiredBy: "405 leaves out a declared method",
		Since:   checks.FirstRelease,
		Help: `A 405 Method Not Allowed must carry ` + "`Allow`" + ` with the target resource's
currently supported methods (RFC 9110 §15.5.6). When the API's own OpenAPI
document declares a method on that path and ` + "`Allow`" + ` leaves it out, one of the two
is wrong, and an agent that trusts either one is misled: it drops an
operation the document promises, or calls one the server says it lacks.

Judged only with a document, on each path template once; methods the
document does not declare (HEAD, OPTIONS) are never required.

**How to fix:** register every operation of the document with the router
that builds ` + "`Allow`" + ` (or list them where you set it by hand), or correct the
document if the server no longer supports the method.`,
	}
}

func (c AllowDeclared) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	if in.Spec == nil {
		return nil, checks.Skip("no OpenAPI document to compare Allow with")
	}
	ix := in.Spec.Index()
	m := c.Meta()
	var out []finding.Finding
	seenTemplate := map[string]bool{}
	met := 0
	for _, x := range in.Recording.Exchanges {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if x.Response == nil || x.Response.Status != http.StatusMethodNotAllowed || conneg.IsRepeat(x.Purpose) || !hasAllow(x) {
			continue
		}
		template, ops := ix.MatchPath(exchange.PathOf(x.Request.URL))
		if template == "" || seenTemplate[template] {
			continue
		}
		met++
		allowed := allowSet(x)
		var missing []string
		for _, method := range slices.Sorted(maps.Keys(ops)) {
			if !allowed[method] {
				missing = append(missing, method)
			}
		}
		if len(missing) == 0 {
			continue
		}
		seenTemplate[template] = true
		allow := strings.Join(x.Response.Header.Values("Allow"), ", ")
		msg := fmt.Sprintf("%s answered 405 with Allow: %s, which leaves out %s that the document declares on %s",
			x.Request.Method, allow, strings.Join(missing, ", "), template)
		ev := checks.Evidence(x, nil, []string{"Allow", "Content-Type"})
		ev.Header, ev.Actual, ev.Expected = "Allow", allow, "Allow listing "+strings.Join(missing, ", ")
		f := checks.New(m, template, msg, ev)
		if op := ops[missing[0]]; op != nil && (op.Location.File != "" || op.Location.Line != 0) {
			l := op.Location
			f.Location = &l
		}
		out = append(out, f)
	}
	if met == 0 {
		return nil, checks.Skip("the scan met no 405 with Allow on a path the document describes")
	}
	return out, nil
}

// allowSet is the methods an Allow field lists, upper-cased: method names
// are case-sensitive, but the document's are upper-cased when loaded.
func allowSet(x *exchange.Exchange) map[string]bool {
	out := map[string]bool{}
	for _, v := range x.Response.Header.Values("Allow") {
		for _, m := range strings.Split(v, ",") {
			if m = strings.TrimSpace(m); m != "" {
				out[strings.ToUpper(m)] = true
			}
		}
	}
	return out
}
