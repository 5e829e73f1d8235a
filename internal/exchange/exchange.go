// Package exchange is the recording shared by the probe (which writes it) and
// the checks (which read it). It holds data and pure helpers only; nothing
// here touches the network.
package exchange

import (
	"encoding/json"
	"iter"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentready/agentready/internal/halview"
	"github.com/agentready/agentready/internal/linkheader"
)

// Purpose tags say why a request was sent. Crawl requests use PurposeCrawl;
// planned probes use "<family>/<name>", chosen by the check that planned them.
const PurposeCrawl = "crawl"

// SourceStart is the Source of the crawl's start page.
const SourceStart = "start"

// PurposeCrawlRefused is the crawl's first request to a page when it
// answered a 4xx that a request with Accept */*, or without Accept, did not:
// the crawl went on from that answer, which is the page's crawl exchange,
// and keeps this one, BasedOn the same URL, for the checks.
const PurposeCrawlRefused = "crawl/refused"

// Exchange is one request and what came back.
type Exchange struct {
	ID      string `json:"id"`
	Purpose string `json:"purpose"`
	// Source says how the URL was found ("start", "hal _links.next of /", ...).
	Source string `json:"source,omitempty"`
	// BasedOn is the URL of the crawled resource a probe was derived from.
	BasedOn  string        `json:"basedOn,omitempty"`
	Depth    int           `json:"depth"`
	Request  Request       `json:"request"`
	Response *Response     `json:"response,omitempty"`
	Err      string        `json:"error,omitempty"`
	Duration time.Duration `json:"-"`
	// Started is when the request was sent, in Unix nanoseconds (0 when it
	// never was), for a recording's timeline (--record); no check reads it.
	// A crawl keeps an Exchange per page, and a time.Time is three words.
	Started int64 `json:"-"`
	// Identity names the caller the request was sent as when the scan ran
	// as several identities; empty in a single-identity scan.
	Identity string `json:"identity,omitempty"`
	// SharedWith are the other purposes that planned this very request
	// (same Key), each with the resource it was planned for. The probe sends
	// such a request once; lookups by purpose find it under each of them.
	SharedWith []Use `json:"sharedWith,omitempty"`
	// AfterHead is the content a server sent after its response to a HEAD
	// request, which must have none (RFC 9110 §9.3.2); nil when it sent
	// nothing. It is rare, so a crawl pays one pointer per page for it.
	AfterHead *AfterHead `json:"afterHead,omitempty"`
}

// ThrottledAnswer is what is kept of a throttled answer that a retry
// replaced: its status and the header fields that say when to come back
// and in what form, bounded (KeepThrottled); not its body.
type ThrottledAnswer struct {
	Status int         `json:"status"`
	Header http.Header `json:"header,omitempty"`
}

// Bounds of a ThrottledAnswer, which a hostile server (or recording) could
// otherwise fill with one huge or endlessly repeated field.
const (
	MaxThrottledValues    = 4
	MaxThrottledValueSize = 256
)

// throttledFields are the header fields a ThrottledAnswer keeps.
var throttledFields = []string{"Retry-After", "Content-Type"}

// KeepThrottled is what the recording keeps of r, a throttled answer: its
// status, and of its header Retry-After and Content-Type, at most
// MaxThrottledValues values each, each cut at MaxThrottledValueSize bytes.
func KeepThrottled(r *Response) *ThrottledAnswer {
	if r == nil {
		return nil
	}
	a := &ThrottledAnswer{Status: r.Status}
	for _, name := range throttledFields {
		vs := r.Header.Values(name)
		if len(vs) == 0 {
			continue
		}
		if a.Header == nil {
			a.Header = http.Header{}
		}
		for _, v := range vs[:min(len(vs), MaxThrottledValues)] {
			if len(v) > MaxThrottledValueSize {
				v = strings.ToValidUTF8(v[:MaxThrottledValueSize], "")
			}
			a.Header[name] = append(a.Header[name], v)
		}
	}
	return a
}

// Within reports whether a holds only what KeepThrottled keeps, give or
// take the placeholders of credentials redacted from it: a replay refuses a
// recording whose throttled answer is anything more.
func (a *ThrottledAnswer) Within() bool {
	if a.Status != http.StatusTooManyRequests && a.Status != http.StatusServiceUnavailable {
		return false
	}
	for name, vs := range a.Header {
		if !slices.Contains(throttledFields, name) || len(vs) > MaxThrottledValues {
			return false
		}
		for _, v := range vs {
			if len(v) > 2*MaxThrottledValueSize {
				return false
			}
		}
	}
	return true
}

// ThrottledExchange is x as it was first answered, when that answer was
// throttled and a retry replaced it (Response.Replaced): the same request,
// with the throttled answer as its response. Nil when there is none.
func (x *Exchange) ThrottledExchange() *Exchange {
	if x.Response == nil || x.Response.Replaced == nil {
		return nil
	}
	first := x.Response.Replaced
	y := &Exchange{ID: x.ID, Purpose: x.Purpose, Source: x.Source, BasedOn: x.BasedOn, Depth: x.Depth,
		Request: x.Request, Identity: x.Identity, SharedWith: x.SharedWith, Started: x.Started}
	y.Response = &Response{Status: first.Status, Header: first.Header.Clone()}
	if y.Response.Header == nil {
		y.Response.Header = http.Header{}
	}
	return y
}

// AfterHead is what followed a HEAD response: its first bytes, at most
// MaxAfterHead, with credentials replaced like a body's, and how many
// bytes were sent.
type AfterHead struct {
	Bytes []byte `json:"-"`
	Size  int64  `json:"size"`
}

// Use is one purpose a request was planned for, on behalf of one resource.
type Use struct {
	Purpose string `json:"purpose"`
	BasedOn string `json:"basedOn,omitempty"`
}

// Uses are the purpose the exchange was recorded under, then those it was
// shared with.
func (x *Exchange) Uses() []Use {
	return append([]Use{{Purpose: x.Purpose, BasedOn: x.BasedOn}}, x.SharedWith...)
}

// For reports whether the exchange was sent for purpose, alone or shared.
// It allocates nothing: the crawl's lookups call it for every exchange.
func (x *Exchange) For(purpose string) bool {
	if x.Purpose == purpose {
		return true
	}
	for _, u := range x.SharedWith {
		if u.Purpose == purpose {
			return true
		}
	}
	return false
}

// Request is what was sent. Credentials are redacted before checks see it.
type Request struct {
	Method string      `json:"method"`
	URL    string      `json:"url"`
	Header http.Header `json:"header,omitempty"`
	// Body is the request body, bounded, for the few requests that have one
	// (the JSON-RPC messages of the MCP family, active probes); empty for
	// every other request.
	Body string `json:"body,omitempty"`
	// sessionStart are the requests that opened the MCP session this one
	// names in its Mcp-Session-Id (see SessionStart); behind a pointer, as
	// a crawl keeps a Request per page and none of them has any.
	sessionStart *[]Request
}

// SessionStart are the requests that opened the MCP session this one names
// in its Mcp-Session-Id (initialize, then what followed it), sent before it
// in the same session. The scanner ends the sessions it opens, so a curl
// line replays these first; see Curl.
func (r Request) SessionStart() []Request {
	if r.sessionStart == nil {
		return nil
	}
	return *r.sessionStart
}

// SetSessionStart records the requests that opened r's session.
func (r *Request) SetSessionStart(opening []Request) {
	if len(opening) == 0 {
		r.sessionStart = nil
		return
	}
	r.sessionStart = &opening
}

// Response is what came back, with a body capped by the probe's limits.
type Response struct {
	Status int         `json:"status"`
	Proto  string      `json:"proto,omitempty"`
	Header http.Header `json:"header,omitempty"`
	Body   []byte      `json:"-"`
	// BodySize is the number of body bytes received, which may differ from
	// len(Body) when the body was truncated at the cap, dropped after use, or
	// had credentials replaced.
	BodySize  int64 `json:"bodySize"`
	Truncated bool  `json:"truncated,omitempty"`
	// Dropped is set when the body was released after link extraction because
	// no check needs it; checks must not judge a dropped body.
	Dropped bool `json:"dropped,omitempty"`
	// Unread is set on a crawled 2xx page the checks do not read: past the
	// first pages of its path shape and media type (probe.Config.
	// BodiesPerShape), it kept no body and of its header only Content-Type
	// and Link.
	Unread bool `json:"unread,omitempty"`
	// Redactions counts the echoes of the scan's own credentials replaced
	// with Redacted in the body and header values (see Secrets). The body is
	// otherwise as received, and BodySize still counts the bytes received.
	Redactions int `json:"redactions,omitempty"`
	// Replaced is the first answer to the same request, when it asked the
	// client to wait (Throttled) and the request, sent again, got this one:
	// a retry that succeeded hides the throttled answer, which checks still
	// judge. Nil when the request was not throttled, or stayed so (this is
	// then the throttled answer). Rare, so behind a pointer.
	Replaced *ThrottledAnswer `json:"replaced,omitempty"`

	// A crawl keeps a Response per page, so what only some responses use
	// (a JSON tree, Link header lines) is held behind a pointer, the Onces sit together so that
	// no padding follows each, and a media type is shared by the responses
	// that have the same Content-Type.
	halOnce   sync.Once
	linksOnce sync.Once
	json      atomic.Pointer[decodedJSON]
	hal       atomic.Pointer[halview.View]
	links     *[]linkheader.Link

	mediaType atomic.Pointer[mediaType]
}

// decodedJSON is a body decoded by Response.JSON.
type decodedJSON struct {
	once sync.Once
	val  any
	err  error
}

// mediaType is a Content-Type value and its parsed media type.
type mediaType struct{ raw, parsed string }

// maxMediaTypes bounds the Content-Type values whose parsed media type is
// shared between responses: a crawl sees a handful.
const maxMediaTypes = 256

var mediaTypes struct {
	mu    sync.Mutex
	byRaw map[string]*mediaType
}

// mediaTypeOf is raw's mediaType, the one held when raw was seen before.
func mediaTypeOf(raw string) *mediaType {
	mediaTypes.mu.Lock()
	defer mediaTypes.mu.Unlock()
	if m, ok := mediaTypes.byRaw[raw]; ok {
		return m
	}
	mt, _ := MediaTypeOf(raw)
	m := &mediaType{raw, mt}
	if mediaTypes.byRaw == nil {
		mediaTypes.byRaw = map[string]*mediaType{}
	}
	if len(mediaTypes.byRaw) < maxMediaTypes {
		mediaTypes.byRaw[raw] = m
	}
	return m
}

// Links parses the Link header lines once and caches them: several checks
// read the links of every crawled page, and a page can carry a thousand.
func (r *Response) Links() []linkheader.Link {
	r.linksOnce.Do(func() {
		if links := linkheader.Parse(r.Header.Values("Link")); len(links) > 0 {
			r.links = &links
		}
	})
	if r.links == nil {
		return nil
	}
	return *r.links
}

// MediaType is the lower-cased media type of Content-Type without parameters,
// or "" when absent or unparsable.
func (r *Response) MediaType() string {
	raw := ""
	if vs := r.Header["Content-Type"]; len(vs) > 0 {
		raw = vs[0]
	}
	// Checks ask every page's type many times; parsing is kept with the
	// value it parsed, since the probe may still rewrite headers.
	if m := r.mediaType.Load(); m != nil && m.raw == raw {
		return m.parsed
	}
	m := mediaTypeOf(raw)
	r.mediaType.Store(m)
	return m.parsed
}

// Whole reports a body kept as received: neither cut at the cap nor
// released after use, nor on a page left unread (whose body, even an empty
// one, is not what was received).
func (r *Response) Whole() bool { return !r.Truncated && !r.Dropped && !r.Unread }

// JSON decodes the body once and caches it. Numbers stay json.Number so that
// checks can tell 404 from "404" and 1 from 1.0.
func (r *Response) JSON() (any, error) {
	d := r.json.Load()
	if d == nil {
		r.json.CompareAndSwap(nil, &decodedJSON{})
		d = r.json.Load()
	}
	d.once.Do(func() {
		if !r.Whole() {
			d.err = errIncomplete
			return
		}
		dec := json.NewDecoder(strings.NewReader(string(r.Body)))
		dec.UseNumber()
		d.err = dec.Decode(&d.val)
	})
	return d.val, d.err
}

// HAL reads the body's hypermedia controls once, within halview.Limits, so
// that every check and the state matrix share one decoding per response.
// Like JSON, it is for bodies that are final: scrubbed of credentials, and
// no longer truncated or dropped by the probe.
func (r *Response) HAL() *halview.View {
	if r.Truncated || r.Dropped {
		return &halview.View{Err: errIncomplete}
	}
	r.halOnce.Do(func() { r.hal.Store(halview.Parse(r.Body, halview.Limits)) })
	return r.hal.Load()
}

// ReadHAL returns what HAL returns without keeping it, unless HAL already
// did: for the passes that read every page of a crawl once and keep only
// what they derive, so that memory does not hold a tree per page.
func (r *Response) ReadHAL() *halview.View {
	if r.Truncated || r.Dropped {
		return &halview.View{Err: errIncomplete}
	}
	if v := r.hal.Load(); v != nil {
		return v
	}
	return halview.Parse(r.Body, halview.Limits)
}

type incompleteError struct{}

func (incompleteError) Error() string { return "body incomplete (truncated at the size cap)" }

var errIncomplete = incompleteError{}

// IsStream reports a media type whose body is a sequence of records sent
// as they happen (server-sent events, JSON text sequences, newline-delimited
// JSON): such a body may never end, and holds no one representation.
func IsStream(mediaType string) bool {
	switch mediaType {
	case "text/event-stream", "application/json-seq", "application/x-ndjson", "application/ndjson",
		"application/jsonl", "application/x-jsonlines":
		return true
	}
	return false
}

// MediaTypeOf parses a Content-Type value leniently.
func MediaTypeOf(contentType string) (string, map[string]string) {
	if strings.TrimSpace(contentType) == "" {
		return "", nil
	}
	mt, params, err := mime.ParseMediaType(contentType)
	if err != nil {
		// A malformed parameter must not hide the type itself.
		mt = strings.TrimSpace(strings.SplitN(contentType, ";", 2)[0])
	}
	return strings.ToLower(mt), params
}

// IsJSONMediaType reports application/json and any +json suffix type.
func IsJSONMediaType(mt string) bool {
	return mt == "application/json" || strings.HasSuffix(mt, "+json")
}

// MaxAfterHead bounds the bytes kept of what a server sent after a HEAD
// response (Response.AfterHead): the evidence needs the first of them, and a
// hostile server may send gigabytes.
const MaxAfterHead = 512

// PlannedRequest is what a check asks the probe to send. Method must be GET,
// HEAD or OPTIONS; the probe refuses anything else unless active probes were
// explicitly enabled.
type PlannedRequest struct {
	Purpose string
	Method  string
	URL     string
	Header  http.Header
	BasedOn string
	// Body is sent only by active probes, which alone may use unsafe methods.
	Body []byte
	// Repeat numbers the re-sends of one request within a round, which
	// would otherwise be de-duplicated as identical: a verdict that compares
	// two answers is judged only when re-sending them gives the same answers.
	Repeat int
}

// Key identifies a planned request for de-duplication between checks.
func (p PlannedRequest) Key() string {
	var b strings.Builder
	b.WriteString(p.Method)
	b.WriteByte(' ')
	b.WriteString(p.URL)
	names := make([]string, 0, len(p.Header))
	for k := range p.Header {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		b.WriteString("\x00" + k + ":" + strings.Join(p.Header[k], ","))
	}
	if p.Repeat > 0 {
		b.WriteString("\x00#" + strconv.Itoa(p.Repeat))
	}
	return b.String()
}

// Recording is everything the scan observed, frozen: sorted, with IDs, and
// with credentials redacted.
type Recording struct {
	Target    string      `json:"target"`
	Exchanges []*Exchange `json:"exchanges"`
	// Samples are the crawled URLs chosen for planned probes, a bounded number
	// per path shape.
	Samples []string `json:"samples,omitempty"`
}

// WithPurpose iterates the exchanges sent for one purpose, shared ones
// included.
func (r *Recording) WithPurpose(purpose string) iter.Seq[*Exchange] {
	return func(yield func(*Exchange) bool) {
		for _, x := range r.Exchanges {
			if x.For(purpose) && !yield(x) {
				return
			}
		}
	}
}

// Probe finds the exchange sent for purpose on behalf of the resource at basedOn.
func (r *Recording) Probe(purpose, basedOn string) *Exchange {
	for _, x := range r.Exchanges {
		if x.Purpose == purpose && x.BasedOn == basedOn {
			return x
		}
	}
	for _, x := range r.Exchanges {
		if slices.Contains(x.SharedWith, Use{Purpose: purpose, BasedOn: basedOn}) {
			return x
		}
	}
	return nil
}

// Crawled iterates the exchanges of the crawl itself.
func (r *Recording) Crawled() iter.Seq[*Exchange] { return r.WithPurpose(PurposeCrawl) }

// Lookup returns the crawl exchange for a URL, or nil.
func (r *Recording) Lookup(rawURL string) *Exchange {
	for x := range r.Crawled() {
		if x.Request.URL == rawURL {
			return x
		}
	}
	return nil
}

// Index speeds up Probe lookups for checks that do many of them. It holds
// an entry per exchange, so it is keyed by purpose, then by base URL: a key
// of one string per entry rather than of two.
type Index struct {
	byPurpose map[string]map[string]*Exchange
}

// NewIndex indexes exchanges by purpose and BasedOn, and under every use
// they were shared with: an exchange recorded under its own purpose comes
// first, then one shared with it.
func NewIndex(r *Recording) *Index {
	ix := &Index{byPurpose: map[string]map[string]*Exchange{}}
	sizes := map[string]int{}
	for _, x := range r.Exchanges {
		sizes[x.Purpose]++
	}
	add := func(x *Exchange, u Use) {
		byBase := ix.byPurpose[u.Purpose]
		if byBase == nil {
			byBase = make(map[string]*Exchange, sizes[u.Purpose])
			ix.byPurpose[u.Purpose] = byBase
		}
		if _, dup := byBase[u.BasedOn]; !dup {
			byBase[u.BasedOn] = x
		}
	}
	for _, x := range r.Exchanges {
		base := x.BasedOn
		if x.Purpose == PurposeCrawl {
			base = x.Request.URL
		}
		add(x, Use{Purpose: x.Purpose, BasedOn: base})
	}
	for _, x := range r.Exchanges {
		for _, u := range x.SharedWith {
			add(x, u)
		}
	}
	return ix
}

// Get returns the exchange for purpose and base URL, or nil.
func (ix *Index) Get(purpose, basedOn string) *Exchange {
	return ix.byPurpose[purpose][basedOn]
}

// PathOf returns the path of a URL, or the input when it does not parse.
// Checks ask it of every page, so a plain http(s) URL is cut without
// parsing; anything else goes through url.Parse.
func PathOf(rawURL string) string {
	if path, ok := plainPath(rawURL); ok {
		return path
	}
	u, err := url.Parse(rawURL)
	if err != nil {
		return rawURL
	}
	if u.Path == "" {
		return "/"
	}
	return u.Path
}

// plainPath is PathOf of an http or https URL whose host is a name or an
// IPv4 address with an optional numeric port, with no escape and no control
// character: its path is the bytes after the authority, up to a query or
// fragment.
func plainPath(rawURL string) (string, bool) {
	rest, ok := strings.CutPrefix(rawURL, "http://")
	if !ok {
		if rest, ok = strings.CutPrefix(rawURL, "https://"); !ok {
			return "", false
		}
	}
	end := strings.IndexAny(rest, "/?#")
	if end < 0 {
		end = len(rest)
	}
	if !plainAuthority(rest[:end]) {
		return "", false
	}
	path := rest[end:]
	for i := 0; i < len(path); i++ {
		if c := path[i]; c < ' ' || c == 0x7f || c == '%' {
			return "", false // url.Parse refuses controls, and unescapes
		}
	}
	if i := strings.IndexAny(path, "?#"); i >= 0 {
		path = path[:i]
	}
	for i := 0; i < len(path); i++ {
		if c := path[i]; c <= ' ' || c >= 0x7f || c == '%' || c == '\\' {
			return "", false
		}
	}
	if path == "" {
		return "/", true
	}
	return path, true
}

func plainAuthority(a string) bool {
	host, port, hasPort := strings.Cut(a, ":")
	if host == "" || (hasPort && port == "") {
		return false
	}
	for i := 0; i < len(host); i++ {
		if c := host[i]; !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '-') {
			return false
		}
	}
	for i := 0; i < len(port); i++ {
		if port[i] < '0' || port[i] > '9' {
			return false
		}
	}
	return true
}
