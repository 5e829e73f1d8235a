package scan

import (
	"net/http"
	"sort"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/probe"
)

// callerOf is what the checks know of id, sending shared as well as its own
// headers: its name and roles, and the names (never the values) of the
// credential headers it sends.
func callerOf(id probe.Identity, shared http.Header) checks.Caller {
	c := checks.Caller{Name: id.Name, Roles: id.Roles}
	seen := map[string]bool{}
	add := func(name string) {
		name = http.CanonicalHeaderKey(name)
		if !seen[name] {
			seen[name] = true
			c.Credentials = append(c.Credentials, name)
		}
	}
	for name := range shared {
		if exchange.IsSensitiveHeader(name) {
			add(name)
		}
	}
	for name := range id.Header {
		add(name)
	}
	if id.OAuth != nil {
		add("Authorization")
	}
	sort.Strings(c.Credentials)
	return c
}

// callers describe the identities of a session's views, which are as many
// as the identities when there are two or more, and none otherwise.
func callers(ids []probe.Identity, shared http.Header, views int) []checks.Caller {
	if views == 0 {
		return nil
	}
	out := make([]checks.Caller, len(ids))
	for i, id := range ids {
		out[i] = callerOf(id, shared)
	}
	return out
}

// identityViews are the probe's views with what the checks know of each
// caller; nil when the scan ran as fewer than two identities.
func identityViews(cs []checks.Caller, vs []probe.View) []checks.IdentityView {
	if len(vs) == 0 {
		return nil
	}
	out := make([]checks.IdentityView, len(vs))
	for i, v := range vs {
		out[i] = checks.IdentityView{Caller: cs[i], Rank: i, Recording: v.Recording, MCP: v.MCP}
	}
	return out
}

// judgedCaller is the identity whose view the families other than leakage
// judge: the most privileged one, or an unnamed caller with the shared
// headers when the scan runs as no named identity.
func judgedCaller(ids []probe.Identity, shared http.Header) checks.Caller {
	if len(ids) == 0 {
		return callerOf(probe.Identity{}, shared)
	}
	return callerOf(ids[len(ids)-1], shared)
}

// secretHeaders are every header the scan sends, as any identity or to one
// URL (opts.Probe.Credentials), and opts.Probe.Secrets: each identity's recording is scrubbed of all of them,
// because a server may echo one caller's credentials to another (a shared
// cache, a debug page), and so is the recording of an MCP endpoint on
// another origin, which gets none of them.
func secretHeaders(opts Options) http.Header {
	out := http.Header{}
	add := func(h http.Header) {
		for name, vs := range h {
			for _, v := range vs {
				out.Add(name, v)
			}
		}
	}
	add(opts.Probe.Secrets)
	add(opts.Probe.Headers)
	for _, h := range opts.Probe.Credentials {
		add(h)
	}
	for _, id := range opts.Identities {
		add(id.Header)
		if id.OAuth != nil {
			add(id.OAuth.Secrets())
		}
	}
	for _, h := range opts.Probe.Issued.Headers() {
		add(h)
	}
	return out
}

// Scrubber is what the scan scrubs from everything it records (see
// exchange.Secrets), for the caller to scrub what it prints with the same.
// Given the options of several scans, it scrubs the secrets of all of them.
func Scrubber(opts ...Options) *exchange.Secrets {
	var hs []http.Header
	for _, o := range opts {
		hs = append(hs, secretHeaders(o))
	}
	return exchange.NewSecrets(hs...)
}
