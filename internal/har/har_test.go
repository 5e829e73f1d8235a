package har_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentready/agentready/checks/builtin"
	"github.com/agentready/agentready/fixtures/activefix"
	"github.com/agentready/agentready/fixtures/demo"
	"github.com/agentready/agentready/fixtures/expect/expecttest"
	"github.com/agentready/agentready/fixtures/hostile"
	"github.com/agentready/agentready/fixtures/mcpfix"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/golden"
	"github.com/agentready/agentready/internal/har"
	"github.com/agentready/agentready/internal/scan"
	"github.com/agentready/agentready/internal/spec"
	"github.com/agentready/agentready/probe"
	"github.com/agentready/agentready/report"
)

var fixedClock = func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }

// noNetwork fails the test on any request: a replay must send nothing.
type noNetwork struct{ t *testing.T }

func (n noNetwork) RoundTrip(r *http.Request) (*http.Response, error) {
	n.t.Errorf("the replay sent %s %s", r.Method, r.URL)
	return nil, errors.New("no network in a replay")
}

// recorded scans h with opts as the CLI does with --record, and returns the
// report and the HAR written from it. The server is gone when it returns.
func recorded(t *testing.T, h http.Handler, opts scan.Options) (*finding.Report, []byte) {
	t.Helper()
	rep, doc, _ := recording(t, h, opts)
	return rep, doc
}

// recording is recorded with the recording itself.
func recording(t *testing.T, h http.Handler, opts scan.Options) (*finding.Report, []byte, *scan.Recording) {
	t.Helper()
	rep, doc, rec, err := record(h, opts)
	if err != nil {
		t.Fatal(err)
	}
	return rep, doc, rec
}

func record(h http.Handler, opts scan.Options) (*finding.Report, []byte, *scan.Recording, error) {
	srv := httptest.NewServer(h)
	defer srv.Close()
	reg, err := builtin.Registry()
	if err != nil {
		return nil, nil, nil, err
	}
	opts.Probe.Start, _ = url.Parse(srv.URL + "/")
	if opts.Probe.Budget == 0 {
		opts.Probe.Budget = time.Minute
	}
	opts.Checks, opts.Version, opts.Now = reg.All(), "test", fixedClock
	var rec *scan.Recording
	opts.Record = func(r *scan.Recording) { rec = r }
	rep, err := scan.Run(context.Background(), opts)
	if err != nil {
		return nil, nil, nil, err
	}
	var buf bytes.Buffer
	if err := har.Write(&buf, rec, har.Options{Version: "test", Secrets: scan.Scrubber(opts)}); err != nil {
		return nil, nil, nil, err
	}
	return rep, buf.Bytes(), rec, nil
}

// demoRecorded is the conformant demo recorded as the scan's golden test
// scans it, once for the tests that only read the report or the document.
var demoRecorded = sync.OnceValues(func() (recordedScan, error) {
	rep, doc, _, err := record(demo.New(), scan.Options{})
	return recordedScan{rep, doc}, err
})

type recordedScan struct {
	rep *finding.Report
	doc []byte
}

// recordedDemo returns demoRecorded's report and document.
func recordedDemo(t *testing.T) (*finding.Report, []byte) {
	t.Helper()
	r, err := demoRecorded()
	if err != nil {
		t.Fatal(err)
	}
	return r.rep, r.doc
}

// replayed judges the HAR again, with every transport failing the test.
func replayed(t *testing.T, doc []byte, opts scan.Options) *finding.Report {
	t.Helper()
	opts.Probe.Transport = noNetwork{t}
	saved := http.DefaultTransport
	http.DefaultTransport = noNetwork{t}
	defer func() { http.DefaultTransport = saved }()
	return judged(t, doc, opts)
}

// judged reads the HAR and runs the checks on it as scan --replay does.
func judged(t *testing.T, doc []byte, opts scan.Options) *finding.Report {
	t.Helper()
	arch, err := har.Read(bytes.NewReader(doc), har.DefaultMaxSize)
	if err != nil {
		t.Fatal(err)
	}
	reg, err := builtin.Registry()
	if err != nil {
		t.Fatal(err)
	}
	opts.Checks, opts.Version, opts.Now = reg.All(), "test", fixedClock
	opts.Replay = arch.Recording
	rep, err := scan.Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func renderJSON(t *testing.T, rep *finding.Report) []byte {
	t.Helper()
	r, err := report.New("json", report.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := r.Write(&buf, rep); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// sameReport fails when the replay's JSON report differs from the scan's in
// any byte.
func sameReport(t *testing.T, live, replay *finding.Report) {
	t.Helper()
	a, b := renderJSON(t, live), renderJSON(t, replay)
	if !bytes.Equal(a, b) {
		t.Errorf("the replay's report differs from the scan's:\n%s", firstDiff(a, b))
	}
}

func firstDiff(a, b []byte) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	lo := max(0, i-300)
	return "scan:   ..." + string(a[lo:min(len(a), i+200)]) + "\nreplay: ..." + string(b[lo:min(len(b), i+200)])
}

// TestReplayReproducesTheDemoGolden records the demo as the scan's own
// golden test scans it, and replays it to that same committed report.
func TestReplayReproducesTheDemoGolden(t *testing.T) {
	live, doc := recordedDemo(t)
	replay := replayed(t, doc, scan.Options{})
	sameReport(t, live, replay)
	replay.Stats.DurationMS = 0
	golden.Check(t, golden.Path("demo", "report.json"), golden.NormalizePorts(renderJSON(t, replay)))
}

// TestReplayAsSeveralIdentitiesWithMCP scans the demo as `agentready demo`
// does: as anonymous and user, the OpenAPI document discovered, the MCP
// catalog listed as each.
func TestReplayAsSeveralIdentitiesWithMCP(t *testing.T) {
	opts := scan.Options{
		Probe: probe.Config{Spec: probe.SpecConfig{Discover: true}},
		Identities: probe.Describe([]probe.Identity{
			{Caller: exchange.Caller{Name: "anonymous", Roles: []string{}}},
			{Caller: exchange.Caller{Name: "user", Roles: []string{"user"}}, Header: http.Header{"Authorization": {"Bearer " + demo.UserToken}}},
		}, nil),
	}
	live, doc, rec := recording(t, demo.New(demo.DefectNoVaryAccept), opts)
	sameExchanges(t, rec, doc)
	if live.MCP == nil || len(live.MCP.Identities) == 0 || live.Spec == nil {
		t.Fatalf("the scan listed no MCP catalog as a lower identity or found no document: the replay would not be tested on them")
	}
	sameReport(t, live, replayed(t, doc, scan.Options{}))

	// A view whose caller is another identity's is no recording of a scan.
	var d map[string]any
	if err := json.Unmarshal(doc, &d); err != nil {
		t.Fatal(err)
	}
	d["log"].(map[string]any)["_agentready"].(map[string]any)["callers"].([]any)[0].(map[string]any)["name"] = "user"
	edited, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := har.Read(bytes.NewReader(edited), har.DefaultMaxSize); err == nil || !strings.Contains(err.Error(), `view "anonymous": its caller is "user"`) {
		t.Errorf("a view with another identity's caller: error %v", err)
	}
}

// TestReplayOfActiveProbes: the state-changing requests are replayed from
// the recording, never sent again, and judged as they were.
func TestReplayOfActiveProbes(t *testing.T) {
	c := activefix.Cases()[1]
	opts := expecttest.Options(t, c.Scan)
	live, doc := recorded(t, c.App(), opts)
	if live.Active == nil || len(live.Active.Sent) == 0 || !fired(live, "leakage-hidden-operation-executed") {
		t.Fatal("no active probe was sent or judged: the replay would not be tested on them")
	}
	sameReport(t, live, replayed(t, doc, scan.Options{}))
}

// TestReplayOfMCPRoles: a catalog that differs per caller is judged again
// from each identity's snapshot.
func TestReplayOfMCPRoles(t *testing.T) {
	c := mcpfix.RoleCases()[2]
	live, doc := recorded(t, c.App(), expecttest.Options(t, c.Scan))
	if !fired(live, "leakage-mcp-privileged-tool-anonymous") {
		t.Fatal("the privileged tool did not fire: the replay would not be tested on it")
	}
	sameReport(t, live, replayed(t, doc, scan.Options{}))
}

// TestReplayOfAHostileServer: bytes that are not UTF-8 in headers and
// bodies, escapes, truncated and dropped bodies and failed requests come
// back as they were recorded.
func TestReplayOfAHostileServer(t *testing.T) {
	opts := scan.Options{Probe: probe.Config{Budget: 20 * time.Second, Timeout: 2 * time.Second, MaxBody: 1 << 20}}
	live, doc, rec := recording(t, hostile.New(), opts)
	sameExchanges(t, rec, doc)
	for _, want := range []string{`"_base64"`, `"encoding": "base64"`, `"truncated": true`, `"_error"`} {
		if !bytes.Contains(doc, []byte(want)) {
			t.Errorf("the recording has no %s: the replay would not be tested on it", want)
		}
	}
	sameReport(t, live, replayed(t, doc, scan.Options{}))
}

// TestReplayKeepsTheThrottling: the counts of throttled requests, which
// the exchanges alone do not tell (a retried request keeps its last
// answer), are recorded and replayed to the same report.
func TestReplayKeepsTheThrottling(t *testing.T) {
	var seen sync.Map
	app := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/hal+json")
		switch _, again := seen.LoadOrStore(r.Method+" "+r.URL.Path, true); {
		case r.URL.Path == "/b":
			w.Header().Set("Retry-After", "120") // longer than is waited
			w.WriteHeader(http.StatusTooManyRequests)
		case r.URL.Path == "/a" && !again:
			w.Header().Set("Retry-After", "0")
			w.WriteHeader(http.StatusTooManyRequests)
		case r.URL.Path == "/c" && !again:
			// Throttled once without saying when, then served: the
			// throttled answer is judged although the retry succeeded.
			w.WriteHeader(http.StatusTooManyRequests)
		case r.URL.Path == "/":
			fmt.Fprint(w, `{"_links": {"self": {"href": "/"}, "a": {"href": "/a"}, "b": {"href": "/b"}, "c": {"href": "/c"}}}`)
		default:
			fmt.Fprint(w, `{"_links": {"self": {"href": "/a"}}}`)
		}
	})
	live, doc := recorded(t, app, scan.Options{})
	th := live.Coverage.Throttling
	if th == nil || th.Throttled < 3 || th.StillThrottled < 1 || th.CrawlGETs != 4 || th.CrawlThrottled != 1 {
		t.Fatalf("throttling %+v, want /a and /c throttled then answered, /b still throttled", th)
	}
	if !bytes.Contains(doc, []byte(`"throttling"`)) {
		t.Error("the recording does not carry the throttling counts")
	}
	if !regexp.MustCompile(`"throttled":\s*\{\s*"status":\s*429`).Match(doc) {
		t.Error("the recording does not keep the throttled answers that a retry replaced")
	}
	var judged []string
	for _, f := range live.Findings {
		if f.CheckID == "problem-json-retry-after" {
			judged = append(judged, f.Message)
		}
	}
	if len(judged) != 1 || !strings.Contains(judged[0], "/c (answered otherwise when the scan sent it again) carries no Retry-After") {
		t.Errorf("problem-json-retry-after: %q, want the 429 to /c that the retry replaced, alone", judged)
	}
	sameReport(t, live, replayed(t, doc, scan.Options{}))
}

// TestReplaySendsNothing replays with the recorded server still up and the
// default transports in place: it receives not one request.
func TestReplaySendsNothing(t *testing.T) {
	var requests atomic.Int64
	app := demo.New()
	counted := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		app.ServeHTTP(w, r)
	})
	srv := httptest.NewServer(counted)
	defer srv.Close()
	reg, err := builtin.Registry()
	if err != nil {
		t.Fatal(err)
	}
	start, _ := url.Parse(srv.URL + "/")
	var rec *scan.Recording
	live, err := scan.Run(context.Background(), scan.Options{Probe: probe.Config{Start: start, Budget: time.Minute},
		Checks: reg.All(), Version: "test", Now: fixedClock, Record: func(r *scan.Recording) { rec = r }})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := har.Write(&buf, rec, har.Options{Version: "test"}); err != nil {
		t.Fatal(err)
	}
	if requests.Load() == 0 {
		t.Fatal("the scan sent nothing")
	}
	requests.Store(0)
	replay := judged(t, buf.Bytes(), scan.Options{})
	if n := requests.Load(); n != 0 {
		t.Errorf("the replay sent %d request(s)", n)
	}
	sameReport(t, live, replay)
}

func fired(rep *finding.Report, id string) bool {
	return slices.ContainsFunc(rep.Findings, func(f finding.Finding) bool { return f.CheckID == id })
}

// exchangeView is every field of an exchange a recording keeps, times to
// the millisecond HAR writes.
type exchangeView struct {
	ID, Purpose, Source, BasedOn, Identity, Err string
	Depth                                       int
	Started                                     time.Time
	Duration                                    time.Duration
	Request                                     requestView
	Response                                    *responseView
}

type requestView struct {
	Method, URL, Body string
	Header            http.Header
	SessionStart      []requestView
}

type responseView struct {
	Status                     int
	Proto                      string
	Header                     http.Header
	Body                       []byte
	BodySize                   int64
	Truncated, Dropped, Unread bool
	Redactions                 int
}

func viewOf(x *exchange.Exchange) exchangeView {
	v := exchangeView{ID: x.ID, Purpose: x.Purpose, Source: x.Source, BasedOn: x.BasedOn, Identity: x.Identity, Err: x.Err,
		Depth: x.Depth, Started: time.Unix(0, x.Started).Truncate(time.Millisecond).UTC(), Duration: x.Duration.Truncate(time.Microsecond),
		Request: requestViewOf(x.Request)}
	if r := x.Response; r != nil {
		v.Response = &responseView{Status: r.Status, Proto: r.Proto, Header: r.Header, Body: r.Body, BodySize: r.BodySize,
			Truncated: r.Truncated, Dropped: r.Dropped, Unread: r.Unread, Redactions: r.Redactions}
	}
	return v
}

func requestViewOf(r exchange.Request) requestView {
	v := requestView{Method: r.Method, URL: r.URL, Body: r.Body, Header: r.Header}
	for _, s := range r.SessionStart() {
		v.SessionStart = append(v.SessionStart, requestViewOf(s))
	}
	return v
}

// sameExchanges fails unless the HAR read back holds every exchange of
// every recording of rec, field for field, in the same recordings and
// order, and the MCP snapshots name the same exchanges.
func sameExchanges(t *testing.T, rec *scan.Recording, doc []byte) {
	t.Helper()
	arch, err := har.Read(bytes.NewReader(doc), har.DefaultMaxSize)
	if err != nil {
		t.Fatal(err)
	}
	want, got := rec.Outcome, arch.Recording.Outcome
	if len(got.Views) != len(want.Views) {
		t.Fatalf("%d views, want %d", len(got.Views), len(want.Views))
	}
	// The callers come back as the scan carried them, ranks included.
	if !reflect.DeepEqual(got.Caller, want.Caller) {
		t.Errorf("caller %+v, want %+v", got.Caller, want.Caller)
	}
	for i := range want.Views {
		if !reflect.DeepEqual(got.Views[i].Caller, want.Views[i].Caller) {
			t.Errorf("view %d's caller %+v, want %+v", i, got.Views[i].Caller, want.Views[i].Caller)
		}
	}
	pairs := [][2]*exchange.Recording{{want.Recording, got.Recording}}
	for i := range want.Views {
		pairs = append(pairs, [2]*exchange.Recording{want.Views[i].Recording, got.Views[i].Recording})
	}
	n := 0
	for _, p := range pairs {
		if len(p[0].Exchanges) != len(p[1].Exchanges) || !slices.Equal(p[0].Samples, p[1].Samples) {
			t.Fatalf("a recording has %d exchanges and samples %v, want %d and %v", len(p[1].Exchanges), p[1].Samples, len(p[0].Exchanges), p[0].Samples)
		}
		for i := range p[0].Exchanges {
			n++
			if w, g := viewOf(p[0].Exchanges[i]), viewOf(p[1].Exchanges[i]); !reflect.DeepEqual(w, g) {
				t.Errorf("exchange %s read back as\n%+v\nwant\n%+v", w.ID, g, w)
			}
		}
	}
	if n == 0 {
		t.Fatal("no exchange was recorded")
	}
	if (want.MCP == nil) != (got.MCP == nil) {
		t.Fatal("the MCP snapshot was lost or invented")
	}
	if want.MCP != nil {
		ws, gs := want.MCP.Exchanges(), got.MCP.Exchanges()
		if len(ws) != len(gs) {
			t.Fatalf("the MCP snapshot names %d exchanges, want %d", len(gs), len(ws))
		}
		for i := range ws {
			if !slices.Contains(got.Recording.Exchanges, gs[i]) || gs[i].ID != ws[i].ID {
				t.Errorf("MCP call %d names %s outside the recording, want %s", i, gs[i].ID, ws[i].ID)
			}
		}
	}
}

// TestReadRefuses: a file that is not this scanner's recording, or one
// edited so that its parts no longer agree, is refused with a reason
// rather than judged.
func TestReadRefuses(t *testing.T) {
	_, doc := recorded(t, demo.New(), scan.Options{Probe: probe.Config{Spec: probe.SpecConfig{Discover: true}}})
	if _, err := har.Read(bytes.NewReader(doc), har.DefaultMaxSize); err != nil {
		t.Fatalf("the recording itself: %v", err)
	}
	edit := func(edit func(log map[string]any)) string {
		var d map[string]any
		if err := json.Unmarshal(doc, &d); err != nil {
			t.Fatal(err)
		}
		edit(d["log"].(map[string]any))
		b, err := json.Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	data := func(log map[string]any) map[string]any { return log["_agentready"].(map[string]any) }
	for _, tt := range []struct{ name, doc, want string }{
		{"not JSON", "GET / HTTP/1.1", "not a HAR document"},
		{"JSON but no HAR", `{"log":{}}`, "no log with entries"},
		{"another HAR version", `{"log":{"version":"1.1","creator":{"name":"x","version":"1"},"entries":[]}}`, `HAR version "1.1"`},
		{"a browser's HAR", `{"log":{"version":"1.2","creator":{"name":"WebInspector","version":"537.36"},"entries":[]}}`, "not written by agentready --record (it was written by WebInspector 537.36)"},
		{"a later format", edit(func(l map[string]any) { data(l)["format"] = 2 }), "format 2"},
		{"trailing data", string(doc) + "{}", "data after"},
		{"entries that are no array", `{"log":{"version":"1.2","entries":{}}}`, "log.entries is {, not an array"},
		{"a browser's HAR with an entry of its own", `{"log":{"version":"1.2","creator":{"name":"WebInspector","version":"537.36"},"entries":[{"request":{"headers":[{"name":"a","value":"","_base64":"!"}]}}]}}`, "not written by agentready --record"},
		{"two entries arrays", `{"log":{"version":"1.2","entries":[],"entries":[]}}`, "two entries arrays"},
		{"a log that is no object", `{"log":[]}`, "where an object was expected"},
		{"a cut document", string(doc[:len(doc)/2]), "not a HAR document: unexpected EOF"},
		{"an exchange out of range", edit(func(l map[string]any) {
			r := data(l)["recordings"].([]any)[0].(map[string]any)
			r["exchanges"] = append(r["exchanges"].([]any), 1e6)
		}), "exchange 1000000 of"},
		{"a view without its recording", edit(func(l map[string]any) { data(l)["primary"] = 7 }), "the main recording is 7"},
		{"an edited OpenAPI document", edit(func(l map[string]any) {
			o := data(l)["openapi"].(map[string]any)
			o["text"] = o["text"].(string) + " "
		}), "does not match its SHA-256"},
		{"a target that is no URL", edit(func(l map[string]any) { data(l)["target"] = "mailto:x" }), "not an absolute http or https URL"},
		{"a throttled answer kept with more than its delay", edit(func(l map[string]any) {
			e := l["entries"].([]any)[0].(map[string]any)["_agentready"].(map[string]any)
			e["throttled"] = map[string]any{"status": 429, "headers": []any{map[string]any{"name": "Set-Cookie", "value": "a=b"}}}
		}), "the throttled answer kept is a 429 with more than its Retry-After"},
		{"a throttled answer that was no throttling", edit(func(l map[string]any) {
			e := l["entries"].([]any)[0].(map[string]any)["_agentready"].(map[string]any)
			e["throttled"] = map[string]any{"status": 200, "headers": []any{}}
		}), "the throttled answer kept is a 200"},
		{"negative throttling counts", edit(func(l map[string]any) {
			data(l)["throttling"] = map[string]any{"requests": 3, "throttled": -1, "stillThrottled": 0}
		}), "throttling counts are negative"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := har.Read(strings.NewReader(tt.doc), har.DefaultMaxSize)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want one saying %q", err, tt.want)
			}
		})
	}
}

// TestEntriesHaveWhatHAR12Requires walks a recording of the demo as a HAR
// viewer would: every member HAR 1.2 requires is there with its type, and
// entries are in the order they were sent.
func TestEntriesHaveWhatHAR12Requires(t *testing.T) {
	_, doc := recordedDemo(t)
	var d struct {
		Log map[string]any `json:"log"`
	}
	if err := json.Unmarshal(doc, &d); err != nil {
		t.Fatal(err)
	}
	requireMembers(t, "log", d.Log, map[string]string{"version": "string", "creator": "object", "entries": "array"})
	requireMembers(t, "log.creator", d.Log["creator"], map[string]string{"name": "string", "version": "string"})
	entries, _ := d.Log["entries"].([]any)
	if len(entries) < 50 {
		t.Fatalf("%d entries", len(entries))
	}
	var last time.Time
	for i, raw := range entries {
		where := fmt.Sprintf("entries[%d]", i)
		e, _ := raw.(map[string]any)
		requireMembers(t, where, e, map[string]string{"startedDateTime": "string", "time": "number", "request": "object", "response": "object", "cache": "object", "timings": "object"})
		requireMembers(t, where+".request", e["request"], map[string]string{"method": "string", "url": "string", "httpVersion": "string",
			"cookies": "array", "headers": "array", "queryString": "array", "headersSize": "number", "bodySize": "number"})
		requireMembers(t, where+".response", e["response"], map[string]string{"status": "number", "statusText": "string", "httpVersion": "string",
			"cookies": "array", "headers": "array", "content": "object", "redirectURL": "string", "headersSize": "number", "bodySize": "number"})
		requireMembers(t, where+".response.content", e["response"].(map[string]any)["content"], map[string]string{"size": "number", "mimeType": "string"})
		requireMembers(t, where+".timings", e["timings"], map[string]string{"send": "number", "wait": "number", "receive": "number"})
		started, err := time.Parse(time.RFC3339Nano, e["startedDateTime"].(string))
		if err != nil {
			t.Errorf("%s.startedDateTime: %v", where, err)
		}
		if started.Before(last) {
			t.Errorf("%s started at %s, before the entry ahead of it (%s)", where, started, last)
		}
		last = started
		for k := range e {
			if !strings.HasPrefix(k, "_") && !slices.Contains([]string{"startedDateTime", "time", "request", "response", "cache", "timings", "pageref", "serverIPAddress", "connection", "comment"}, k) {
				t.Errorf("%s has %q, which HAR 1.2 does not define and which does not start with _", where, k)
			}
		}
	}
}

func requireMembers(t *testing.T, where string, v any, want map[string]string) {
	t.Helper()
	obj, ok := v.(map[string]any)
	if !ok {
		t.Errorf("%s is not an object", where)
		return
	}
	for name, kind := range want {
		if got := kindOf(obj[name]); got != kind {
			t.Errorf("%s.%s is %s, want %s", where, name, got, kind)
		}
	}
}

func kindOf(v any) string {
	switch v.(type) {
	case string:
		return "string"
	case float64:
		return "number"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	case nil:
		return "missing or null"
	}
	return fmt.Sprintf("%T", v)
}

// TestEmbeddedDocumentIsScrubbed: the OpenAPI document is the one part of
// a recording the scan did not scrub as it recorded (a local file is no
// answer of the server); one that quotes the scan's credential is
// embedded with it replaced, and still reads back.
func TestEmbeddedDocumentIsScrubbed(t *testing.T) {
	const secret = "tenant-4242-secret"
	text := "openapi: 3.1.0\ninfo: {title: t, version: '1', description: 'send X-Tenant: " + secret + "'}\npaths: {}\n"
	doc, err := spec.Load([]byte(text), "openapi.yaml", "openapi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	doc.Raw = []byte(text)
	target, _ := url.Parse("http://127.0.0.1:1/")
	rec := &scan.Recording{Target: target, Outcome: &probe.Outcome{Result: probe.Result{
		Recording: &exchange.Recording{Target: target.String()}, Spec: doc, SpecDiscovery: probe.SpecGiven,
	}}}
	var buf bytes.Buffer
	secrets := exchange.NewSecrets(http.Header{"X-Tenant": {secret}})
	if err := har.Write(&buf, rec, har.Options{Version: "test", Secrets: secrets}); err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(buf.Bytes(), []byte(secret)) || !bytes.Contains(buf.Bytes(), []byte("X-Tenant: "+exchange.Redacted)) {
		t.Fatalf("the embedded document was not scrubbed:\n%s", buf.String())
	}
	arch, err := har.Read(&buf, har.DefaultMaxSize)
	if err != nil {
		t.Fatal(err)
	}
	if got := arch.Recording.Outcome.Spec; got == nil || got.Source != "openapi.yaml" || arch.Recording.Outcome.SpecDiscovery != probe.SpecGiven {
		t.Errorf("the document read back is %+v", got)
	}
}
