package probe

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentready/agentready/fixtures/hostile"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
)

// itemsServer lists /items/1../items/12 and /about; each item has a body
// larger than the retention threshold, and /broken fails with a large body.
func itemsServer(t *testing.T) string {
	var links []string
	for i := 1; i <= 12; i++ {
		links = append(links, fmt.Sprintf(`{"href": "/items/%d"}`, i))
	}
	big := strings.Repeat("x", keepCrawlBody+1)
	srv, _ := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/":
			halBody(`{"_links": {"item": [`+strings.Join(links, ",")+`], "about": {"href": "/about"}, "broken": {"href": "/broken"}}}`)(w, r)
		case r.URL.Path == "/about":
			halBody(`{"about": true}`)(w, r)
		case r.URL.Path == "/broken":
			w.WriteHeader(http.StatusInternalServerError)
			w.Write([]byte(strings.Repeat("e", keepErrorBody*2)))
		case strings.HasPrefix(r.URL.Path, "/items/"):
			halBody(`{"pad": "`+big+`"}`)(w, r)
		default:
			http.NotFound(w, r)
		}
	}))
	return srv.URL
}

func TestSamplingIsDeterministicPerShape(t *testing.T) {
	base := itemsServer(t)
	var first *Result
	for range 3 {
		res := run(t, Config{Start: mustParse(t, base), Concurrency: 8}, nil)
		wantSamples := []string{base + "/", base + "/about", base + "/items/1", base + "/items/10", base + "/items/11"}
		if !slices.Equal(res.Recording.Samples, wantSamples) {
			t.Fatalf("samples:\n got %v\nwant %v", res.Recording.Samples, wantSamples)
		}
		wantStats := []finding.ShapeSample{{Shape: "/", Seen: 1, Sampled: 1}, {Shape: "/about", Seen: 1, Sampled: 1}, {Shape: "/items/{id}", Seen: 12, Sampled: 3}}
		if !slices.Equal(res.Stats.Sampling, wantStats) {
			t.Errorf("sampling = %+v", res.Stats.Sampling)
		}
		if first == nil {
			first = res
			continue
		}
		if a, b := outline(first), outline(res); !slices.Equal(a, b) {
			t.Errorf("two scans of the same app recorded differently")
		}
	}
}

// outline is what must not vary between scans of the same app; headers such
// as Date legitimately do.
func outline(res *Result) []string {
	var out []string
	for _, x := range res.Recording.Exchanges {
		out = append(out, fmt.Sprintf("%s %s %s d=%d %q %d dropped=%v len=%d",
			x.ID, x.Purpose, x.Request.URL, x.Depth, x.Source, x.Response.Status, x.Response.Dropped, len(x.Response.Body)))
	}
	return out
}

func TestBodyRetention(t *testing.T) {
	base := itemsServer(t)
	res := run(t, Config{Start: mustParse(t, base)}, nil)
	for x := range res.Recording.Crawled() {
		r := x.Response
		sampled := slices.Contains(res.Recording.Samples, x.Request.URL)
		switch {
		case r.Status >= 400:
			if x.Request.URL == base+"/broken" && (!r.Truncated || len(r.Body) != keepErrorBody || r.BodySize != keepErrorBody*2) {
				t.Errorf("error body: truncated=%v len=%d size=%d", r.Truncated, len(r.Body), r.BodySize)
			}
		case sampled:
			if r.Dropped || int64(len(r.Body)) != r.BodySize {
				t.Errorf("sampled %s lost its body", x.Request.URL)
			}
		case r.BodySize > keepCrawlBody:
			if !r.Dropped || r.Body != nil {
				t.Errorf("unsampled %s kept %d bytes", x.Request.URL, len(r.Body))
			}
		}
	}
	if n := len(res.Recording.Exchanges); n != 15 {
		t.Errorf("exchanges = %d, want 15", n)
	}
}

func TestPlannedProbesSendExactHeaders(t *testing.T) {
	base := itemsServer(t)
	other, otherRec := serve(t, http.NotFoundHandler())
	start := mustParse(t, base)
	var gotCrawled, gotSamples int
	plan := func(crawled, samples []*exchange.Exchange) []exchange.PlannedRequest {
		gotCrawled, gotSamples = len(crawled), len(samples)
		s := samples[0].Request.URL
		return []exchange.PlannedRequest{
			{Purpose: "negotiation/json", Method: http.MethodGet, URL: s + "?probe=json", Header: http.Header{"Accept": {"application/json"}}, BasedOn: s},
			{Purpose: "negotiation/none", Method: http.MethodGet, URL: s + "?probe=none", BasedOn: s},
			{Purpose: "negotiation/none", Method: http.MethodGet, URL: s + "?probe=none", BasedOn: s},
			{Purpose: "auth/override", Method: http.MethodHead, URL: s + "?probe=head", Header: http.Header{"Authorization": {"Bearer planned"}}, BasedOn: s},
			{Purpose: "unsafe/post", Method: http.MethodPost, URL: s + "?probe=post", BasedOn: s},
			{Purpose: "foreign/get", Method: http.MethodGet, URL: other.URL + "/x", BasedOn: s},
		}
	}
	cfg := Config{Start: start, Headers: http.Header{"Authorization": {"Bearer user"}, "Accept": {"text/html"}}}
	res := run(t, cfg, plan)

	if gotCrawled != 15 || gotSamples != 5 {
		t.Errorf("planner saw %d crawled and %d samples, want 15 and 5", gotCrawled, gotSamples)
	}
	if res.Stats.Probes != 3 {
		t.Errorf("probes = %d, want 3", res.Stats.Probes)
	}
	if len(otherRec.requests()) != 0 || res.Stats.Skipped[skipProbeOffOrigin] != 1 {
		t.Errorf("off-origin probe: other saw %d, skipped %d", len(otherRec.requests()), res.Stats.Skipped[skipProbeOffOrigin])
	}
	if len(res.Notes) != 1 || !strings.Contains(res.Notes[0], "POST") {
		t.Errorf("notes = %q, want one about the refused POST", res.Notes)
	}
	none := res.Recording.Probe("negotiation/none", base+"/")
	if none == nil {
		t.Fatal("no exchange for negotiation/none")
	}
	if _, has := none.Request.Header["Accept"]; has {
		t.Errorf("negotiation/none recorded an Accept: %v", none.Request.Header)
	}
	if none.Request.URL != base+"/?probe=none" || none.Response == nil || none.Response.Status != http.StatusOK {
		t.Errorf("negotiation/none exchange = %+v", none)
	}
	if head := res.Recording.Probe("auth/override", base+"/"); head == nil || head.Request.Method != http.MethodHead {
		t.Errorf("HEAD probe = %+v", head)
	}
}

// TestPlannedProbeWireHeaders checks what reaches the server, not what was
// recorded: a probe without Accept must arrive without one.
func TestPlannedProbeWireHeaders(t *testing.T) {
	srv, rec := serve(t, routes{"/": halBody(`{}`)})
	plan := func(_, samples []*exchange.Exchange) []exchange.PlannedRequest {
		s := samples[0].Request.URL
		return []exchange.PlannedRequest{
			{Purpose: "p/none", Method: http.MethodGet, URL: s + "?none", BasedOn: s},
			{Purpose: "p/json", Method: http.MethodGet, URL: s + "?json", BasedOn: s, Header: http.Header{"Accept": {"application/json"}}},
			{Purpose: "p/auth", Method: http.MethodOptions, URL: s + "?auth", BasedOn: s, Header: http.Header{"authorization": {"Bearer planned"}}},
			{Purpose: "p/delete", Method: http.MethodDelete, URL: s + "?delete", BasedOn: s},
		}
	}
	cfg := Config{Start: mustParse(t, srv.URL), Headers: http.Header{"Authorization": {"Bearer user"}, "Accept": {"text/html"}}, UserAgent: "probe-test"}
	res := run(t, cfg, plan)

	byQuery := map[string]seenRequest{}
	for _, r := range rec.requests() {
		byQuery[r.Query] = r
	}
	if _, sent := byQuery["delete"]; sent {
		t.Error("DELETE was sent")
	}
	want := map[string]http.Header{
		"none": {"User-Agent": {"probe-test"}, "Authorization": {"Bearer user"}},
		"json": {"User-Agent": {"probe-test"}, "Authorization": {"Bearer user"}, "Accept": {"application/json"}},
		"auth": {"User-Agent": {"probe-test"}, "Authorization": {"Bearer planned"}},
	}
	for q, h := range want {
		got := byQuery[q].Header
		if got == nil {
			t.Errorf("probe %q not received", q)
			continue
		}
		if !sameHeader(got, h) {
			t.Errorf("probe %q arrived with %v, want exactly %v", q, got, h)
		}
	}
	if res.Stats.Probes != 3 || res.Stats.Requests != 4 {
		t.Errorf("probes=%d requests=%d", res.Stats.Probes, res.Stats.Requests)
	}
}

// TestPlannedMarkerNeverSent: a planned header copied from the recording
// that holds the redaction marker, the output's form of a user's value,
// goes out with the value the user configured, or not at all; a user's
// plain header is recorded as sent, so a repeat copies the real value.
func TestPlannedMarkerNeverSent(t *testing.T) {
	srv, rec := serve(t, routes{"/": halBody(`{}`)})
	plan := func(crawled, samples []*exchange.Exchange) []exchange.PlannedRequest {
		s := samples[0].Request.URL
		return []exchange.PlannedRequest{
			{Purpose: "p/repeat", Method: http.MethodGet, URL: s + "?repeat", BasedOn: s, Header: http.Header{"Accept": crawled[0].Request.Header.Values("Accept")}},
			{Purpose: "p/configured", Method: http.MethodGet, URL: s + "?configured", BasedOn: s, Header: http.Header{"X-Custom-Token": {exchange.Redacted}}},
			{Purpose: "p/unknown", Method: http.MethodGet, URL: s + "?unknown", BasedOn: s, Header: http.Header{"Prefer": {exchange.Redacted}}},
		}
	}
	cfg := Config{Start: mustParse(t, srv.URL), UserAgent: "probe-test",
		Headers: http.Header{"Accept": {"application/vnd.api+json"}, "X-Custom-Token": {"custom-secret-1"}}}
	res := run(t, cfg, plan)
	if got := res.Recording.Exchanges[0].Request.Header; got.Get("Accept") != "application/vnd.api+json" || got.Get("X-Custom-Token") != exchange.Redacted {
		t.Errorf("the crawl recorded %v: want the plain Accept as sent and the credential redacted", got)
	}
	byQuery := map[string]seenRequest{}
	for _, r := range rec.requests() {
		byQuery[r.Query] = r
	}
	want := map[string]http.Header{
		"repeat":     {"User-Agent": {"probe-test"}, "X-Custom-Token": {"custom-secret-1"}, "Accept": {"application/vnd.api+json"}},
		"configured": {"User-Agent": {"probe-test"}, "X-Custom-Token": {"custom-secret-1"}},
		"unknown":    {"User-Agent": {"probe-test"}, "X-Custom-Token": {"custom-secret-1"}},
	}
	for q, h := range want {
		if got := byQuery[q].Header; !sameHeader(got, h) {
			t.Errorf("probe %q arrived with %v, want exactly %v", q, got, h)
		}
	}
}

// TestPlannedProbesGoResourceByResource: a budget that ends the probes must
// leave the resources probed with every probe their checks compare, so the
// probes of one resource go out together, not every GET of every resource
// before the first HEAD.
func TestPlannedProbesGoResourceByResource(t *testing.T) {
	srv, rec := serve(t, routes{
		"/":  halBody(`{"_links": {"a": {"href": "/a"}, "b": {"href": "/b"}}}`),
		"/a": halBody(`{}`), "/b": halBody(`{}`),
	})
	plan := func(_, samples []*exchange.Exchange) []exchange.PlannedRequest {
		var out []exchange.PlannedRequest
		for _, s := range samples {
			if exchange.PathOf(s.Request.URL) == "/" {
				continue
			}
			for _, m := range []string{http.MethodGet, http.MethodHead, http.MethodOptions} {
				out = append(out, exchange.PlannedRequest{Purpose: "p/" + m, Method: m, URL: s.Request.URL + "?probe", BasedOn: s.Request.URL})
			}
		}
		return out
	}
	run(t, Config{Start: mustParse(t, srv.URL+"/"), Concurrency: 1}, plan)
	var order []string
	for _, r := range rec.requests() {
		if r.Query == "probe" {
			order = append(order, r.Method+" "+r.Path)
		}
	}
	want := []string{"GET /a", "HEAD /a", "OPTIONS /a", "GET /b", "HEAD /b", "OPTIONS /b"}
	if !slices.Equal(order, want) {
		t.Errorf("probes sent in the order %v, want %v", order, want)
	}
}

// sameHeader compares header sets; Go's server adds none of its own to
// r.Header except those the client sent.
func sameHeader(got, want http.Header) bool {
	if len(got) != len(want) {
		return false
	}
	for k, vs := range want {
		if !slices.Equal(got[k], vs) {
			return false
		}
	}
	return true
}

// TestSharedPlannedRequestIsFoundUnderEveryPurpose: two families planning the
// same request (an HTML page asked for its Markdown twin) get one request on
// the wire, and each finds the answer under its own purpose.
func TestSharedPlannedRequestIsFoundUnderEveryPurpose(t *testing.T) {
	srv, rec := serve(t, routes{"/": halBody(`{}`)})
	plan := func(_, samples []*exchange.Exchange) []exchange.PlannedRequest {
		s := samples[0].Request.URL
		md := http.Header{"Accept": {"text/markdown"}}
		return []exchange.PlannedRequest{
			{Purpose: "discovery/markdown", Method: http.MethodGet, URL: s, Header: md, BasedOn: s},
			{Purpose: "negotiation/alternate", Method: http.MethodGet, URL: s, Header: md, BasedOn: s},
			{Purpose: "negotiation/alternate", Method: http.MethodGet, URL: s, Header: md, BasedOn: s},
			{Purpose: "vary/alternate", Method: http.MethodGet, URL: s, Header: md, BasedOn: s},
			{Purpose: "p/alone", Method: http.MethodGet, URL: s + "?alone", BasedOn: s},
		}
	}
	res := run(t, Config{Start: mustParse(t, srv.URL)}, plan)
	if n := countRequests(rec, "/", "text/markdown"); n != 1 {
		t.Errorf("the shared request was sent %d times, want once", n)
	}
	first := res.Recording.Probe("discovery/markdown", srv.URL+"/")
	if first == nil {
		t.Fatal("the first purpose lost its exchange")
	}
	wantShared := []exchange.Use{{Purpose: "negotiation/alternate", BasedOn: srv.URL + "/"}, {Purpose: "vary/alternate", BasedOn: srv.URL + "/"}}
	if !slices.Equal(first.SharedWith, wantShared) {
		t.Errorf("SharedWith = %+v, want %+v", first.SharedWith, wantShared)
	}
	ix := exchange.NewIndex(res.Recording)
	for _, purpose := range []string{"discovery/markdown", "negotiation/alternate", "vary/alternate"} {
		if x := ix.Get(purpose, srv.URL+"/"); x != first {
			t.Errorf("Index.Get(%s) = %v, want the shared exchange", purpose, x)
		}
		if x := res.Recording.Probe(purpose, srv.URL+"/"); x != first {
			t.Errorf("Recording.Probe(%s) = %v, want the shared exchange", purpose, x)
		}
		if n := len(slices.Collect(res.Recording.WithPurpose(purpose))); n != 1 {
			t.Errorf("WithPurpose(%s) yields %d exchanges, want 1", purpose, n)
		}
	}
	if alone := res.Recording.Probe("p/alone", srv.URL+"/"); alone == nil || alone.SharedWith != nil {
		t.Errorf("an unshared probe = %+v, want one without SharedWith", alone)
	}
}

func countRequests(rec *recorder, path, accept string) int {
	n := 0
	for _, r := range rec.requests() {
		if r.Path == path && r.Header.Get("Accept") == accept {
			n++
		}
	}
	return n
}

func TestValidatePlanned(t *testing.T) {
	start := mustParse(t, "https://api.example.com")
	tests := []struct {
		p       exchange.PlannedRequest
		wantErr bool
	}{
		{exchange.PlannedRequest{Method: "GET", URL: "https://api.example.com/x"}, false},
		{exchange.PlannedRequest{Method: "HEAD", URL: "https://API.example.com:443/x"}, false},
		{exchange.PlannedRequest{Method: "OPTIONS", URL: "https://api.example.com/"}, false},
		{exchange.PlannedRequest{Method: "POST", URL: "https://api.example.com/x"}, true},
		{exchange.PlannedRequest{Method: "PATCH", URL: "https://api.example.com/x"}, true},
		{exchange.PlannedRequest{Method: "", URL: "https://api.example.com/x"}, true},
		{exchange.PlannedRequest{Method: "GET", URL: "http://api.example.com/x"}, true},
		{exchange.PlannedRequest{Method: "GET", URL: "ftp://api.example.com/x"}, true},
		// Made from a scrubbed recording: the real value is not known.
		{exchange.PlannedRequest{Method: "GET", URL: "https://api.example.com/t/REDACTED"}, true},
		{exchange.PlannedRequest{Method: "GET", URL: "https://api.example.com/x", Header: http.Header{"Accept": {"application/x-REDACTED+json"}}}, true},
		{exchange.PlannedRequest{Method: "GET", URL: "https://api.example.com/x", Body: []byte(`{"id":"REDACTED"}`)}, true},
		// A user's header, which plannedHeader sends as configured.
		{exchange.PlannedRequest{Method: "GET", URL: "https://api.example.com/x", Header: http.Header{"X-Tenant": {"REDACTED"}}}, false},
	}
	for _, tt := range tests {
		if err := validatePlanned(tt.p, start, false); (err != nil) != tt.wantErr {
			t.Errorf("validatePlanned(%s %s) = %v, want error %v", tt.p.Method, tt.p.URL, err, tt.wantErr)
		}
	}
	if err := validatePlanned(exchange.PlannedRequest{Method: "POST", URL: "https://api.example.com/x"}, start, true); err != nil {
		t.Errorf("AllowUnsafe must permit POST: %v", err)
	}
}

func TestRedaction(t *testing.T) {
	srv, _ := serve(t, routes{"/": func(w http.ResponseWriter, r *http.Request) {
		http.SetCookie(w, &http.Cookie{Name: "session", Value: "c00kie"})
		w.Header().Set("X-Tenant", "echo-t0ken")
		halBody(`{}`)(w, r)
	}})
	cfg := Config{Start: mustParse(t, srv.URL), Headers: http.Header{"Authorization": {"Bearer s3cret"}, "x-tenant": {"t0ken"}}}
	res := run(t, cfg, nil)
	raw, err := json.Marshal(res.Recording)
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{"s3cret", "t0ken", "c00kie"} {
		if strings.Contains(string(raw), secret) {
			t.Errorf("recording contains %q: %s", secret, raw)
		}
	}
	x := res.Recording.Exchanges[0]
	for _, h := range []http.Header{x.Request.Header, x.Response.Header} {
		for _, name := range []string{"X-Tenant"} {
			if !slices.Equal(h[name], []string{exchange.Redacted}) {
				t.Errorf("%s = %q, want redacted", name, h[name])
			}
		}
	}
	if !slices.Equal(x.Request.Header["Authorization"], []string{exchange.Redacted}) ||
		!slices.Equal(x.Response.Header["Set-Cookie"], []string{exchange.Redacted}) {
		t.Errorf("request %v response %v", x.Request.Header, x.Response.Header)
	}
	if x.ID != "x0001" || x.Response.Proto != "HTTP/1.1" {
		t.Errorf("id=%q proto=%q", x.ID, x.Response.Proto)
	}
}

// TestEchoedCredentialsAreScrubbed: a server that echoes credentials (its
// own caller's, and another identity's that a shared cache served it) into
// bodies, headers and links leaves none of them in the recording, and the
// sizes received stay as received.
func TestEchoedCredentialsAreScrubbed(t *testing.T) {
	const own, other = "own-t0ken-1234", "other-identity-t0ken"
	debug := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Debug-Auth", r.Header.Get("Authorization"))
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(http.StatusInternalServerError)
		fmt.Fprintf(w, "panic: nil map\nAuthorization: %s\ncached for: Bearer %s\n", r.Header.Get("Authorization"), other)
	}
	srv, seen := serve(t, routes{
		"/":      halBody(`{"_links": {"self": {"href": "/"}, "next": {"href": "/debug?access_token=` + own + `"}}, "me": "` + own + `"}`),
		"/debug": debug,
	})
	cfg := Config{Start: mustParse(t, srv.URL), Headers: http.Header{"Authorization": {"Bearer " + own}},
		Secrets: http.Header{"Authorization": {"Bearer " + other}}}
	res := run(t, cfg, nil)
	raw, err := json.Marshal(res.Recording)
	if err != nil {
		t.Fatal(err)
	}
	for x := range res.Recording.Crawled() {
		if x.Response != nil {
			raw = append(raw, x.Response.Body...)
		}
	}
	for _, secret := range []string{own, other} {
		if strings.Contains(string(raw), secret) {
			t.Errorf("recording contains %q: %s", secret, raw)
		}
	}
	root, dbg := crawlOf(res, "/"), crawlOf(res, "/debug")
	if root == nil || dbg == nil {
		t.Fatalf("crawled %v", crawledPaths(res))
	}
	if root.Response.BodySize != int64(len(root.Response.Body)+2*(len(own)-len(exchange.Redacted))) || root.Response.Redactions != 2 {
		t.Errorf("root: size %d for %d bytes, %d redactions; want the size received and 2", root.Response.BodySize, len(root.Response.Body), root.Response.Redactions)
	}
	// The link is followed as the server wrote it; the recording shows the
	// credential redacted.
	if dbg.Request.URL != srv.URL+"/debug?access_token="+exchange.Redacted || !strings.Contains(string(dbg.Response.Body), "Authorization: "+exchange.Redacted) ||
		dbg.Response.Header.Get("X-Debug-Auth") != exchange.Redacted || dbg.Response.Redactions != 3 {
		t.Errorf("debug: %s %q %v (%d redactions)", dbg.Request.URL, dbg.Response.Body, dbg.Response.Header, dbg.Response.Redactions)
	}
	for _, r := range seen.requests() {
		if r.Header.Get("Authorization") != "Bearer "+own {
			t.Errorf("%s %s sent Authorization %q: Secrets are never sent", r.Method, r.Path, r.Header.Get("Authorization"))
		}
	}
}

// Every shared header's value is scrubbed, whatever its name: an app
// repeats an innocent-looking tenant in its links and bodies as readily as a
// token. The crawl follows links as the server wrote them; a probe planned
// from a recorded URL goes to the URL the crawl requested, and one derived
// from it, whose real URL is not known, is not sent. A value shorter than
// exchange.MinSecretLen is left in what the server sent.
func TestHeaderValuesAreScrubbed(t *testing.T) {
	const token = "tok-0123456789"
	srv, seen := serve(t, routes{
		"/":                         halBody(`{"_links": {"self": {"href": "/"}, "orders": {"href": "/tenants/acme-corp/orders"}, "feed": {"href": "/feed?access_token=` + token + `"}}, "region": "eu-1"}`),
		"/tenants/acme-corp/orders": halBody(`{"_links": {"self": {"href": "/tenants/acme-corp/orders"}}, "tenant": "ACME-CORP"}`),
		"/feed":                     halBody(`{"_links": {"self": {"href": "/feed"}}}`),
	})
	cfg := Config{Start: mustParse(t, srv.URL), Headers: http.Header{"X-Tenant": {"acme-corp"}, "X-Api-Key": {token}, "X-Region": {"eu-1"}}}
	res := run(t, cfg, func(crawled, _ []*exchange.Exchange) []exchange.PlannedRequest {
		var out []exchange.PlannedRequest
		for _, x := range crawled {
			out = append(out,
				exchange.PlannedRequest{Purpose: "p/head", Method: http.MethodHead, URL: x.Request.URL, BasedOn: x.Request.URL},
				exchange.PlannedRequest{Purpose: "p/child", Method: http.MethodGet, URL: strings.TrimSuffix(x.Request.URL, "/") + "/child", BasedOn: x.Request.URL})
		}
		return out
	})
	orders := crawlOf(res, "/tenants/"+exchange.Redacted+"/orders")
	if orders == nil || orders.Response.Status != http.StatusOK || !strings.Contains(string(orders.Response.Body), `"tenant": "REDACTED"`) {
		t.Fatalf("the tenant's orders were not crawled, or recorded with the tenant: %v", crawledPaths(res))
	}
	if root := crawlOf(res, "/"); root == nil || !strings.Contains(string(root.Response.Body), `"region": "eu-1"`) {
		t.Errorf("the short region was scrubbed from the root: %+v", root)
	}
	var sent []string
	for _, r := range seen.requests() {
		sent = append(sent, r.Method+" "+r.Path+"?"+r.Query)
		if strings.Contains(r.Path, exchange.Redacted) || strings.Contains(r.Query, exchange.Redacted) {
			t.Errorf("sent %s %s?%s: a redacted URL was made up", r.Method, r.Path, r.Query)
		}
	}
	for _, want := range []string{"GET /tenants/acme-corp/orders?", "HEAD /tenants/acme-corp/orders?", "GET /feed?access_token=" + token, "HEAD /feed?access_token=" + token, "GET /child?"} {
		if !slices.Contains(sent, want) {
			t.Errorf("%q was not sent: %v", want, sent)
		}
	}
	raw, _ := json.Marshal(res)
	for _, secret := range []string{"acme-corp", "ACME-CORP", token} {
		if strings.Contains(string(raw), secret) {
			t.Errorf("the result holds %q", secret)
		}
	}
	if !slices.ContainsFunc(res.Notes, func(n string) bool {
		return strings.Contains(n, "/tenants/REDACTED/orders/child") && strings.Contains(n, "held a credential")
	}) {
		t.Errorf("no note on the derived probe not sent: %v", res.Notes)
	}
}

func TestHostileServer(t *testing.T) {
	t.Parallel()
	srv, _ := serve(t, hostile.New())
	cfg := Config{Start: mustParse(t, srv.URL), Budget: 5 * time.Second, Timeout: 2 * time.Second, MaxBody: 1 << 20, Rate: 1000}
	res, err := Run(t.Context(), cfg, func(crawled, samples []*exchange.Exchange) []exchange.PlannedRequest {
		var out []exchange.PlannedRequest
		for _, s := range samples {
			out = append(out, exchange.PlannedRequest{Purpose: "p/head", Method: http.MethodHead, URL: s.Request.URL, BasedOn: s.Request.URL})
		}
		return out
	})
	if err != nil {
		t.Fatal(err)
	}
	huge := crawlOf(res, "/huge")
	if huge == nil || huge.Response == nil || !huge.Response.Truncated || len(huge.Response.Body) > 1<<20 {
		t.Errorf("/huge = %+v", huge)
	}
	loops := 0
	for x := range res.Recording.Crawled() {
		if p := exchange.PathOf(x.Request.URL); p == "/loop" || p == "/loop2" {
			loops++
		}
	}
	if loops == 0 || loops > 2 {
		t.Errorf("loop exchanges = %d, want 1 or 2", loops)
	}
	// The probe records what came back; sanitizing is the reporters' job.
	if esc := crawlOf(res, "/escape"); esc == nil || esc.Response == nil || esc.Response.Header.Get("X-Title") != hostile.EscapeC1+"owned" {
		t.Errorf("/escape = %+v", esc)
	}
	if res.Stats.Pages == 0 || res.Stats.Pages > 200 {
		t.Errorf("pages = %d", res.Stats.Pages)
	}
}

func TestAll500IsRecordedNotAnError(t *testing.T) {
	srv, _ := serve(t, hostile.NewAll500())
	res := run(t, Config{Start: mustParse(t, srv.URL)}, nil)
	if res.Stats.Pages != 1 || res.Recording.Exchanges[0].Response.Status != http.StatusInternalServerError {
		t.Errorf("pages=%d exchanges=%+v", res.Stats.Pages, res.Recording.Exchanges)
	}
	if len(res.Recording.Samples) != 0 {
		t.Errorf("an error page must not be sampled: %v", res.Recording.Samples)
	}
}

func TestUnreachableStart(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	_, err = Run(t.Context(), Config{Start: mustParse(t, "http://"+addr+"/")}, nil)
	if !errors.Is(err, ErrUnreachable) {
		t.Errorf("err = %v, want ErrUnreachable", err)
	}
}

func TestBadStartURL(t *testing.T) {
	for _, raw := range []string{"ftp://example.com/", "/relative"} {
		if _, err := Run(t.Context(), Config{Start: mustParse(t, raw)}, nil); err == nil || errors.Is(err, ErrUnreachable) {
			t.Errorf("Run(%q) = %v, want a configuration error", raw, err)
		}
	}
}
