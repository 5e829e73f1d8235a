package mcpclient

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"
)

// The scan's --rate holds MCP requests too. With a rate of one request per
// thousand seconds, the second request cannot start within its deadline, and
// the limiter says so at once instead of sleeping.
func TestRateLimitsMCPRequests(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {}))
	defer srv.Close()
	u, _ := url.Parse(srv.URL)
	c := newClient(Config{Rate: 0.001}, u)
	defer c.close()
	hc := c.conn("main")
	send := func() error {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL, nil)
		resp, err := hc.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		return err
	}
	if err := send(); err != nil {
		t.Fatalf("first request: %v", err)
	}
	if err := send(); err == nil {
		t.Error("second request went out at once despite the rate")
	}
	if newClient(Config{}, u).limiter != nil {
		t.Error("no rate must mean no limiter")
	}
}
