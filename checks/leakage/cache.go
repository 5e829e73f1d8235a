package leakage

import (
	"bytes"
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/exchange"
	"github.com/agentready/agentready/finding"
)

// SharedCache flags a URL whose response differs between identities while
// one of those responses may be stored by a shared cache and reused for
// another caller.
type SharedCache struct{}

func (SharedCache) Meta() checks.Meta {
	return checks.Meta{
		ID:       "leakage-shared-cache",
		Family:   checks.FamilyLeakage,
		Title:    "Responses that differ per caller cannot be served to another caller by a shared cache",
		Severity: finding.SeverityError,
		Security: true,
		SpecRefs: []finding.SpecRef{
			{Doc: "RFC 9111", Section: "3.5", Level: "MUST NOT", URL: "https://www.rfc-editor.org/rfc/rfc9111#section-3.5"},
			{Doc: "RFC 9111", Section: "5.2.2.7", Level: "MUST NOT", URL: "https://www.rfc-editor.org/rfc/rfc9111#section-5.2.2.7"},
			{Doc: "RFC 9110", Section: "12.5.5", Level: "SHOULD", URL: "https://www.rfc-editor.org/rfc/rfc9110#section-12.5.5"},
		},
		Help: `When two callers get different answers from one URL, a shared cache (a CDN,
a corporate proxy) must never store one caller's answer and hand it to the
other. It stores a response to a request carrying ` + "`Authorization`" + ` only when
the response says ` + "`public`" + `, ` + "`s-maxage`" + ` or ` + "`must-revalidate`" + ` (RFC 9111 §3.5),
and stores an anonymous response whenever it is cacheable and not ` + "`private`" + `.
Without ` + "`Vary: Authorization`" + ` (or ` + "`Cookie`" + `, whichever carries the credential)
the cache keys the response on the URL alone, so an agent may be shown
another caller's orders, or a privileged caller an anonymous view.

**How to fix:** send ` + "`Cache-Control: private`" + ` (or ` + "`no-store`" + `) on every response
whose content depends on the caller, or list the credential header in ` + "`Vary`" + `.`,
	}
}

func (c SharedCache) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	vs, err := views(in)
	if err != nil {
		return nil, err
	}
	// Responses are compared only between requests that asked for the same
	// thing: a crawl GET and an Accept-less probe may rightly differ.
	byURL := map[string][]*exchange.Exchange{}
	for _, v := range vs {
		for u, x := range gets(v.Recording) {
			if whole(x) {
				k := u + "\x00" + x.Request.Header.Get("Accept")
				byURL[k] = append(byURL[k], x)
			}
		}
	}
	urls := make([]string, 0, len(byURL))
	for u := range byURL {
		urls = append(urls, u)
	}
	sort.Strings(urls)
	m := c.Meta()
	var out []finding.Finding
	for _, u := range urls {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		xs := byURL[u]
		if len(xs) < 2 || !differ(xs) {
			continue
		}
		for _, x := range xs {
			if why, ok := sharedStorable(x); ok && !varyOnCredentials(x) {
				msg := fmt.Sprintf("%s answers differently per caller, and the response to %q is %s without Vary: Authorization; expected Cache-Control: private or Vary on the credential",
					exchange.PathOf(x.Request.URL), x.Identity, why)
				out = append(out, checks.New(m, x.Identity, msg, checks.Evidence(x, []string{"Authorization", "Cookie"}, []string{"Cache-Control", "Vary", "Expires"})))
				break
			}
		}
	}
	return out, nil
}

// differ reports whether the identities got different statuses or bodies.
func differ(xs []*exchange.Exchange) bool {
	for _, x := range xs[1:] {
		if x.Response.Status != xs[0].Response.Status || !bytes.Equal(x.Response.Body, xs[0].Response.Body) {
			return true
		}
	}
	return false
}

// heuristic are the statuses cacheable by default (RFC 9110 §15.1).
var heuristic = map[int]bool{200: true, 203: true, 204: true, 206: true, 300: true, 301: true, 308: true, 404: true, 405: true, 410: true, 414: true, 501: true}

// sharedStorable says why a shared cache may store the response, or ok false.
func sharedStorable(x *exchange.Exchange) (string, bool) {
	cc := directives(x.Response.Header.Values("Cache-Control"))
	if cc["private"] || cc["no-store"] {
		return "", false
	}
	if checks.SentCredentials(x) {
		// RFC 9111 §3.5: only these let a shared cache store it.
		for _, d := range []string{"public", "s-maxage", "must-revalidate"} {
			if cc[d] {
				return "sent with credentials and marked " + d, true
			}
		}
		return "", false
	}
	switch {
	case cc["public"]:
		return "marked public", true
	case cc["s-maxage"], cc["max-age"], x.Response.Header.Get("Expires") != "":
		return "cacheable (explicit freshness) and not private", true
	case heuristic[x.Response.Status] && !cc["no-cache"]:
		return "heuristically cacheable and not private", true
	}
	return "", false
}

// directives are the Cache-Control directive names present, lower-cased.
func directives(values []string) map[string]bool {
	out := map[string]bool{}
	for _, v := range values {
		for _, part := range strings.Split(v, ",") {
			name, _, _ := strings.Cut(strings.TrimSpace(part), "=")
			if name != "" {
				out[lower(strings.TrimSpace(name))] = true
			}
		}
	}
	return out
}

// varyOnCredentials reports Vary: * or a Vary naming a credential header.
func varyOnCredentials(x *exchange.Exchange) bool {
	for _, v := range x.Response.Header.Values("Vary") {
		for _, f := range strings.Split(v, ",") {
			f = strings.TrimSpace(f)
			if f == "*" || exchange.IsSensitiveHeader(f) || x.Request.Header.Get(f) == exchange.Redacted {
				return true
			}
		}
	}
	return false
}
