package discovery

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strings"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/oauthmeta"
	"github.com/agentready/agentready/internal/urlx"
)

// Purposes of the authorization discovery documents.
const (
	PurposeProtectedResource = "discovery/oauth-protected-resource"
	PurposeAuthServer        = "discovery/oauth-authorization-server"
	PurposeOpenID            = "discovery/openid-configuration"
)

// maxAuthServers bounds the authorization servers of one document whose
// metadata is fetched.
const maxAuthServers = 4

const acceptJSON = "application/json"

func rfc(n, section, level string) finding.SpecRef {
	return ref("RFC "+n, section, level, "https://www.rfc-editor.org/rfc/rfc"+n+"#section-"+strings.TrimPrefix(strings.Fields(section)[0], "§"))
}

// rootID is the identifier of the target's origin, as a resource or an
// issuer at the root writes it.
func rootID(target *url.URL) *url.URL { return &url.URL{Scheme: target.Scheme, Host: target.Host} }

// planAuthDocs asks for the protected resource metadata and the
// authorization server metadata at the root of the target's origin.
func planAuthDocs(target *url.URL) []exchange.PlannedRequest {
	var out []exchange.PlannedRequest
	for _, p := range []struct{ purpose, suffix string }{
		{PurposeProtectedResource, oauthmeta.ProtectedResourceSuffix}, {PurposeAuthServer, oauthmeta.AuthorizationServerSuffix},
	} {
		u := oauthmeta.WellKnown(rootID(target), p.suffix).String()
		out = append(out, request(p.purpose, http.MethodGet, u, acceptJSON, u))
	}
	return out
}

// planAuthServers asks, for each authorization server on the target's
// origin that the protected resource metadata names, for its RFC 8414
// metadata, and for its OpenID configuration, which MCP accepts instead,
// when the RFC 8414 document is not already known to answer. Servers on
// other origins are never fetched.
func planAuthServers(target *url.URL, probes []*exchange.Exchange) []exchange.PlannedRequest {
	var out []exchange.PlannedRequest
	for _, issuer := range listedServers(target, probes) {
		as := oauthmeta.WellKnown(issuer, oauthmeta.AuthorizationServerSuffix).String()
		if x := findSent(probes, http.MethodGet, as, acceptJSON); x == nil {
			out = append(out, request(PurposeAuthServer, http.MethodGet, as, acceptJSON, as))
		} else if x.Response != nil && x.Response.Status == http.StatusOK {
			continue
		}
		oidc := oauthmeta.WellKnown(issuer, oauthmeta.OpenIDSuffix).String()
		out = append(out, request(PurposeOpenID, http.MethodGet, oidc, acceptJSON, oidc))
	}
	return out
}

// listedServers are the authorization servers on the target's origin named
// by the protected resource metadata among xs.
func listedServers(target *url.URL, xs []*exchange.Exchange) []*url.URL {
	var out []*url.URL
	for _, x := range xs {
		if x.Purpose != PurposeProtectedResource || !ok2xx(x) {
			continue
		}
		doc, err := oauthmeta.Decode(x.Response.Body)
		if err != nil {
			continue
		}
		servers, _ := doc.Strings("authorization_servers")
		for _, s := range servers {
			if u, err := url.Parse(s); err == nil && urlx.SameOrigin(u, target) && len(out) < maxAuthServers {
				out = append(out, u)
			}
		}
	}
	return out
}

// metadataProblems says why a 200 answer is not a usable metadata document:
// served as JSON, a JSON object, and whatever judge finds in it.
func metadataProblems(x *exchange.Exchange, judge func(oauthmeta.Document) []string) []string {
	if x.Response.Truncated {
		return []string{"the document was cut at the body limit"}
	}
	var out []string
	if !exchange.IsJSONMediaType(x.Response.MediaType()) {
		out = append(out, fmt.Sprintf("it is served as %q; a successful response MUST use application/json", x.Response.MediaType()))
	}
	doc, err := oauthmeta.Decode(x.Response.Body)
	if err != nil {
		return append(out, err.Error())
	}
	return append(out, judge(doc)...)
}

// authDoc returns a document of the family's plans that answered 200 with
// something other than an HTML catch-all page, or nil.
func authDoc(in *checks.Input, purpose, u string) *exchange.Exchange {
	x := sent(in, purpose, http.MethodGet, u, acceptJSON)
	if !ok2xx(x) || x.Response.Status != http.StatusOK || isHTML(x) {
		return nil
	}
	return x
}

// ProtectedResource judges the protected resource metadata at the root.
type ProtectedResource struct{ plans }

func (ProtectedResource) Meta() checks.Meta {
	return checks.Meta{
		ID: "discovery-protected-resource", Family: checks.FamilyDiscovery, Severity: finding.SeverityError,
		Since: checks.FirstRelease,
		Title: "The protected resource metadata is a JSON object that names this resource",
		SpecRefs: []finding.SpecRef{
			rfc("9728", "§3.2 Protected Resource Metadata Response", "MUST"),
			rfc("9728", "§3.3 Protected Resource Metadata Validation", "MUST"),
			rfc("9728", "§2 Protected Resource Metadata", "REQUIRED"),
		},
		Help: `OAuth 2.0 Protected Resource Metadata (RFC 9728) tells a client, and an agent that met a
401, which authorization servers issue tokens for this API and which scopes exist. At
` + "`/.well-known/oauth-protected-resource`" + ` the document MUST be a JSON object served as
` + "`application/json`" + ` with status 200 (§3.2), its ` + "`resource`" + ` is REQUIRED, and it MUST be identical to
the identifier the well-known URL was built from: the origin itself for the root document (§3.3;
the terminating slash does not count). A client that finds another value MUST NOT use the
document, so a ` + "`resource`" + ` copied from another deployment, or naming ` + "`/api`" + ` while the document sits
at the root, silently disables discovery. ` + "`authorization_servers`" + `, ` + "`scopes_supported`" + ` and
` + "`bearer_methods_supported`" + ` are arrays of strings. An HTML page or a 404 at the location means
the API publishes no metadata, and the check does not apply.

**How to fix:** serve ` + "`{\"resource\":\"https://api.example.com\",\"authorization_servers\":[\"https://auth.example.com\"]}`" + `
as ` + "`application/json`" + `, with ` + "`resource`" + ` equal to the origin (or serve the document for a path resource at
` + "`/.well-known/oauth-protected-resource/<path>`" + `).`,
	}
}

func (c ProtectedResource) Run(_ context.Context, in *checks.Input) ([]finding.Finding, error) {
	if in.Target == nil {
		return nil, checks.Skip("no target")
	}
	u := oauthmeta.WellKnown(rootID(in.Target), oauthmeta.ProtectedResourceSuffix).String()
	x := authDoc(in, PurposeProtectedResource, u)
	if x == nil {
		return nil, checks.Skip("no protected resource metadata at " + u)
	}
	problems := metadataProblems(x, func(d oauthmeta.Document) []string { return oauthmeta.ResourceProblems(d, rootID(in.Target)) })
	if len(problems) == 0 {
		return nil, nil
	}
	ev := evidence(x)
	ev.Excerpt = checks.Excerpt(x)
	return []finding.Finding{checks.New(c.Meta(), "", "the protected resource metadata cannot be used: "+strings.Join(problems, "; "), ev)}, nil
}

// AuthorizationServer judges the authorization server metadata on the
// target's origin, and that it agrees with the protected resource metadata.
type AuthorizationServer struct{ plans }

func (AuthorizationServer) Meta() checks.Meta {
	return checks.Meta{
		ID: "discovery-authorization-server", Family: checks.FamilyDiscovery, Severity: finding.SeverityError,
		Since: checks.FirstRelease,
		Title: "Authorization server metadata parses and agrees with the resource's metadata",
		SpecRefs: []finding.SpecRef{
			rfc("8414", "§3.3 Authorization Server Metadata Validation", "MUST"),
			rfc("8414", "§3.2 Authorization Server Metadata Response", "MUST"),
			rfc("8414", "§2 Authorization Server Metadata", "REQUIRED"),
			rfc("9728", "§2 Protected Resource Metadata (authorization_servers)", "OPTIONAL"),
		},
		Help: `Authorization server metadata (RFC 8414) tells a client where to send the user and where to
get tokens. The scanner reads it on the target's origin only, never elsewhere: at
` + "`/.well-known/oauth-authorization-server`" + `, and for every authorization server on the origin
that the protected resource metadata lists in ` + "`authorization_servers`" + ` (with the issuer's path
inserted after ` + "`/.well-known/oauth-authorization-server`" + `, then the OpenID configuration, which MCP
accepts instead). The document MUST be a JSON object served as ` + "`application/json`" + `; ` + "`issuer`" + ` is
REQUIRED and MUST be identical to the issuer identifier the URL was built from (§3.3), which
is the entry of ` + "`authorization_servers`" + ` when the resource named it: ` + "`https://auth.example/`" + `
against ` + "`https://auth.example`" + ` under a path is the classic mismatch, and clients MUST NOT use the
document. ` + "`token_endpoint`" + ` is REQUIRED unless only the implicit grant is supported, and
` + "`response_types_supported`" + ` whenever there is an authorization endpoint. A listed server on the
origin without any metadata is a ` + "`warning`" + `: clients cannot proceed from the resource's
metadata. Servers on other origins are noted, not fetched.

**How to fix:** publish the metadata at the issuer's well-known URL, with ` + "`issuer`" + ` written exactly
as ` + "`authorization_servers`" + ` writes it.`,
	}
}

func (c AuthorizationServer) Run(_ context.Context, in *checks.Input) ([]finding.Finding, error) {
	if in.Target == nil {
		return nil, checks.Skip("no target")
	}
	root := rootID(in.Target)
	issuers := map[string]*url.URL{root.String(): root}
	listed := map[string]bool{}
	for _, u := range listedServers(in.Target, in.Recording.Exchanges) {
		issuers[u.String()] = u
		listed[u.String()] = true
	}
	names := make([]string, 0, len(issuers))
	for k := range issuers {
		names = append(names, k)
	}
	sort.Strings(names)
	var out []finding.Finding
	judged := 0
	for _, name := range names {
		f, ok := c.judge(in, issuers[name], listed[name])
		if ok {
			judged++
		}
		if f != nil {
			out = append(out, *f)
		}
	}
	if judged == 0 {
		return nil, checks.Skip("no authorization server metadata on the target's origin, and none named by protected resource metadata there")
	}
	return out, nil
}

// judge reads the metadata of one issuer on the origin; ok is false when
// there was nothing to judge.
func (c AuthorizationServer) judge(in *checks.Input, issuer *url.URL, listed bool) (*finding.Finding, bool) {
	as := oauthmeta.WellKnown(issuer, oauthmeta.AuthorizationServerSuffix).String()
	oidc := oauthmeta.WellKnown(issuer, oauthmeta.OpenIDSuffix).String()
	x := authDoc(in, PurposeAuthServer, as)
	if x == nil {
		x = authDoc(in, PurposeOpenID, oidc)
	}
	if x == nil {
		if !listed {
			return nil, false
		}
		tried := sent(in, PurposeAuthServer, http.MethodGet, as, acceptJSON)
		if tried == nil {
			return nil, false
		}
		ev := evidence(tried)
		f := checks.New(c.Meta(), issuer.String(), fmt.Sprintf("the protected resource metadata names %s as its authorization server, and neither %s nor %s answers with metadata",
			issuer, as, oidc), ev)
		f.Severity = finding.SeverityWarning
		return &f, true
	}
	problems := metadataProblems(x, func(d oauthmeta.Document) []string { return oauthmeta.ServerProblems(d, issuer.String()) })
	if len(problems) == 0 {
		return nil, true
	}
	ev := evidence(x)
	ev.Excerpt = checks.Excerpt(x)
	f := checks.New(c.Meta(), issuer.String(), fmt.Sprintf("the authorization server metadata at %s cannot be used: %s", x.Request.URL, strings.Join(problems, "; ")), ev)
	return &f, true
}

// AuthChallenge reports 401 answers without a challenge.
type AuthChallenge struct{ plans }

func (AuthChallenge) Meta() checks.Meta {
	return checks.Meta{
		ID: "discovery-auth-challenge", Family: checks.FamilyDiscovery, Severity: finding.SeverityError,
		Since: checks.FirstRelease,
		Title: "Every 401 carries a WWW-Authenticate challenge",
		SpecRefs: []finding.SpecRef{
			ref("RFC 9110", "§11.6.1 WWW-Authenticate", "MUST", "https://www.rfc-editor.org/rfc/rfc9110#section-11.6.1"),
			rfc("9728", "§5.1 WWW-Authenticate Response", "MAY"),
		},
		Help: `"A server generating a 401 (Unauthorized) response MUST send a WWW-Authenticate header field
containing at least one challenge applicable to the requested resource" (RFC 9110 §11.6.1). The
challenge is how an agent learns which scheme to use, and with ` + "`resource_metadata`" + ` (RFC 9728
§5.1) where to find the authorization server; a bare 401 leaves it guessing, and most clients
give up. The check reads every 401 the scan received: the crawl, the probes, every identity,
and the MCP endpoint.

**How to fix:** answer 401 with ` + "`WWW-Authenticate: Bearer realm=\"api\"`" + ` (and
` + "`resource_metadata=\"…/.well-known/oauth-protected-resource\"`" + ` when you publish it), or use 403 when
credentials would not help.`,
	}
}

func (c AuthChallenge) Run(_ context.Context, in *checks.Input) ([]finding.Finding, error) {
	seen := map[string]bool{}
	var fs checks.Findings
	for _, rec := range in.Recordings() {
		for _, x := range rec.Exchanges {
			if x.Response == nil || x.Response.Status != http.StatusUnauthorized || len(x.Response.Header.Values("WWW-Authenticate")) > 0 {
				continue
			}
			key := x.Request.Method + " " + exchange.PathShape(exchange.PathOf(x.Request.URL))
			if seen[key] {
				continue
			}
			seen[key] = true
			ev := evidence(x, "WWW-Authenticate")
			ev.Header, ev.Expected, ev.Actual = "WWW-Authenticate", "at least one challenge", "absent"
			fs.Add(checks.New(c.Meta(), key, fmt.Sprintf("%s %s answered 401 without WWW-Authenticate", x.Request.Method, exchange.PathOf(x.Request.URL)), ev))
		}
	}
	return fs.List(), nil
}
