package scan

import (
	"net/http"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/probe"
)

// identityViews are the probe's views as the checks read them, each with
// its caller as the probe carried it; nil when the scan ran as fewer than
// two identities.
func identityViews(vs []probe.View) []checks.IdentityView {
	if len(vs) == 0 {
		return nil
	}
	out := make([]checks.IdentityView, len(vs))
	for i, v := range vs {
		out[i] = checks.IdentityView{Caller: v.Caller, Recording: v.Recording, MCP: v.MCP}
	}
	return out
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
		add(id.Secrets())
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
