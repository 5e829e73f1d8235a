//go:build interop

// `agentready scan` against servers no one here wrote, started by
// internal/interop/servers.sh, which puts their URLs in the environment:
//
//	bash internal/interop/servers.sh run go test -tags interop -run RealServers ./internal/interop/
//
// Each test asserts only what was verified by hand against that server: true
// positives that must keep firing, and properties that must hold. Wrong
// verdicts seen there are bugs to fix, not expectations.

package interop_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentready/agentready/internal/finding"
)

// scanned is one run of `agentready scan --format json -v`.
type scanned struct {
	report finding.Report
	code   int
	// requests are the "METHOD URL" lines -v logs (redirect hops excepted).
	requests []string
	// offOrigin are the requests the trap proxy received: any request to a
	// host other than the loopback target.
	offOrigin []string
}

// serverURL returns the base URL servers.sh exported as NAME, after checking
// that the server listens on 127.0.0.1 only.
func serverURL(t *testing.T, name string) string {
	t.Helper()
	raw := os.Getenv(name)
	if raw == "" {
		missing(t, fmt.Sprintf("%s is not set; run internal/interop/servers.sh run go test ...", name))
	}
	u, err := url.Parse(raw)
	if err != nil || u.Hostname() != "127.0.0.1" {
		t.Fatalf("%s=%q: want an http URL on 127.0.0.1", name, raw)
	}
	port, err := strconv.Atoi(u.Port())
	if err != nil {
		t.Fatalf("%s=%q: %v", name, raw, err)
	}
	assertLoopbackOnly(t, port)
	return raw
}

// trap stands for every host but loopback: the scan runs with it as its
// HTTP and HTTPS proxy, and Go never proxies loopback addresses, so whatever
// reaches it left the target's origin.
type trap struct {
	mu   sync.Mutex
	seen []string
}

func (p *trap) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	p.seen = append(p.seen, r.Method+" "+r.Host+r.URL.RequestURI())
	p.mu.Unlock()
	http.Error(w, "left the origin", http.StatusBadGateway)
}

func (p *trap) requests() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.seen)
}

// behind is the environment of a command whose every proxied request goes
// to the trap at proxyURL.
func behind(proxyURL string) []string {
	return append(os.Environ(), "HTTP_PROXY="+proxyURL, "HTTPS_PROXY="+proxyURL, "http_proxy="+proxyURL,
		"https_proxy="+proxyURL, "NO_PROXY=", "no_proxy=")
}

// logLine is a request line of -v: "GET http://host/path (purpose): 200".
var logLine = regexp.MustCompile(`^([A-Z]+) (\S+)(?: \([^)]*\))?: `)

// scanReal runs `agentready scan TARGET --format json -v ARGS...` behind a trap
// proxy.
func scanReal(t *testing.T, target string, args ...string) *scanned {
	t.Helper()
	p := &trap{}
	proxy := httptest.NewServer(p)
	defer proxy.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, agentready, append([]string{"scan", target, "--format", "json", "-v"}, args...)...)
	cmd.Env = behind(proxy.URL)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	begin := time.Now()
	err := cmd.Run()
	t.Logf("TIMING agentready scan %s: %d ms", target, time.Since(begin).Milliseconds())
	if ctx.Err() != nil {
		t.Fatalf("the scan did not end within 4 minutes:\n%s", stderr.String())
	}
	s := &scanned{offOrigin: p.requests()}
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		s.code = exit.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	if err := json.Unmarshal(stdout.Bytes(), &s.report); err != nil {
		t.Fatalf("exit %d, output is not JSON: %v\n%s", s.code, err, stderr.String())
	}
	for _, line := range strings.Split(stderr.String(), "\n") {
		if m := logLine.FindStringSubmatch(line); m != nil {
			s.requests = append(s.requests, m[1]+" "+m[2])
		}
	}
	if len(s.requests) == 0 {
		t.Fatalf("-v logged no request:\n%s", stderr.String())
	}
	t.Logf("exit %d, grade %s (%d), %d pages, %d requests, findings %v", s.code, s.report.Score.Grade,
		s.report.Score.Value, s.report.Stats.Pages, s.report.Stats.Requests, s.counts())
	return s
}

// counts is the number of findings of each check.
func (s *scanned) counts() map[string]int {
	n := map[string]int{}
	for _, f := range s.report.Findings {
		n[f.CheckID]++
	}
	return n
}

// atLeast fails unless checkID fired at least n times.
func (s *scanned) atLeast(t *testing.T, checkID string, n int) {
	t.Helper()
	if got := s.counts()[checkID]; got < n {
		t.Errorf("%s fired %d times, want at least %d", checkID, got, n)
	}
}

// exactly fails unless checkID fired n times.
func (s *scanned) exactly(t *testing.T, checkID string, n int) {
	t.Helper()
	if got := s.counts()[checkID]; got != n {
		t.Errorf("%s fired %d times, want %d", checkID, got, n)
	}
}

// firesOn fails unless checkID has a finding whose first evidence is a
// request to path (query included when given).
func (s *scanned) firesOn(t *testing.T, checkID, path string) {
	t.Helper()
	for _, f := range s.report.Findings {
		if f.CheckID == checkID && requestPath(f.PrimaryURL()) == path {
			return
		}
	}
	t.Errorf("%s did not fire on %s", checkID, path)
}

// requested fails unless the scan sent METHOD to path.
func (s *scanned) requested(t *testing.T, method, path string) {
	t.Helper()
	for _, r := range s.requests {
		m, u, _ := strings.Cut(r, " ")
		if m == method && requestPath(u) == path {
			return
		}
	}
	t.Errorf("the scan never sent %s %s", method, path)
}

func requestPath(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return u.RequestURI()
}

// stayedOnOrigin fails when a request went anywhere but the target's origin.
func (s *scanned) stayedOnOrigin(t *testing.T, target string) {
	t.Helper()
	if len(s.offOrigin) > 0 {
		t.Errorf("requests left the origin: %v", s.offOrigin)
	}
	origin, _ := url.Parse(target)
	for _, r := range s.requests {
		_, raw, _ := strings.Cut(r, " ")
		if u, err := url.Parse(raw); err != nil || u.Scheme != origin.Scheme || u.Host != origin.Host {
			t.Errorf("request off the origin %s: %s", origin.Host, r)
		}
	}
}

func (s *scanned) exits(t *testing.T, code int) {
	t.Helper()
	if s.code != code {
		t.Errorf("exit %d, want %d (gate: %+v)", s.code, code, s.report.Gate)
	}
}

// TestRealServersTrapCatchesOffOriginRequests proves the instrument: a scan
// of a host that is not loopback goes through the trap.
func TestRealServersTrapCatchesOffOriginRequests(t *testing.T) {
	p := &trap{}
	proxy := httptest.NewServer(p)
	defer proxy.Close()
	cmd := exec.Command(agentready, "scan", "http://interop.invalid/", "--format", "json", "--budget", "20s", "--max-pages", "1")
	cmd.Env = behind(proxy.URL)
	_ = cmd.Run()
	if seen := p.requests(); !slices.Contains(seen, "GET interop.invalid/") {
		t.Fatalf("the trap saw %v, want GET interop.invalid/", seen)
	}
}

// go-httpbin: an HTML index of ~70 endpoints. /unstable fails at random:
// it is reported as unstable, once, and judged by nothing else, so two scans
// agree.
func TestRealServersHTTPBin(t *testing.T) {
	t.Parallel()
	target := serverURL(t, "HTTPBIN_URL")
	s := scanReal(t, target)
	s.stayedOnOrigin(t, target)
	if s.report.Stats.Skipped["off-origin"] == 0 {
		t.Error("the index links to other hosts; none was counted as skipped off-origin")
	}
	if s.report.Stats.Pages < 60 {
		t.Errorf("%d pages crawled, want the index's ~70", s.report.Stats.Pages)
	}
	// 501 to GET /brotli, a link of the index: an error, so the gate fails.
	s.firesOn(t, "problem-json-server-error", "/brotli")
	s.exits(t, 1)
	// OPTIONS answers 200 with CORS headers and no Allow, on every path:
	// advice, once for the site, not a warning per resource.
	s.exactly(t, "negotiation-options-cors-only", 1)
	s.exactly(t, "negotiation-options-allow", 0)
	// HEAD omits the Content-Type GET sends.
	s.firesOn(t, "negotiation-head-content-type", "/dump/request")
	s.firesOn(t, "negotiation-head-content-type", "/stream/20")
	// /image answers Accept: */* and an unsupported type with 415, serves
	// four image types by Accept, and sends no Vary.
	s.firesOn(t, "negotiation-wildcard", "/image")
	s.firesOn(t, "negotiation-unsupported-type", "/image")
	s.firesOn(t, "vary-accept", "/image")
	// Errors are text/plain or application/json, never problem details.
	s.atLeast(t, "problem-json-media-type", 15)
	s.firesOn(t, "problem-json-media-type", "/bearer")
	s.atLeast(t, "discovery-markdown-twin", 8)
	if n := s.counts()["negotiation-unstable-resource"]; n > 1 {
		t.Errorf("negotiation-unstable-resource fired %d times, want at most once (/unstable)", n)
	}
	for _, f := range s.report.Findings {
		if f.CheckID == "negotiation-unstable-resource" && requestPath(f.PrimaryURL()) != "/unstable" {
			t.Errorf("negotiation-unstable-resource fired on %s, which answers the same every time", f.PrimaryURL())
		}
	}

	again := scanReal(t, target)
	if again.report.Score.Grade != s.report.Score.Grade || again.report.Score.Value != s.report.Score.Value {
		t.Errorf("two scans graded %s (%d) and %s (%d)", s.report.Score.Grade, s.report.Score.Value,
			again.report.Score.Grade, again.report.Score.Value)
	}
	if a, b := s.fingerprints(), again.fingerprints(); !slices.Equal(a, b) {
		t.Errorf("two scans found different findings:\n%v\n%v", a, b)
	}
}

// fingerprints are the findings' check IDs and fingerprints, sorted.
func (s *scanned) fingerprints() []string {
	var out []string
	for _, f := range s.report.Findings {
		out = append(out, f.CheckID+" "+f.Fingerprint)
	}
	slices.Sort(out)
	return out
}

// notAssessed fails unless the scan is N/A, exits 3, and its cause says
// what to pass (want, a fragment of it).
func (s *scanned) notAssessed(t *testing.T, want string) {
	t.Helper()
	if s.report.Score.Grade != finding.GradeNotAssessed {
		t.Errorf("grade %s, want %s", s.report.Score.Grade, finding.GradeNotAssessed)
	}
	s.exits(t, 3)
	if c := s.report.Coverage; c == nil || !strings.Contains(c.Cause, want) {
		t.Errorf("coverage %+v: want a cause naming %q", c, want)
	}
}

// reached fails unless the scan reached at least n of the document's GET
// operations.
func (s *scanned) reached(t *testing.T, n int) {
	t.Helper()
	c := s.report.Coverage
	if c == nil || c.Operations == nil || c.Operations.Reached < n {
		t.Errorf("coverage %+v: want at least %d GET operations reached", c, n)
	}
}

// checkStatus is the status the report gives checkID.
func (s *scanned) checkStatus(checkID string) finding.CheckStatus {
	for _, c := range s.report.Checks {
		if c.ID == checkID {
			return c.Status
		}
	}
	return ""
}

// Prism answers HEAD and OPTIONS 405 without Allow, and 406 (undeclared by
// most documents) to an Accept its examples cannot meet; seen on every
// operation the document seeds.
func prismHeadAndAllow(t *testing.T, s *scanned, seeded int) {
	t.Helper()
	s.atLeast(t, "negotiation-head-status", seeded)
	s.atLeast(t, "negotiation-allow-on-405", 2*seeded)
	s.exits(t, 1)
}

// GitHub's own description, as is: its server has no base path. Prism
// answers ~10 requests a second, so the default budget cuts the planned
// probes; the resources probed still get HEAD and its repeats.
func TestRealServersPrismGitHub(t *testing.T) {
	t.Parallel()
	target, spec := serverURL(t, "PRISM_GITHUB_URL"), need(t, "PRISM_GITHUB_SPEC")
	s := scanReal(t, target, "--openapi", spec, "--max-pages", "2000")
	s.stayedOnOrigin(t, target)
	if s.report.Stats.Skipped["off-origin"] == 0 {
		t.Error("the examples link to api.github.com; none was counted as skipped off-origin")
	}
	if s.report.Stats.Pages < 500 {
		t.Errorf("%d pages crawled, want at least 500 of the document's operations filled", s.report.Stats.Pages)
	}
	s.reached(t, 450)
	// Prism answers HEAD 405 without Allow everywhere: confirmed, not passed.
	if st := s.checkStatus("negotiation-head-status"); st != finding.StatusFail {
		t.Errorf("negotiation-head-status is %q, want fail", st)
	}
	s.atLeast(t, "negotiation-allow-on-405", 1)
	s.exits(t, 1)
	// Both /orgs/{org}/attestations/{attestation_id} and /{subject_digest}
	// exist, and so do their /users/{username} twins.
	s.atLeast(t, "openapi-hal-path-template-valid", 2)
	s.firesOn(t, "discovery-service-desc-missing", "/")
}

// Discourse: most reads require Api-Key and Api-Username headers; the
// description has no base path.
func TestRealServersPrismDiscourse(t *testing.T) {
	t.Parallel()
	target, spec := serverURL(t, "PRISM_DISCOURSE_URL"), need(t, "PRISM_DISCOURSE_SPEC")
	s := scanReal(t, target, "--openapi", spec)
	s.stayedOnOrigin(t, target)
	for _, path := range []string{"/categories.json", "/site.json", "/tags.json", "/groups.json"} {
		s.requested(t, http.MethodGet, path)
	}
	// Seeding never sends an operation without a header it requires.
	for _, r := range s.requests {
		if strings.HasSuffix(r, "/latest.json") || strings.HasSuffix(r, "/top.json") || strings.HasSuffix(r, "/posts.json") {
			t.Errorf("%s requires Api-Key and Api-Username, and was sent without them", r)
		}
	}
	prismHeadAndAllow(t, s, 9)
	s.atLeast(t, "problem-json-undeclared-status", 9)

	// With the headers, the operations that require them are reached too.
	with := scanReal(t, target, "--openapi", spec, "-H", "Api-Key: interop", "-H", "Api-Username: interop")
	with.stayedOnOrigin(t, target)
	with.requested(t, http.MethodGet, "/latest.json")
	with.reached(t, s.report.Coverage.Operations.Reached+4)
	prismHeadAndAllow(t, with, 25)
}

// Spotify: OAuth2 on every operation, and a /v1 base path Prism ignores.
func TestRealServersPrismSpotify(t *testing.T) {
	t.Parallel()
	target, spec := serverURL(t, "PRISM_SPOTIFY_URL"), need(t, "PRISM_SPOTIFY_SPEC")
	// The root is a 404, and nothing links anywhere.
	scanReal(t, target).notAssessed(t, "--openapi")
	// The operations, found at the bare path, all answer 401.
	bare := scanReal(t, target, "--openapi", spec)
	bare.notAssessed(t, "credentials")
	bare.requested(t, http.MethodGet, "/me/playlists")

	s := scanReal(t, target, "--openapi", spec, "-H", "Authorization: Bearer interop")
	s.stayedOnOrigin(t, target)
	s.requested(t, http.MethodGet, "/me/playlists")
	s.reached(t, 55)
	// /search's type is an array of an enum: filled from the enum, never
	// from a "type" seen in a response, which Prism would refuse with 422.
	s.requested(t, http.MethodGet, "/search?q=remaster%2520track%3ADoxy%2520artist%3AMiles%2520Davis&type=album")
	s.exactly(t, "openapi-hal-undeclared-response", 0)
	prismHeadAndAllow(t, s, 17)
	s.atLeast(t, "problem-json-undeclared-status", 17)
}

// Netlify: OAuth2 as the document's default security, an /api/v1 base path
// Prism ignores, and a default response on every operation.
func TestRealServersPrismNetlify(t *testing.T) {
	t.Parallel()
	target, spec := serverURL(t, "PRISM_NETLIFY_URL"), need(t, "PRISM_NETLIFY_SPEC")
	scanReal(t, target).notAssessed(t, "--openapi")
	scanReal(t, target, "--openapi", spec).notAssessed(t, "credentials")

	s := scanReal(t, target, "--openapi", spec, "-H", "Authorization: Bearer interop")
	s.stayedOnOrigin(t, target)
	s.requested(t, http.MethodGet, "/sites")
	s.reached(t, 45)
	prismHeadAndAllow(t, s, 9)
}

// json-server: its collections carry no links, so the scan starts at one;
// its root is an HTML start page that links to none.
func TestRealServersJSONServer(t *testing.T) {
	t.Parallel()
	root := serverURL(t, "JSONSERVER_URL")
	scanReal(t, root).notAssessed(t, "the start page is HTML")
	target := root + "/posts"
	s := scanReal(t, target)
	s.stayedOnOrigin(t, target)
	// OPTIONS answers 204 with Access-Control-Allow-Methods and no Allow.
	s.firesOn(t, "negotiation-options-cors-only", "/posts")
	s.exactly(t, "negotiation-options-allow", 0)
	// An unknown path gets 404 application/json "{}".
	s.firesOn(t, "problem-json-media-type", "/agentready-missing-7f3c")
	s.exits(t, 0)
}

// server-everything answers only on /mcp: its root is a 404.
func TestRealServersMCPEverything(t *testing.T) {
	t.Parallel()
	endpoint := serverURL(t, "MCP_EVERYTHING_URL")
	target := strings.TrimSuffix(endpoint, "mcp")
	s := scanReal(t, target)
	s.stayedOnOrigin(t, target)
	if s.report.MCP == nil || s.report.MCP.Endpoint != endpoint || len(s.report.MCP.Tools) < 10 {
		t.Fatalf("MCP endpoint not examined: %+v", s.report.MCP)
	}
	// server/discover gets 400 "Server not initialized"; initialize
	// negotiates 2025-11-25.
	s.atLeast(t, "mcp-legacy-only", 1)
	// get-resource-reference's resourceType has no description.
	found := false
	for _, f := range s.report.Findings {
		found = found || f.CheckID == "mcp-tool-description" && strings.Contains(f.Message, `"get-resource-reference"`)
	}
	if !found {
		t.Error(`mcp-tool-description did not fire on tool "get-resource-reference"`)
	}
	// Its instructions address the model openly, and name environment
	// variables that hold no secret; its tools are told apart.
	s.exactly(t, "mcp-hidden-instructions", 0)
	s.exactly(t, "mcp-tool-confusable", 0)
	// It serves initialize sent with a foreign Origin: DNS rebinding.
	s.exactly(t, "mcp-origin-validated", 1)
	s.exits(t, 1)

	named := scanReal(t, target, "--mcp", endpoint)
	if named.report.MCP == nil || len(named.report.MCP.Tools) != len(s.report.MCP.Tools) {
		t.Errorf("--mcp %s examined %+v", endpoint, named.report.MCP)
	}
	if a, b := s.fingerprints(), named.fingerprints(); !slices.Equal(a, b) {
		t.Errorf("found at /mcp and named with --mcp, the findings differ:\n%v\n%v", a, b)
	}
	named.exits(t, 1)
}

// A bookshop whose HAL the halson library builds: the crawl follows its
// links to every resource.
func TestRealServersHAL(t *testing.T) {
	t.Parallel()
	target := serverURL(t, "HAL_URL")
	s := scanReal(t, target)
	s.stayedOnOrigin(t, target)
	for _, path := range []string{"/books", "/books?page=2", "/authors", "/books/1", "/books/4", "/authors/2"} {
		s.requested(t, http.MethodGet, path)
	}
	assessed := false
	for _, fam := range s.report.Score.Families {
		assessed = assessed || fam.Family == "hal" && fam.Assessed && fam.Passed >= 10
	}
	if !assessed {
		t.Errorf("the hal family was not assessed: %+v", s.report.Score.Families)
	}
	// Unknown ids get a text/plain 404.
	s.firesOn(t, "problem-json-media-type", "/books/agentready-missing-7f3c")
	// OPTIONS is refused honestly, 405 with Allow; every followed link answers.
	s.exactly(t, "negotiation-options-client-error", 0)
	s.exactly(t, "hal-dead-links", 0)
	s.exits(t, 0)
}
