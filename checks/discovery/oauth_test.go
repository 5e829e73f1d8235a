package discovery_test

import (
	"testing"

	"github.com/agentready/agentready/checks/discovery"
)

// TestOAuthMetadata covers authentication challenges and the OAuth metadata documents.
func TestOAuthMetadata(t *testing.T) {
	runSiteCases(t, []siteCase{
		{"401 without a challenge", func(s site) {
			s["crawl-schema"] = crawl("/schemas/order", 401)
		}, []string{"discovery-auth-challenge"}},
		{"resource metadata naming another resource", func(s site) {
			s["prm"].Body(`{"resource":"http://api.test/api","authorization_servers":["http://api.test"]}`)
		}, []string{"discovery-protected-resource"}},
		{"resource metadata served as text", func(s site) {
			s["prm"].Build().Response.Header.Set("Content-Type", "text/plain")
		}, []string{"discovery-protected-resource"}},
		{"resource metadata without resource", func(s site) { s["prm"].Body(`{"authorization_servers":["http://api.test"]}`) }, []string{"discovery-protected-resource"}},
		{"HTML catch-all is no resource metadata", func(s site) {
			s["prm"] = get(discovery.PurposeProtectedResource, "/.well-known/oauth-protected-resource").Status(200).Header("Content-Type", "text/html").Body("<html>")
		}, nil},
		{"no authorization metadata at all", func(s site) {
			s["prm"] = get(discovery.PurposeProtectedResource, "/.well-known/oauth-protected-resource").Status(404)
			s["as"] = get(discovery.PurposeAuthServer, "/.well-known/oauth-authorization-server").Status(404)
		}, nil},
		{"root issuer with its slash", func(s site) { s["as"].Body(`{"issuer":"http://api.test/","token_endpoint":"http://api.test/token"}`) }, nil},
		{"authorization server of another issuer", func(s site) {
			s["as"].Body(`{"issuer":"https://login.example","token_endpoint":"https://login.example/token"}`)
		}, []string{"discovery-authorization-server"}},
		{"listed tenant issuer with a trailing slash", func(s site) {
			s["prm"].Body(`{"resource":"http://api.test","authorization_servers":["http://api.test/tenant1"]}`)
			s["as-tenant"] = get(discovery.PurposeAuthServer, "/.well-known/oauth-authorization-server/tenant1").Status(200).
				Header("Content-Type", "application/json").Body(`{"issuer":"http://api.test/tenant1/","token_endpoint":"http://api.test/token"}`)
		}, []string{"discovery-authorization-server"}},
		{"listed tenant issuer in its OpenID configuration", func(s site) {
			s["prm"].Body(`{"resource":"http://api.test","authorization_servers":["http://api.test/tenant1"]}`)
			s["as-tenant"] = get(discovery.PurposeAuthServer, "/.well-known/oauth-authorization-server/tenant1").Status(404)
			s["oidc-tenant"] = get(discovery.PurposeOpenID, "/.well-known/openid-configuration/tenant1").Status(200).
				Header("Content-Type", "application/json").Body(`{"issuer":"http://api.test/tenant1","token_endpoint":"http://api.test/token"}`)
		}, nil},
		{"listed issuer without metadata", func(s site) {
			s["prm"].Body(`{"resource":"http://api.test","authorization_servers":["http://api.test/tenant1"]}`)
			s["as-tenant"] = get(discovery.PurposeAuthServer, "/.well-known/oauth-authorization-server/tenant1").Status(404)
			s["oidc-tenant"] = get(discovery.PurposeOpenID, "/.well-known/openid-configuration/tenant1").Status(404)
		}, []string{"discovery-authorization-server"}},
		{"listed issuer on another origin", func(s site) {
			s["prm"].Body(`{"resource":"http://api.test","authorization_servers":["https://login.example"]}`)
		}, nil},
	})
}
