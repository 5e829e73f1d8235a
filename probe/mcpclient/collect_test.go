package mcpclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentready/agentready/fixtures/demo"
	"github.com/agentready/agentready/fixtures/hostile"
	"github.com/agentready/agentready/fixtures/mcpfix"
	"github.com/agentready/agentready/internal/mcp"
)

// methodRecorder logs every JSON-RPC method (and every non-POST request)
// that reaches the handler.
type methodRecorder struct {
	next    http.Handler
	mu      sync.Mutex
	methods []string
}

func (m *methodRecorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	name := r.Method
	if r.Method == http.MethodPost {
		var msg struct{ Method string }
		body := readAll(r)
		_ = json.Unmarshal(body, &msg)
		name = msg.Method
	}
	m.mu.Lock()
	m.methods = append(m.methods, name)
	m.mu.Unlock()
	m.next.ServeHTTP(w, r)
}

func (m *methodRecorder) seen() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.methods)
}

func serve(t *testing.T, h http.Handler) (*httptest.Server, *methodRecorder) {
	t.Helper()
	rec := &methodRecorder{next: h}
	srv := httptest.NewServer(rec)
	t.Cleanup(srv.Close)
	return srv, rec
}

func collect(t *testing.T, endpoint string) *mcp.Snapshot {
	t.Helper()
	s, err := Collect(context.Background(), Config{}, mcp.Endpoint{URL: endpoint, Source: "test"})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func toolNames(l mcp.Listing) []string {
	var out []string
	for _, t := range l.Tools {
		out = append(out, t.Name)
	}
	return out
}

func TestDemoIsModernAndListedThreeTimes(t *testing.T) {
	srv, rec := serve(t, demo.New())
	s := collect(t, srv.URL+"/mcp")
	if s.Verdict.Era != mcp.EraModern || s.Verdict.Version != mcp.Modern || s.Verdict.FellBack {
		t.Fatalf("verdict %+v", s.Verdict)
	}
	if len(s.Listings) != 3 || !s.Listings[0].Complete || !s.Listings[1].Complete || !s.Listings[2].Complete {
		t.Fatalf("%d listings", len(s.Listings))
	}
	names := toolNames(s.Listings[0])
	for _, want := range []string{"getRoot", "listOrders", "createOrder", "getOrder", "payOrder", "cancelOrder"} {
		if !slices.Contains(names, want) {
			t.Errorf("tool %s missing from %v", want, names)
		}
	}
	if s.Listings[0].Pages[0].Call.Connection == s.Listings[1].Pages[0].Call.Connection {
		t.Error("the second listing used the same connection label")
	}
	if s.Catalog.Fingerprint == "" || s.Catalog.Tokens == 0 || len(s.Catalog.Tools) != len(names) {
		t.Errorf("catalog %+v", s.Catalog)
	}
	if got := rec.seen(); slices.Contains(got, "initialize") || got[0] != "server/discover" {
		t.Errorf("methods %v: a modern server must not be initialized", got)
	}
}

func TestSDKClientSeesTheSameTools(t *testing.T) {
	srv, _ := serve(t, demo.New())
	s := collect(t, srv.URL+"/mcp")
	client := mcpsdk.NewClient(&mcpsdk.Implementation{Name: "cross-check", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &mcpsdk.StreamableClientTransport{Endpoint: srv.URL + "/mcp", DisableStandaloneSSE: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	var sdk []string
	for tool, err := range cs.Tools(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		sdk = append(sdk, tool.Name)
	}
	if got := toolNames(s.Listings[0]); !slices.Equal(got, sdk) {
		t.Errorf("our listing %v, the SDK's %v", got, sdk)
	}
}

// legacySDK is the Go SDK's default, stateful server: legacy only.
func legacySDK() http.Handler {
	s := mcpsdk.NewServer(&mcpsdk.Implementation{Name: "legacy", Version: "1"}, nil)
	s.AddTool(&mcpsdk.Tool{Name: "ping", Description: "Answers pong", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *mcpsdk.CallToolRequest) (*mcpsdk.CallToolResult, error) {
			return &mcpsdk.CallToolResult{}, nil
		})
	return mcpsdk.NewStreamableHTTPHandler(func(*http.Request) *mcpsdk.Server { return s }, nil)
}

func TestLegacySDKServerSessionIsDeleted(t *testing.T) {
	srv, rec := serve(t, legacySDK())
	snap := collect(t, srv.URL)
	if snap.Verdict.Era != mcp.EraLegacy || !snap.Verdict.FellBack || snap.SessionID == "" {
		t.Fatalf("verdict %+v session %q", snap.Verdict, snap.SessionID)
	}
	// The SDK's default server serves a foreign Origin, and the session
	// that opened is closed too.
	want := []string{"server/discover", "initialize", "notifications/initialized", "tools/list", "tools/list", "tools/list", "DELETE", "initialize", "DELETE"}
	if got := rec.seen(); !slices.Equal(got, want) {
		t.Errorf("methods %v, want %v", got, want)
	}
	if got := toolNames(snap.Listings[0]); !slices.Equal(got, []string{"ping"}) {
		t.Errorf("tools %v", got)
	}
}

func TestNeverDowngrades(t *testing.T) {
	for _, status := range []int{401, 403, 407, 429, 500, 502, 503} {
		t.Run(fmt.Sprint(status), func(t *testing.T) {
			fix := &mcpfix.Server{Era: mcpfix.Legacy, Override: func(method string) *mcpfix.Reply {
				if method == "server/discover" {
					return &mcpfix.Reply{Status: status, Body: "no"}
				}
				return nil
			}}
			srv, _ := serve(t, fix)
			s := collect(t, srv.URL)
			if s.Verdict.Refused == "" || s.Verdict.Era != mcp.EraUnknown || s.Verdict.FellBack {
				t.Errorf("verdict %+v", s.Verdict)
			}
			// After a 401 an MCP client reads the protected resource
			// metadata, with GET; no other JSON-RPC request is sent.
			rpcs := slices.DeleteFunc(fix.Methods(), func(m string) bool { return m == "GET" })
			if !slices.Equal(rpcs, []string{"server/discover"}) {
				t.Errorf("methods %v: nothing but the probe may be sent", fix.Methods())
			}
			if gets := len(fix.Methods()) - len(rpcs); (status == 401) != (gets > 0) || len(s.ResourceMetadata) != gets {
				t.Errorf("HTTP %d: %d GETs, %d recorded", status, gets, len(s.ResourceMetadata))
			}
		})
	}
}

func TestNeverDowngradesOnTransportErrors(t *testing.T) {
	fix := &mcpfix.Server{Era: mcpfix.Legacy}
	tlsSrv := httptest.NewTLSServer(fix) // its certificate is not trusted
	defer tlsSrv.Close()
	s := collect(t, tlsSrv.URL)
	if s.Verdict.Refused == "" || s.Verdict.FellBack || len(fix.Methods()) != 0 {
		t.Errorf("TLS: verdict %+v, methods %v", s.Verdict, fix.Methods())
	}
	closed := httptest.NewServer(fix)
	closed.Close()
	s = collect(t, closed.URL)
	if s.Verdict.Refused == "" || s.Verdict.FellBack {
		t.Errorf("refused connection: verdict %+v", s.Verdict)
	}
}

func TestFallsBackOnPositiveLegacyEvidence(t *testing.T) {
	tests := []struct {
		name   string
		reply  *mcpfix.Reply
		wantPV string
	}{
		{"400 -32000 (TypeScript SDK)", nil, "2025-11-25"},
		{"200 with an empty result", &mcpfix.Reply{Status: 200, Header: http.Header{"Content-Type": {"application/json"}}, Body: `{"jsonrpc":"2.0","id":1,"result":{}}`}, "2025-11-25"},
		{"-32022 naming legacy versions", &mcpfix.Reply{Status: 400, Header: http.Header{"Content-Type": {"application/json"}},
			Body: mcpfix.RPCError(-32022, "unsupported", `{"supported":["2025-11-25","2025-06-18"]}`)}, "2025-11-25"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fix := &mcpfix.Server{Era: mcpfix.Legacy, Tools: []json.RawMessage{json.RawMessage(`{"name":"a","inputSchema":{"type":"object"}}`)},
				Override: func(method string) *mcpfix.Reply {
					if method == "server/discover" {
						return tt.reply
					}
					return nil
				}}
			srv, _ := serve(t, fix)
			s := collect(t, srv.URL)
			if s.Verdict.Era != mcp.EraLegacy || !s.Verdict.FellBack || s.Verdict.Version != tt.wantPV {
				t.Fatalf("verdict %+v", s.Verdict)
			}
			if len(s.Verdict.Steps) != 2 || s.Verdict.Steps[1].Method != "initialize" {
				t.Errorf("steps %+v", s.Verdict.Steps)
			}
			want := []string{"server/discover", "initialize", "notifications/initialized", "tools/list", "tools/list", "tools/list", "DELETE", "refused Origin"}
			if got := fix.Methods(); !slices.Equal(got, want) {
				t.Errorf("methods %v, want %v", got, want)
			}
		})
	}
}

func TestModernErrorsRetryAndNeverFallBack(t *testing.T) {
	fix := &mcpfix.Server{Override: func(method string) *mcpfix.Reply {
		if method == "server/discover" {
			return &mcpfix.Reply{Status: 400, Header: http.Header{"Content-Type": {"application/json"}}, Body: mcpfix.RPCError(-32020, "header mismatch", "")}
		}
		return nil
	}}
	srv, _ := serve(t, fix)
	s := collect(t, srv.URL)
	if s.Verdict.Era != mcp.EraModern || s.Verdict.Refused == "" || s.Verdict.FellBack {
		t.Errorf("verdict %+v", s.Verdict)
	}
	if got := fix.Methods(); !slices.Equal(got, []string{"server/discover", "server/discover"}) {
		t.Errorf("methods %v: one retry, then stop", got)
	}
}

func TestMissingCapabilityIsDeclaredOnRetry(t *testing.T) {
	var mu sync.Mutex
	calls := 0
	fix := &mcpfix.Server{Tools: []json.RawMessage{json.RawMessage(`{"name":"a","inputSchema":{"type":"object"}}`)}}
	fix.Override = func(method string) *mcpfix.Reply {
		mu.Lock()
		defer mu.Unlock()
		if method == "server/discover" && calls == 0 {
			calls++
			return &mcpfix.Reply{Status: 400, Header: http.Header{"Content-Type": {"application/json"}},
				Body: mcpfix.RPCError(-32021, "missing", `{"requiredCapabilities":{"elicitation":{}}}`)}
		}
		return nil
	}
	srv, _ := serve(t, fix)
	s := collect(t, srv.URL)
	if s.Verdict.Era != mcp.EraModern || s.Verdict.Refused != "" || len(s.Listings[0].Tools) != 1 {
		t.Fatalf("verdict %+v", s.Verdict)
	}
	if body := s.Calls[1].Exchange.Request.Body; !strings.Contains(body, `"elicitation":{}`) {
		t.Errorf("retry body %s", body)
	}
}

func TestPaginationFollowsEmptyCursor(t *testing.T) {
	var tools []json.RawMessage
	for i := range 5 {
		tools = append(tools, json.RawMessage(fmt.Sprintf(`{"name":"t%d","inputSchema":{"type":"object"}}`, i)))
	}
	fix := &mcpfix.Server{Tools: tools, PageSize: 2, EmptyCursor: true}
	srv, _ := serve(t, fix)
	s := collect(t, srv.URL)
	l := s.Listings[0]
	if !l.Complete || len(l.Pages) != 3 || !slices.Equal(toolNames(l), []string{"t0", "t1", "t2", "t3", "t4"}) {
		t.Fatalf("listing %+v", l)
	}
	if l.Pages[0].NextCursor == nil || *l.Pages[0].NextCursor != "" {
		t.Error("the empty cursor was not kept as a cursor")
	}
}

func TestPaginationIsBounded(t *testing.T) {
	fix := &mcpfix.Server{Override: func(method string) *mcpfix.Reply {
		if method == "tools/list" {
			return &mcpfix.Reply{Status: 200, Header: http.Header{"Content-Type": {"application/json"}},
				Body: `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","ttlMs":0,"cacheScope":"public","tools":[],"nextCursor":"again"}}`}
		}
		return nil
	}}
	srv, _ := serve(t, fix)
	s := collect(t, srv.URL)
	l := s.Listings[0]
	if l.Complete || len(l.Pages) != 2 || !strings.Contains(l.Problem, "repeated cursor") {
		t.Errorf("listing %+v", l)
	}
}

func TestAllowListIsEnforcedInCode(t *testing.T) {
	fix := &mcpfix.Server{}
	srv, _ := serve(t, fix)
	u, _ := url.Parse(srv.URL)
	c := newClient(Config{}, u)
	for _, method := range []string{"tools/call", "prompts/get", "resources/read", "logging/setLevel", "ping", "subscriptions/listen", "completion/complete"} {
		call := c.rpc(context.Background(), request{method: method, era: mcp.EraModern, version: mcp.Modern})
		if call.Exchange != nil || !strings.Contains(call.ParseError, ErrMethodNotAllowed.Error()) {
			t.Errorf("%s was not refused: %+v", method, call)
		}
	}
	// resources/read is allowed for MCP Apps interfaces only.
	for _, uri := range []string{"file:///etc/passwd", "https://api.test/orders", ""} {
		call := c.rpc(context.Background(), request{method: "resources/read", name: uri, params: map[string]any{"uri": uri}, era: mcp.EraLegacy})
		if call.Exchange != nil || !strings.Contains(call.ParseError, ErrMethodNotAllowed.Error()) {
			t.Errorf("resources/read of %q was not refused: %+v", uri, call)
		}
	}
	if _, err := c.deleteSession(context.Background(), "someone-elses", mcp.Legacy); !errors.Is(err, ErrMethodNotAllowed) {
		t.Errorf("DELETE of a foreign session: %v", err)
	}
	if got := fix.Methods(); len(got) != 0 {
		t.Errorf("the server received %v", got)
	}
	for _, m := range AllowedMethods() {
		if !allowedMethods[m] {
			t.Errorf("AllowedMethods lists %s, which the client refuses", m)
		}
	}
	if len(AllowedMethods()) != len(allowedMethods) {
		t.Error("AllowedMethods and the allow-list differ")
	}
}

func TestHostileAnswersDoNotPanic(t *testing.T) {
	bodies := []string{
		`{"jsonrpc":"2.0","id":1,"result":{"tools":"nope"}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"tools":[1,"x",null,{"name":7}]}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a","annotations":"bad","inputSchema":[]}],"nextCursor":5}}`,
		`{"jsonrpc":"2.0","id":1,"result":null}`,
		strings.Repeat("[", 100000),
		`data: {"jsonrpc"` + strings.Repeat("x", 1<<16),
	}
	for i, body := range bodies {
		fix := &mcpfix.Server{Override: func(method string) *mcpfix.Reply {
			if method == "tools/list" {
				return &mcpfix.Reply{Status: 200, Header: http.Header{"Content-Type": {"application/json"}}, Body: body}
			}
			return nil
		}}
		srv, _ := serve(t, fix)
		s := collect(t, srv.URL)
		if s.Verdict.Era != mcp.EraModern {
			t.Errorf("body %d: verdict %+v", i, s.Verdict)
		}
		_ = s.Info()
	}
}

func readAll(r *http.Request) []byte {
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	return body
}

// TestListWalksOnce: a caller's catalog costs the decision and one walk,
// in both eras, and the legacy session is still closed.
func TestListWalksOnce(t *testing.T) {
	tools := []json.RawMessage{json.RawMessage(`{"name":"a","inputSchema":{"type":"object"}}`)}
	for _, tt := range []struct {
		era  mcpfix.Era
		want []string
	}{
		{mcpfix.Modern, []string{"server/discover", "tools/list"}},
		{mcpfix.Legacy, []string{"server/discover", "initialize", "notifications/initialized", "tools/list", "DELETE"}},
	} {
		fix := &mcpfix.Server{Era: tt.era, Tools: tools}
		srv, _ := serve(t, fix)
		s, err := List(context.Background(), Config{}, mcp.Endpoint{URL: srv.URL, Source: "test"}, "anonymous")
		if err != nil {
			t.Fatal(err)
		}
		if got := fix.Methods(); !slices.Equal(got, tt.want) {
			t.Errorf("era %d: methods %v, want %v", tt.era, got, tt.want)
		}
		if s.Identity != "anonymous" || len(s.Listings) != 1 || !slices.Equal(toolNames(s.Listings[0]), []string{"a"}) || s.Catalog.Fingerprint == "" {
			t.Errorf("era %d: snapshot %+v", tt.era, s)
		}
	}
}

func TestRequestCapStopsTheWalk(t *testing.T) {
	var tools []json.RawMessage
	for i := range 6 {
		tools = append(tools, json.RawMessage(fmt.Sprintf(`{"name":"t%d","inputSchema":{"type":"object"}}`, i)))
	}
	fix := &mcpfix.Server{Tools: tools, PageSize: 1}
	srv, _ := serve(t, fix)
	s, err := List(context.Background(), Config{MaxRequests: 3}, mcp.Endpoint{URL: srv.URL, Source: "test"}, "anonymous")
	if err != nil {
		t.Fatal(err)
	}
	if got := fix.Methods(); len(got) != 3 {
		t.Errorf("methods %v, want 3 requests", got)
	}
	l := s.Listings[0]
	if l.Complete || len(l.Tools) != 2 || !strings.Contains(l.Problem, "request cap") {
		t.Errorf("listing %+v", l)
	}
}

// TestEchoedCredentialsAreScrubbed: a server that echoes the caller's
// credentials into every tool's description and its headers leaves none in
// the snapshot, and the tools still parse.
func TestEchoedCredentialsAreScrubbed(t *testing.T) {
	const own = "Bearer mcp-own-t0ken"
	srv, _ := serve(t, hostile.EchoCredentials(mcpfix.NewRoleApp(mcpfix.RoleApp{}), "Authorization"))
	s, err := Collect(context.Background(), Config{Headers: http.Header{"Authorization": {own}}}, mcp.Endpoint{URL: srv.URL + "/mcp", Source: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Listings) == 0 || len(s.Listings[0].Tools) != 2 || !strings.HasPrefix(s.Listings[0].Tools[0].Description, "Authorization: REDACTED ") {
		t.Fatalf("listings %+v: want the two tools, their descriptions scrubbed", s.Listings)
	}
	var all []byte
	for _, x := range s.Exchanges() {
		raw, _ := json.Marshal(x)
		all = append(all, raw...)
		if x.Response == nil {
			continue
		}
		all = append(all, x.Response.Body...)
		if x.Response.Redactions == 0 {
			t.Errorf("%s: no echo replaced", x.Purpose)
		}
	}
	if bytes.Contains(all, []byte("t0ken")) {
		t.Errorf("the exchanges hold a credential: %s", all)
	}
}

// TestForeignOriginProbe: the opening request is repeated last with a
// foreign Origin, and only when the catalog is examined in full.
func TestForeignOriginProbe(t *testing.T) {
	for _, tt := range []struct {
		name       string
		era        mcpfix.Era
		anyOrigin  bool
		wantMethod string
		wantStatus int
	}{
		{"modern, refused", mcpfix.Modern, false, "server/discover", 403},
		{"modern, served", mcpfix.Modern, true, "server/discover", 200},
		{"legacy, refused", mcpfix.Legacy, false, "initialize", 403},
		{"legacy, served", mcpfix.Legacy, true, "initialize", 200},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fix := &mcpfix.Server{Era: tt.era, AnyOrigin: tt.anyOrigin}
			srv, _ := serve(t, fix)
			s := collect(t, srv.URL)
			c := s.ForeignOrigin
			if c == nil || c.Method != tt.wantMethod || c.Status() != tt.wantStatus {
				t.Fatalf("foreign-origin call %+v", c)
			}
			x := c.Exchange
			if x.Purpose != PurposeForeignOrigin || x.Request.Header.Get("Origin") != ForeignOrigin {
				t.Errorf("purpose %q, Origin %q", x.Purpose, x.Request.Header.Get("Origin"))
			}
			for _, other := range s.Calls {
				if other != c && other.Exchange != nil && other.Exchange.Request.Header.Get("Origin") != "" {
					t.Errorf("%s sent an Origin header", other.Method)
				}
			}
			listed, err := List(context.Background(), Config{}, mcp.Endpoint{URL: srv.URL}, "reader")
			if err != nil || listed.ForeignOrigin != nil {
				t.Errorf("List sent the probe: %v %+v", err, listed.ForeignOrigin)
			}
		})
	}
}

// TestResourceMetadataAfter401: the challenge's resource_metadata is read
// first when it is on the endpoint's origin, then the well-known URLs, and
// the first 200 ends the search; another origin is never fetched.
func TestResourceMetadataAfter401(t *testing.T) {
	for _, tt := range []struct {
		name, challenge string
		served          map[string]bool
		want            []string
	}{
		{"named in the challenge", `Bearer resource_metadata="/meta/mcp"`, map[string]bool{"/meta/mcp": true},
			[]string{"/meta/mcp"}},
		{"path-inserted", `Bearer realm="x"`, map[string]bool{"/.well-known/oauth-protected-resource/mcp": true},
			[]string{"/.well-known/oauth-protected-resource/mcp"}},
		{"root", `Bearer realm="x"`, map[string]bool{"/.well-known/oauth-protected-resource": true},
			[]string{"/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"}},
		{"another origin", `Bearer resource_metadata="https://elsewhere.invalid/m"`, nil,
			[]string{"/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Method == http.MethodGet {
					got = append(got, r.URL.Path)
					if tt.served[r.URL.Path] {
						w.Header().Set("Content-Type", "application/json")
						_, _ = io.WriteString(w, `{"resource":"x"}`)
						return
					}
					http.NotFound(w, r)
					return
				}
				w.Header().Set("WWW-Authenticate", tt.challenge)
				w.WriteHeader(http.StatusUnauthorized)
			}))
			defer srv.Close()
			s := collect(t, srv.URL+"/mcp")
			if !slices.Equal(got, tt.want) || len(s.ResourceMetadata) != len(tt.want) {
				t.Errorf("fetched %v (%d recorded), want %v", got, len(s.ResourceMetadata), tt.want)
			}
		})
	}
}

// mintingSecrets is an MCP fixture whose session ID and tools/list cursor
// hold a credential the client sends (secret): what the recording shows of
// them is scrubbed, and what goes back to the server must never be that.
// It keeps every session ID and cursor it received.
type mintingSecrets struct {
	next   http.Handler
	secret string

	mu       sync.Mutex
	sessions []string
	cursors  []string
}

const fixtureSession = "fixture-session-1"

func (m *mintingSecrets) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body := readAll(r)
	var msg struct {
		Params struct {
			Cursor *string `json:"cursor"`
		} `json:"params"`
	}
	_ = json.Unmarshal(body, &msg)
	m.mu.Lock()
	if sid := r.Header.Get("Mcp-Session-Id"); sid != "" {
		m.sessions = append(m.sessions, sid)
	}
	if msg.Params.Cursor != nil {
		m.cursors = append(m.cursors, *msg.Params.Cursor)
	}
	m.mu.Unlock()
	if r.Header.Get("Mcp-Session-Id") == fixtureSession+m.secret {
		r.Header.Set("Mcp-Session-Id", fixtureSession)
	}
	body = bytes.ReplaceAll(body, []byte(`"cursor":"1`+m.secret+`"`), []byte(`"cursor":"1"`))
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.ContentLength = int64(len(body))
	rec := httptest.NewRecorder()
	m.next.ServeHTTP(rec, r)
	for name, vs := range rec.Header() {
		for _, v := range vs {
			if name == "Mcp-Session-Id" && v == fixtureSession {
				v += m.secret
			}
			w.Header().Add(name, v)
		}
	}
	out := bytes.ReplaceAll(rec.Body.Bytes(), []byte(`"nextCursor":"1"`), []byte(`"nextCursor":"1`+m.secret+`"`))
	w.Header().Del("Content-Length")
	w.WriteHeader(rec.Code)
	w.Write(out)
}

func (m *mintingSecrets) received() (sessions, cursors []string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.sessions), slices.Clone(m.cursors)
}

// TestMintedSessionGoesBackAsMinted: a legacy server's session ID that
// holds an echo of a credential is recorded scrubbed, and sent back as the
// server minted it, never as the recording shows it.
func TestMintedSessionGoesBackAsMinted(t *testing.T) {
	const secret = "-custom-secret-31"
	fix := &mintingSecrets{next: &mcpfix.Server{Era: mcpfix.Legacy}, secret: secret}
	srv := httptest.NewServer(fix)
	t.Cleanup(srv.Close)
	cfg := Config{Headers: http.Header{"X-Custom-Token": {secret[1:]}}}
	s, err := Collect(context.Background(), cfg, mcp.Endpoint{URL: srv.URL + "/mcp", Source: "test"})
	if err != nil {
		t.Fatal(err)
	}
	sessions, _ := fix.received()
	if len(sessions) == 0 {
		t.Fatal("no request was sent in the session: the test would not see what it carries")
	}
	for _, sid := range sessions {
		if sid != fixtureSession+secret {
			t.Errorf("a request was sent in session %q, want %q as minted", sid, fixtureSession+secret)
		}
	}
	if strings.Contains(s.SessionID, secret[1:]) || !strings.Contains(s.SessionID, "REDACTED") {
		t.Errorf("the snapshot records the session as %q, want it scrubbed", s.SessionID)
	}
	if len(s.Listings) == 0 || !s.Listings[0].Complete {
		t.Errorf("listings %+v: want the catalog listed in the session", s.Listings)
	}
}

// TestScrubbedCursorIsNotSent: a tools/list cursor that holds an echo of a
// credential is read from the scrubbed answer, where its real value is lost;
// the walk stops there, saying why, rather than send the marker.
func TestScrubbedCursorIsNotSent(t *testing.T) {
	const secret = "-custom-secret-32"
	tools := []json.RawMessage{json.RawMessage(`{"name":"a","inputSchema":{"type":"object"}}`), json.RawMessage(`{"name":"b","inputSchema":{"type":"object"}}`)}
	fix := &mintingSecrets{next: &mcpfix.Server{Era: mcpfix.Modern, Tools: tools, PageSize: 1}, secret: secret}
	srv := httptest.NewServer(fix)
	t.Cleanup(srv.Close)
	cfg := Config{Headers: http.Header{"X-Custom-Token": {secret[1:]}}}
	s, err := Collect(context.Background(), cfg, mcp.Endpoint{URL: srv.URL + "/mcp", Source: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Listings) == 0 || !strings.Contains(s.Listings[0].Problem, "nextCursor held a credential") {
		t.Fatalf("listings %+v: want the walk stopped at the scrubbed cursor", s.Listings)
	}
	_, cursors := fix.received()
	for _, c := range cursors {
		if strings.Contains(c, "REDACTED") {
			t.Errorf("the cursor %q was sent", c)
		}
	}
}
