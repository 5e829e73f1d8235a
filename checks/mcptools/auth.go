package mcptools

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/internal/mcpmap"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/mcp"
	"github.com/agentready/agentready/internal/oauthmeta"
)

// AuthDiscovery reports a 401 after which no usable protected resource metadata
// can be found.
type AuthDiscovery struct{}

func (AuthDiscovery) Meta() checks.Meta {
	return checks.Meta{
		ID: "mcp-auth-discovery", Family: checks.FamilyMCP,
		Since:    checks.FirstRelease,
		Title:    "An MCP endpoint that answers 401 says where its protected resource metadata is",
		Severity: finding.SeverityError,
		SpecRefs: []finding.SpecRef{
			mcpRef(mcp.Legacy, "basic/authorization §Protected Resource Metadata Discovery Requirements", "MUST", "basic/authorization"),
			{Doc: "RFC 9728", Section: "§3.3 Protected Resource Metadata Validation", Level: "MUST", URL: "https://www.rfc-editor.org/rfc/rfc9728#section-3.3"},
		},
		Help: "An MCP server that requires authorization MUST implement OAuth 2.0 Protected Resource Metadata\n" +
			"(RFC 9728) and MUST let clients find it: `resource_metadata` in the `WWW-Authenticate` header of\n" +
			"its 401, or the document at the well-known URL built from the endpoint\n" +
			"(`/.well-known/oauth-protected-resource/mcp` for `/mcp`) or at the root of its origin. Without\n" +
			"either, an agent that meets the 401 cannot learn which authorization server to ask, and stops.\n" +
			"When the scanner's requests get a 401, it does what an MCP client does: it reads the URL the\n" +
			"challenge names (on the endpoint's origin only), else the two well-known URLs, and stops at the\n" +
			"first 200. The document found must be a JSON object whose `resource` is the identifier it was\n" +
			"fetched for (RFC 9728 §3.3: the endpoint's URL when the challenge named it); otherwise clients\n" +
			"MUST NOT use it.\n\n" +
			"**How to fix:** answer 401 with `WWW-Authenticate: Bearer resource_metadata=\"https://…/.well-known/oauth-protected-resource/mcp\"`\n" +
			"and serve that document with `resource` set to the endpoint's URL and `authorization_servers`.",
		Needs: checks.NeedsMCP,
	}
}

func (c AuthDiscovery) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	return judgeAnyVerdict(ctx, in, c.Meta(), runAuthDiscovery)
}

func runAuthDiscovery(m checks.Meta, in *checks.Input, s *mcp.Snapshot) ([]finding.Finding, error) {
	var challenged *mcp.Call
	for _, c := range s.Calls {
		if c.Status() == http.StatusUnauthorized {
			challenged = c
			break
		}
	}
	if challenged == nil {
		return nil, checks.Skip("no MCP request was answered 401")
	}
	endpoint, err := url.Parse(s.Endpoint.URL)
	if err != nil {
		return nil, checks.Skip("the endpoint URL does not parse")
	}
	named := oauthmeta.ResourceMetadata(challenged.Exchange.Response.Header.Values("WWW-Authenticate"))
	var tried []string
	for _, x := range s.ResourceMetadata {
		tried = append(tried, x.Request.URL)
		if x.Response == nil || x.Response.Status != http.StatusOK {
			continue
		}
		problems := documentProblems(x, resourceFor(x, named, endpoint))
		if len(problems) == 0 {
			return nil, nil
		}
		ev := checks.Evidence(x, []string{"Accept"}, []string{"Content-Type"})
		ev.Excerpt = checks.Excerpt(x)
		return []finding.Finding{checks.New(m, "metadata", fmt.Sprintf("the protected resource metadata of %s at %s cannot be used: %s",
			s.Endpoint.URL, x.Request.URL, strings.Join(problems, "; ")), mcpmap.CallEvidence(challenged), ev)}, nil
	}
	if named != "" && len(tried) == 0 {
		in.Observe(m.ID, "the challenge names "+named+", on another origin, which the scanner does not fetch")
		return nil, nil
	}
	ev := mcpmap.CallEvidence(challenged)
	ev.Header = "WWW-Authenticate"
	ev.Expected = "resource_metadata in WWW-Authenticate, or a document at a well-known URL"
	ev.Actual = fmt.Sprintf("%q; tried %s", challenged.Exchange.Response.Header.Get("WWW-Authenticate"), strings.Join(tried, ", "))
	what := "carries no resource_metadata"
	if named != "" {
		what = "names " + named + ", which does not answer 200"
	}
	return []finding.Finding{checks.New(m, "discovery", fmt.Sprintf("%s answered %s with 401, whose challenge %s, and no protected resource metadata answers at %s: an agent cannot find the authorization server",
		s.Endpoint.URL, challenged.Method, what, strings.Join(tried, " or ")), ev)}, nil
}

// resourceFor is the resource identifier a fetched document must name:
// the endpoint when the challenge named the document (RFC 9728 §3.3),
// otherwise the identifier its well-known URL was built from.
func resourceFor(x *exchange.Exchange, named string, endpoint *url.URL) *url.URL {
	if named != "" {
		if u, err := endpoint.Parse(named); err == nil && u.String() == x.Request.URL {
			return endpoint
		}
	}
	if x.Request.URL == oauthmeta.WellKnown(endpoint, oauthmeta.ProtectedResourceSuffix).String() {
		return endpoint
	}
	return &url.URL{Scheme: endpoint.Scheme, Host: endpoint.Host}
}

// documentProblems says why a 200 answer is not usable protected resource
// metadata for resource.
func documentProblems(x *exchange.Exchange, resource *url.URL) []string {
	if x.Response.Truncated {
		return []string{"the document was cut at the body limit"}
	}
	var out []string
	if !exchange.IsJSONMediaType(x.Response.MediaType()) {
		out = append(out, fmt.Sprintf("it is served as %q, not application/json (RFC 9728 §3.2)", x.Response.MediaType()))
	}
	doc, err := oauthmeta.Decode(x.Response.Body)
	if err != nil {
		return append(out, err.Error())
	}
	return append(out, oauthmeta.ResourceProblems(doc, resource)...)
}
