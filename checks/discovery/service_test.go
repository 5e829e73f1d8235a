package discovery_test

import (
	"testing"

	"github.com/agentready/agentready/checks/discovery"
)

// typedServiceDesc gives the root's service-desc link a type hint, and
// records the target's answer to a request for it.
func typedServiceDesc(s site, hint string, status int, served string) {
	s["root"].Build().Response.Header.Set("Link", `</openapi.json>; rel="service-desc"; type="`+hint+`", </docs>; rel="service-doc"`)
	s["service-desc-typed"] = get(discovery.PurposeServiceDescTyped, "/openapi.json").ReqHeader("Accept", hint).
		Status(status).Header("Content-Type", served).Body(`{"openapi":"3.1.0"}`)
}

// TestServiceLinks covers the service-desc and service-doc links of the root.
func TestServiceLinks(t *testing.T) {
	runSiteCases(t, []siteCase{
		{"service-desc 404", func(s site) { s["service-desc"] = get(discovery.PurposeServiceDesc, "/openapi.json").Status(404) }, []string{"discovery-service-desc"}},
		{"service-desc not OpenAPI", func(s site) { s["service-desc"].Body(`{"swaggerish":true}`) }, []string{"discovery-service-desc"}},
		{"service-desc YAML", func(s site) { s["service-desc"].Body("# c\nopenapi: 3.1.0\ninfo: {}\n") }, nil},
		{"service-desc hint matches", func(s site) { typedServiceDesc(s, "application/openapi+json", 200, "application/json") }, nil},
		{"service-desc hint says JSON, target serves YAML", func(s site) {
			typedServiceDesc(s, "application/openapi+json", 200, "application/yaml")
		}, []string{"discovery-service-desc-type"}},
		{"service-desc hint says YAML, target refuses it", func(s site) {
			typedServiceDesc(s, "application/openapi+yaml", 406, "application/problem+json")
		}, []string{"discovery-service-desc-type"}},
		{"service-desc hint says YAML, target serves it", func(s site) {
			typedServiceDesc(s, "application/openapi+yaml", 200, "application/yaml")
		}, nil},
		{"service-desc hint on a target that is no OpenAPI document", func(s site) {
			typedServiceDesc(s, "application/openapi+json", 200, "text/html")
			s["service-desc"].Body("<p>").Build().Response.Header.Set("Content-Type", "text/html")
		}, []string{"discovery-service-desc"}},
		{"dead service-doc is judged by its own check only", func(s site) {
			s["service-doc"] = get(discovery.PurposeServiceDoc, "/docs").Status(404)
			s["crawl-docs"] = crawl("/docs", 404)
		}, []string{"discovery-service-links"}},
		{"service-doc 410", func(s site) { s["service-doc"] = get(discovery.PurposeServiceDoc, "/docs").Status(410) }, []string{"discovery-service-links"}},
	})
}
