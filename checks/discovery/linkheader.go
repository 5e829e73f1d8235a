package discovery

import (
	"context"
	"fmt"
	"strings"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
)

// LinkHeaderDeadLinks reports Link header targets that the crawl followed
// and found missing.
type LinkHeaderDeadLinks struct{ plans }

func (LinkHeaderDeadLinks) Meta() checks.Meta {
	return checks.Meta{
		ID: "discovery-link-header-dead-links", Family: checks.FamilyDiscovery, Severity: finding.SeverityWarning,
		Since: checks.FirstRelease,
		Title: "Link header targets do not answer 404 or 410",
		SpecRefs: []finding.SpecRef{
			ref("RFC 8288", "3.1", "", "https://www.rfc-editor.org/rfc/rfc8288#section-3.1"),
			ref("RFC 9110", "15.5.5", "", "https://www.rfc-editor.org/rfc/rfc9110#section-15.5.5"),
			ref("RFC 9110", "15.5.11", "", "https://www.rfc-editor.org/rfc/rfc9110#section-15.5.11"),
		},
		Help: `A ` + "`Link`" + ` header (RFC 8288) tells every client, agents included, where related
resources are: the next page, the schema that describes the response, its
documentation. A target that answers 404 Not Found or 410 Gone (RFC 9110
§15.5.5, §15.5.11) is a promise the API does not keep, and an agent that
follows it loses a request and the information it went for. The crawl follows
Link targets on the target's origin; each dead one is reported once, with the
response that carried it and the relation. Links meant to be read are
reported at warning: registered relations such as ` + "`next`" + ` or ` + "`describedby`" + `,
links to a ` + "`/.well-known/`" + ` URI, and, with an OpenAPI document, any relation whose
target path has a GET operation or no operation at all. Any other relation
may name a POST-only resource, to which many routers answer GET with 404:
its dead target is reported at info, saying so. The ` + "`service-desc`" + `, ` + "`service-doc`" + ` and ` + "`status`" + ` relations have
their own checks.

**How to fix:** correct or remove the Link named in the finding; build Link
headers from the same routes that serve their targets.`,
	}
}

func (c LinkHeaderDeadLinks) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	var out []finding.Finding
	linked := false
	reported := map[string]bool{}
	for _, x := range crawled(in) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if x.Response == nil {
			continue
		}
		for _, l := range x.Response.Links() {
			rels := judgedRels(l.Rels)
			if len(rels) == 0 {
				continue
			}
			linked = true
			if strings.ContainsAny(l.Target, "{}") {
				continue
			}
			t := in.CrawledTarget(x.Request.URL, l.Target)
			if !checks.Gone(t) || reported[t.Request.URL] {
				continue
			}
			reported[t.Request.URL] = true
			rel := strings.Join(rels, " ")
			ev := evidence(x, "Link")
			ev.Header, ev.Expected, ev.Actual = "Link", "a target that answers", fmt.Sprintf("<%s>; rel=%q answered %d", l.Target, rel, t.Response.Status)
			f := checks.New(c.Meta(), rel+" "+exchange.PathOf(t.Request.URL), fmt.Sprintf(
				"Link rel=%q of %s points at %s, which answered %s", rel, exchange.PathOf(x.Request.URL), l.Target, statusText(t)),
				ev, evidence(t))
			if !readLink(in, rels, t.Request.URL) {
				f = checks.MaybeAction(f)
			}
			out = append(out, f)
		}
	}
	if !linked {
		return nil, checks.Skip("no crawled response carries a Link header this check judges")
	}
	return out, nil
}

// readLink reports whether any of the link's relations is meant to be
// followed with GET.
func readLink(in *checks.Input, rels []string, target string) bool {
	for _, r := range rels {
		if in.ReadLink(r, target) {
			return true
		}
	}
	return false
}

// judgedRels drops the RFC 8631 relations, which ServiceDesc and
// ServiceLinks judge from their own requests.
func judgedRels(rels []string) []string {
	var out []string
	for _, r := range rels {
		if _, service := serviceRels[r]; !service {
			out = append(out, r)
		}
	}
	return out
}
