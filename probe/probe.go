// Package probe is the only package that touches the network. It crawls the
// target with safe methods, runs the probes that checks planned, and freezes
// what it saw into an exchange.Recording.
package probe

import (
	"context"
	"crypto/tls"
	"io"
	"net/http"
	"net/url"
	"time"

	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/spec"
)

// Config bounds a scan. The zero value of every limit means its default.
type Config struct {
	Start *url.URL
	// Headers are sent on every request to the target's origin, and never to
	// another origin. Their values are redacted in the recording. A planned
	// request controls its own Accept, so an Accept here applies to the crawl
	// only.
	Headers http.Header
	// Secrets are more credentials to scrub from the recording, never sent:
	// the user-info of a URL sent elsewhere, and in a session also
	// Session.Secrets. The values of Headers and Credentials are scrubbed as
	// well; see exchange.Secrets.
	Secrets http.Header
	// Credentials are sent to one URL alone, whatever its origin.
	Credentials Credentials
	// Issued collects the credentials issued while the session runs (OAuth
	// access tokens) and the OAuth grants' secrets, which the recording and
	// the log are scrubbed of too; RunSession makes one when it is nil and
	// an identity has an OAuth grant. The caller may scrub what it prints
	// with it.
	Issued *SecretBook
	// bearer is the OAuth token source of the identity the probe runs as.
	bearer      *tokenSource
	MaxPages    int           // default 200
	MaxDepth    int           // default 5
	Concurrency int           // default 4
	Rate        float64       // requests per second; 0 means unlimited
	Timeout     time.Duration // per request; default 10s
	// Budget is the time of the whole scan (--budget); default 2m. It is
	// read once, where it becomes a context deadline: RunSession's schedule
	// shares it among the phases, and a Run on its own takes it all. Each
	// phase's own time is its context's deadline, never this field.
	Budget       time.Duration
	MaxBody      int64 // bytes read per body; default 2 MiB
	MaxRedirects int   // default 5
	// Include and Exclude are path patterns (path.Match syntax, with a
	// trailing "/**" or "*" matching any suffix).
	Include, Exclude []string
	SamplesPerShape  int // default 3
	// BodiesPerShape bounds the crawled 2xx pages of one path shape and
	// media type that the checks read, the least URLs first; default the
	// samples and 64 more, never fewer than SamplesPerShape. The start page
	// and pages of other statuses are always read. The other pages keep
	// their URL, status, Content-Type and Link, not their bodies: what a
	// page costs then no longer grows with what it holds.
	BodiesPerShape int
	// readEveryPage, shard and followUp are Session's ReadEveryPage, Shard
	// and FollowUp, which RunSession hands each run (see Session.additions).
	readEveryPage bool
	shard         finding.Shard
	followUp      FollowUp
	// UserAgent replaces the default "agentready/<Version> (+...)".
	UserAgent string
	// Version goes into the default User-Agent; default "dev".
	Version string
	// MaxLinksPerPage caps the links taken from one response, in the order
	// they are read (Link headers, then the body), so that one page cannot
	// flood the crawl's memory and time; default 1000. The report says when
	// it cut a page.
	MaxLinksPerPage int
	// MaxQueryVariants caps the distinct query strings crawled per path, so
	// that calendars and sort-order links cannot explode the crawl; default 5.
	MaxQueryVariants int
	// RespectRobots reads /robots.txt before the crawl and sends neither
	// crawl requests nor planned probes to what it disallows for
	// RobotsAgent; the start URL, which the user named, is still fetched.
	// Off by default: the scanner is meant for the user's own API.
	RespectRobots bool
	// AllowUnsafe lets planned requests use methods other than GET, HEAD and
	// OPTIONS. It stays false until active probes exist and the user opts in.
	AllowUnsafe bool
	// Spec says where the OpenAPI document comes from (given, fetched or
	// discovered) and whether it seeds the crawl; see SpecConfig.
	Spec SpecConfig
	// Resolver pins each host name to the addresses of its first lookup,
	// for every connection of the scan: RunSession makes one when it is
	// nil, shared by every phase and identity (see Resolver). Tests give
	// one with their own lookup.
	Resolver *Resolver
	// Transport replaces the default transport, for tests; it dials as it
	// will, without Resolver.
	Transport http.RoundTripper
	// TLS is the client side of every TLS connection of the scan: the
	// crawl's, the MCP client's and the OAuth token endpoint's (a private
	// CA, a client certificate, or verification turned off). Nil is Go's
	// default, which honours SSL_CERT_FILE and SSL_CERT_DIR.
	TLS *tls.Config
	// sleep replaces the wait before a throttled request is sent again
	// (see throttle), for tests; nil waits for real.
	sleep func(context.Context, time.Duration) error
	// Log receives progress lines when verbose; nil discards them.
	Log io.Writer
	// progress is Session.Progress, which RunSession hands each run.
	progress *Progress
}

// Planner turns what the crawl found into planned probes. The scan builds it
// from the checks, so that this package does not depend on them. The
// exchanges it sees are redacted and sorted but not yet numbered: IDs are
// assigned once the probes have joined the recording.
type Planner func(crawled, samples []*exchange.Exchange) []exchange.PlannedRequest

// Result is a frozen recording plus what was scanned.
type Result struct {
	Recording *exchange.Recording
	Stats     finding.Stats
	Notes     []string
	// Spec is the OpenAPI document used, or nil; SpecDiscovery says how it
	// was found (SpecGiven, SpecLinkHeader, SpecHALLink, SpecWellKnown).
	Spec          *spec.Document
	SpecDiscovery string
	// BasePath is where the document's operations were requested, nil
	// when none were (no document, or seeding off).
	BasePath *BasePath
	// Unfilled maps the key of each GET operation the exploration never had
	// a URL for ("GET /orders/{id}") to why: finding.ReasonPathParameter or
	// finding.ReasonRequiredParameter. Nil when nothing was explored.
	Unfilled map[string]string
	// Throttling counts the requests answered 429, or 503 with
	// Retry-After, and those still so after retrying; nil when none was.
	// The crawl's own counts are left to coverage, which reads them from
	// the recording.
	Throttling *finding.Throttling
}

// Credentials are headers sent with every request to one URL, whatever
// its origin, by that URL: the user-info of a URL named for the OpenAPI
// document or the MCP endpoint, as Basic credentials. A header the request
// has already wins, as a header given for the target's origin wins over the
// target's own user-info.
type Credentials map[string]http.Header

// For is h, or a copy of it with the credentials of the URL raw added.
func (c Credentials) For(raw string, h http.Header) http.Header {
	own := c[raw]
	if len(own) == 0 {
		return h
	}
	out := h.Clone()
	if out == nil {
		out = http.Header{}
	}
	for name, vs := range own {
		if out.Get(name) == "" {
			out[http.CanonicalHeaderKey(name)] = append([]string(nil), vs...)
		}
	}
	return out
}

// scrubbed are every header whose values the recording is scrubbed of.
func (cfg Config) scrubbed() []http.Header {
	out := []http.Header{cfg.Headers, cfg.Secrets}
	for _, h := range cfg.Credentials {
		out = append(out, h)
	}
	return out
}
