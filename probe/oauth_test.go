package probe

import (
	"encoding/base64"
	"errors"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentready/agentready/fixtures/oauthfix"
	"github.com/agentready/agentready/internal/exchange"
)

const (
	testClientID     = "scanner-client"
	testClientSecret = "s3cret-client-credential"
)

// clock is a time tests move by hand.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

func oauthServer(t *testing.T, fix *oauthfix.Server) (target string, rec *recorder) {
	t.Helper()
	fix.ClientID, fix.ClientSecret = testClientID, testClientSecret
	srv, rec := serve(t, fix)
	return srv.URL, rec
}

func testGrant(tokenURL string, now func() time.Time) *OAuth {
	return &OAuth{TokenURL: tokenURL, ClientID: testClientID, ClientSecret: testClientSecret, Now: now}
}

// TestTokenRenewedByExpiresIn: a 60-second token is renewed once the
// clock passes its lifetime less the margin, and not before.
func TestTokenRenewedByExpiresIn(t *testing.T) {
	clk := &clock{now: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	fix := &oauthfix.Server{Lifetime: time.Minute, Now: clk.Now}
	base, _ := oauthServer(t, fix)
	ts := newTokenSource("svc", *testGrant(base+oauthfix.TokenPath, clk.Now), Config{}, &SecretBook{})
	first, err := ts.token(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	clk.advance(50 * time.Second)
	if again, _ := ts.token(t.Context()); again != first {
		t.Fatalf("renewed at 50s of a 60s token")
	}
	clk.advance(5 * time.Second)
	renewed, err := ts.token(t.Context())
	if err != nil || renewed == first {
		t.Fatalf("not renewed at 55s of a 60s token (margin 6s): %v", err)
	}
	if got := len(fix.Issued()); got != 2 {
		t.Errorf("issued %d tokens, want 2", got)
	}
}

// TestTokenRenewedOnceAfter401: a token the target accepted is renewed
// once after a 401; a request that raced with the renewal is sent again
// without another; a token refused before it was ever accepted is not
// renewed, so an endpoint refusing the identity costs no token.
func TestTokenRenewedOnceAfter401(t *testing.T) {
	base, _ := oauthServer(t, &oauthfix.Server{})
	ts := newTokenSource("svc", *testGrant(base+oauthfix.TokenPath, nil), Config{}, &SecretBook{})
	t1, _ := ts.token(t.Context())
	if ts.refusedAfter401(t.Context(), t1) {
		t.Fatal("a token never accepted was renewed after a 401")
	}
	ts.acceptedBy(t1)
	if !ts.refusedAfter401(t.Context(), t1) {
		t.Fatal("a first 401 to an accepted token did not renew it")
	}
	t2, _ := ts.token(t.Context())
	if t2 == t1 {
		t.Fatal("same token after renewal")
	}
	if !ts.refusedAfter401(t.Context(), t1) {
		t.Error("a request refused with the old token is not sent again with the new one")
	}
	if ts.refusedAfter401(t.Context(), t2) {
		t.Error("a renewed token refused before it was accepted is renewed again")
	}
	ts.acceptedBy(t2)
	if !ts.refusedAfter401(t.Context(), t2) || ts.refusedAfter401(t.Context(), mustToken(t, ts)) {
		t.Error("want one renewal per accepted token")
	}
	if ts.renewed != 3 {
		t.Errorf("%d tokens, want 3", ts.renewed)
	}
}

func mustToken(t *testing.T, ts *tokenSource) string {
	t.Helper()
	tok, err := ts.token(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// TestTokenEndpointFailureNamesTheCauseNotTheSecret: a refused client
// gets the error code, and never the secret, even when the endpoint echoes
// it.
func TestTokenEndpointFailureNamesTheCauseNotTheSecret(t *testing.T) {
	base, _ := oauthServer(t, &oauthfix.Server{})
	o := testGrant(base+oauthfix.TokenPath, nil)
	o.ClientSecret = "wrong-secret-value"
	s := Session{Config: Config{Start: mustParse(t, base+"/")}, Identities: []Identity{{Caller: exchange.Caller{Name: "svc"}, OAuth: o}}}
	_, err := RunSession(t.Context(), s)
	if !errors.Is(err, ErrTokenEndpoint) {
		t.Fatalf("err = %v, want ErrTokenEndpoint", err)
	}
	msg := err.Error()
	if !strings.Contains(msg, "answered 401: invalid_client") {
		t.Errorf("the cause is not named: %s", msg)
	}
	if strings.Contains(msg, "wrong-secret-value") {
		t.Errorf("the secret is echoed: %s", msg)
	}
}

// TestSessionWithOAuthIdentity: tokens good for 8 requests each still let
// the crawl reach every item, no 401 is recorded, each renewal follows a
// 401, the target never gets the client credentials and the tokens are
// scrubbed from what the debug page echoes.
func TestSessionWithOAuthIdentity(t *testing.T) {
	fix := &oauthfix.Server{Uses: 8, Items: 20}
	base, rec := oauthServer(t, fix)
	s := Session{Config: Config{Start: mustParse(t, base+"/"), Concurrency: 2}, Identities: []Identity{{Caller: exchange.Caller{Name: "svc"}, OAuth: testGrant(base+oauthfix.TokenPath, nil)}}}
	out, err := RunSession(t.Context(), s)
	if err != nil {
		t.Fatal(err)
	}
	items := 0
	for _, x := range out.Recording.Exchanges {
		if x.Response != nil && x.Response.Status == http.StatusUnauthorized {
			t.Errorf("%s %s recorded as 401", x.Request.Method, x.Request.URL)
		}
		if strings.Contains(x.Request.URL, "/items/") && x.Response != nil && x.Response.Status == http.StatusOK {
			items++
		}
	}
	if items < 20 {
		t.Errorf("reached %d items of 20", items)
	}
	issued := fix.Issued()
	if len(issued) < 3 {
		t.Errorf("%d tokens issued; the renewal after a 401 did not happen", len(issued))
	}
	basic := base64.StdEncoding.EncodeToString([]byte(testClientID + ":" + testClientSecret))
	for _, r := range rec.requests() {
		if r.Path == oauthfix.TokenPath {
			if r.Header.Get("Authorization") != "Basic "+basic {
				t.Errorf("token request without client_secret_basic: %q", r.Header.Get("Authorization"))
			}
			continue
		}
		if strings.Contains(r.Header.Get("Authorization"), basic) {
			t.Errorf("%s sent the client credentials", r.Path)
		}
	}
	assertNoSecret(t, out.Recording, append(issued, testClientSecret, basic))
}

// TestTokenEndpointOnAnotherOrigin: the target's own headers never go to
// the token endpoint, and the client secret never to the target.
func TestTokenEndpointOnAnotherOrigin(t *testing.T) {
	fix := &oauthfix.Server{}
	auth, authRec := oauthServer(t, fix)
	target, targetRec := serve(t, fix)
	s := Session{Config: Config{Start: mustParse(t, target.URL+"/"), Headers: http.Header{"X-Api-Key": {"target-only-key-123"}}, MaxPages: 5},
		Identities: []Identity{{Caller: exchange.Caller{Name: "svc"}, OAuth: &OAuth{TokenURL: auth + oauthfix.TokenPath, ClientID: testClientID, ClientSecret: testClientSecret, SecretInBody: true}}}}
	if _, err := RunSession(t.Context(), s); err != nil {
		t.Fatal(err)
	}
	for _, r := range authRec.requests() {
		if r.Header.Get("X-Api-Key") != "" || r.Path != oauthfix.TokenPath {
			t.Errorf("the token origin got %s with X-Api-Key %q", r.Path, r.Header.Get("X-Api-Key"))
		}
		if r.Header.Get("Authorization") != "" {
			t.Errorf("client_secret_post sent Authorization %q", r.Header.Get("Authorization"))
		}
	}
	reqs := targetRec.requests()
	if len(reqs) == 0 {
		t.Fatal("nothing sent to the target")
	}
	for _, r := range reqs {
		if r.Path == oauthfix.TokenPath || strings.Contains(strings.Join(r.Header.Values("Authorization"), " "), "Basic") {
			t.Errorf("the target got the grant: %s", r.Path)
		}
	}
}

func assertNoSecret(t *testing.T, rec *exchange.Recording, secrets []string) {
	t.Helper()
	for _, x := range rec.Exchanges {
		text := x.Request.URL + x.Request.Body + x.Err + strings.Join(x.Request.Header.Values("Authorization"), "")
		if x.Response != nil {
			text += string(x.Response.Body)
			for _, vs := range x.Response.Header {
				text += strings.Join(vs, "")
			}
		}
		for _, s := range secrets {
			if strings.Contains(text, s) {
				t.Errorf("%s %s records a secret", x.Request.Method, x.Request.URL)
			}
		}
	}
}

// TestTokenEndpointBounds: the token endpoint's answers are bounded like
// the target's: a hanging endpoint by the timeout, a long body by the body
// cap, and a redirect is not followed (it would carry the credentials on).
func TestTokenEndpointBounds(t *testing.T) {
	followed := false
	elsewhere, _ := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { followed = true }))
	release := make(chan struct{})
	srv, _ := serve(t, routes{
		"/hang": func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-release:
			case <-r.Context().Done():
			}
		},
		"/long": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"access_token":"` + strings.Repeat("a", 4096) + `","token_type":"Bearer"}`))
		},
		"/moved": func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, elsewhere.URL+"/token", http.StatusTemporaryRedirect)
		},
	})
	// Cleanups run last first: the hanging handler returns before the
	// server waits for it.
	t.Cleanup(func() { close(release) })
	cfg := Config{Timeout: 300 * time.Millisecond, MaxBody: 1024}
	for path, want := range map[string]string{"/hang": "no answer within 300ms", "/long": "cannot parse", "/moved": "answered 307"} {
		ts := newTokenSource("svc", *testGrant(srv.URL+path, nil), cfg, &SecretBook{})
		begin := time.Now()
		_, err := ts.token(t.Context())
		if !errors.Is(err, ErrTokenEndpoint) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err = %v, want %q", path, err, want)
		}
		if d := time.Since(begin); d > 5*time.Second {
			t.Errorf("%s took %s", path, d)
		}
	}
	if followed {
		t.Error("the redirect was followed")
	}
}

// TestTokenRenewalsAfter401AreCapped: a target that accepts each new token
// once and then answers 401 gets a token renewed after a 401 three times
// in the scan, no more: then the 401s are kept, and a note says why.
func TestTokenRenewalsAfter401AreCapped(t *testing.T) {
	fix := &oauthfix.Server{Uses: 1, Items: 20}
	base, rec := oauthServer(t, fix)
	s := Session{Config: Config{Start: mustParse(t, base+"/"), Concurrency: 1}, Identities: []Identity{{Caller: exchange.Caller{Name: "svc"}, OAuth: testGrant(base+oauthfix.TokenPath, nil)}}}
	out, err := RunSession(t.Context(), s)
	if err != nil {
		t.Fatal(err)
	}
	tokenRequests := 0
	for _, r := range rec.requests() {
		if r.Path == oauthfix.TokenPath {
			tokenRequests++
		}
	}
	if tokenRequests != 1+maxRenewalsAfter401 {
		t.Errorf("%d token requests, want %d: the first token and %d renewals", tokenRequests, 1+maxRenewalsAfter401, maxRenewalsAfter401)
	}
	refused := 0
	for _, x := range out.Recording.Exchanges {
		if x.Response != nil && x.Response.Status == http.StatusUnauthorized {
			refused++
		}
	}
	if refused == 0 {
		t.Error("no 401 kept once the renewals stopped")
	}
	want := `identity "svc": the OAuth access token was renewed 3 time(s), 3 after the target answered 401; renewal after a 401 stopped there, at 3`
	if !slices.ContainsFunc(out.Notes, func(n string) bool { return strings.HasPrefix(n, want) }) {
		t.Errorf("notes %q lack %q", out.Notes, want)
	}
}

// TestTokenURLSchemeRule: the client secret goes over http only to the
// target's own origin or to a host that is the loopback interface, decided
// by parsing the host, never by its first characters.
func TestTokenURLSchemeRule(t *testing.T) {
	target := mustParse(t, "http://api.test:8080/")
	for _, tc := range []struct {
		url string
		ok  bool
	}{
		{"http://127.0.0.1.attacker.invalid/token", false},
		{"http://127.0.0.1:8080/t", true},
		{"http://127.9.9.9/t", true},
		{"http://[::1]/t", true},
		{"http://[::1]:9000/t", true},
		{"http://[::ffff:127.0.0.1]/t", true},
		{"http://localhost/t", true},
		{"http://LocalHost:9000/t", true},
		{"http://localhost.evil/t", false},
		{"http://evil.localhost.example/t", false},
		// Not an IP address to net.ParseIP: a resolver may look it up as
		// a name.
		{"http://127.1/t", false},
		{"http://0.0.0.0/t", false},
		{"http://10.0.0.1/t", false},
		{"http://api.test:8080/token", true},
		{"http://api.test:9090/token", false},
		{"https://127.0.0.1.attacker.invalid/token", true},
		{"https://auth.example.com/token", true},
		{"https://localhost.evil/t", true},
	} {
		err := testGrant(tc.url, nil).Validate(target)
		if got := err == nil; got != tc.ok {
			t.Errorf("%s: accepted %v, want %v (%v)", tc.url, got, tc.ok, err)
		}
	}
}
