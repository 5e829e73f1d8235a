package probe

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"

	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/sanitize"
	"github.com/agentready/agentready/internal/urlx"
)

// OAuth is an identity's OAuth 2.0 client credentials grant (RFC 6749
// §4.4): the session asks TokenURL for an access token before the crawl and
// sends it as a Bearer token to the target's origin only, renewed before it
// expires and once after the target refuses it.
type OAuth struct {
	TokenURL     string
	ClientID     string
	ClientSecret string
	Scopes       []string
	// Audience is sent as the audience parameter, which several
	// authorization servers require to pick the API the token is for.
	Audience string
	// SecretInBody sends the client credentials in the request body
	// (client_secret_post) instead of HTTP Basic authentication
	// (client_secret_basic, RFC 6749 §2.3.1), the default.
	SecretInBody bool
	// Now is the clock tokens expire by; nil is time.Now.
	Now func() time.Time
}

// Secrets are the values the grant sends to the token endpoint, to scrub
// wherever they may be echoed: the client secret, and the Basic credentials
// made of it, with and without the form encoding RFC 6749 §2.3.1 applies
// first. The client ID alone is an identifier and is left readable.
func (o OAuth) Secrets() http.Header {
	h := http.Header{}
	if o.ClientSecret == "" {
		return h
	}
	h.Add("Oauth-Client-Secret", o.ClientSecret)
	for _, pair := range []string{o.ClientID + ":" + o.ClientSecret, url.QueryEscape(o.ClientID) + ":" + url.QueryEscape(o.ClientSecret)} {
		h.Add("Oauth-Client-Credentials", pair)
		h.Add("Oauth-Client-Credentials", base64.StdEncoding.EncodeToString([]byte(pair)))
	}
	return h
}

// Validate says what makes o unusable. The token endpoint may be on any
// origin, the user having named it; it must be https unless it is on the
// target's origin or the loopback interface, since the client secret goes
// to it.
func (o OAuth) Validate(target *url.URL) error {
	u, err := url.Parse(o.TokenURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return errors.New("token-url: want an absolute http or https URL")
	}
	if u.User != nil {
		return errors.New("token-url: user-info is not allowed; give client-id and client-secret")
	}
	if u.Scheme == "http" && (target == nil || !urlx.SameOrigin(u, target)) && !loopback(u) {
		return errors.New("token-url: want https, the client secret is sent to it (http only on the target's origin or loopback)")
	}
	if o.ClientID == "" || o.ClientSecret == "" {
		return errors.New("client-id and client-secret are required")
	}
	return nil
}

// loopback reports whether u's host is the loopback interface: a loopback
// IP address (127.0.0.0/8, ::1) or the name localhost itself. The host is
// parsed, never matched by prefix: 127.0.0.1.example.com is a name any DNS
// may point anywhere. A short form such as 127.1 is not an IP address to
// net.ParseIP, and a resolver may look it up as a name, so it is refused
// too: a loopback token endpoint is written in full.
func loopback(u *url.URL) bool {
	h := u.Hostname()
	if ip := net.ParseIP(h); ip != nil {
		return ip.IsLoopback()
	}
	return strings.EqualFold(h, "localhost")
}

// ErrTokenEndpoint means no access token could be had for an identity: the
// scan cannot run as it.
var ErrTokenEndpoint = errors.New("token endpoint")

// tokenExpiryMargin is how long before its announced expiry a token is
// renewed, at most: a request sent just before expiry still arrives with a
// valid token. Short-lived tokens renew at nine tenths of their lifetime.
const tokenExpiryMargin = 30 * time.Second

// tokenSource hands out an identity's current access token, renewed before
// it expires (expires_in, less a margin) and once after the target answers
// 401 to it. x/oauth2's clientcredentials sends the grant and parses the
// answer; its own reuse (oauth2.ReuseTokenSource) is not used, because it
// cannot be told a token was refused, and it reads the wall clock, which
// tests could not move.
type tokenSource struct {
	name   string
	grant  clientcredentials.Config
	client *http.Client
	now    func() time.Time
	book   *SecretBook
	log    io.Writer
	// redacts is the client secret and the forms it takes on the wire, for
	// error messages written before any token exists.
	redacts *exchange.Secrets

	mu      sync.Mutex
	current string
	expiry  time.Time // zero when the server announced no lifetime
	// refused are the tokens that already caused a renewal after a 401: a
	// token is renewed for a 401 once.
	refused map[string]bool
	// accepted is set once the target answers the current token with
	// anything but 401.
	accepted bool
	renewed  int
	after401 int
	// capped is set once a 401 found the renewals after a 401 spent.
	capped bool
}

// maxRenewalsAfter401 bounds the tokens one identity asks for because the
// target refused one it had accepted: a target that accepts each new token
// once and then answers 401 would otherwise cost a token per request. The
// renewals by announced lifetime are not counted: they are what the token
// endpoint asked for.
const maxRenewalsAfter401 = 3

// newTokenSource prepares the grant of o for the identity name, sending it
// with cfg's timeout, body cap and transport, never following a redirect
// (the body holds the secret with client_secret_post) and never with the
// target's headers.
func newTokenSource(name string, o OAuth, cfg Config, book *SecretBook) *tokenSource {
	cfg = cfg.withDefaults()
	style := oauth2.AuthStyleInHeader
	if o.SecretInBody {
		style = oauth2.AuthStyleInParams
	}
	params := url.Values{}
	if o.Audience != "" {
		params.Set("audience", o.Audience)
	}
	base := cfg.Transport
	if base == nil {
		base = newTransport(1, cfg.Resolver, cfg.TLS)
	}
	now := o.Now
	if now == nil {
		now = time.Now
	}
	book.Add(o.Secrets())
	return &tokenSource{
		name: name,
		grant: clientcredentials.Config{ClientID: o.ClientID, ClientSecret: o.ClientSecret, TokenURL: o.TokenURL,
			Scopes: o.Scopes, EndpointParams: params, AuthStyle: style},
		client: &http.Client{
			Transport:     cappedTransport{next: base, max: cfg.MaxBody},
			Timeout:       cfg.Timeout,
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		},
		now:     now,
		book:    book,
		log:     cfg.Log,
		redacts: exchange.NewSecrets(o.Secrets()),
		refused: map[string]bool{},
	}
}

// token is the current token, renewed first when it expires within the
// margin.
func (t *tokenSource) token(ctx context.Context) (string, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.current != "" && (t.expiry.IsZero() || t.now().Before(t.expiry)) {
		return t.current, nil
	}
	return t.renew(ctx)
}

// refusedAfter401 is called when the target answered 401 to used; it says
// whether to send the request again, with the token then current. A 401 to
// a token the target accepted before means it expired early or was
// revoked: the token is renewed, once, and at most maxRenewalsAfter401
// times in the scan. A request that raced with that
// renewal is sent again with the new token. A token refused before it was
// ever accepted is not renewed for a 401: a new one would be refused alike,
// and an endpoint that refuses this identity must not cost one token per
// request.
func (t *tokenSource) refusedAfter401(ctx context.Context, used string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if used != t.current {
		return t.current != ""
	}
	if !t.accepted || t.refused[used] {
		return false
	}
	if t.after401 >= maxRenewalsAfter401 {
		t.capped = true
		return false
	}
	t.refused[used] = true
	if _, err := t.renew(ctx); err != nil {
		return false
	}
	t.after401++
	return true
}

// acceptedBy records that the target answered used with something other
// than 401.
func (t *tokenSource) acceptedBy(used string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if used == t.current {
		t.accepted = true
	}
}

// renew asks the token endpoint for a new token; t.mu is held.
func (t *tokenSource) renew(ctx context.Context) (string, error) {
	tok, err := t.grant.Token(context.WithValue(ctx, oauth2.HTTPClient, t.client))
	if err != nil {
		return "", t.failure(err)
	}
	issued := t.now()
	secrets := http.Header{"Oauth-Access-Token": {tok.AccessToken}}
	if tok.RefreshToken != "" {
		secrets.Add("Oauth-Refresh-Token", tok.RefreshToken)
	}
	t.book.Add(secrets)
	if tok.AccessToken == "" {
		return "", fmt.Errorf("%w for identity %q: the answer has no access_token", ErrTokenEndpoint, t.name)
	}
	if !strings.EqualFold(tok.Type(), "Bearer") {
		return "", fmt.Errorf("%w for identity %q: issued a %q token; only Bearer tokens are supported", ErrTokenEndpoint, t.name, sanitize.Line(tok.Type()))
	}
	t.current, t.expiry, t.accepted = tok.AccessToken, time.Time{}, false
	if !tok.Expiry.IsZero() {
		// x/oauth2 dates expires_in by the wall clock; t.now dates it here.
		lifetime := time.Until(tok.Expiry).Round(time.Second)
		t.expiry = issued.Add(lifetime - min(tokenExpiryMargin, lifetime/10))
	}
	t.renewed++
	if t.log != nil {
		lifetime := "no announced lifetime"
		if !t.expiry.IsZero() {
			lifetime = "renewed at " + t.expiry.Sub(issued).String()
		}
		fmt.Fprintln(t.log, sanitize.Line(fmt.Sprintf("token endpoint: access token %d for identity %q (%s)", t.renewed, t.name, lifetime)))
	}
	return t.current, nil
}

// failure says why the token endpoint gave no token, with the error code
// it sent (RFC 6749 §5.2) and never the secret, in any form.
func (t *tokenSource) failure(err error) error {
	var re *oauth2.RetrieveError
	msg := ""
	switch {
	case errors.As(err, &re) && re.Response != nil:
		msg = fmt.Sprintf("answered %d", re.Response.StatusCode)
		if re.ErrorCode != "" {
			msg += ": " + re.ErrorCode
			if re.ErrorDescription != "" {
				msg += " (" + re.ErrorDescription + ")"
			}
		}
	case errors.Is(err, context.DeadlineExceeded) || os.IsTimeout(err):
		msg = fmt.Sprintf("no answer within %s", t.client.Timeout)
	default:
		msg = err.Error()
	}
	msg = sanitize.Line(t.book.Secrets().String(t.redacts.String(msg)))
	if len(msg) > 300 {
		msg = msg[:300] + "…"
	}
	return fmt.Errorf("%w for identity %q: %s", ErrTokenEndpoint, t.name, msg)
}

// close lets the token endpoint's idle connections go.
func (t *tokenSource) close() { t.client.CloseIdleConnections() }

// note says how often the token was renewed, when it was.
func (t *tokenSource) note() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.renewed <= 1 {
		return ""
	}
	note := fmt.Sprintf("identity %q: the OAuth access token was renewed %d time(s), %d after the target answered 401", t.name, t.renewed-1, t.after401)
	if t.capped {
		note += fmt.Sprintf("; renewal after a 401 stopped there, at %d: the target refused each new token it had accepted, and the 401s it answered since are kept", maxRenewalsAfter401)
	}
	return note
}

// cappedTransport caps the bodies of the token endpoint's answers at the
// target's cap (--max-body) when it is below x/oauth2's own 1 MiB.
type cappedTransport struct {
	next http.RoundTripper
	max  int64
}

func (c cappedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := c.next.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	resp.Body = struct {
		io.Reader
		io.Closer
	}{io.LimitReader(resp.Body, c.max), resp.Body}
	return resp, nil
}

// CloseIdleConnections closes those of the transport behind.
func (c cappedTransport) CloseIdleConnections() {
	if ci, ok := c.next.(interface{ CloseIdleConnections() }); ok {
		ci.CloseIdleConnections()
	}
}

// SecretBook collects credentials issued while the session runs (access
// tokens) and the grant's own (client secrets), for everything that prints
// or records to scrub along with the headers known before it started. It
// is safe for concurrent use; a nil book holds nothing.
type SecretBook struct {
	mu      sync.Mutex
	headers []http.Header
	gen     int
	cached  *exchange.Secrets
	cachedG int
}

// Add adds the values of h.
func (b *SecretBook) Add(h http.Header) {
	if b == nil || len(h) == 0 {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.headers = append(b.headers, h.Clone())
	b.gen++
}

// Headers are every value added, one header each.
func (b *SecretBook) Headers() []http.Header {
	if b == nil {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]http.Header(nil), b.headers...)
}

// Secrets scrubs every value added so far; nil when none was.
func (b *SecretBook) Secrets() *exchange.Secrets {
	if b == nil {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.cached == nil || b.cachedG != b.gen {
		b.cached, b.cachedG = exchange.NewSecrets(b.headers...), b.gen
	}
	return b.cached
}

// liveSecrets scrubs the headers a client was configured with and whatever
// the session's book holds at the time of asking.
type liveSecrets struct {
	base []http.Header
	book *SecretBook

	mu      sync.Mutex
	cached  *exchange.Secrets
	version int
}

func newLiveSecrets(base []http.Header, book *SecretBook) *liveSecrets {
	return &liveSecrets{base: base, book: book, version: -1}
}

func (l *liveSecrets) get() *exchange.Secrets {
	gen := 0
	if l.book != nil {
		l.book.mu.Lock()
		gen = l.book.gen
		l.book.mu.Unlock()
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.version != gen {
		l.cached, l.version = exchange.NewSecrets(append(append([]http.Header(nil), l.base...), l.book.Headers()...)...), gen
	}
	return l.cached
}

func (l *liveSecrets) String(v string) string { return l.get().String(v) }

func (l *liveSecrets) Scrub(x *exchange.Exchange) { l.get().Scrub(x) }
