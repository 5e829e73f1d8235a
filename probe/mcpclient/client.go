// Package mcpclient is the scanner's MCP client. It is part of probe, the
// only package tree that touches the network, and it sends only read-only
// MCP traffic: the JSON-RPC methods in allowedMethods, GETs of discovery
// documents, and DELETE of a session it opened itself. The revision decision
// and the raw tools/list pages stay in its own hands instead of an SDK's,
// because the SDKs fall back to the legacy handshake on any failure (401 and
// 5xx included) and silently drop tools that the checks must report.
package mcpclient

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/mcp"
	"github.com/agentready/agentready/internal/sanitize"
)

// allowedMethods is the whole of what the scanner may ask an MCP server.
// tools/call, and every other method, is refused before anything is sent.
var allowedMethods = map[string]bool{
	"server/discover":           true,
	"initialize":                true,
	"notifications/initialized": true,
	"tools/list":                true,
	"prompts/list":              true,
	"resources/list":            true,
	"resources/templates/list":  true,
	// resources/read is sent only for the ui:// resources a resources/list
	// answer names, as a host reads them before showing a tool's interface;
	// rpc refuses it for any other URI.
	"resources/read": true,
}

// AllowedMethods lists the JSON-RPC methods the client may send, sorted.
func AllowedMethods() []string {
	return []string{
		"initialize", "notifications/initialized", "prompts/list", "resources/list",
		"resources/read", "resources/templates/list", "server/discover", "tools/list",
	}
}

// errRequestCap marks a request not sent because Config.MaxRequests was reached.
var errRequestCap = errors.New("not sent: the request cap was reached")

// ErrMethodNotAllowed is returned for any JSON-RPC method outside the
// read-only list, and for a DELETE of a session the client did not open.
var ErrMethodNotAllowed = errors.New("refused: not a read-only MCP request")

// Config bounds the client. Zero values mean the defaults.
type Config struct {
	// Headers are sent on every request (the user's credentials); their
	// values are redacted in the recording.
	Headers http.Header
	// Secrets are more credentials scrubbed from the recording, never sent:
	// those of the scan's other identities. The values of Headers are
	// scrubbed as well; see exchange.Secrets.
	Secrets  http.Header
	Timeout  time.Duration // per request; default 10s
	MaxBody  int64         // bytes read per response; default 2 MiB
	MaxPages int           // tools/list pages per walk; default 50
	// MaxRequests caps the JSON-RPC requests sent; 0 means no cap beyond
	// MaxPages. Closing a session the client opened is never capped.
	MaxRequests int
	UserAgent   string
	// ClientName and ClientVersion go into clientInfo.
	ClientName, ClientVersion string
	// Transport replaces the default transports, for tests. With it, the
	// "second connection" of the stability check shares its pool.
	Transport http.RoundTripper
	// DialContext opens the default transports' connections; nil is a
	// plain net.Dialer. A scan gives its resolver's, so that the MCP server
	// is reached at the addresses every other request of the scan went to.
	DialContext func(ctx context.Context, network, addr string) (net.Conn, error)
	// Log receives one line per request when set.
	Log io.Writer
	// TLS is the client side of the default transports' TLS connections;
	// nil is Go's default.
	TLS *tls.Config
	// Rate is the scan's --rate in requests per second; 0 is unlimited.
	Rate float64
}

func (cfg Config) withDefaults() Config {
	if cfg.Timeout <= 0 {
		cfg.Timeout = 10 * time.Second
	}
	if cfg.MaxBody <= 0 {
		cfg.MaxBody = 2 << 20
	}
	if cfg.MaxPages <= 0 {
		cfg.MaxPages = 50
	}
	if cfg.ClientName == "" {
		cfg.ClientName = "agentready"
	}
	if cfg.ClientVersion == "" {
		cfg.ClientVersion = "dev"
	}
	if cfg.UserAgent == "" {
		cfg.UserAgent = cfg.ClientName + "/" + cfg.ClientVersion
	}
	return cfg
}

// maxRecordedRequestBody bounds the JSON-RPC body kept in the recording.
const maxRecordedRequestBody = 4 << 10

// client talks to one endpoint. It records every exchange as an mcp.Call.
type client struct {
	cfg      Config
	endpoint *url.URL
	conns    map[string]*http.Client
	redact   map[string]bool
	secrets  *exchange.Secrets
	nextID   int
	sent     int
	// opened is the session this client minted, the only one it may DELETE.
	opened string
	// sessionStart are the requests that opened it, so far: initialize,
	// then notifications/initialized. See exchange.Request.SessionStart.
	sessionStart []exchange.Request
	// limiter applies Config.Rate across the client's connections.
	limiter *rate.Limiter

	mu    sync.Mutex
	calls []*mcp.Call
	// minted holds the Mcp-Session-Id of each response that carried one, by
	// its exchange, as received: the recorded header is scrubbed, and a
	// session ID that happens to hold a credential's echo goes back to the
	// server as the server minted it, never as the recording shows it.
	minted map[*exchange.Exchange]string
}

func newClient(cfg Config, endpoint *url.URL) *client {
	cfg = cfg.withDefaults()
	c := &client{cfg: cfg, endpoint: endpoint, conns: map[string]*http.Client{}, redact: exchange.RedactedNames(cfg.Headers),
		secrets: exchange.NewSecrets(cfg.Headers, cfg.Secrets), minted: map[*exchange.Exchange]string{}}
	if cfg.Rate > 0 {
		c.limiter = rate.NewLimiter(rate.Limit(cfg.Rate), 1)
	}
	return c
}

// conn returns the HTTP client for a connection label. Each label gets its
// own transport, hence its own TCP connections, unless a test transport was
// given.
func (c *client) conn(label string) *http.Client {
	if hc, ok := c.conns[label]; ok {
		return hc
	}
	rt := c.cfg.Transport
	if rt == nil {
		dial := c.cfg.DialContext
		if dial == nil {
			dial = (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext
		}
		rt = &http.Transport{
			Proxy:                  http.ProxyFromEnvironment,
			DialContext:            dial,
			ForceAttemptHTTP2:      true,
			DisableCompression:     true,
			TLSClientConfig:        c.cfg.TLS.Clone(),
			TLSHandshakeTimeout:    10 * time.Second,
			MaxResponseHeaderBytes: 1 << 20,
		}
	}
	if c.limiter != nil {
		rt = limited{next: rt, limiter: c.limiter}
	}
	hc := &http.Client{
		Transport: rt,
		// A POST is never replayed elsewhere: net/http would turn it into a
		// GET on 301/302, and a redirect may leave the origin.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	c.conns[label] = hc
	return hc
}

// limited holds every request of the client to the scan's --rate.
type limited struct {
	next    http.RoundTripper
	limiter *rate.Limiter
}

func (l limited) RoundTrip(req *http.Request) (*http.Response, error) {
	if err := l.limiter.Wait(req.Context()); err != nil {
		return nil, err
	}
	return l.next.RoundTrip(req)
}

func (l limited) CloseIdleConnections() {
	if ci, ok := l.next.(interface{ CloseIdleConnections() }); ok {
		ci.CloseIdleConnections()
	}
}

func (c *client) close() {
	for _, hc := range c.conns {
		if ci, ok := hc.Transport.(interface{ CloseIdleConnections() }); ok && c.cfg.Transport == nil {
			ci.CloseIdleConnections()
		}
	}
}

// request is one JSON-RPC message to send.
type request struct {
	method  string
	params  any
	era     mcp.Era
	session string // Mcp-Session-Id, legacy only
	version string // MCP-Protocol-Version header, "" for none
	conn    string
	// origin is an Origin header to send, "" for none: only the probe of
	// Origin validation sends one.
	origin string
	// name is the URI a resources/read names in its params, sent as the
	// Mcp-Name header in the modern era.
	name string
}

// rpc sends one JSON-RPC request or notification, after checking the method
// against the read-only list. It never returns nil.
func (c *client) rpc(ctx context.Context, r request) *mcp.Call {
	call := &mcp.Call{Method: r.method, Era: r.era, Connection: r.conn}
	if !allowedMethods[r.method] || (r.method == "resources/read" && !strings.HasPrefix(strings.ToLower(r.name), mcp.UIScheme)) {
		call.ParseError = fmt.Sprintf("%v: %s", ErrMethodNotAllowed, r.method)
		return call
	}
	if c.cfg.MaxRequests > 0 && c.sent >= c.cfg.MaxRequests {
		call.ParseError = fmt.Sprintf("%v (%d)", errRequestCap, c.cfg.MaxRequests)
		return call
	}
	c.sent++
	notification := r.method == "notifications/initialized"
	msg := map[string]any{"jsonrpc": "2.0", "method": r.method}
	id := 0
	if !notification {
		c.nextID++
		id = c.nextID
		msg["id"] = id
	}
	if r.params != nil {
		msg["params"] = r.params
	}
	body, err := json.Marshal(msg)
	if err != nil {
		call.ParseError = err.Error()
		return call
	}
	h := c.baseHeader()
	h.Set("Content-Type", "application/json")
	h.Set("Accept", "application/json, text/event-stream")
	if r.version != "" {
		h.Set("MCP-Protocol-Version", r.version)
	}
	if r.era == mcp.EraModern {
		h.Set("Mcp-Method", r.method)
		if r.name != "" {
			h.Set("Mcp-Name", r.name)
		}
	}
	if r.session != "" {
		h.Set("Mcp-Session-Id", r.session)
	}
	purpose := "mcp/" + r.method
	if r.origin != "" {
		h.Set("Origin", r.origin)
		purpose = PurposeForeignOrigin
	}
	call.Exchange = c.send(ctx, http.MethodPost, h, body, r.conn, purpose)
	if r.session != "" {
		c.inSession(call.Exchange, notification)
	}
	c.record(call)
	if resp := call.Exchange.Response; resp != nil && !notification {
		m, err := mcp.ParseResponse(resp.Header.Get("Content-Type"), resp.Body, id)
		if err != nil {
			call.ParseError = err.Error()
		}
		call.Message = m
	}
	return call
}

// deleteSession ends the session this client opened; any other ID is refused.
func (c *client) deleteSession(ctx context.Context, sessionID, version string) (*mcp.Call, error) {
	if sessionID == "" || sessionID != c.opened {
		return nil, fmt.Errorf("%w: DELETE of session %q, which this client did not open", ErrMethodNotAllowed, sessionID)
	}
	h := c.baseHeader()
	h.Set("Mcp-Session-Id", sessionID)
	if version != "" {
		h.Set("MCP-Protocol-Version", version)
	}
	call := &mcp.Call{Method: "DELETE session", Era: mcp.EraLegacy, Connection: "1"}
	call.Exchange = c.send(ctx, http.MethodDelete, h, nil, "1", "mcp/delete-session")
	c.inSession(call.Exchange, false)
	c.record(call)
	return call, nil
}

// openSession remembers the session initialize opened, and the request
// that opened it.
func (c *client) openSession(id string, initialize *exchange.Exchange) {
	c.opened = id
	c.sessionStart = []exchange.Request{initialize.Request}
}

// inSession gives a request sent in the session this client opened the
// requests that opened it; a notification sent in it becomes one of them,
// as the client sends nothing else before listing.
func (c *client) inSession(x *exchange.Exchange, notification bool) {
	// The recorded request shows the session scrubbed, as the recording does.
	if c.opened == "" || x.Request.Header.Get(exchange.SessionHeader) != c.secrets.String(c.opened) {
		return
	}
	x.Request.SetSessionStart(slices.Clone(c.sessionStart))
	if notification {
		opener := x.Request
		opener.SetSessionStart(nil)
		c.sessionStart = append(c.sessionStart, opener)
	}
}

func (c *client) baseHeader() http.Header {
	h := http.Header{}
	h.Set("User-Agent", c.cfg.UserAgent)
	for name, vs := range c.cfg.Headers {
		h[http.CanonicalHeaderKey(name)] = append([]string(nil), vs...)
	}
	return h
}

// mintedSession is the Mcp-Session-Id the response of x carried, as
// received, or "".
func (c *client) mintedSession(x *exchange.Exchange) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.minted[x]
}

func (c *client) record(call *mcp.Call) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls = append(c.calls, call)
}

// send performs one HTTP request and records it, redacted, bounded, and
// with every echo of a credential scrubbed before anything parses it.
func (c *client) send(ctx context.Context, method string, h http.Header, body []byte, conn, purpose string) (x *exchange.Exchange) {
	x = &exchange.Exchange{
		Purpose: purpose,
		Request: exchange.Request{Method: method, URL: c.endpoint.String(), Header: exchange.RedactHeader(h, c.redact)},
	}
	if len(body) > 0 {
		// Scrubbed before the cut, which could split a credential.
		sent := c.secrets.String(string(body))
		x.Request.Body = sent[:min(len(sent), maxRecordedRequestBody)]
	}
	defer func() {
		c.secrets.Scrub(x)
		exchange.RedactResponseCredentials(x)
	}()
	ctx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
	defer cancel()
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.endpoint.String(), rd)
	if err != nil {
		x.Err = err.Error()
		return x
	}
	req.Header = h
	begin := time.Now()
	x.Started = begin.UnixNano()
	resp, err := c.conn(conn).Do(req)
	x.Duration = time.Since(begin)
	if err != nil {
		x.Err = err.Error()
		c.logf("POST %s (%s): %s", c.endpoint.Redacted(), purpose, x.Err)
		return x
	}
	defer resp.Body.Close()
	if sid := resp.Header.Get(exchange.SessionHeader); sid != "" {
		c.mu.Lock()
		c.minted[x] = sid
		c.mu.Unlock()
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, c.cfg.MaxBody+1))
	x.Response = &exchange.Response{
		Status: resp.StatusCode, Proto: resp.Proto,
		Header: exchange.RedactHeader(resp.Header, c.redact),
		Body:   data, BodySize: int64(len(data)),
	}
	if int64(len(data)) > c.cfg.MaxBody {
		x.Response.Body, x.Response.Truncated = data[:c.cfg.MaxBody], true
	}
	if err != nil {
		x.Err = "reading body: " + err.Error()
	}
	c.logf("%s %s (%s): %d", method, c.endpoint.Redacted(), purpose, resp.StatusCode)
	return x
}

func (c *client) logf(format string, args ...any) {
	if c.cfg.Log == nil {
		return
	}
	fmt.Fprintln(c.cfg.Log, sanitize.Line(c.secrets.String(fmt.Sprintf(format, args...))))
}

// modernParams are the params of a 2026-07-28 request: its own members plus
// the _meta every modern request carries.
func (c *client) modernParams(capabilities json.RawMessage, extra map[string]any) map[string]any {
	p := map[string]any{}
	for k, v := range extra {
		p[k] = v
	}
	p["_meta"] = map[string]any{
		"io.modelcontextprotocol/protocolVersion":    mcp.Modern,
		"io.modelcontextprotocol/clientInfo":         map[string]string{"name": c.cfg.ClientName, "version": c.cfg.ClientVersion},
		"io.modelcontextprotocol/clientCapabilities": capabilities,
	}
	return p
}
