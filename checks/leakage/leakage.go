// Package leakage compares what several identities were shown when a scan
// runs as more than one caller: operations, MCP tools and policy revealed
// to callers who may not use them, existence oracles, error details shown
// only to the less privileged, and per-caller responses a shared cache could
// mix up; and, whoever asks, credentials a response exposes.
// With one identity every check but leakage-secret-exposed is "not
// assessed".
package leakage

import (
	"net/http"
	"slices"
	"strings"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/internal/exchange"
)

// All returns the family's checks.
func All() []checks.Check {
	return []checks.Check{OfferedRefused{}, PolicyReason{}, NeverOffered{}, ErrorDetail{}, ExistenceOracle{}, SharedCache{},
		MCPToolRefused{}, MCPPrivilegedToolAnonymous{}, HiddenExecuted{}, HiddenRefusal{}, SecretExposed{}}
}

const notAssessed = "not assessed: the scan ran as one identity; give two or more with --identity to compare what each caller is shown"

// views returns the identities, or a skip when there are fewer than two.
func views(in *checks.Input) ([]checks.IdentityView, error) {
	if len(in.Identities) < 2 {
		return nil, checks.Skip(notAssessed)
	}
	return in.Identities, nil
}

// top is the most privileged identity's view.
func top(vs []checks.IdentityView) checks.IdentityView { return vs[len(vs)-1] }

// gets indexes the successful-or-not GETs of a recording by URL, the crawl
// first, so that a URL crawled and cross-fetched keeps its crawl exchange.
func gets(rec *exchange.Recording) map[string]*exchange.Exchange {
	out := map[string]*exchange.Exchange{}
	if rec == nil {
		return out
	}
	for _, x := range rec.Exchanges {
		if x.Request.Method != http.MethodGet || x.Response == nil || x.Purpose == PurposeMissingSibling {
			continue
		}
		if prev, ok := out[x.Request.URL]; ok && prev.Purpose == exchange.PurposeCrawl {
			continue
		}
		out[x.Request.URL] = x
	}
	return out
}

// whole reports a response whose body can be compared and judged.
func whole(x *exchange.Exchange) bool {
	return x != nil && x.Response != nil && x.Response.Whole()
}

// credentialHeaders names the headers a request carried that are
// credentials by name (Authorization, Cookie, ...).
func credentialHeaders(x *exchange.Exchange) []string {
	var out []string
	for name := range x.Request.Header {
		if exchange.IsSensitiveHeader(name) {
			out = append(out, http.CanonicalHeaderKey(name))
		}
	}
	return out
}

// caller is the view's identity for access decisions: the credential
// headers the scan gave it. A view that names none although its requests
// carried a header that is a credential by name is not anonymous: the
// recording is the better witness. A header redacted in the recording is
// not a credential for that alone: every --header value is redacted, and
// -H 'X-Trace: 1' does not make a caller privileged.
func caller(v checks.IdentityView) exchange.Caller {
	c := v.Caller
	if !c.Anonymous() || v.Recording == nil {
		return c
	}
	for _, x := range v.Recording.Exchanges {
		c.Credentials = append(c.Credentials, credentialHeaders(x)...)
	}
	slices.Sort(c.Credentials)
	c.Credentials = slices.Compact(c.Credentials)
	return c
}

func lower(s string) string { return strings.ToLower(s) }
