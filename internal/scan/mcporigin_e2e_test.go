package scan_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/agentready/agentready/checks/builtin"
	"github.com/agentready/agentready/fixtures/demo"
	"github.com/agentready/agentready/internal/scan"
	"github.com/agentready/agentready/probe"
)

// TestMCPCredentialsGoToTheTargetsOriginOnly scans http://api.test/ with a
// credential and names the MCP endpoint. Every host name resolves to one
// loopback server, so the test can use the default port: an endpoint
// written with :80 is on the target's origin and gets the credential; one
// on another host is not.
func TestMCPCredentialsGoToTheTargetsOriginOnly(t *testing.T) {
	for _, tc := range []struct {
		endpoint string
		sent     bool
	}{
		{"http://api.test:80/mcp", true},
		{"http://API.test/mcp", true},
		{"http://elsewhere.test/mcp", false},
		{"http://api.test:8080/mcp", false},
	} {
		t.Run(tc.endpoint, func(t *testing.T) {
			t.Parallel()
			seen := mcpCredentials(t, tc.endpoint)
			if len(seen) == 0 {
				t.Fatal("the MCP endpoint got no request")
			}
			for _, auth := range seen {
				if got := auth == "Bearer demo-user"; got != tc.sent {
					t.Errorf("MCP request with Authorization %q; want the credential sent: %v", auth, tc.sent)
				}
			}
		})
	}
}

// mcpCredentials scans the demo at http://api.test/ as "Bearer demo-user"
// with endpoint as --mcp, and returns the Authorization of each request the
// MCP endpoint got.
func mcpCredentials(t *testing.T, endpoint string) []string {
	t.Helper()
	var mu sync.Mutex
	var seen []string
	app := demo.New()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/mcp" {
			mu.Lock()
			seen = append(seen, r.Header.Get("Authorization"))
			mu.Unlock()
		}
		app.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	dial := func(ctx context.Context, network, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, network, srv.Listener.Addr().String())
	}
	transport := &http.Transport{DialContext: dial}
	t.Cleanup(transport.CloseIdleConnections)
	reg, err := builtin.Registry()
	if err != nil {
		t.Fatal(err)
	}
	start, _ := url.Parse("http://api.test/")
	_, err = scan.Run(context.Background(), scan.Options{
		Probe: probe.Config{
			Start: start, Budget: time.Minute, Transport: transport,
			Headers: http.Header{"Authorization": {"Bearer demo-user"}},
		},
		MCPEndpoint: endpoint,
		Checks:      reg.All(), Version: "test", Now: fixedClock,
	})
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	return seen
}
