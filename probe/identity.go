package probe

import (
	"net/http"
	"slices"

	"github.com/agentready/agentready/internal/exchange"
)

// Identity is one caller a session runs as: the Caller every later layer
// knows (its name, rank and roles, and the names of the credential headers
// it sends), beside the credential material sent as it (headers over
// Config.Headers, an OAuth grant). It is the one type that holds an
// identity's credentials; the recording, the checks and the reports see the
// Caller alone. Header values are redacted in every recording, like
// Config.Headers.
type Identity struct {
	exchange.Caller
	Header http.Header
	// OAuth, when set, is the grant the identity's access token comes
	// from; it is sent as "Authorization: Bearer <token>" over Header.
	OAuth *OAuth
	// source renews the OAuth token; RunSession sets it.
	source *tokenSource
}

// Describe completes the Caller of each identity, where the identities are
// built from the configuration: its Rank is its place in ids (least
// privileged first), and its Credentials name every credential header it
// sends: its own headers, the Authorization its OAuth token goes in, and
// those of shared (the headers sent as every identity) that are credentials
// by name. Nothing later changes a Caller; a new kind of credential names
// here what it sends, so that its identity is not taken for an anonymous
// one.
func Describe(ids []Identity, shared http.Header) []Identity {
	if len(ids) == 0 {
		return nil
	}
	out := make([]Identity, len(ids))
	for i, id := range ids {
		id.Rank = i
		id.Credentials = credentialNames(shared, id.Header, id.OAuth != nil)
		out[i] = id
	}
	return out
}

// unnamedCaller is the caller of a session as no identity, which sends the
// shared headers alone.
func unnamedCaller(shared http.Header) exchange.Caller {
	return exchange.Caller{Credentials: credentialNames(shared, nil, false)}
}

// credentialNames are the canonical names, sorted, of the credential
// headers sent with shared and own: every header of own, an Authorization
// for an OAuth token, and the headers of shared that are credentials by
// name (exchange.IsSensitiveHeader); nil when there are none.
func credentialNames(shared, own http.Header, oauth bool) []string {
	var out []string
	for name := range shared {
		if exchange.IsSensitiveHeader(name) {
			out = append(out, http.CanonicalHeaderKey(name))
		}
	}
	for name := range own {
		out = append(out, http.CanonicalHeaderKey(name))
	}
	if oauth {
		out = append(out, "Authorization")
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Secrets are the credentials the identity holds before the session starts:
// its headers and its OAuth grant's secrets. The tokens a grant is issued
// later are in Config.Issued.
func (id Identity) Secrets() http.Header {
	out := http.Header{}
	add := func(h http.Header) {
		for name, vs := range h {
			for _, v := range vs {
				out.Add(name, v)
			}
		}
	}
	add(id.Header)
	if id.OAuth != nil {
		add(id.OAuth.Secrets())
	}
	return out
}

// asIdentity is cfg with the identity's headers over the shared ones, and
// its share of the page limit.
func asIdentity(cfg Config, id Identity, pages int) Config {
	h := cfg.Headers.Clone()
	if h == nil {
		h = http.Header{}
	}
	for k, vs := range id.Header {
		h[http.CanonicalHeaderKey(k)] = append([]string(nil), vs...)
	}
	cfg.Headers, cfg.MaxPages = h, pages
	cfg.bearer = id.source
	return cfg
}

func withAuthorization(h http.Header, token string) http.Header {
	out := h.Clone()
	if out == nil {
		out = http.Header{}
	}
	out.Set("Authorization", "Bearer "+token)
	return out
}
