package probe

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/spec"
)

// specYAML declares, next to what the root links: a parameterless GET the
// crawl cannot find (/hidden), a GET that extends /orders/{id}, one under
// another resource with the same variable name (/customers/{id}), one that
// needs a query value (/search) and a POST.
const specYAML = `openapi: 3.1.0
info: {title: t, version: "1"}
paths:
  /:
    get: {operationId: root, responses: {"200": {description: ok}}}
  /hidden:
    get: {operationId: hidden, responses: {"200": {description: ok}}}
  /search:
    get:
      operationId: search
      parameters: [{name: q, in: query, required: true, schema: {type: string}}]
      responses: {"200": {description: ok}}
  /orders:
    post: {operationId: createOrder, responses: {"201": {description: ok}}}
  /orders/{id}:
    get:
      operationId: getOrder
      parameters: [{name: id, in: path, required: true, schema: {type: string}}]
      responses: {"200": {description: ok}}
  /orders/{id}/payment:
    get:
      operationId: getPayment
      parameters: [{name: id, in: path, required: true, schema: {type: string}}]
      responses: {"200": {description: ok}}
  /customers/{id}:
    get:
      operationId: getCustomer
      parameters: [{name: id, in: path, required: true, schema: {type: string}}]
      responses: {"200": {description: ok}}
`

func yamlBody(body string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/yaml")
		w.Write([]byte(body))
	}
}

// specApp serves the HAL API; root decorates the root response.
func specApp(root http.HandlerFunc, extra routes) routes {
	rt := routes{
		"/":                 root,
		"/orders/1":         halBody(`{"_links": {"self": {"href": "/orders/1"}}}`),
		"/orders/1/payment": halBody(`{"_links": {"self": {"href": "/orders/1/payment"}}}`),
		"/hidden":           halBody(`{"_links": {"self": {"href": "/hidden"}}}`),
		"/customers/1":      halBody(`{}`),
	}
	for k, v := range extra {
		rt[k] = v
	}
	return rt
}

const rootHAL = `{"_links": {"self": {"href": "/"}, "order": {"href": "/orders/1"}}}`

func specCfg(t *testing.T, h http.Handler) (Config, *recorder) {
	srv, rec := serve(t, h)
	return Config{Start: mustParse(t, srv.URL+"/"), Spec: SpecConfig{Discover: true}}, rec
}

func fetches(res *Result) []string {
	var out []string
	for x := range res.Recording.WithPurpose(PurposeSpecFetch) {
		out = append(out, exchange.PathOf(x.Request.URL)+" "+x.Source)
	}
	return out
}

func TestSpecDiscovery(t *testing.T) {
	linkRoot := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Link", `</api/spec.yaml>; rel="service-desc"; type="application/openapi+yaml"`)
		halBody(rootHAL)(w, r)
	}
	halRoot := halBody(`{"_links": {"self": {"href": "/"}, "order": {"href": "/orders/1"}, "service-desc": {"href": "/api/spec.yaml"}}}`)
	tests := []struct {
		name      string
		root      http.HandlerFunc
		extra     routes
		discovery string
		fetched   []string
	}{
		{"link header", linkRoot, routes{"/api/spec.yaml": yamlBody(specYAML)}, SpecLinkHeader,
			[]string{"/api/spec.yaml " + SpecLinkHeader}},
		{"hal link", halRoot, routes{"/api/spec.yaml": yamlBody(specYAML)}, SpecHALLink,
			[]string{"/api/spec.yaml " + SpecHALLink}},
		{"well-known", halBody(rootHAL), routes{"/openapi.yaml": yamlBody(specYAML)}, SpecWellKnown,
			[]string{"/openapi.json " + SpecWellKnown, "/openapi.yaml " + SpecWellKnown}},
		{"broken link falls back", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Link", `</gone>; rel="service-desc"`)
			halBody(rootHAL)(w, r)
		}, routes{"/openapi.json": yamlBody(specYAML)}, SpecWellKnown,
			[]string{"/gone " + SpecLinkHeader, "/openapi.json " + SpecWellKnown}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, rec := specCfg(t, specApp(tt.root, tt.extra))
			var onLoad *spec.Document
			cfg.Spec.onLoad = func(d *spec.Document) { onLoad = d }
			res := run(t, cfg, nil)
			if res.Spec == nil || res.SpecDiscovery != tt.discovery || onLoad != res.Spec {
				t.Fatalf("spec %v discovery %q (want %q), OnLoad %v; notes %v", res.Spec, res.SpecDiscovery, tt.discovery, onLoad, res.Notes)
			}
			if len(res.Spec.Operations) != 7 {
				t.Errorf("%d operations", len(res.Spec.Operations))
			}
			if got := fetches(res); !slices.Equal(got, tt.fetched) {
				t.Errorf("fetches %v, want %v", got, tt.fetched)
			}
			for _, r := range rec.requests() {
				if r.Method != http.MethodGet {
					t.Errorf("%s %s sent", r.Method, r.Path)
				}
			}
			for _, p := range crawledPaths(res) {
				if strings.Contains(p, "spec") || strings.Contains(p, "openapi") {
					t.Errorf("the description %s was also crawled as a page", p)
				}
			}
		})
	}
}

func TestSpecDiscoveryNone(t *testing.T) {
	cfg, rec := specCfg(t, specApp(halBody(rootHAL), routes{
		// A JSON answer that is not a description must not be taken for one.
		"/openapi.json": halBody(`{"error": "no"}`),
	}))
	res := run(t, cfg, nil)
	if res.Spec != nil {
		t.Fatalf("found %v", res.Spec.Source)
	}
	if !slices.ContainsFunc(res.Notes, func(n string) bool { return strings.Contains(n, "no OpenAPI document was found") }) {
		t.Errorf("notes %v must say none was found", res.Notes)
	}
	if got, want := len(fetches(res)), len(wellKnownSpecPaths); got != want {
		t.Errorf("%d well-known fetches, want %d", got, want)
	}
	for _, r := range rec.requests() {
		if r.Method != http.MethodGet {
			t.Errorf("%s %s sent", r.Method, r.Path)
		}
	}
	// Without discovery, nothing is fetched and nothing is said.
	cfg.Spec.Discover = false
	res = run(t, cfg, nil)
	if res.Spec != nil || len(fetches(res)) != 0 {
		t.Errorf("discovery off: spec %v fetches %v", res.Spec, fetches(res))
	}
}

func TestSpecSeedsFrontier(t *testing.T) {
	cfg, _ := specCfg(t, specApp(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Link", `</openapi.yaml>; rel="service-desc"`)
		halBody(rootHAL)(w, r)
	}, routes{"/openapi.yaml": yamlBody(specYAML)}))
	res := run(t, cfg, nil)
	want := []string{"/", "/hidden", "/orders/1", "/orders/1/payment"}
	if got := crawledPaths(res); !slices.Equal(got, want) {
		t.Errorf("crawled %v, want %v: parameterless GETs seeded, /orders/{id}/payment filled from /orders/1, "+
			"no invented ID (/customers/1) and no required query (/search)", got, want)
	}
	if x := crawlOf(res, "/hidden"); x == nil || !strings.HasPrefix(x.Source, "openapi GET /hidden") {
		t.Errorf("seed source %+v", x)
	}
	if x := crawlOf(res, "/orders/1/payment"); x == nil || !strings.HasPrefix(x.Source, "openapi GET /orders/{id}/payment") {
		t.Errorf("filled source %+v", x)
	}

	cfg.Spec.NoSeed = true
	res = run(t, cfg, nil)
	if got := crawledPaths(res); !slices.Equal(got, []string{"/", "/orders/1"}) {
		t.Errorf("NoSeed crawled %v", got)
	}
}

func TestSpecGivenDocumentAndURL(t *testing.T) {
	doc, err := spec.Load([]byte(specYAML), "api.yaml", "api.yaml")
	if err != nil {
		t.Fatal(err)
	}
	cfg, _ := specCfg(t, specApp(halBody(rootHAL), routes{"/elsewhere.yaml": yamlBody(specYAML)}))
	cfg.Spec.Document = doc
	res := run(t, cfg, nil)
	if res.Spec != doc || res.SpecDiscovery != SpecGiven || len(fetches(res)) != 0 {
		t.Errorf("given document: %v %q fetches %v", res.Spec, res.SpecDiscovery, fetches(res))
	}

	// A URL on another origin is fetched without the user's headers.
	other, otherRec := serve(t, routes{"/spec.yaml": yamlBody(specYAML)})
	cfg.Spec = SpecConfig{URL: other.URL + "/spec.yaml", Discover: true}
	cfg.Headers = http.Header{"Authorization": {"Bearer secret"}}
	res = run(t, cfg, nil)
	if res.Spec == nil || res.SpecDiscovery != SpecGiven || res.Spec.Source != other.URL+"/spec.yaml" {
		t.Fatalf("URL: %v %q notes %v", res.Spec, res.SpecDiscovery, res.Notes)
	}
	for _, r := range otherRec.requests() {
		if r.Header.Get("Authorization") != "" {
			t.Error("credentials sent to another origin")
		}
	}
}

func TestSpecBodyCap(t *testing.T) {
	big := specYAML + "x-pad: '" + strings.Repeat("p", 4096) + "'\n"
	cfg, _ := specCfg(t, specApp(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Link", `</openapi.yaml>; rel="service-desc"`)
		halBody(rootHAL)(w, r)
	}, routes{"/openapi.yaml": yamlBody(big)}))
	cfg.Spec.MaxBody = 1024
	res := run(t, cfg, nil)
	if res.Spec != nil {
		t.Fatal("a truncated description must not be loaded")
	}
	if !slices.ContainsFunc(res.Notes, func(n string) bool {
		return strings.Contains(n, "larger than the 1 KiB cap") && strings.Contains(n, "--max-spec-size")
	}) {
		t.Errorf("notes %v: want the cap and how to raise it", res.Notes)
	}
	// The crawl's own cap does not apply to descriptions.
	cfg.Spec.MaxBody = 0
	cfg.MaxBody = 1024
	if res = run(t, cfg, nil); res.Spec == nil {
		t.Errorf("a description above the page cap but below the spec cap must load; notes %v", res.Notes)
	}
}

func TestSpecOffOriginLinkNotFollowed(t *testing.T) {
	cfg, _ := specCfg(t, specApp(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Link", `<https://elsewhere.test/openapi.yaml>; rel="service-desc"`)
		halBody(rootHAL)(w, r)
	}, nil))
	res := run(t, cfg, nil)
	if res.Spec != nil {
		t.Fatal("loaded from another origin")
	}
	for _, f := range fetches(res) {
		if strings.Contains(f, "elsewhere") {
			t.Errorf("fetched %s", f)
		}
	}
	if !slices.ContainsFunc(res.Notes, func(n string) bool { return strings.Contains(n, "not on the target's origin") }) {
		t.Errorf("notes %v", res.Notes)
	}
}

// A service-desc link that holds a header value is followed as the server
// wrote it, and the recording and the notes show the value redacted.
func TestSpecLinkHoldingASecret(t *testing.T) {
	const tenant = "tenant-0123456789"
	cfg, rec := specCfg(t, specApp(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Add("Link", `<https://elsewhere.test/openapi.yaml?tenant=`+tenant+`>; rel="service-desc"`)
		w.Header().Add("Link", `</api/`+tenant+`/spec.yaml>; rel="service-desc"`)
		halBody(rootHAL)(w, r)
	}, routes{"/api/" + tenant + "/spec.yaml": yamlBody(specYAML)}))
	cfg.Headers = http.Header{"X-Tenant": {tenant}}
	res := run(t, cfg, nil)
	if res.Spec == nil || res.SpecDiscovery != SpecLinkHeader {
		t.Fatalf("spec %v discovery %q; notes %v; sent %v", res.Spec, res.SpecDiscovery, res.Notes, rec.requests())
	}
	if got := fetches(res); !slices.Equal(got, []string{"/api/REDACTED/spec.yaml " + SpecLinkHeader}) {
		t.Errorf("fetches %v", got)
	}
	if !slices.ContainsFunc(res.Notes, func(n string) bool {
		return strings.Contains(n, "openapi.yaml?tenant=REDACTED") && strings.Contains(n, "not on the target's origin")
	}) || strings.Contains(strings.Join(res.Notes, "\n"), tenant) {
		t.Errorf("notes %v: want the off-origin link noted, its tenant redacted", res.Notes)
	}
}
