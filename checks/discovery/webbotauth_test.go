package discovery_test

import (
	"strings"
	"testing"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/checkstest"
	"github.com/agentready/agentready/checks/discovery"
)

// TestWebBotAuthDirectory covers the Web Bot Auth key directory: its media type and keys.
func TestWebBotAuthDirectory(t *testing.T) {
	runSiteCases(t, []siteCase{
		{"key directory as application/json", func(s site) {
			s["web-bot-auth"].Build().Response.Header.Set("Content-Type", "application/json")
		}, []string{"discovery-web-bot-auth-directory"}},
		{"key directory with the legacy media type", func(s site) {
			s["web-bot-auth"].Build().Response.Header.Set("Content-Type", "application/http-message-signatures-directory")
		}, []string{"discovery-web-bot-auth-directory"}},
		{"key directory with a wrong kid", func(s site) {
			s["web-bot-auth"].Body(`{"keys":[{"kty":"OKP","crv":"Ed25519","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo","kid":"bot-1"}]}`)
		}, []string{"discovery-web-bot-auth-directory"}},
		{"key directory not a JWKS", func(s site) { s["web-bot-auth"].Body(`{"directory":[]}`) }, []string{"discovery-web-bot-auth-directory"}},
		{"empty key directory declares nothing", func(s site) { s["web-bot-auth"].Body(`{"keys":[]}`) }, nil},
		{"no key directory", func(s site) {
			s["web-bot-auth"] = get(discovery.PurposeWebBotAuth, "/.well-known/http-message-signatures-directory").Status(404)
		}, nil},
	})
}

func TestWebBotAuthDirectoryTransport(t *testing.T) {
	const path = "/.well-known/http-message-signatures-directory"
	directory := func(origin string, status int, location string) *checks.Input {
		b := checkstest.Exchange(discovery.PurposeWebBotAuth, "GET", origin+path).BasedOn(origin + path).Status(status)
		if location != "" {
			b.Header("Location", location)
		} else {
			b.Header("Content-Type", "application/http-message-signatures-directory+json").Body(`{"keys":[]}`)
		}
		return checkstest.Input(origin+"/", nil, b.Build())
	}
	for _, tt := range []struct {
		what string
		in   *checks.Input
		want string // "" when nothing is reported
	}{
		{"https origin redirecting to plain HTTP", directory("https://api.test", 301, "http://api.test"+path), "over HTTPS"},
		{"https origin redirecting to another host", directory("https://api.test", 302, "https://keys.example"+path), "do not follow redirects"},
		{"https origin redirecting to a login page", directory("https://api.test", 302, "/login"), ""},
		{"http origin redirecting to HTTPS", directory("http://api.test", 301, "https://api.test"+path), ""},
		{"https origin serving it", directory("https://api.test", 200, ""), ""},
	} {
		fs, _ := checkstest.Run(t, discovery.WebBotAuthDirectory{}, tt.in)
		switch {
		case tt.want == "" && len(fs) != 0, tt.want != "" && (len(fs) != 1 || !strings.Contains(fs[0].Message, tt.want)):
			t.Errorf("%s: findings %+v, want %q", tt.what, fs, tt.want)
		}
	}
	in := directory("http://api.test", 200, "")
	checkstest.Run(t, discovery.WebBotAuthDirectory{}, in)
	if facts := in.Observations("discovery-web-bot-auth-directory"); len(facts) != 2 || !strings.Contains(facts[1], "plain HTTP") {
		t.Errorf("facts %v", facts)
	}
}
