package oauthmeta

import (
	"net/url"
	"strings"
	"testing"
)

func TestWellKnown(t *testing.T) {
	for in, want := range map[string]string{
		"https://api.example":              "https://api.example/.well-known/oauth-protected-resource",
		"https://api.example/":             "https://api.example/.well-known/oauth-protected-resource",
		"https://api.example/public/mcp":   "https://api.example/.well-known/oauth-protected-resource/public/mcp",
		"https://api.example/mcp/?x=1#top": "https://api.example/.well-known/oauth-protected-resource/mcp",
	} {
		u, _ := url.Parse(in)
		if got := WellKnown(u, ProtectedResourceSuffix).String(); got != want {
			t.Errorf("%s: %s, want %s", in, got, want)
		}
	}
}

func TestResourceMetadata(t *testing.T) {
	for _, tt := range []struct {
		values []string
		want   string
	}{
		{[]string{`Bearer resource_metadata="https://a.example/.well-known/oauth-protected-resource", scope="files:read"`}, "https://a.example/.well-known/oauth-protected-resource"},
		{[]string{`Basic realm="x"`, `DPoP algs="ES256",resource_metadata=https://a.example/m`}, "https://a.example/m"},
		{[]string{`Bearer realm="x", error="invalid_token"`}, ""},
		{[]string{`Bearer realm="no_resource_metadata=x"`}, ""},
	} {
		if got := ResourceMetadata(tt.values); got != tt.want {
			t.Errorf("%q: %q, want %q", tt.values, got, tt.want)
		}
	}
}

func TestResourceProblems(t *testing.T) {
	mcpURL, _ := url.Parse("https://api.example/mcp")
	root, _ := url.Parse("https://api.example")
	for _, tt := range []struct {
		body     string
		resource *url.URL
		want     string // a substring of the problems, "" for none
	}{
		{`{"resource":"https://api.example/mcp","authorization_servers":["https://auth.example"]}`, mcpURL, ""},
		{`{"resource":"https://api.example/mcp/"}`, mcpURL, ""},
		{`{"resource":"https://api.example/"}`, root, ""},
		{`{"resource":"https://api.example"}`, mcpURL, "not the identifier"},
		{`{"authorization_servers":["https://auth.example"]}`, root, "REQUIRED"},
		{`{"resource":"https://api.example","authorization_servers":"https://auth.example"}`, root, "authorization_servers is not an array"},
	} {
		d, err := Decode([]byte(tt.body))
		if err != nil {
			t.Fatal(err)
		}
		got := strings.Join(ResourceProblems(d, tt.resource), "; ")
		if (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
			t.Errorf("%s: %q, want %q", tt.body, got, tt.want)
		}
	}
}

func TestServerProblems(t *testing.T) {
	for _, tt := range []struct {
		body, issuer, want string
	}{
		{`{"issuer":"https://auth.example","authorization_endpoint":"https://auth.example/a","token_endpoint":"https://auth.example/t","response_types_supported":["code"]}`, "https://auth.example", ""},
		{`{"issuer":"https://auth.example/","token_endpoint":"https://auth.example/t"}`, "https://auth.example", ""},
		{`{"issuer":"https://auth.example/tenant1/","token_endpoint":"t"}`, "https://auth.example/tenant1", "not the issuer identifier"},
		{`{"issuer":"https://auth.example","authorization_endpoint":"https://auth.example/a","token_endpoint":"t"}`, "https://auth.example", "response_types_supported"},
		{`{"issuer":"https://auth.example","grant_types_supported":["client_credentials"]}`, "https://auth.example", "token_endpoint"},
		{`{"issuer":"https://auth.example","grant_types_supported":["implicit"]}`, "https://auth.example", ""},
		{`{"token_endpoint":"t"}`, "https://auth.example", "REQUIRED"},
	} {
		d, _ := Decode([]byte(tt.body))
		got := strings.Join(ServerProblems(d, tt.issuer), "; ")
		if (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
			t.Errorf("%s: %q, want %q", tt.body, got, tt.want)
		}
	}
	if _, err := Decode([]byte(`[1]`)); err == nil {
		t.Error("an array decoded as a document")
	}
}
