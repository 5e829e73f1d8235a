package cli

import (
	"encoding/base64"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/agentready/agentready/probe"
)

// takeUserinfo removes the user-info from u and returns it as the Basic
// Authorization header a browser or curl would send for it, nil when u has
// none: no URL the scan records or prints then carries a password.
func takeUserinfo(u *url.URL) http.Header {
	if u.User == nil {
		return nil
	}
	pass, _ := u.User.Password()
	credential := base64.StdEncoding.EncodeToString([]byte(u.User.Username() + ":" + pass))
	u.User = nil
	return http.Header{"Authorization": {"Basic " + credential}}
}

// sendUserinfo takes the user-info of u, the URL whose origin cfg's headers
// go to, into those headers, unless they have an Authorization already;
// then it is a secret to scrub all the same.
func sendUserinfo(u *url.URL, cfg *probe.Config) {
	credential := takeUserinfo(u)
	if credential == nil {
		return
	}
	if cfg.Headers == nil {
		cfg.Headers = http.Header{}
	}
	if cfg.Headers.Get("Authorization") == "" {
		cfg.Headers.Set("Authorization", credential.Get("Authorization"))
		return
	}
	if cfg.Secrets == nil {
		cfg.Secrets = http.Header{}
	}
	cfg.Secrets.Add("Authorization", credential.Get("Authorization"))
}

// ownUserinfo takes the user-info of u, a URL named by a flag other than
// the target (--openapi, --mcp), into cfg.Credentials, for the requests to
// that URL alone, and returns u without it.
func ownUserinfo(u *url.URL, cfg *probe.Config) string {
	credential := takeUserinfo(u)
	if credential != nil {
		if cfg.Credentials == nil {
			cfg.Credentials = map[string]http.Header{}
		}
		cfg.Credentials[u.String()] = credential
	}
	return u.String()
}

// withoutUserinfo is raw without its user-info, and whether it had any;
// text that is no URL is returned as it is.
func withoutUserinfo(raw string) (string, bool) {
	u, err := url.Parse(raw)
	if err != nil || u.User == nil {
		return raw, false
	}
	u.User = nil
	return u.String(), true
}

// shownURL is raw as an error message may quote it: without the password
// its user-info may hold.
func shownURL(raw string) string {
	if shown, had := withoutUserinfo(raw); had {
		return strconv.Quote(shown)
	}
	if _, err := url.Parse(raw); err != nil && strings.Contains(raw, "@") {
		return "(not shown: it may hold a credential)"
	}
	return strconv.Quote(raw)
}
