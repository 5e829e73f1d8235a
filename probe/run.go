package probe

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/urlx"
)

// ErrUnreachable means the start URL could not be fetched at all: connection
// refused, DNS, TLS or timeout. An answer of any status is not this error.
var ErrUnreachable = errors.New("target unreachable")

// skipProbeOffOrigin counts planned requests dropped for leaving the origin.
const skipProbeOffOrigin = "probe-off-origin"

// Defaults of the limits a session splits among its identities.
const (
	defaultBudget = 2 * time.Minute
	defaultPages  = 200
	// defaultBodiesBeyondSamples is what a family examines of a shape beyond
	// its samples, twice the documents of a shape it judges: resources of
	// one shape come from one serializer.
	defaultBodiesBeyondSamples = 64
)

func (cfg Config) withDefaults() Config {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&cfg.MaxPages, defaultPages)
	def(&cfg.MaxDepth, 5)
	def(&cfg.Concurrency, 4)
	def(&cfg.MaxRedirects, 5)
	def(&cfg.SamplesPerShape, 3)
	def(&cfg.BodiesPerShape, cfg.SamplesPerShape+defaultBodiesBeyondSamples)
	cfg.BodiesPerShape = max(cfg.BodiesPerShape, cfg.SamplesPerShape)
	if cfg.readEveryPage {
		cfg.BodiesPerShape = math.MaxInt
	}
	def(&cfg.MaxQueryVariants, 5)
	def(&cfg.MaxLinksPerPage, 1000)
	if cfg.Timeout <= 0 {
		cfg.Timeout = 10 * time.Second
	}
	if cfg.Budget <= 0 {
		cfg.Budget = defaultBudget
	}
	if cfg.MaxBody <= 0 {
		cfg.MaxBody = 2 << 20
	}
	if cfg.Version == "" {
		cfg.Version = "dev"
	}
	if cfg.Resolver == nil {
		// A configuration without one is a scan of its own; a session
		// sets one before anything, so that its phases share it.
		cfg.Resolver = NewResolver(nil)
	}
	if cfg.UserAgent == "" {
		cfg.UserAgent = "agentready/" + cfg.Version + " (+https://github.com/agentready/agentready)"
	}
	return cfg
}

// crawlShare is the part of a run's time the crawl may use: the planned
// probes, which most checks judge, always keep at least the rest.
func crawlShare(window time.Duration) time.Duration { return window * 3 / 4 }

// Run crawls from cfg.Start, sends the probes plan asks for, and returns the
// frozen recording. A run on its own is the whole scan, so cfg.Budget bounds
// it, applied here once as ctx's deadline; RunSession instead hands each
// identity's run a context that ends with its share of the schedule (see
// runWithin). Running out of time or being cancelled is not an error: the partial
// result is returned with Stats.Interrupted or Stats.BudgetCut set. The only
// error besides a bad configuration is ErrUnreachable.
func Run(ctx context.Context, cfg Config, plan Planner) (*Result, error) {
	ctx, cancel := context.WithTimeout(ctx, cfg.withDefaults().Budget)
	defer cancel()
	return runWithin(ctx, cfg, plan)
}

// runWithin is Run within ctx's deadline, which is the time the run has: the
// crawl stops at crawlShare of it, the planned probes at the deadline itself.
// A ctx without a deadline leaves both unbounded in time.
func runWithin(ctx context.Context, cfg Config, plan Planner) (*Result, error) {
	if cfg.Start == nil || (cfg.Start.Scheme != "http" && cfg.Start.Scheme != "https") || cfg.Start.Host == "" {
		return nil, errors.New("probe: start URL must be an absolute http or https URL")
	}
	if err := checkPatterns(cfg); err != nil {
		return nil, fmt.Errorf("probe: include/exclude pattern %w", err)
	}
	cfg = cfg.withDefaults()
	cfg.progress.SetPhase(ctx, PhaseCrawl)
	begin := time.Now()
	start := normalize(cfg.Start)
	window, timed := windowOf(ctx, begin)
	crawlCtx, cancelCrawl := context.WithCancel(ctx)
	if timed {
		cancelCrawl()
		crawlCtx, cancelCrawl = context.WithDeadline(ctx, begin.Add(crawlShare(window)))
	}
	defer cancelCrawl()

	c := newClient(cfg, start)
	defer c.close()
	bodies := newBodyKeeper()
	cr := newCrawler(cfg, c, start, bodies)
	if cfg.RespectRobots {
		cr.robots = readRobots(crawlCtx, c, start, cr.headers)
	}
	cr.run(crawlCtx)
	if err := startFailure(cr.pages, crawlCtx); err != nil {
		return nil, err
	}
	// Read now: the crawl's deadline also passes while the probes run.
	crawlCut := crawlCtx.Err() != nil

	res := &Result{}
	res.Notes = appendNotes(res.Notes, startRedirectNote(cr.pages, start), cr.cut.note(), cr.sampler.note(), cr.sampler.streamNote(), cr.sampler.unreadNote())
	samples, sampling := cr.sampler.result()
	crawled := sortedExchanges(cr.pages)
	// The refused answers of the pages another Accept got join the probes,
	// so that the follow-up planners see them and send them again to
	// confirm them.
	var sent round
	sent.sent = append(sent.sent, sortedExchanges(cr.refused)...)
	if plan != nil && ctx.Err() == nil {
		cfg.progress.SetPhase(ctx, PhaseProbe)
		s := sender{cfg: cfg, client: c, start: start, bodies: bodies, robots: cr.robots}
		firstCtx, cancelFirst := reserveFollowUps(ctx, cfg.followUp != nil)
		sent.add(s.planned(firstCtx, plan(crawled, samples)))
		cancelFirst()
		sent.add(s.followUps(ctx, crawled, samples, sent.sent))
		res.Notes = append(res.Notes, sent.notes...)
		if sent.offOrigin > 0 {
			cr.skipped[skipProbeOffOrigin] += sent.offOrigin
		}
		if sent.robots > 0 {
			cr.skipped[skipProbeRobots] += sent.robots
		}
	}
	res.Notes = appendNotes(res.Notes, cr.robots.note(cr.skipped))
	probes := sent.sent

	res.Spec, res.SpecDiscovery, res.Notes = cr.spec.doc, cr.spec.discovery, append(res.Notes, cr.spec.notes...)
	res.Notes = appendNotes(res.Notes, cr.startNote(), cr.guesses.note(), cr.spec.ex.note())
	cr.spec.reached(res)
	res.Notes = appendNotes(res.Notes, bodies.note())
	res.Recording = freeze(start.String(), crawled, append(probes, cr.spec.exchanges...), samples)
	res.Stats.Pages = len(crawled)
	res.Stats.Requests = int(c.requests.Load())
	res.Stats.Probes = len(probes)
	res.Stats.Sampling = sampling
	if len(cr.skipped) > 0 {
		res.Stats.Skipped = cr.skipped
	}
	cut := budgetCut{pages: len(crawled), crawlCut: crawlCut, crawlShare: crawlShare(window), budget: window, unsent: sent.unsent, planned: len(probes) + sent.unsent}
	res.Notes = append(res.Notes, cut.notes(ctx)...)
	cut.mark(&res.Stats, ctx)
	res.Stats.Addresses = cfg.Resolver.Addresses()
	res.Stats.DurationMS = time.Since(begin).Milliseconds()
	res.Throttling = c.throttle.counts()
	// Notes quote links as the server wrote them, before any scrubbing.
	for i, note := range res.Notes {
		res.Notes[i] = c.secrets.String(note)
	}
	return res, nil
}

// windowOf is the time ctx leaves a run that began at begin, rounded up to
// the millisecond: the deadline was set a few microseconds before the run
// began, and the notes name the share as the schedule gave it (1.5s, not
// 1.499987s). ok is false when ctx has no deadline.
func windowOf(ctx context.Context, begin time.Time) (window time.Duration, ok bool) {
	deadline, ok := ctx.Deadline()
	if !ok {
		return 0, false
	}
	window = max(0, deadline.Sub(begin))
	if rest := window % time.Millisecond; rest > 0 {
		window += time.Millisecond - rest
	}
	return window, true
}

// reserveFollowUps is ctx for the first round of planned probes, ended
// early enough to leave the follow-up round a quarter of the time left: the
// repeats that confirm a comparison are sent only then, and a first round
// that took all the time left every comparison unjudged.
func reserveFollowUps(ctx context.Context, followUps bool) (context.Context, context.CancelFunc) {
	deadline, ok := ctx.Deadline()
	if !ok || !followUps {
		return context.WithCancel(ctx)
	}
	return context.WithDeadline(ctx, time.Now().Add(time.Until(deadline)*3/4))
}

// appendNotes appends the notes that are not empty.
func appendNotes(notes []string, more ...string) []string {
	for _, n := range more {
		if n != "" {
			notes = append(notes, n)
		}
	}
	return notes
}

// startFailure is ErrUnreachable when the start URL got no response while the
// scan still had time: the target is down or misconfigured.
func startFailure(pages []*exchange.Exchange, scanCtx context.Context) error {
	if scanCtx.Err() != nil || len(pages) == 0 {
		return nil
	}
	first := pages[0]
	if first.Response != nil {
		return nil
	}
	return fmt.Errorf("%w: %s: %s", ErrUnreachable, first.Request.URL, first.Err)
}

// startRedirectNote explains the most common reason for a one-page scan: the
// start URL redirects elsewhere (often http to https), which is another origin.
func startRedirectNote(pages []*exchange.Exchange, start *url.URL) string {
	if len(pages) == 0 || pages[0].Response == nil {
		return ""
	}
	r := pages[0].Response
	if r.Status < 300 || r.Status > 399 {
		return ""
	}
	loc, err := start.Parse(r.Header.Get("Location"))
	if err != nil || r.Header.Get("Location") == "" || urlx.SameOrigin(loc, start) {
		return ""
	}
	return fmt.Sprintf("the start URL redirects to another origin (%s); scan that URL to follow it", loc.Redacted())
}

// budgetCut is what the run's end cut short, for its notes.
type budgetCut struct {
	pages              int
	crawlCut           bool
	crawlShare, budget time.Duration
	planned, unsent    int
}

// notes says what was cut and why: the user's interruption, the crawl's share
// of the budget, or the budget itself during the planned probes. A deadline
// that comes from the caller's context is a budget too, not an interruption.
func (b budgetCut) notes(parent context.Context) []string {
	if errors.Is(parent.Err(), context.Canceled) {
		return []string{fmt.Sprintf("scan interrupted after %d pages", b.pages)}
	}
	var notes []string
	if b.crawlCut {
		notes = append(notes, fmt.Sprintf("the crawl stopped after %d pages, at the end of its share of the budget (%s)", b.pages, b.crawlShare))
	}
	if b.unsent > 0 {
		notes = append(notes, fmt.Sprintf("the planned probes stopped when the time for crawling and probing ran out (%s): %d of %d sent", b.budget, b.planned-b.unsent, b.planned))
	}
	return notes
}

// mark records in st what the end of the run cut: an interruption when the
// caller cancelled it, else the phases the budget ran out in.
func (b budgetCut) mark(st *finding.Stats, parent context.Context) {
	switch {
	case errors.Is(parent.Err(), context.Canceled):
		st.Interrupted = true
		return
	case b.crawlCut:
		st.CutBy(finding.CutCrawl)
	}
	if b.unsent > 0 {
		st.CutBy(finding.CutProbes)
	}
}

// cutShort records in st that phase ended before its work was done: an
// interruption when the caller cancelled ctx, a budget cut otherwise (the
// scan's deadline or the phase's own bound).
func cutShort(st *finding.Stats, ctx context.Context, phase string) {
	if errors.Is(ctx.Err(), context.Canceled) {
		st.Interrupted = true
		return
	}
	st.CutBy(phase)
}

// sender sends the planned requests of one run.
type sender struct {
	cfg    Config
	client *client
	start  *url.URL
	bodies *bodyKeeper
	robots *robotsRules
}

// round is what sending planned requests gave.
type round struct {
	sent      []*exchange.Exchange
	offOrigin int      // dropped for leaving the origin
	robots    int      // dropped because robots.txt disallows them
	unsent    int      // valid, but the run ended first
	notes     []string // the requests refused, and why
}

func (r *round) add(o round) {
	r.sent = append(r.sent, o.sent...)
	r.offOrigin += o.offOrigin
	r.robots += o.robots
	r.unsent += o.unsent
	r.notes = append(r.notes, o.notes...)
}

// planned validates, de-duplicates and sends planned requests. A request
// several purposes planned is sent once and shared with every one of them
// (exchange.Exchange.SharedWith), so that each planner finds its answer.
func (s sender) planned(ctx context.Context, planned []exchange.PlannedRequest) round {
	var r round
	shared := sharedUses(planned)
	seen := map[string]bool{}
	var valid []exchange.PlannedRequest
	sharedBySent := map[string][]exchange.Use{}
	for _, p := range planned {
		if seen[p.Key()] {
			continue
		}
		seen[p.Key()] = true
		uses := shared[p.Key()]
		recorded := p.URL
		p.URL = s.client.requested.requestedURL(p.URL)
		err := validatePlanned(p, s.start, s.cfg.AllowUnsafe)
		switch {
		case errors.Is(err, errOffOrigin):
			r.offOrigin++
		case err != nil:
			r.notes = append(r.notes, fmt.Sprintf("planned request %s %s (%s) not sent: %v", p.Method, recorded, p.Purpose, err))
		case s.robotsDisallow(p.URL):
			r.robots++
		default:
			valid = append(valid, p)
			sharedBySent[p.Key()] = uses
		}
	}
	sendingOrder(valid)

	out := make([]*exchange.Exchange, len(valid))
	inParallel(ctx, len(valid), s.cfg.Concurrency, func(i int) {
		out[i] = s.one(ctx, valid[i], sharedBySent[valid[i].Key()])
	})
	for _, x := range out {
		if x != nil {
			r.sent = append(r.sent, x)
		}
	}
	r.unsent = len(valid) - len(r.sent)
	return r
}

// sendingOrder sorts planned requests resource by resource (BasedOn), each
// resource's in key order. When the budget ends the probes, the resources
// probed then have every probe their checks compare (HEAD with GET, OPTIONS,
// the Accept variants); in plain key order every GET of every resource went
// before the first HEAD, and a cut left the HEAD and OPTIONS checks nothing.
func sendingOrder(planned []exchange.PlannedRequest) {
	sort.Slice(planned, func(i, j int) bool {
		if planned[i].BasedOn != planned[j].BasedOn {
			return planned[i].BasedOn < planned[j].BasedOn
		}
		return planned[i].Key() < planned[j].Key()
	})
}

// one sends p, or returns nil when the run ended under it: a request cut by
// the budget says nothing about the app.
func (s sender) one(ctx context.Context, p exchange.PlannedRequest, shared []exchange.Use) *exchange.Exchange {
	x, _ := s.client.fetch(ctx, p.Method, p.URL, plannedHeader(s.cfg, p))
	if x.Err != "" && ctx.Err() != nil {
		return nil
	}
	x.Purpose, x.BasedOn, x.SharedWith = p.Purpose, p.BasedOn, shared
	s.bodies.keep(x)
	return x
}

// sharedUses maps the key of each request planned more than once to the
// uses besides the first, sorted and without repeats: the families that
// plan identical probes for the same purpose share nothing.
func sharedUses(planned []exchange.PlannedRequest) map[string][]exchange.Use {
	first := map[string]exchange.Use{}
	out := map[string][]exchange.Use{}
	for _, p := range planned {
		k, u := p.Key(), exchange.Use{Purpose: p.Purpose, BasedOn: p.BasedOn}
		f, seen := first[k]
		switch {
		case !seen:
			first[k] = u
		case u != f && !slices.Contains(out[k], u):
			out[k] = append(out[k], u)
		}
	}
	for _, uses := range out {
		sort.Slice(uses, func(i, j int) bool {
			if uses[i].Purpose != uses[j].Purpose {
				return uses[i].Purpose < uses[j].Purpose
			}
			return uses[i].BasedOn < uses[j].BasedOn
		})
	}
	return out
}

// robotsDisallow reports whether robots.txt keeps a valid planned request
// from being sent.
func (s sender) robotsDisallow(raw string) bool {
	u, err := url.Parse(raw)
	return err == nil && s.robots.disallows(normalize(u), s.start)
}

var errOffOrigin = errors.New("URL is on another origin")

var safeMethods = map[string]bool{http.MethodGet: true, http.MethodHead: true, http.MethodOptions: true}

// validatePlanned refuses what the probe must not send: unsafe methods unless
// enabled, and URLs that are not http(s) on the target's origin.
func validatePlanned(p exchange.PlannedRequest, start *url.URL, allowUnsafe bool) error {
	if p.Method == "" {
		return errors.New("no method")
	}
	if !safeMethods[p.Method] && !allowUnsafe {
		return fmt.Errorf("method %q is not safe (only GET, HEAD and OPTIONS are sent)", p.Method)
	}
	if exchange.HoldsRedaction(p.URL) {
		// Derived from a recorded URL that held a secret: the real URL is
		// not known, and a made-up one must not be sent.
		return errors.New("the URL held a credential, redacted in the recording")
	}
	for name, vs := range p.Header {
		for _, v := range vs {
			// A value that is the marker alone is a header of the user's,
			// which plannedHeader sends as given or not at all; one holding
			// it among other text was made from a scrubbed echo.
			if v != exchange.Redacted && exchange.HoldsRedaction(v) {
				return fmt.Errorf("its %s header held a credential, redacted in the recording", http.CanonicalHeaderKey(name))
			}
		}
	}
	if exchange.HoldsRedaction(p.Body) {
		return errors.New("its body held a credential, redacted in the recording")
	}
	u, err := url.Parse(p.URL)
	if err != nil {
		return err
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return fmt.Errorf("scheme %q is not http or https", u.Scheme)
	}
	if !urlx.SameOrigin(u, start) {
		return errOffOrigin
	}
	return nil
}

// plannedHeader is exactly the planned headers, over the user's headers, plus
// User-Agent. The user's Accept is left out: negotiation probes depend on
// sending precisely the Accept they planned, or none.
//
// A planned header copied from the recording (a repeat of a request) may
// hold the marker that stands for a user's value there: the marker is an
// output's form and never goes on the wire. The header takes the value the
// user configured, or is left out when the user configured none for this
// request.
func plannedHeader(cfg Config, p exchange.PlannedRequest) http.Header {
	h := http.Header{}
	h.Set("User-Agent", cfg.UserAgent)
	for name, vs := range cfg.Headers {
		if http.CanonicalHeaderKey(name) != "Accept" {
			h[http.CanonicalHeaderKey(name)] = append([]string(nil), vs...)
		}
	}
	for name, vs := range p.Header {
		name = http.CanonicalHeaderKey(name)
		if slices.Contains(vs, exchange.Redacted) {
			if given := cfg.Headers.Values(name); len(given) > 0 {
				h[name] = append([]string(nil), given...)
			} else {
				delete(h, name)
			}
			continue
		}
		h[name] = append([]string(nil), vs...)
	}
	return h
}

func sortedExchanges(xs []*exchange.Exchange) []*exchange.Exchange {
	out := append([]*exchange.Exchange(nil), xs...)
	sort.SliceStable(out, func(i, j int) bool { return exchangeLess(out[i], out[j]) })
	return out
}

// exchangeLess orders the recording: the crawl first, then by URL, method,
// purpose and request headers.
func exchangeLess(a, b *exchange.Exchange) bool {
	ac, bc := a.Purpose == exchange.PurposeCrawl, b.Purpose == exchange.PurposeCrawl
	if ac != bc {
		return ac
	}
	if a.Request.URL != b.Request.URL {
		return a.Request.URL < b.Request.URL
	}
	if a.Request.Method != b.Request.Method {
		return a.Request.Method < b.Request.Method
	}
	if a.Purpose != b.Purpose {
		return a.Purpose < b.Purpose
	}
	return headerKey(a.Request.Header) < headerKey(b.Request.Header)
}

func headerKey(h http.Header) string {
	names := make([]string, 0, len(h))
	for k := range h {
		names = append(names, k)
	}
	sort.Strings(names)
	var b strings.Builder
	for _, k := range names {
		b.WriteString(k + ":" + strings.Join(h[k], ",") + "\x00")
	}
	return b.String()
}

// freeze sorts every exchange and numbers them. Headers were redacted when
// each exchange was recorded, so nothing unredacted ever left the client.
func freeze(target string, crawled, probes, samples []*exchange.Exchange) *exchange.Recording {
	all := sortedExchanges(append(append([]*exchange.Exchange(nil), crawled...), probes...))
	for i, x := range all {
		x.ID = fmt.Sprintf("x%04d", i+1)
	}
	rec := &exchange.Recording{Target: target, Exchanges: all}
	for _, s := range samples {
		rec.Samples = append(rec.Samples, s.Request.URL)
	}
	return rec
}
