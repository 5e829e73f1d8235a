package probe

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/time/rate"

	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/sanitize"
	"github.com/agentready/agentready/internal/urlx"
)

// maxResponseHeaderBytes bounds what a hostile server can make us buffer
// before the body cap even applies.
const maxResponseHeaderBytes = 1 << 20

// client sends every request of a scan: one transport, one rate limiter, one
// redirect policy, and a count of the requests that actually went out.
type client struct {
	http     *http.Client
	start    *url.URL
	timeout  time.Duration
	maxBody  int64
	maxHops  int
	userHdrs http.Header
	// credentials are added to the requests to their URL; see Credentials.
	credentials Credentials
	redact      map[string]bool
	// secrets are the header values scrubbed from whatever the client
	// records or logs: a server may echo them anywhere.
	secrets *liveSecrets
	// bearer, when set, is the identity's OAuth token source: its token
	// replaces the Authorization the identity's headers hold, on the
	// target's origin only.
	bearer *tokenSource
	// requested remembers the URL behind each recorded URL that scrubbing
	// changed, for the probes planned from the recording.
	requested *urlBook
	requests  atomic.Int64
	headers   sharedHeaders
	respHdrs  *responseHeaders
	throttle  *throttle

	logMu sync.Mutex
	log   io.Writer
}

func newClient(cfg Config, start *url.URL) *client {
	c := &client{
		start:       start,
		timeout:     cfg.Timeout,
		maxBody:     cfg.MaxBody,
		maxHops:     cfg.MaxRedirects,
		userHdrs:    cfg.Headers,
		credentials: cfg.Credentials,
		redact:      exchange.RedactedNames(cfg.Headers),
		secrets:     newLiveSecrets(cfg.scrubbed(), cfg.Issued),
		bearer:      cfg.bearer,
		requested:   &urlBook{urls: map[string]string{}},
		respHdrs:    newResponseHeaders(),
		throttle:    newThrottle(cfg.sleep),
		log:         cfg.Log,
	}
	base := cfg.Transport
	var head http.RoundTripper
	if base == nil {
		t := newTransport(cfg.Concurrency, cfg.Resolver, cfg.TLS)
		base, head = t, newHeadTransport(t)
	}
	var limiter *rate.Limiter
	if cfg.Rate > 0 {
		limiter = rate.NewLimiter(rate.Limit(cfg.Rate), 1)
	}
	c.http = &http.Client{
		Transport:     &countingTransport{next: base, head: head, limiter: limiter, count: &c.requests, progress: cfg.progress},
		CheckRedirect: c.checkRedirect,
	}
	return c
}

// newTransport keeps connections alive across the worker pool and speaks
// HTTP/2 when the server offers it. Compression stays off so that the request
// on the wire is exactly the recorded one, and a curl line reproduces it. It
// dials through the scan's resolver, which reaches each host name at the
// addresses of its first lookup only, and shakes hands with tlsConfig
// (nil is Go's default).
func newTransport(concurrency int, resolver *Resolver, tlsConfig *tls.Config) *http.Transport {
	return &http.Transport{
		TLSClientConfig:        tlsConfig.Clone(),
		Proxy:                  http.ProxyFromEnvironment,
		DialContext:            resolver.DialContext,
		ForceAttemptHTTP2:      true,
		DisableCompression:     true,
		MaxIdleConns:           100,
		MaxIdleConnsPerHost:    concurrency,
		IdleConnTimeout:        90 * time.Second,
		TLSHandshakeTimeout:    10 * time.Second,
		ExpectContinueTimeout:  time.Second,
		MaxResponseHeaderBytes: maxResponseHeaderBytes,
	}
}

func (c *client) close() {
	if ci, ok := c.http.Transport.(*countingTransport).next.(interface{ CloseIdleConnections() }); ok {
		ci.CloseIdleConnections()
	}
}

// checkRedirect follows on-origin redirects only, up to the hop limit. The
// user's headers may be credentials: they are removed before any decision so
// that a future change of policy cannot leak them to another origin.
func (c *client) checkRedirect(req *http.Request, via []*http.Request) error {
	// Referer is added by net/http on redirects; the recording would not show it.
	req.Header.Del("Referer")
	if !urlx.SameOrigin(req.URL, c.start) {
		for name := range c.userHdrs {
			req.Header.Del(name)
		}
		return http.ErrUseLastResponse
	}
	if len(via) > c.maxHops {
		return http.ErrUseLastResponse
	}
	return nil
}

// countingTransport applies the rate limit to every hop, redirects included,
// and counts what was sent.
type countingTransport struct {
	next http.RoundTripper
	// head carries the HEAD requests when set, on connections that see
	// what a server sends after the response (newHeadTransport).
	head     http.RoundTripper
	limiter  *rate.Limiter
	count    *atomic.Int64
	progress *Progress
}

func (t *countingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if t.limiter != nil {
		if err := t.limiter.Wait(req.Context()); err != nil {
			return nil, err
		}
	}
	t.count.Add(1)
	t.progress.addRequest()
	defer t.progress.Begin(req.Method, req.URL.Path, time.Now())()
	if req.Method == http.MethodHead && t.head != nil {
		return t.head.RoundTrip(req)
	}
	return t.next.RoundTrip(req)
}

// fetch sends one request and records it, redacted and with every echo of
// a header value scrubbed (see exchange.Secrets). final is the URL of the
// last response after redirects, the base for its relative references; it is
// nil when nothing came back.
func (c *client) fetch(ctx context.Context, method, rawURL string, header http.Header) (x *exchange.Exchange, final *url.URL) {
	return c.send(ctx, method, rawURL, header, nil)
}

// send is fetch with a request body, which only active probes have.
func (c *client) send(ctx context.Context, method, rawURL string, header http.Header, body []byte) (x *exchange.Exchange, final *url.URL) {
	x, final = c.sendUnscrubbed(ctx, method, rawURL, header, body)
	c.scrub(x)
	return x, final
}

// scrub replaces the secrets and the exposed credentials in x, and
// remembers the URL requested when its recorded URL changed. The response
// header is final then, and shared with the exchanges that received the
// same one.
func (c *client) scrub(x *exchange.Exchange) {
	requested := x.Request.URL
	c.secrets.Scrub(x)
	// Credentials the server exposes are kept out of the recording too,
	// before the header is shared; see exchange.RedactResponseCredentials.
	exchange.RedactResponseCredentials(x)
	if x.Response != nil {
		x.Response.Header = c.respHdrs.shared(x.Response.Header)
	}
	if x.Request.URL != requested {
		c.requested.add(x.Request.URL, requested)
	}
}

// urlBook maps recorded URLs to the URLs requested. A recorded URL that two
// requested ones scrub to keeps the first.
type urlBook struct {
	mu   sync.Mutex
	urls map[string]string
}

func (b *urlBook) add(recorded, requested string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if _, ok := b.urls[recorded]; !ok {
		b.urls[recorded] = requested
	}
}

// requestedURL is the URL requested for a recorded one, or recorded itself.
// The crawler reads links before scrubbing, so a link holding a secret was
// followed as the server wrote it; a probe planned from its recorded URL
// goes to the same resource.
func (b *urlBook) requestedURL(recorded string) string {
	b.mu.Lock()
	defer b.mu.Unlock()
	if u, ok := b.urls[recorded]; ok {
		return u
	}
	return recorded
}

// sendUnscrubbed is send before the echoed secrets are scrubbed: the
// crawler reads links from what the server sent, so that a URL holding a
// secret is followed as it is, then scrubs the exchange before anything
// keeps it.
func (c *client) sendUnscrubbed(ctx context.Context, method, rawURL string, header http.Header, body []byte) (x *exchange.Exchange, final *url.URL) {
	header = c.credentials.For(rawURL, header)
	header, used := c.withBearer(ctx, rawURL, header)
	for attempt := 1; ; attempt++ {
		x, final = c.attemptThrottled(ctx, method, rawURL, header, body)
		if used == "" || x.Response == nil {
			return x, final
		}
		if x.Response.Status != http.StatusUnauthorized {
			c.bearer.acceptedBy(used)
			return x, final
		}
		// A 401 to a token the target accepted before is about the token
		// (expired early, revoked), not the resource, and is not kept: the
		// request goes again with the renewed token, or with the one another
		// request renewed meanwhile, a bounded number of times.
		if attempt == maxTokenAttempts || !c.bearer.refusedAfter401(ctx, used) {
			return x, final
		}
		header, used = c.withBearer(ctx, rawURL, header)
	}
}

// maxTokenAttempts bounds the sends of one request as an OAuth identity:
// the token it was sent with renewed once, and once more if another renewal
// overtook that one.
const maxTokenAttempts = 3

// withBearer is header with the identity's current access token as its
// Authorization, and that token, when the identity has a token source, the
// request goes to the target's origin and header carries the identity's
// Authorization (a request planned without credentials stays without).
func (c *client) withBearer(ctx context.Context, rawURL string, header http.Header) (http.Header, string) {
	if c.bearer == nil || header.Get("Authorization") == "" {
		return header, ""
	}
	u, err := url.Parse(rawURL)
	if err != nil || !urlx.SameOrigin(u, c.start) {
		return header, ""
	}
	tok, err := c.bearer.token(ctx)
	if err != nil {
		c.logf("%s", err)
		return header, ""
	}
	header = header.Clone()
	header.Set("Authorization", "Bearer "+tok)
	return header, tok
}

// attempt sends one request and records it, unscrubbed.
func (c *client) attempt(ctx context.Context, method, rawURL string, header http.Header, body []byte) (x *exchange.Exchange, final *url.URL) {
	x = &exchange.Exchange{Request: exchange.Request{
		Method: method,
		URL:    rawURL,
		Header: c.headers.recorded(header, c.redact, c.secrets.get()),
		Body:   string(body),
	}}
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	var content io.Reader
	if body != nil {
		content = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, rawURL, content)
	if err != nil {
		x.Err = err.Error()
		return x, nil
	}
	req.Header = header.Clone()
	var watch *headWatch
	if method == http.MethodHead {
		req = req.WithContext(httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{GotConn: func(info httptrace.GotConnInfo) {
			// The last hop's connection: a redirect's HEAD had its own.
			watch, _ = info.Conn.(*headWatch)
		}}))
	}
	begin := time.Now()
	x.Started = begin.UnixNano()
	defer func() { x.Duration = time.Since(begin) }()
	resp, err := c.http.Do(req)
	if err != nil {
		x.Err = err.Error()
		c.logf("%s %s: %s (after %s)", method, rawURL, x.Err, latency(begin))
		return x, nil
	}
	defer resp.Body.Close()
	body, size, truncated, readErr := c.readBody(method, resp)
	x.Response = &exchange.Response{
		Status:    resp.StatusCode,
		Proto:     protoOf(resp.Proto),
		Header:    exchange.RedactOwnHeader(resp.Header, c.redact),
		Body:      body,
		BodySize:  size,
		Truncated: truncated,
	}
	if readErr != nil {
		x.Err = "reading body: " + readErr.Error()
	}
	if watch != nil {
		if after, size := watch.afterHead(); size > 0 {
			x.AfterHead = &exchange.AfterHead{Bytes: after, Size: size}
		}
	}
	c.logf("%s %s: %d in %s", method, rawURL, resp.StatusCode, latency(begin))
	return x, resp.Request.URL
}

// latency is the time since begin as the -v log shows it, to the
// millisecond: the body read included, since a slow body slows the scan.
func latency(begin time.Time) time.Duration { return time.Since(begin).Round(time.Millisecond) }

// protoOf is the response's protocol, one shared string for the usual ones:
// each response's own is cut from its status line, which it would keep.
func protoOf(p string) string {
	for _, known := range []string{"HTTP/1.1", "HTTP/2.0", "HTTP/1.0"} {
		if p == known {
			return known
		}
	}
	return p
}

// readBody reads the body of resp within the cap. A stream's body is not
// read: it may never end, so reading it would hold a worker until the
// request times out, and no check judges one. It is recorded as cut.
func (c *client) readBody(method string, resp *http.Response) (body []byte, size int64, truncated bool, err error) {
	if mt, _ := exchange.MediaTypeOf(resp.Header.Get("Content-Type")); method == http.MethodGet && exchange.IsStream(mt) {
		return nil, max(resp.ContentLength, 0), true, nil
	}
	return readCapped(resp.Body, c.maxBody, resp.ContentLength)
}

// readCapped reads at most max bytes. One extra byte tells a body of exactly
// max bytes from a longer one. size is what is known to have been sent: the
// declared length when the body was cut, or what was read.
func readCapped(r io.Reader, max, declared int64) (body []byte, size int64, truncated bool, err error) {
	body, err = readAll(io.LimitReader(r, max+1), declared)
	size = int64(len(body))
	if size > max {
		body, truncated = body[:max], true
		if declared > size {
			size = declared
		}
	}
	if err != nil && !errors.Is(err, io.EOF) {
		truncated = true
		return body, size, truncated, err
	}
	return body, size, truncated, nil
}

// presizeLimit bounds the buffer allocated ahead for a declared length: a
// server may declare far more than it sends.
const presizeLimit = 64 << 10

// readAll is io.ReadAll into a buffer sized by the declared length, and
// returns a body in a buffer not much larger than it: the recording keeps
// every small body of a crawl, and io.ReadAll holds one of under 512 bytes,
// a typical item's, in 512.
func readAll(r io.Reader, declared int64) ([]byte, error) {
	size := int64(512)
	if declared >= 0 && declared < presizeLimit {
		size = declared + 1 // the read that finds the end needs room
	}
	b := make([]byte, 0, size)
	for {
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = nil
			}
			return fitted(b), err
		}
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
	}
}

// fitted is b in a buffer of its length when b's would waste more than an
// eighth of it.
func fitted(b []byte) []byte {
	if cap(b)-len(b) <= len(b)/8 {
		return b
	}
	return bytes.Clone(b)
}

func (c *client) logf(format string, args ...any) {
	if c.log == nil {
		return
	}
	line := sanitize.Line(c.secrets.String(fmt.Sprintf(format, args...)))
	c.logMu.Lock()
	defer c.logMu.Unlock()
	fmt.Fprintln(c.log, line)
}
