package discovery

import (
	"context"
	"fmt"
	"net/url"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/internal/webbotauth"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
)

// PurposeWebBotAuth is the GET of the HTTP Message Signatures directory.
const PurposeWebBotAuth = "discovery/http-message-signatures-directory"

const webBotAuthDraftURL = "https://datatracker.ietf.org/doc/draft-ietf-webbotauth-httpsig-protocol/"

func webBotAuthRef(section, level string) finding.SpecRef {
	return ref("draft-meunier-webbotauth-httpsig-protocol (editor's copy 2026-08-20; draft, not a standard)", section, level, webBotAuthDraftURL)
}

// WebBotAuthDirectory reports a key directory that a verifier cannot use.
type WebBotAuthDirectory struct{ plans }

func (WebBotAuthDirectory) Meta() checks.Meta {
	return checks.Meta{
		ID: "discovery-web-bot-auth-directory", Family: checks.FamilyDiscovery, Severity: finding.SeverityError,
		Since: checks.FirstRelease,
		Title: "The Web Bot Auth key directory is a JWKS of allowed public keys, served with its media type",
		SpecRefs: []finding.SpecRef{
			webBotAuthRef("Directory Format", "MUST"),
			webBotAuthRef("Key Distribution and Discovery", "MUST"),
			webBotAuthRef("Directory Format: served over HTTPS", "MUST"),
			webBotAuthRef("Security Considerations: Shared Secrets Considered Harmful", "MUST NOT"),
			ref("RFC 7638", "3", "MUST", "https://www.rfc-editor.org/rfc/rfc7638#section-3"),
		},
		Help: `A site whose own agents sign their requests (Web Bot Auth) publishes their public keys at
` + "`" + webbotauth.Path + "`" + `. The draft requires the media type
` + "`" + webbotauth.MediaType + "`" + ` (before ` + "`+json`" + ` was added it was
` + "`" + webbotauth.LegacyMediaType + "`" + `), a JSON Web Key Set, ` + "`alg`" + ` values from the HTTP
signature algorithms registry, no shared HMAC (` + "`oct`" + `) keys, and a ` + "`kid`" + `, when present,
equal to the key's RFC 7638 thumbprint. Verifiers that find otherwise cannot resolve
the keys, and requests signed with them stay unverified.

The draft also requires a ` + "`200`" + ` served over HTTPS, and verifiers do not follow redirects: an
https origin that redirects the directory elsewhere, or to plain HTTP, is reported. A scan
of a plain-HTTP origin (a staging app on ` + "`http://127.0.0.1`" + `) records that the directory was read
over HTTP as an observation, not a finding: verifiers only ever ask the public HTTPS origin.

This checks the declaration only: serving a directory verifies no signature, and
whether the site's agents sign, or the site verifies signatures it receives, cannot
be seen from it. The draft is an Internet-Draft, not yet a standard.

**How to fix:** serve ` + "`{\"keys\":[{\"kty\":\"OKP\",\"crv\":\"Ed25519\",\"x\":\"…\"}]}`" + ` with
` + "`Content-Type: " + webbotauth.MediaType + "`" + `; compute each ` + "`kid`" + ` as the thumbprint.`,
	}
}

func (c WebBotAuthDirectory) Run(_ context.Context, in *checks.Input) ([]finding.Finding, error) {
	x := docWebBotAuth.fetched(in)
	if x != nil && x.Response != nil {
		if f := c.redirected(in, x); f != nil {
			return []finding.Finding{*f}, nil
		}
	}
	switch {
	case x == nil || x.Response == nil:
		return nil, checks.Skip(webbotauth.Path + " was not fetched or got no response")
	case !ok2xx(x):
		return nil, checks.Skip(fmt.Sprintf("%s answered %d: the site declares no signing keys", webbotauth.Path, x.Response.Status))
	case isHTML(x):
		return nil, checks.Skip(webbotauth.Path + " answered an HTML page, not a key directory")
	case !x.Response.Whole():
		return nil, checks.Skip("the body of " + webbotauth.Path + " was cut or not kept")
	}
	var problem, pointer string
	d, err := webbotauth.Parse(x.Response.Body)
	switch mt := x.Response.MediaType(); {
	case mt == webbotauth.LegacyMediaType:
		problem = "is served as " + mt + ", the type of the draft's first versions; it is now " + webbotauth.MediaType
	case mt != webbotauth.MediaType:
		problem = fmt.Sprintf("is served as %q, not %s", x.Response.Header.Get("Content-Type"), webbotauth.MediaType)
	case err != nil:
		problem = "is " + err.Error()
	case len(d.Problems.Items) > 0:
		problem, pointer = d.Problems.Items[0].Message, d.Problems.Items[0].Pointer
		if n := len(d.Problems.Items) + d.Problems.Dropped; n > 1 {
			problem += fmt.Sprintf(" (and %d more)", n-1)
		}
	default:
		if d.Keys == 0 {
			in.Observe(c.Meta().ID, webbotauth.Path+" lists no key: it declares nothing")
		}
		if in.Target.Scheme == "http" {
			in.Observe(c.Meta().ID, webbotauth.Path+" was read over plain HTTP: verifiers fetch it only over HTTPS, "+
				"which the draft requires, so the site's public origin must serve it there")
		}
		return nil, nil
	}
	ev := evidence(x)
	ev.Expected, ev.Actual, ev.JSONPointer, ev.Excerpt = "a JWKS of allowed public keys as "+webbotauth.MediaType, problem, pointer, checks.Excerpt(x)
	return []finding.Finding{checks.New(c.Meta(), "", "the Web Bot Auth key directory "+problem, ev)}, nil
}

// redirected reports a directory that an https origin answers with a
// redirect to the directory elsewhere: verifiers "MUST NOT automatically
// follow HTTP redirects" and need a 200, and a redirect to plain HTTP
// also breaks "MUST be served over HTTPS". A plain-HTTP origin is not
// judged: verifiers never fetch it there, and its usual redirect to HTTPS
// is what production looks like. A redirect to another path is a
// catch-all, not a directory.
func (c WebBotAuthDirectory) redirected(in *checks.Input, x *exchange.Exchange) *finding.Finding {
	st := x.Response.Status
	if in.Target.Scheme != "https" || st < 300 || st > 399 {
		return nil
	}
	loc, err := url.Parse(x.Response.Header.Get("Location"))
	if err != nil {
		return nil
	}
	if base, err := url.Parse(x.Request.URL); err == nil {
		loc = base.ResolveReference(loc)
	}
	if loc.Path != webbotauth.Path {
		return nil
	}
	problem := fmt.Sprintf("answers %d, redirecting to %s: verifiers need a 200 and do not follow redirects", st, loc)
	if loc.Scheme != "https" {
		problem += ", and the draft requires the directory to be served over HTTPS"
	}
	ev := evidence(x, "Location")
	ev.Header, ev.Expected, ev.Actual = "Location", "200 with the key directory, over HTTPS", problem
	f := checks.New(c.Meta(), "redirect", "the Web Bot Auth key directory "+problem, ev)
	return &f
}
