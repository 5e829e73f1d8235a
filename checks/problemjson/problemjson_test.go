package problemjson_test

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/checkstest"
	"github.com/agentready/agentready/checks/internal/conneg"
	"github.com/agentready/agentready/checks/problemjson"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
)

const (
	base     = "http://api.test"
	sample   = base + "/orders/1"
	prob     = "application/problem+json"
	notFound = `{"type":"https://api.test/problems/not-found","title":"Not Found","status":404,"detail":"no order 9"}`
)

// errResp is one error response the scan met.
type errResp struct {
	purpose, method, url string
	status               int
	ctype, body          string
	hdr                  map[string]string
}

func e(purpose, url string, status int, ctype, body string) errResp {
	return errResp{purpose: purpose, method: http.MethodGet, url: url, status: status, ctype: ctype, body: body}
}

// input builds a recording with one JSON sample and the given responses.
func input(rs ...errResp) *checks.Input {
	xs := []*exchange.Exchange{
		checkstest.Exchange(exchange.PurposeCrawl, http.MethodGet, sample).Status(200).
			Header("Content-Type", "application/hal+json").Body(`{"_links":{"self":{"href":"/orders/1"}}}`).Build(),
	}
	for _, r := range rs {
		b := checkstest.Exchange(r.purpose, r.method, r.url).Status(r.status).Body(r.body).ReqHeader("Accept", "application/hal+json")
		if r.purpose != exchange.PurposeCrawl {
			b.BasedOn(sample)
		}
		if r.ctype != "" {
			b.Header("Content-Type", r.ctype)
		}
		for k, v := range r.hdr {
			b.Header(k, v)
		}
		xs = append(xs, b.Build())
	}
	return checkstest.Input(base+"/", []string{sample}, xs...)
}

func runAll(t *testing.T, in *checks.Input) ([]finding.Finding, []string) {
	t.Helper()
	return runChecks(t, problemjson.All(), in)
}

// runLive is runAll without the checks of the document alone: the cases of
// an exchange against testSpec, whose /plain operation declares a text
// error on purpose, which documentCases judge.
func runLive(t *testing.T, in *checks.Input) ([]finding.Finding, []string) {
	t.Helper()
	return runChecks(t, slices.DeleteFunc(problemjson.All(), checks.IsStatic), in)
}

func runChecks(t *testing.T, cs []checks.Check, in *checks.Input) ([]finding.Finding, []string) {
	t.Helper()
	var all []finding.Finding
	for _, c := range cs {
		fs := runOne(t, c, in)
		all = append(all, fs...)
	}
	return all, checkstest.IDs(all)
}

// runOne is checkstest.Run, except that a static check's findings carry a
// location in the document instead of an exchange.
func runOne(t *testing.T, c checks.Check, in *checks.Input) []finding.Finding {
	t.Helper()
	if !checks.IsStatic(c) {
		fs, _ := checkstest.Run(t, c, in)
		return fs
	}
	fs, err := c.Run(context.Background(), in)
	if _, skipped := checks.IsSkip(err); skipped {
		return nil
	}
	if err != nil {
		t.Fatalf("%s: %v", c.Meta().ID, err)
	}
	for _, f := range fs {
		if f.CheckID != c.Meta().ID || f.Message == "" || f.Location == nil || f.Location.Line == 0 {
			t.Errorf("%s: malformed finding %+v", c.Meta().ID, f)
		}
	}
	return fs
}

// fireCase is one case of the family's table: what the scan met, and the
// checks that fire on it.
type fireCase struct {
	what string
	in   func() *checks.Input
	want []string
	// live says the case is judged without the checks of the document
	// alone (runLive).
	live bool
}

// fireCases are the family's table cases, as FiredBy names them.
func fireCases() []fireCase {
	var out []fireCase
	for _, tt := range errorCases() {
		out = append(out, fireCase{tt.what, func() *checks.Input { return input(tt.rs...) }, tt.want, false})
	}
	for _, tt := range specCases() {
		out = append(out, fireCase{tt.what, func() *checks.Input { return withSpec(input(tt.rs...)) }, tt.want, true})
	}
	for _, tt := range documentCases() {
		out = append(out, fireCase{tt.what, func() *checks.Input { return withDocument(input(), tt.responses) }, tt.want, false})
	}
	return out
}

type errorCase struct {
	what string
	rs   []errResp
	want []string
}

func TestChecksFireOnlyOnTheirDefect(t *testing.T) {
	for _, tt := range errorCases() {
		t.Run(tt.what, func(t *testing.T) {
			_, got := runAll(t, input(tt.rs...))
			if !slices.Equal(got, tt.want) {
				t.Errorf("fired %v, want %v", got, tt.want)
			}
		})
	}
}

func errorCases() []errorCase {
	missing := base + "/orders/" + problemjson.MissingID
	return []errorCase{
		{"conformant problem", []errResp{e(problemjson.PurposeNotFound, missing, 404, prob, notFound)}, nil},
		{"problem+xml is fine", []errResp{e(problemjson.PurposeNotFound, missing, 404, "application/problem+xml", `<problem xmlns="urn:ietf:rfc:7807"/>`)}, nil},
		{"charset parameter is fine", []errResp{e(problemjson.PurposeNotFound, missing, 404, prob+"; charset=utf-8", notFound)}, nil},
		{"about:blank with reason phrase", []errResp{e(problemjson.PurposeNotFound, missing, 404, prob, `{"title":"Not Found","status":404}`)}, nil},
		{"about:blank localized title", []errResp{{purpose: problemjson.PurposeNotFound, method: "GET", url: missing, status: 404, ctype: prob,
			body: `{"title":"Nicht gefunden","status":404}`, hdr: map[string]string{"Content-Language": "de"}}}, nil},
		{"422 under its RFC 9110 phrase", []errResp{e(exchange.PurposeCrawl, base+"/x", 422, prob, `{"title":"Unprocessable Content","status":422}`)}, nil},
		{"HEAD is not judged", []errResp{{purpose: conneg.PurposeHead, method: http.MethodHead, url: sample, status: 404, ctype: "text/html"}}, nil},
		{"other families' probes are not judged", []errResp{e("mcp/initialize", base+"/mcp", 400, "application/json", `{"jsonrpc":"2.0"}`)}, nil},
		{"2xx and 3xx are not errors", []errResp{e(exchange.PurposeCrawl, base+"/r", 302, "text/html", "<a>moved</a>"), e(exchange.PurposeCrawl, base+"/s", 200, "text/html", "ok")}, nil},

		{"success labelled problem", []errResp{e(exchange.PurposeCrawl, base+"/orders", 200, prob, `{"_links":{"self":{"href":"/orders"}}}`)}, []string{"problem-json-success-labelled"}},
		{"success array labelled problem", []errResp{e(exchange.PurposeCrawl, base+"/orders", 200, prob, `[]`)}, []string{"problem-json-success-labelled"}},
		{"problem reported with a 2xx is a problem", []errResp{e(exchange.PurposeCrawl, base+"/orders/9", 200, prob, notFound)}, nil},
		{"html 404", []errResp{e(problemjson.PurposeNotFound, missing, 404, "text/html", "<h1>Not Found</h1>")}, []string{"problem-json-media-type"}},
		{"empty 405 to OPTIONS", []errResp{{purpose: conneg.PurposeOptions, method: http.MethodOptions, url: sample, status: 405}}, []string{"problem-json-media-type"}},
		{"406 reused from negotiation", []errResp{e(conneg.PurposeUnsupported, sample, 406, "text/plain", "Not Acceptable")}, []string{"problem-json-media-type"}},
		{"framework json error is not a problem", []errResp{e(exchange.PurposeCrawl, base+"/x", 404, "application/json", `{"timestamp":"t","status":404,"error":"Not Found","path":"/x"}`)}, []string{"problem-json-media-type"}},
		{"problem as application/json", []errResp{e(problemjson.PurposeNotFound, missing, 404, "application/json", notFound)}, []string{"problem-json-served-as-json"}},
		{"invalid json", []errResp{e(problemjson.PurposeNotFound, missing, 404, prob, `{"title":`)}, []string{"problem-json-invalid-json"}},
		{"empty problem body", []errResp{e(problemjson.PurposeNotFound, missing, 404, prob, ``)}, []string{"problem-json-invalid-json"}},
		{"array problem body", []errResp{e(problemjson.PurposeNotFound, missing, 404, prob, `[1]`)}, []string{"problem-json-invalid-json"}},
		{"trailing garbage", []errResp{e(problemjson.PurposeNotFound, missing, 404, prob, notFound+"x")}, []string{"problem-json-invalid-json"}},
		{"status mismatch on 405", []errResp{e(exchange.PurposeCrawl, base+"/orders/1/payment", 405, prob,
			`{"type":"https://api.test/problems/method","title":"Method Not Allowed","status":400}`)}, []string{"problem-json-status-mismatch"}},
		{"status as string", []errResp{e(problemjson.PurposeNotFound, missing, 404, prob,
			`{"type":"https://api.test/problems/not-found","title":"Not Found","status":"404"}`)}, []string{"problem-json-member-type"}},
		{"type as number", []errResp{e(problemjson.PurposeNotFound, missing, 404, prob, `{"type":42,"title":"Not Found","status":404}`)}, []string{"problem-json-member-type"}},
		{"relative type", []errResp{e(problemjson.PurposeNotFound, missing, 404, prob, `{"type":"not-found","title":"Not Found","status":404}`)}, []string{"problem-json-type-uri"}},
		{"type with spaces", []errResp{e(problemjson.PurposeNotFound, missing, 404, prob, `{"type":"order not found","title":"Not Found","status":404}`)}, []string{"problem-json-type-uri"}},
		{"absolute-path type is fine", []errResp{e(problemjson.PurposeNotFound, missing, 404, prob, `{"type":"/problems/not-found","title":"Not Found","status":404}`)}, nil},
		{"tag type is fine", []errResp{e(problemjson.PurposeNotFound, missing, 404, prob, `{"type":"tag:api.test,2024:not-found","title":"Not Found","status":404}`)}, nil},
		{"about:blank custom title", []errResp{e(problemjson.PurposeNotFound, missing, 404, prob, `{"title":"Order missing","status":404}`)}, []string{"problem-json-title-reason-phrase"}},
		{"titles vary for one type", []errResp{
			e(problemjson.PurposeNotFound, missing, 404, prob, `{"type":"https://api.test/p/nf","title":"No order 9","status":404}`),
			e(problemjson.PurposeUnknownPath, base+"/"+problemjson.MissingID, 404, prob, `{"type":"https://api.test/p/nf","title":"No route","status":404}`),
		}, []string{"problem-json-title-varies"}},
		{"relative types resolving apart do not vary", []errResp{
			e(problemjson.PurposeNotFound, base+"/a/x", 404, prob, `{"type":"nf","title":"A","status":404}`),
			e(problemjson.PurposeNotFound, base+"/b/x", 404, prob, `{"type":"nf","title":"B","status":404}`),
		}, []string{"problem-json-type-uri"}},
		{"about:blank titles per status do not vary", []errResp{
			e(problemjson.PurposeNotFound, missing, 404, prob, `{"title":"Not Found","status":404}`),
			e(exchange.PurposeCrawl, base+"/orders/1/payment", 405, prob, `{"title":"Method Not Allowed","status":405}`),
		}, nil},
		{"localized titles do not vary", []errResp{
			{purpose: problemjson.PurposeNotFound, method: "GET", url: missing, status: 404, ctype: prob, body: `{"type":"/p/nf","title":"Not found"}`, hdr: map[string]string{"Content-Language": "en"}},
			{purpose: problemjson.PurposeUnknownPath, method: "GET", url: base + "/z", status: 404, ctype: prob, body: `{"type":"/p/nf","title":"Introuvable"}`, hdr: map[string]string{"Content-Language": "fr"}},
		}, nil},
		{"extension names", []errResp{e(problemjson.PurposeNotFound, missing, 404, prob,
			`{"type":"/p/nf","title":"Not Found","invalid-params":[],"id":1,"balance":3,"errors_2":[]}`)}, []string{"problem-json-extension-names"}},
		{"500 on a probe", []errResp{e(problemjson.PurposeValuelessFlag, base+"/orders?debug&limit=1", 500, prob,
			`{"type":"/p/internal","title":"Internal Server Error","status":500}`)}, []string{"problem-json-server-error"}},
		{"500 on a crawled link", []errResp{e(exchange.PurposeCrawl, base+"/orders/1/invoice", 500, prob,
			`{"type":"/p/internal","title":"Internal Server Error","status":500}`)}, []string{"problem-json-server-error"}},
		{"503 is overload, not input; it only lacks a Retry-After", []errResp{e(problemjson.PurposeValuelessFlag, base+"/orders?debug&limit=1", 503, prob,
			`{"type":"/p/busy","title":"Service Unavailable","status":503}`)}, []string{"problem-json-retry-after"}},
		{"500 on a negotiation probe is negotiation's finding", []errResp{e(conneg.PurposeMalformed, sample, 500, prob,
			`{"type":"/p/internal","title":"Internal Server Error","status":500}`)}, nil},
		{"500 to the Markdown twin's Accept: text/html", []errResp{e("discovery/markdown-html", sample, 500, "text/plain", "boom")},
			[]string{"problem-json-server-error"}},
		{"500 to a well-known document", []errResp{e("discovery/api-catalog", base+"/.well-known/api-catalog", 500, "text/plain", "boom")},
			[]string{"problem-json-server-error"}},
		{"500 to an own-type negotiation probe", []errResp{e(conneg.PurposeOwn, sample, 500, prob,
			`{"type":"/p/internal","title":"Internal Server Error","status":500}`)}, []string{"problem-json-server-error"}},
		{"500 to a discovery probe that answered 200 when sent again", []errResp{
			e("discovery/api-catalog", base+"/.well-known/api-catalog", 500, "text/plain", "boom"),
			e(conneg.RepeatPurpose("problem-json/confirm-5xx/discovery/api-catalog", 2), base+"/.well-known/api-catalog", 200, "application/linkset+json", `{"linkset":[]}`),
		}, nil},
		{"503 with Retry-After is throttling", []errResp{{purpose: "discovery/api-catalog", method: http.MethodGet, url: base + "/.well-known/api-catalog",
			status: 503, ctype: "text/plain", body: "busy", hdr: map[string]string{"Retry-After": "1"}}}, nil},
		{"500 to robots.txt is discovery's finding", []errResp{e("discovery/robots", base+"/robots.txt", 500, "text/plain", "boom")}, nil},
		{"500 to an unsupported type is negotiation's finding", []errResp{e(conneg.PurposeUnsupported, sample, 500, "text/plain", "boom")},
			[]string{"problem-json-media-type"}},
		{"500 to OPTIONS is negotiation's finding", []errResp{{purpose: conneg.PurposeOptions, method: http.MethodOptions, url: sample, status: 500}},
			[]string{"problem-json-media-type"}},
		{"java stack trace in detail", []errResp{e(problemjson.PurposeColonCursor, base+"/orders?page=a%3Ab", 400, prob,
			`{"type":"/p/bad","title":"Bad Request","status":400,"detail":"java.lang.NumberFormatException: For input string: \"a:b\"\n\tat com.acme.Orders.list(Orders.java:42)"}`)}, []string{"problem-json-leak"}},
		{"debug page", []errResp{e(exchange.PurposeCrawl, base+"/x", 404, prob,
			`{"type":"/p/nf","title":"Not Found","status":404,"detail":"see /orders/1 instead"}`),
			e(problemjson.PurposeUnknownPath, base+"/y", 404, "text/html", "<p>You&#x27;re seeing this error because you have <code>DEBUG = True</code></p>")},
			[]string{"problem-json-leak", "problem-json-media-type"}},
		{"go net/http default 404", []errResp{{purpose: problemjson.PurposeUnknownPath, method: "GET", url: base + "/" + problemjson.MissingID, status: 404,
			ctype: "text/plain; charset=utf-8", body: "404 page not found\n", hdr: map[string]string{"X-Content-Type-Options": "nosniff"}}},
			[]string{"problem-json-media-type"}},
		{"go http.Error", []errResp{{purpose: problemjson.PurposeNegativeLimit, method: "GET", url: base + "/orders?limit=-1", status: 400,
			ctype: "text/plain; charset=utf-8", body: "limit must be positive\n", hdr: map[string]string{"X-Content-Type-Options": "nosniff"}}},
			[]string{"problem-json-media-type"}},
	}
}

func TestFiredByCases(t *testing.T) {
	checkstest.FiredBy(t, problemjson.All(), func(t *testing.T, name string) ([]string, bool) {
		for _, tt := range fireCases() {
			if tt.what == name && tt.live {
				_, got := runLive(t, tt.in())
				return got, true
			}
			if tt.what == name {
				_, got := runAll(t, tt.in())
				return got, true
			}
		}
		return nil, false
	})
}

func TestRepeatsAreGroupedAndCounted(t *testing.T) {
	var rs []errResp
	for _, id := range []string{"7", "8", "9"} {
		rs = append(rs, e(exchange.PurposeCrawl, base+"/orders/"+id, 404, "text/html", "<h1>Not Found</h1>"))
	}
	rs = append(rs, e(exchange.PurposeCrawl, base+"/users/17", 404, "text/html", "<h1>Not Found</h1>"))
	fs, _ := checkstest.Run(t, problemjson.MediaType{}, input(rs...))
	if len(fs) != 2 {
		t.Fatalf("got %d findings, want one per path shape: %+v", len(fs), fs)
	}
	if !strings.Contains(fs[0].Message, "(3 responses like it)") || fs[0].Evidence[0].URL != base+"/orders/7" {
		t.Errorf("first finding = %q on %s", fs[0].Message, fs[0].Evidence[0].URL)
	}
}

func TestFindingsCarryRequestAndCurl(t *testing.T) {
	in := input(e(problemjson.PurposeValuelessFlag, base+"/orders?debug&limit=1", 500, "text/html", "<pre>boom</pre>"))
	all, _ := runAll(t, in)
	if len(all) == 0 {
		t.Fatal("no finding")
	}
	for _, f := range all {
		ev := f.Evidence[0]
		if ev.Method != "GET" || ev.URL != base+"/orders?debug&limit=1" || ev.Status != 500 ||
			!strings.Contains(ev.Curl, "'http://api.test/orders?debug&limit=1'") || ev.RequestHeaders.Get("Accept") == "" {
			t.Errorf("%s evidence = %+v", f.CheckID, ev)
		}
	}
}

func TestLeakShowsOnlyRedactedExcerpt(t *testing.T) {
	secret := "alice@example.com"
	in := input(e(exchange.PurposeCrawl, base+"/x", 500, prob,
		`{"title":"Internal Server Error","status":500,"detail":"SELECT * FROM users WHERE email = '`+secret+`'"}`))
	fs, _ := checkstest.Run(t, problemjson.Leak{}, in)
	if len(fs) != 1 || !fs[0].Security {
		t.Fatalf("findings = %+v", fs)
	}
	ev := fs[0].Evidence[0]
	if strings.Contains(ev.Excerpt, secret) || !strings.Contains(ev.Excerpt, "FROM users") || strings.Contains(fs[0].Message, secret) {
		t.Errorf("excerpt %q, message %q", ev.Excerpt, fs[0].Message)
	}
}

func TestLeakNamesPolicyOnlyToCallersWithoutCredentials(t *testing.T) {
	body := `{"title":"Forbidden","status":403,"detail":"missing permission 'orders:refund'; upstream billing.prod.internal:8443 is down"}`
	both := []string{
		"the 403 to GET /orders/1/refund names a permission (orders:refund)",
		"the 403 to GET /orders/1/refund names an internal host (x.prod.internal:8443)",
	}
	hostOnly := both[1:]
	tenant := exchange.Caller{Name: "tenant", Credentials: []string{"X-Tenant-Key"}}
	for _, tt := range []struct {
		what string
		// header is sent, redacted as the probe records it, as caller.
		header string
		caller exchange.Caller
		want   []string
	}{
		{"anonymous", "", exchange.Caller{}, both},
		{"with credentials", "Authorization", exchange.Caller{}, hostOnly},
		{"with the identity's own credential header", "X-Tenant-Key", tenant, hostOnly},
		// Every -H value is redacted; that does not make it a credential.
		{"with a shared header only", "X-Trace", exchange.Caller{}, both},
	} {
		t.Run(tt.what, func(t *testing.T) {
			in := input(e(exchange.PurposeCrawl, base+"/orders/1/refund", 403, prob, body))
			in.Caller = tt.caller
			if tt.header != "" {
				in.Recording.Exchanges[1].Request.Header.Set(tt.header, exchange.Redacted)
			}
			fs, _ := checkstest.Run(t, problemjson.Leak{}, in)
			var got []string
			for _, f := range fs {
				got = append(got, f.Message)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("messages %q, want %q", got, tt.want)
			}
		})
	}
}

func TestMessagesNameTheMember(t *testing.T) {
	in := input(e(problemjson.PurposeNotFound, base+"/orders/x", 404, prob, `{"type":"/p","title":"Not Found","status":"404"}`))
	fs, _ := checkstest.Run(t, problemjson.MemberType{}, in)
	if len(fs) != 1 || fs[0].Evidence[0].JSONPointer != "/status" || !strings.Contains(fs[0].Message, "silently dropped") {
		t.Errorf("findings = %+v", fs)
	}
}

func TestSkips(t *testing.T) {
	html := checkstest.Exchange(exchange.PurposeCrawl, http.MethodGet, base+"/").Status(200).Header("Content-Type", "text/html").Body("<p>hi</p>").Build()
	site := checkstest.Input(base+"/", []string{base + "/"}, html,
		checkstest.Exchange(exchange.PurposeCrawl, http.MethodGet, base+"/missing").Status(404).Header("Content-Type", "text/html").Body("<h1>404</h1>").Build())
	noErrors := input()
	problemFree := input(e(exchange.PurposeCrawl, base+"/x", 404, "text/html", "x"))
	for _, c := range problemjson.All() {
		id := c.Meta().ID
		if id == "problem-json-server-error" || id == "problem-json-success-labelled" {
			continue // judge every crawl answer, web sites and successes included
		}
		if _, reason := checkstest.Run(t, c, site); reason == "" {
			t.Errorf("%s: judged a web site that serves no JSON", id)
		}
		if _, reason := checkstest.Run(t, c, noErrors); reason == "" {
			t.Errorf("%s: ran without any error response", id)
		}
	}
	for _, c := range []checks.Check{problemjson.StatusMismatch{}, problemjson.TitleVaries{}, problemjson.ExtensionNames{}} {
		if _, reason := checkstest.Run(t, c, problemFree); !strings.Contains(reason, "problem details") {
			t.Errorf("%s: skip reason %q", c.Meta().ID, reason)
		}
	}
	for _, c := range []checks.Check{problemjson.DeclaredMediaType{}, problemjson.DeclaredType{}, problemjson.UndeclaredStatus{}} {
		if _, reason := checkstest.Run(t, c, problemFree); !strings.Contains(reason, "OpenAPI") {
			t.Errorf("%s: skip reason %q without a spec", c.Meta().ID, reason)
		}
	}
}

func TestHostileBodiesDoNotPanic(t *testing.T) {
	bodies := []string{
		strings.Repeat("[", 100000),
		`{"type":` + strings.Repeat(`{"a":`, 5000) + `1` + strings.Repeat("}", 5000) + `}`,
		`{"type":"\u0000\u001b[2J","title":{"x":1},"status":1e400,"detail":null,"` + strings.Repeat("k", 5000) + `":1}`,
		"\xff\xfe\x00",
	}
	for _, b := range bodies {
		in := input(e(problemjson.PurposeNotFound, base+"/orders/x", 404, prob, b), e(exchange.PurposeCrawl, base+"/y", 500, "application/json", b))
		runAll(t, in)
	}
}

func TestLowerIdentityErrorsAreJudged(t *testing.T) {
	orders := base + "/orders"
	lower := func(body string) checks.IdentityView {
		x := checkstest.Exchange("leakage/cross-fetch", http.MethodGet, orders).BasedOn(orders).Status(401).
			Header("Content-Type", prob).Body(body).Build()
		x.ID, x.Identity = "x0100", "anonymous"
		crawl := checkstest.Exchange(exchange.PurposeCrawl, http.MethodGet, orders).Status(401).
			Header("Content-Type", prob).Body(body).Build()
		crawl.ID, crawl.Identity = "x0101", "anonymous"
		return checks.IdentityView{Caller: exchange.Caller{Name: "anonymous", Rank: 0}, Recording: &exchange.Recording{Exchanges: []*exchange.Exchange{x, crawl}}}
	}
	for _, tt := range []struct {
		what, status string
		want         []string
	}{
		{"status as a string", `"401"`, []string{"problem-json-member-type"}},
		{"conformant", `401`, nil},
	} {
		in := input()
		in.Caller = exchange.Caller{Name: "admin", Rank: 1}
		in.Identities = []checks.IdentityView{lower(`{"type":"about:blank","title":"Unauthorized","status":` + tt.status + `}`),
			{Caller: in.Caller, Recording: in.Recording}}
		fs, ids := runAll(t, in)
		if !slices.Equal(ids, tt.want) {
			t.Errorf("%s: fired %v, want %v", tt.what, ids, tt.want)
		}
		for _, f := range fs {
			if !strings.Contains(f.Message, `as "anonymous"`) || len(f.Evidence) == 0 {
				t.Errorf("%s: %q does not say whose answer it judged", tt.what, f.Message)
			}
		}
	}
}

// The Markdown twin's probe and a discovery document are judged like the
// crawl: their 5xx is a server error naming the probe, sent twice more in the
// follow-up round first, and only reported when the failure holds.
func TestServerErrorJudgesEveryProbeAndConfirmsIt(t *testing.T) {
	twin := e("discovery/markdown-html", sample, 500, "text/plain", "boom")
	fs, _ := checkstest.Run(t, problemjson.ServerError{}, input(twin))
	if len(fs) != 1 || !strings.Contains(fs[0].Message, "GET /orders/1 answered 500") || !strings.Contains(fs[0].Message, "(discovery/markdown-html probe)") {
		t.Fatalf("findings %+v, want one naming the request and the probe", fs)
	}

	first := input(twin, e("discovery/robots", base+"/robots.txt", 200, "text/plain", ""), e("discovery/status", base+"/status", 503, "text/plain", ""))
	got := problemjson.MediaType{}.PlanFollowUp(&checks.PlanInput{Samples: first.Samples, Probes: first.Recording.Exchanges})
	var confirmations []string
	for _, r := range got {
		if strings.HasPrefix(r.Purpose, "problem-json/confirm-5xx/") {
			confirmations = append(confirmations, r.Purpose+" "+r.Method+" "+r.URL+" "+r.Header.Get("Accept")+" "+r.BasedOn)
		}
	}
	want := []string{
		"problem-json/confirm-5xx/discovery/markdown-html#2 GET " + sample + " application/hal+json " + sample,
		"problem-json/confirm-5xx/discovery/markdown-html#3 GET " + sample + " application/hal+json " + sample,
	}
	if !slices.Equal(confirmations, want) {
		t.Errorf("confirmations:\n%s\nwant:\n%s", strings.Join(confirmations, "\n"), strings.Join(want, "\n"))
	}

	held := input(twin,
		e("problem-json/confirm-5xx/discovery/markdown-html#2", sample, 500, "text/plain", "boom"),
		e("problem-json/confirm-5xx/discovery/markdown-html#3", sample, 500, "text/plain", "boom"))
	if fs, _ := checkstest.Run(t, problemjson.ServerError{}, held); len(fs) != 1 {
		t.Errorf("a failure its confirmations repeated: %d findings, want 1", len(fs))
	}
	flaky := input(twin,
		e("problem-json/confirm-5xx/discovery/markdown-html#2", sample, 500, "text/plain", "boom"),
		e("problem-json/confirm-5xx/discovery/markdown-html#3", sample, 200, "text/markdown", "# order"))
	if fs, _ := checkstest.Run(t, problemjson.ServerError{}, flaky); len(fs) != 0 {
		t.Errorf("a failure a confirmation did not repeat: %+v, want none", fs)
	}
}
