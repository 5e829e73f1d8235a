package scan

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"path"
	"sort"
	"strings"
	"time"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/leakage"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/probe"
)

// Identity is one caller the scan runs as: a name reports show, and the
// headers (credentials) sent as it. Header values are redacted in every
// recording, like --header values.
type Identity struct {
	Name   string
	Header http.Header
	// Roles are the roles the configuration gives the identity, nil when
	// not stated; see checks.Caller.
	Roles []string
}

// caller describes id, sending shared as well as its own headers.
func (id Identity) caller(shared http.Header) checks.Caller {
	c := checks.Caller{Name: id.Name, Roles: id.Roles}
	seen := map[string]bool{}
	add := func(name string) {
		name = http.CanonicalHeaderKey(name)
		if !seen[name] {
			seen[name] = true
			c.Credentials = append(c.Credentials, name)
		}
	}
	for name := range shared {
		if exchange.IsSensitiveHeader(name) {
			add(name)
		}
	}
	for name := range id.Header {
		add(name)
	}
	sort.Strings(c.Credentials)
	return c
}

func view(id Identity, shared http.Header, rank int, rec *exchange.Recording) checks.IdentityView {
	c := id.caller(shared)
	return checks.IdentityView{Name: id.Name, Rank: rank, Recording: rec, Credentials: c.Credentials, Roles: c.Roles}
}

// Purposes of the requests sent as a less privileged identity.
const (
	// PurposeCrossFetch is a GET, as a lower identity, of a resource the most
	// privileged identity read.
	PurposeCrossFetch = "leakage/cross-fetch"
	// PurposeMissingSibling is a GET, as a lower identity, of a URL next to
	// such a resource that certainly does not exist.
	PurposeMissingSibling = "leakage/missing-sibling"
)

// minCrossFetch is the least number of resources the privileged identity
// read that each lower identity fetches too; otherwise its page share is.
const minCrossFetch = 24

// MissingSegment replaces the last path segment to make a URL that no
// application routes to an existing resource.
const MissingSegment = "agentready-missing-7f3c"

// crawlAs runs the probe once per identity. With fewer than two identities
// it is the single-identity scan of old (one identity only adds its headers).
// With several, the most privileged identity (the last) gets the full scan
// whose recording every family except leakage judges, so nothing is reported
// twice; each lower identity crawls the same frontier and fetches a sample of
// what the privileged one read, plus a missing sibling of each. The probing
// budget (opts.Probe.Budget, the probes' share of the scan's) and the page
// limit are split evenly and a note says so.
func crawlAs(ctx context.Context, opts *Options, plan probe.Planner) (*probe.Result, []checks.IdentityView, error) {
	ids := opts.Identities
	if len(ids) == 0 {
		return runProbe(ctx, opts.Probe, plan)
	}
	base := opts.Probe
	n := len(ids)
	share := withDefaultBudget(base.Budget) / time.Duration(n)
	pages := max(1, withDefaultPages(base.MaxPages)/n)
	primary := ids[n-1]
	cfg := asIdentity(base, primary, share, pages)
	// What runs after the crawl (the MCP collection) also runs as the
	// privileged identity, whose view the other families judge.
	opts.Probe.Headers = cfg.Headers
	res, _, err := runProbe(ctx, cfg, plan)
	if err != nil || n == 1 {
		return res, nil, err
	}
	label(res.Recording, primary.Name)
	views := make([]checks.IdentityView, n)
	views[n-1] = view(primary, base.Headers, n-1, res.Recording)
	next := len(res.Recording.Exchanges)
	for i, id := range ids[:n-1] {
		lower := asIdentity(base, id, share, pages)
		lower.FollowUp, lower.Spec = nil, probe.SpecConfig{NoSeed: true}
		lres, lerr := probe.Run(ctx, lower, crossFetchPlanner(res.Recording, max(minCrossFetch, pages)))
		if lerr != nil {
			res.Notes = append(res.Notes, fmt.Sprintf("identity %q: crawl failed: %v", id.Name, lerr))
			views[i] = view(id, base.Headers, i, &exchange.Recording{Target: res.Recording.Target})
			continue
		}
		label(lres.Recording, id.Name)
		for _, x := range lres.Recording.Exchanges {
			next++
			x.ID = fmt.Sprintf("x%04d", next)
		}
		res.Stats.Requests += lres.Stats.Requests
		for _, note := range lres.Notes {
			res.Notes = append(res.Notes, fmt.Sprintf("identity %q: %s", id.Name, note))
		}
		views[i] = view(id, base.Headers, i, lres.Recording)
	}
	res.Notes = append(res.Notes, fmt.Sprintf(
		"scanned as %d identities (%s, least privileged first); each got %s of the budget to crawl and probe, and %d pages; families other than leakage judge %q",
		n, names(ids), share, pages, primary.Name))
	return res, views, nil
}

func runProbe(ctx context.Context, cfg probe.Config, plan probe.Planner) (*probe.Result, []checks.IdentityView, error) {
	res, err := probe.Run(ctx, cfg, plan)
	return res, nil, err
}

// asIdentity is cfg with the identity's headers over the shared ones.
func asIdentity(cfg probe.Config, id Identity, budget time.Duration, pages int) probe.Config {
	h := cfg.Headers.Clone()
	if h == nil {
		h = http.Header{}
	}
	for k, vs := range id.Header {
		h[http.CanonicalHeaderKey(k)] = append([]string(nil), vs...)
	}
	cfg.Headers, cfg.Budget, cfg.MaxPages = h, budget, pages
	return cfg
}

func withDefaultBudget(d time.Duration) time.Duration {
	if d <= 0 {
		return 2 * time.Minute
	}
	return d
}

func withDefaultPages(n int) int {
	if n <= 0 {
		return 200
	}
	return n
}

func label(rec *exchange.Recording, name string) {
	for _, x := range rec.Exchanges {
		x.Identity = name
	}
}

func names(ids []Identity) string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = id.Name
	}
	return strings.Join(out, ", ")
}

// crossFetchPlanner plans, for a lower identity, a GET of the targets of the
// links, templates and affordances it was offered (leakage.PlanTargets), a
// GET of each resource the privileged identity read successfully that the
// lower identity's own crawl did not reach (bounded), and one missing sibling
// per parent path: together the pairs that expose an existence oracle. The
// resources fetched are bounded by limit, the identity's page share, so that
// a lower identity whose own crawl stops at a 401 root still sees as much of
// the frontier as its share allows.
func crossFetchPlanner(privileged *exchange.Recording, limit int) probe.Planner {
	return func(crawled, _ []*exchange.Exchange) []exchange.PlannedRequest {
		out := leakage.PlanTargets(crawled)
		seen := map[string]bool{}
		for _, x := range crawled {
			seen[x.Request.URL] = true
		}
		fetched := 0
		for x := range privileged.Crawled() {
			if fetched >= limit {
				break
			}
			if x.Request.Method != http.MethodGet || x.Response == nil || x.Response.Status != http.StatusOK {
				continue
			}
			sibling, ok := MissingSibling(x.Request.URL)
			if !ok {
				continue
			}
			if !seen[x.Request.URL] {
				seen[x.Request.URL] = true
				fetched++
				out = append(out, exchange.PlannedRequest{Purpose: PurposeCrossFetch, Method: http.MethodGet, URL: x.Request.URL, BasedOn: x.Request.URL})
			}
			if !seen[sibling] {
				seen[sibling] = true
				out = append(out, exchange.PlannedRequest{Purpose: PurposeMissingSibling, Method: http.MethodGet, URL: sibling, BasedOn: x.Request.URL})
			}
		}
		return out
	}
}

// MissingSibling is rawURL with its last path segment replaced by
// MissingSegment and no query; ok is false for the root, which has no sibling.
func MissingSibling(rawURL string) (string, bool) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return "", false
	}
	p := strings.TrimSuffix(u.Path, "/")
	if p == "" {
		return "", false
	}
	u.Path, u.RawPath, u.RawQuery, u.Fragment = path.Join(path.Dir(p), MissingSegment), "", "", ""
	return u.String(), true
}

// judgedCaller is the identity whose view the families other than leakage
// judge: the most privileged one, or an unnamed caller with the shared
// headers when the scan runs as no named identity.
func judgedCaller(ids []Identity, shared http.Header) checks.Caller {
	if len(ids) == 0 {
		return Identity{}.caller(shared)
	}
	return ids[len(ids)-1].caller(shared)
}

// secretHeaders are every header the scan sends, as any identity or to one
// URL (opts.Probe.Credentials), and opts.Probe.Secrets: each identity's recording is scrubbed of all of them,
// because a server may echo one caller's credentials to another (a shared
// cache, a debug page), and so is the recording of an MCP endpoint on
// another origin, which gets none of them.
func secretHeaders(opts Options) http.Header {
	out := http.Header{}
	add := func(h http.Header) {
		for name, vs := range h {
			for _, v := range vs {
				out.Add(name, v)
			}
		}
	}
	add(opts.Probe.Secrets)
	add(opts.Probe.Headers)
	for _, h := range opts.Probe.Credentials {
		add(h)
	}
	for _, id := range opts.Identities {
		add(id.Header)
	}
	return out
}

// Scrubber is what the scan scrubs from everything it records (see
// exchange.Secrets), for the caller to scrub what it prints with the same.
func Scrubber(opts Options) *exchange.Secrets {
	return exchange.NewSecrets(secretHeaders(opts))
}

// echoNotes says when the server echoed credentials the scan sent, which
// the recording shows as REDACTED: a report reader would otherwise wonder
// where that word in a body came from.
func echoNotes(in *checks.Input) []string {
	recs := []*exchange.Recording{in.Recording}
	for _, v := range in.Identities {
		if v.Recording != in.Recording {
			recs = append(recs, v.Recording)
		}
	}
	n, first := 0, ""
	for _, rec := range recs {
		if rec == nil {
			continue
		}
		for _, x := range rec.Exchanges {
			if x.Response == nil || x.Response.Redactions == 0 {
				continue
			}
			if n++; first == "" {
				first = x.Request.Method + " " + exchange.PathOf(x.Request.URL)
			}
		}
	}
	if n == 0 {
		return nil
	}
	return []string{fmt.Sprintf("the server echoed credentials the scan sent in %d response(s), first to %s; they are replaced with %s in the recording and every report",
		n, first, exchange.Redacted)}
}
