package probe

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentready/agentready/fixtures/mcpfix"
	"github.com/agentready/agentready/fixtures/oauthfix"
	"github.com/agentready/agentready/internal/exchange"
)

// rebinder plays a name that answers with the user's server first and with
// another address on every later lookup: two servers on one port, the app
// on 127.0.0.1, closing every connection after its response so that each
// request needs a new one, and on 127.0.0.2 one that answers like the app
// and records every connection and request that reaches it.
type rebinder struct {
	port      string
	elsewhere atomic.Int64 // connections accepted on 127.0.0.2
	other     *recorder

	mu      sync.Mutex
	lookups map[string]int
}

func newRebinder(t *testing.T, h http.Handler) (*rebinder, *recorder) {
	t.Helper()
	app, other := listenTwice(t)
	_, port, _ := net.SplitHostPort(app.Addr().String())
	rb := &rebinder{port: port, lookups: map[string]int{}}
	closing := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Connection", "close")
			next.ServeHTTP(w, r)
		})
	}
	rec := &recorder{next: closing(h)}
	rb.other = &recorder{next: closing(h)}
	for _, s := range []struct {
		ln net.Listener
		h  http.Handler
		on func(net.Conn, http.ConnState)
	}{
		{app, rec, nil},
		{other, rb.other, func(_ net.Conn, st http.ConnState) {
			if st == http.StateNew {
				rb.elsewhere.Add(1)
			}
		}},
	} {
		srv := httptest.NewUnstartedServer(s.h)
		srv.Listener.Close()
		srv.Listener, srv.Config.ConnState = s.ln, s.on
		srv.Start()
		t.Cleanup(srv.Close)
	}
	return rb, rec
}

// listenTwice listens on 127.0.0.1 and 127.0.0.2 at one port.
func listenTwice(t *testing.T) (app, other net.Listener) {
	t.Helper()
	for range 20 {
		app, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		_, port, _ := net.SplitHostPort(app.Addr().String())
		other, err := net.Listen("tcp", "127.0.0.2:"+port)
		if err == nil {
			return app, other
		}
		app.Close()
	}
	t.Skip("no port free on both 127.0.0.1 and 127.0.0.2")
	return nil, nil
}

func (rb *rebinder) lookup(_ context.Context, host string) ([]netip.Addr, error) {
	rb.mu.Lock()
	defer rb.mu.Unlock()
	rb.lookups[host]++
	if rb.lookups[host] == 1 {
		return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
	}
	return []netip.Addr{netip.MustParseAddr("127.0.0.2")}, nil
}

func (rb *rebinder) url(host, path string) string {
	return "http://" + net.JoinHostPort(host, rb.port) + path
}

// counted is how often each host was looked up.
func (rb *rebinder) counted() map[string]int {
	rb.mu.Lock()
	defer rb.mu.Unlock()
	return maps.Clone(rb.lookups)
}

// assertPinned fails unless nothing reached the second address and each
// host was looked up once.
func (rb *rebinder) assertPinned(t *testing.T, hosts ...string) {
	t.Helper()
	if n := rb.elsewhere.Load(); n != 0 {
		t.Errorf("%d connection(s) and %d request(s) reached 127.0.0.2, the name's later answer", n, len(rb.other.requests()))
	}
	want := map[string]int{}
	for _, h := range hosts {
		want[h] = 1
	}
	if got := rb.counted(); !reflect.DeepEqual(got, want) {
		t.Errorf("lookups %v, want %v", got, want)
	}
}

// TestPinnedCrawlAndTokenEndpoint: a crawl as an OAuth identity whose API
// refuses each token after a few uses, so that the token endpoint (on the
// target's origin, where http is allowed) is asked again mid-crawl through
// its own transport, on a server that closes every connection. Every
// request goes to the name's first answer, the name is looked up once, and
// the report names the address.
func TestPinnedCrawlAndTokenEndpoint(t *testing.T) {
	fix := &oauthfix.Server{Uses: 6, Items: 30, ClientID: testClientID, ClientSecret: testClientSecret}
	rb, rec := newRebinder(t, fix)
	s := Session{
		Config: Config{Start: mustParse(t, rb.url("api.test", "/")), Concurrency: 4,
			Headers: http.Header{"X-Api-Key": {"user-key"}}, Resolver: NewResolver(rb.lookup)},
		Identities: []Identity{{Caller: exchange.Caller{Name: "svc"}, OAuth: testGrant(rb.url("api.test", oauthfix.TokenPath), nil)}},
	}
	out, err := RunSession(t.Context(), s)
	if err != nil {
		t.Fatal(err)
	}
	rb.assertPinned(t, "api.test")
	api := 0
	for _, r := range rec.requests() {
		if r.Path != oauthfix.TokenPath && r.Header.Get("X-Api-Key") == "user-key" {
			api++
		}
	}
	if api < 30 {
		t.Fatalf("%d requests reached the API, want the whole crawl", api)
	}
	if len(fix.Issued()) < 3 {
		t.Fatalf("%d tokens issued, want renewals during the crawl", len(fix.Issued()))
	}
	want := map[string][]string{"api.test": {"127.0.0.1"}}
	if !reflect.DeepEqual(out.Stats.Addresses, want) {
		t.Errorf("stats.addresses %v, want %v", out.Stats.Addresses, want)
	}
}

// TestPinnedMCP: the MCP examination, its own transports and connections,
// reaches the name at the address the crawl was given.
func TestPinnedMCP(t *testing.T) {
	mcp := &mcpfix.Server{Tools: []json.RawMessage{json.RawMessage(`{"name":"a","inputSchema":{"type":"object"}}`)}}
	rb, _ := newRebinder(t, routes{"/": halBody(`{"_links":{"self":{"href":"/"}}}`), "/mcp": mcp.ServeHTTP})
	s := Session{
		Config: Config{Start: mustParse(t, rb.url("api.test", "/")), Headers: http.Header{"Authorization": {"Bearer user-token"}},
			Resolver: NewResolver(rb.lookup)},
		MCP: &MCPPlan{Named: rb.url("api.test", "/mcp")},
	}
	out, err := RunSession(t.Context(), s)
	if err != nil {
		t.Fatal(err)
	}
	rb.assertPinned(t, "api.test")
	if out.MCP == nil || len(mcp.Methods()) < 2 {
		t.Fatalf("the MCP endpoint was not examined (methods %v, notes %v)", mcp.Methods(), out.Notes)
	}
}

// TestResolverDialsTheNextAddress: an address that refuses the connection
// gives way to the next of the same answer, without another lookup, for the
// name in any case and with a final dot; an IP address is dialed as it is;
// a failed lookup pins nothing.
func TestResolverDialsTheNextAddress(t *testing.T) {
	srv, rec := serve(t, halBody(`{}`))
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	closed, err := net.Listen("tcp", "127.0.0.3:"+port)
	if err != nil {
		t.Skip(err)
	}
	closed.Close() // 127.0.0.3 refuses connections on that port now
	var lookups atomic.Int64
	failFirst := true
	r := NewResolver(func(_ context.Context, host string) ([]netip.Addr, error) {
		lookups.Add(1)
		if host == "flaky.test" && failFirst {
			failFirst = false
			return nil, errors.New("temporary failure")
		}
		return []netip.Addr{netip.MustParseAddr("127.0.0.3"), netip.MustParseAddr("::ffff:127.0.0.1")}, nil
	})
	client := &http.Client{Transport: newTransport(1, r, nil)}
	get := func(host string) error {
		resp, err := client.Get("http://" + net.JoinHostPort(host, port) + "/")
		if err == nil {
			resp.Body.Close()
			client.CloseIdleConnections()
		}
		return err
	}
	for _, host := range []string{"two.test", "TWO.test", "two.test."} {
		if err := get(host); err != nil {
			t.Fatal(err)
		}
	}
	if err := get("127.0.0.1"); err != nil {
		t.Fatal(err)
	}
	if err := get("flaky.test"); err == nil || !strings.Contains(err.Error(), "temporary failure") {
		t.Fatalf("a failed lookup: %v", err)
	}
	if err := get("flaky.test"); err != nil {
		t.Fatalf("the lookup after a failed one: %v", err)
	}
	if n := lookups.Load(); n != 3 {
		t.Errorf("%d lookups, want 3: two.test once whatever its case and final dot, flaky.test twice, 127.0.0.1 never", n)
	}
	if n := len(rec.requests()); n != 5 {
		t.Errorf("the server got %d requests, want 5", n)
	}
	want := map[string][]string{"two.test": {"127.0.0.3", "127.0.0.1"}, "flaky.test": {"127.0.0.3", "127.0.0.1"}}
	if got := r.Addresses(); !reflect.DeepEqual(got, want) {
		t.Errorf("addresses %v, want %v", got, want)
	}
}

// TestAttemptShares: each address of a name gets an even share of the time
// the dial has left, at least two seconds and never past its deadline, so
// an address that never answers leaves time to the next.
func TestAttemptShares(t *testing.T) {
	for _, tc := range []struct {
		left       time.Duration
		addrs      int
		want, slop time.Duration
	}{
		{10 * time.Second, 2, 5 * time.Second, 100 * time.Millisecond},
		{10 * time.Second, 1, 10 * time.Second, 100 * time.Millisecond},
		{10 * time.Second, 10, 2 * time.Second, 100 * time.Millisecond},
		{time.Second, 3, time.Second, 100 * time.Millisecond},
	} {
		ctx, cancel := context.WithTimeout(t.Context(), tc.left)
		actx, acancel := attemptContext(ctx, tc.addrs)
		deadline, _ := actx.Deadline()
		if got := time.Until(deadline); got > tc.want || got < tc.want-tc.slop {
			t.Errorf("%s left for %d addresses: the first gets %s, want %s", tc.left, tc.addrs, got, tc.want)
		}
		acancel()
		cancel()
	}
	actx, acancel := attemptContext(t.Context(), 3)
	defer acancel()
	if _, ok := actx.Deadline(); ok {
		t.Errorf("a dial without a deadline got one; the dialer's timeout bounds each address")
	}
}
