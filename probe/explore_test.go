package probe

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/agentready/agentready/fixtures/reachfix"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/jsonorder"
	"github.com/agentready/agentready/internal/spec"
)

func loadSpec(t *testing.T, yaml string) *spec.Document {
	t.Helper()
	doc, err := spec.Load([]byte(yaml), "openapi.yaml", "openapi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// methodsSent lists the distinct methods a server received.
func methodsSent(rec *recorder) []string {
	var out []string
	for _, r := range rec.requests() {
		if !slices.Contains(out, r.Method) {
			out = append(out, r.Method)
		}
	}
	return out
}

func basePathRequests(res *Result) []string {
	var out []string
	for x := range res.Recording.WithPurpose(PurposeBasePath) {
		out = append(out, exchange.PathOf(x.Request.URL))
	}
	return out
}

func TestBasePath(t *testing.T) {
	tests := []struct {
		name      string
		underBase bool
		cfg       SpecConfig
		want      BasePath
		crawled   []string
		probes    []string
		note      string
	}{
		{"served under the servers path", true, SpecConfig{},
			BasePath{Path: "/api/v1", How: BaseFromServers},
			[]string{"/", "/api/v1/status", "/api/v1/things"}, []string{"/api/v1/things"}, ""},
		{"served at the bare path", false, SpecConfig{},
			BasePath{Path: "", How: BaseFromBare},
			[]string{"/", "/status", "/things"}, []string{"/api/v1/status", "/api/v1/things", "/things"}, "requested at the bare path"},
		{"--base-path wins without probing", false, SpecConfig{BasePath: "/"},
			BasePath{Path: "", How: BaseFromFlag},
			[]string{"/", "/status", "/things"}, nil, ""},
		{"--server picks the second servers entry", true, SpecConfig{Server: 2},
			BasePath{Path: "/eu", How: BaseFromServers, Mismatch: true},
			[]string{"/", "/eu/status", "/eu/things"}, []string{"/eu/status", "/eu/things", "/status", "/things"}, "neither the OpenAPI servers path /eu"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, rec := serve(t, reachfix.BasePath(tt.underBase))
			cfg := Config{Start: mustParse(t, srv.URL+"/"), Spec: tt.cfg}
			cfg.Spec.Document = loadSpec(t, reachfix.BasePathSpec)
			res := run(t, cfg, nil)
			if res.BasePath == nil || *res.BasePath != tt.want {
				t.Errorf("base path %+v, want %+v", res.BasePath, tt.want)
			}
			if got := crawledPaths(res); !slices.Equal(got, tt.crawled) {
				t.Errorf("crawled %v, want %v", got, tt.crawled)
			}
			if got := basePathRequests(res); !slices.Equal(got, tt.probes) {
				t.Errorf("base-path requests %v, want %v", got, tt.probes)
			}
			if tt.note != "" && !slices.ContainsFunc(res.Notes, func(n string) bool { return strings.Contains(n, tt.note) }) {
				t.Errorf("no note %q in %q", tt.note, res.Notes)
			}
			if m := methodsSent(rec); !slices.Equal(m, []string{http.MethodGet}) {
				t.Errorf("methods sent: %v", m)
			}
		})
	}
}

func TestExploreFillsParameters(t *testing.T) {
	tests := []struct {
		name     string
		headers  http.Header
		reached  []string // crawled with a 2xx
		unfilled map[string]string
	}{
		{"without the required header", nil,
			[]string{"/", "/reports/2024", "/search?kind=widget", "/users/me", "/users/u-42/orders", "/widgets", "/widgets/w7", "/widgets/w9"},
			map[string]string{"GET /secrets/{token}": finding.ReasonPathParameter, "GET /tenant": finding.ReasonRequiredParameter}},
		{"with the required header given", http.Header{"X-Tenant": {"t1"}},
			[]string{"/", "/reports/2024", "/search?kind=widget", "/tenant", "/users/me", "/users/u-42/orders", "/widgets", "/widgets/w7", "/widgets/w9"},
			map[string]string{"GET /secrets/{token}": finding.ReasonPathParameter}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, rec := serve(t, reachfix.Explore())
			cfg := Config{Start: mustParse(t, srv.URL+"/"), Headers: tt.headers, Spec: SpecConfig{Document: loadSpec(t, reachfix.ExploreSpec)}}
			res := run(t, cfg, nil)
			var reached []string
			for x := range res.Recording.Crawled() {
				if x.Response != nil && x.Response.Status/100 == 2 {
					reached = append(reached, strings.TrimPrefix(x.Request.URL, srv.URL))
				}
			}
			slices.Sort(reached)
			if !slices.Equal(reached, tt.reached) {
				t.Errorf("reached %v\nwant    %v\nall %v", reached, tt.reached, crawledPaths(res))
			}
			if len(res.Unfilled) != len(tt.unfilled) {
				t.Errorf("unfilled %v, want %v", res.Unfilled, tt.unfilled)
			}
			for k, v := range tt.unfilled {
				if res.Unfilled[k] != v {
					t.Errorf("unfilled[%s] = %q, want %q", k, res.Unfilled[k], v)
				}
			}
			if m := methodsSent(rec); !slices.Equal(m, []string{http.MethodGet}) {
				t.Errorf("methods sent: %v", m)
			}
		})
	}
}

// TestExploreIsBounded: the quota per operation, the page bound and the
// depth bound hold for the exploration as for the crawl.
func TestExploreIsBounded(t *testing.T) {
	srv, _ := serve(t, reachfix.Explore())
	doc := loadSpec(t, reachfix.ExploreSpec)
	res := run(t, Config{Start: mustParse(t, srv.URL+"/"), MaxPages: 4, Spec: SpecConfig{Document: doc}}, nil)
	if n := len(crawledPaths(res)); n != 4 {
		t.Errorf("%d pages under --max-pages 4: %v", n, crawledPaths(res))
	}
	res = run(t, Config{Start: mustParse(t, srv.URL+"/"), SamplesPerShape: 1, Spec: SpecConfig{Document: doc}}, nil)
	var widgets int
	for _, p := range crawledPaths(res) {
		if strings.HasPrefix(p, "/widgets/") {
			widgets++
		}
	}
	if widgets != 1 {
		t.Errorf("%d widgets with one value per operation: %v", widgets, crawledPaths(res))
	}
	res = run(t, Config{Start: mustParse(t, srv.URL+"/"), MaxDepth: 1, Spec: SpecConfig{Document: doc}}, nil)
	for _, p := range crawledPaths(res) {
		if strings.HasPrefix(p, "/widgets/") || strings.HasPrefix(p, "/users/u-42") {
			t.Errorf("%s crawled beyond --max-depth 1", p)
		}
	}
}

func TestExploreOff(t *testing.T) {
	srv, _ := serve(t, reachfix.Explore())
	res := run(t, Config{Start: mustParse(t, srv.URL+"/"), Spec: SpecConfig{Document: loadSpec(t, reachfix.ExploreSpec), NoSeed: true}}, nil)
	if got := crawledPaths(res); !slices.Equal(got, []string{"/"}) || res.Unfilled != nil || res.BasePath != nil {
		t.Errorf("NoSeed: crawled %v, unfilled %v, base %v", got, res.Unfilled, res.BasePath)
	}
}

func TestPlainJSONLinks(t *testing.T) {
	tests := []struct {
		name    string
		start   string
		crawled []string
		note    bool
	}{
		{"Link header pagination", "/posts", []string{"/posts", "/posts?_page=2", "/posts?_page=3"}, false},
		{"links.next and data links", "/feed", []string{"/feed", "/feed/f1", "/feed?page=2"}, false},
		{"a start page with nothing to follow", "/", []string{"/"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, _ := serve(t, reachfix.Paginated())
			res := run(t, Config{Start: mustParse(t, srv.URL+tt.start)}, nil)
			if got := crawledPaths(res); !slices.Equal(got, tt.crawled) {
				t.Errorf("crawled %v, want %v", got, tt.crawled)
			}
			hasNote := slices.ContainsFunc(res.Notes, func(n string) bool {
				return strings.Contains(n, "offers no link to follow") && strings.Contains(n, "--openapi")
			})
			if hasNote != tt.note {
				t.Errorf("nothing-to-follow note %v, want %v: %q", hasNote, tt.note, res.Notes)
			}
		})
	}
}

func TestJSONLinksAreReferencesOnly(t *testing.T) {
	body := `{"next": "c2Vjb25k", "prev": "/p?page=0", "links": {"self": {"href": "/s"}, "related": "javascript:x", "first": "https://h/f"},
		"items": [{"self": "/i/1", "links": {"next": "not a url"}}], "data": {"links": {"self": "/not-an-array"}}}`
	kept, found, _ := discover(&exchange.Response{Header: http.Header{"Content-Type": {"application/json"}}, Body: []byte(body)}, 100)
	var got []string
	for _, c := range kept {
		got = append(got, c.source+"="+c.ref)
	}
	want := []string{"json links.first=https://h/f", "json links.self=/s", "json prev=/p?page=0", "json items[].self=/i/1"}
	if !slices.Equal(got, want) || found != len(want) {
		t.Errorf("got %v (%d found), want %v", got, found, want)
	}
}

func TestLinkExpressions(t *testing.T) {
	d, err := jsonorder.Decode([]byte(`{"id": 42, "owner": {"login": "oct/o"}, "tags": ["a", "b"], "flag": true}`), jsonorder.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	c := linkContext{u: mustParse(t, "http://h/orders/7?expand=items"), root: d.Root,
		header: http.Header{"X-Next": {"n1"}}, pathVars: map[string]string{"id": "a%20b"}}
	tests := []struct {
		expr any
		want string
		ok   bool
	}{
		{"$response.body#/id", "42", true},
		{"$response.body#/owner/login", "oct/o", true},
		{"$response.body#/tags/1", "b", true},
		{"$response.body#/tags/9", "", false},
		{"$response.body#/flag", "", false},
		{"$response.body#/owner", "", false},
		{"$response.header.X-Next", "n1", true},
		{"$request.path.id", "a b", true},
		{"$request.query.expand", "items", true},
		{"$request.body#/x", "", false},
		{"$url", "", false},
		{"order-{$response.body#/id}", "order-42", true},
		{"order-{$response.body#/missing}", "", false},
		{"constant", "constant", true},
		{3.0, "3", true},
		{map[string]any{}, "", false},
	}
	for _, tt := range tests {
		got, ok := c.eval(tt.expr)
		if got != tt.want || ok != tt.ok {
			t.Errorf("eval(%v) = %q, %v; want %q, %v", tt.expr, got, ok, tt.want, tt.ok)
		}
	}
}

// TestHALLinkWithoutHrefIsNotOffered: a link object without href offers no
// link, so the per-page bound cut nothing (GitHub's /feeds has one).
func TestHALLinkWithoutHrefIsNotOffered(t *testing.T) {
	body := `{"_links": {"self": {"href": "/feeds"}, "security_advisories": {"type": "application/atom+xml"}}}`
	kept, found, _ := discover(&exchange.Response{Header: http.Header{"Content-Type": {"application/json"}}, Body: []byte(body)}, 100)
	if len(kept) != 1 || found != 1 {
		t.Errorf("kept %v, found %d; want the one link with an href", kept, found)
	}
}

func TestExploreNote(t *testing.T) {
	srv, _ := serve(t, reachfix.Explore())
	res := run(t, Config{Start: mustParse(t, srv.URL+"/"), Spec: SpecConfig{Document: loadSpec(t, reachfix.ExploreSpec)}}, nil)
	want := "GET operations of the OpenAPI document never requested, as no response, example, default, enum or link gave a value: " +
		"1 lacked a path parameter, 1 a required query, header or cookie parameter (headers given with -H are sent) (of 8)"
	if !slices.Contains(res.Notes, want) {
		t.Errorf("notes %q\nwant %q", res.Notes, want)
	}
}

// TestExploreArrayOfEnums: a required array parameter takes elements its
// items schema accepts; a value seen in responses under the same name, but
// not one of the items' enum, would only earn a 4xx the scan caused.
func TestExploreArrayOfEnums(t *testing.T) {
	doc := loadSpec(t, `openapi: 3.0.3
info: {title: t, version: "1"}
paths:
  /search:
    get:
      parameters:
        - {name: type, in: query, required: true, explode: false,
           schema: {type: array, items: {type: string, enum: [album, track]}}}
        - {name: ids, in: query, required: true,
           schema: {type: array, items: {type: integer}}}
      responses: {"200": {description: ok}}
`)
	e := newExplorer(doc, nil, 3)
	e.absorb(&harvest{values: []namedValue{{"type", "user"}, {"type", "track"}, {"ids", "7,x"}, {"ids", "4,5"}}}, 1)
	op := doc.Operations[0]
	var types, ids []string
	for _, c := range e.candidates(op, "type", "query") {
		types = append(types, c.value)
	}
	for _, c := range e.candidates(op, "ids", "query") {
		ids = append(ids, c.value)
	}
	if want := []string{"track", "album"}; !slices.Equal(types, want) {
		t.Errorf("type candidates %v, want %v", types, want)
	}
	if want := []string{"4,5"}; !slices.Equal(ids, want) {
		t.Errorf("ids candidates %v, want %v", ids, want)
	}
}

// TestExplorerSkipsRedactedPaths: a path of a fetched document that held an
// echoed credential reads REDACTED in the scrubbed body the document is
// loaded from; requesting it would send the marker to the server.
func TestExplorerSkipsRedactedPaths(t *testing.T) {
	doc := loadSpec(t, `openapi: 3.1.0
info: {title: t, version: "1"}
paths:
  /tenants/REDACTED/orders:
    get: {responses: {"200": {description: ok}}}
  /orders:
    get: {responses: {"200": {description: ok}}}
`)
	e := newExplorer(doc, nil, 3)
	if len(e.gets) != 1 || e.gets[0].PathTemplate != "/orders" {
		var got []string
		for _, op := range e.gets {
			got = append(got, op.PathTemplate)
		}
		t.Errorf("GET operations explored %q, want only /orders", got)
	}
}
