package discovery_test

import (
	"testing"

	"github.com/agentready/agentready/checks/checkstest"
	"github.com/agentready/agentready/checks/discovery"
)

// TestAPICatalog covers the API catalog (RFC 9727).
func TestAPICatalog(t *testing.T) {
	runSiteCases(t, []siteCase{
		{"catalog HEAD without Link", func(s site) {
			s["catalog-head"] = checkstest.Exchange(discovery.PurposeCatalogHead, "HEAD", origin+"/.well-known/api-catalog").BasedOn(origin + "/.well-known/api-catalog").Status(200)
		}, []string{"discovery-api-catalog-head"}},
		{"catalog as plain JSON", func(s site) {
			s["catalog"].Header("Content-Type", "x").Build().Response.Header.Set("Content-Type", "application/json")
		}, []string{"discovery-api-catalog-linkset"}},
		{"catalog target without href", func(s site) { s["catalog"].Body(`{"linkset":[{"item":[{"type":"x"}]}]}`) }, []string{"discovery-api-catalog-linkset"}},
		{"catalog dead service-desc", func(s site) { s["link-openapi"] = link("/openapi.json", 404) }, []string{"discovery-api-catalog-links"}},
		{"no catalog", func(s site) {
			s["catalog"] = get(discovery.PurposeCatalog, "/.well-known/api-catalog").Status(404)
			delete(s, "catalog-head")
		}, nil},
	})
}
