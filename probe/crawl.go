package probe

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"sort"
	"sync"

	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/spec"
	"github.com/agentready/agentready/internal/urlx"
)

// CrawlAccept is sent on every crawl request: hypermedia first, then JSON,
// then HTML, so that the app shows its most navigable representation.
const CrawlAccept = "application/hal+json, application/json;q=0.9, text/html;q=0.8, */*;q=0.5"

// Reasons a discovered URL was not fetched, as counted in Stats.Skipped.
const (
	skipOffOrigin     = "off-origin"
	skipTemplate      = "template"
	skipInvalid       = "invalid"
	skipScheme        = "not-http"
	skipExcluded      = "excluded"
	skipMaxDepth      = "max-depth"
	skipMaxPages      = "max-pages"
	skipQueryVariants = "query-variants"
	skipLinksPerPage  = "max-links-per-page"
)

type job struct {
	url    string
	depth  int
	source string
	// op is the document's GET operation the URL matches, once the
	// exploration has looked (see explorer.track).
	op *spec.Operation
	// guessed marks an item URL made up from a collection's identifiers
	// (see collectionIDs); retryAccept marks a URL asked again with other
	// Accept values when it refuses the crawl's (see retryAccept).
	guessed, retryAccept bool
}

type page struct {
	x *exchange.Exchange
	// url is the URL requested, as the server wrote it (x.Request.URL may
	// be scrubbed); redirected is where a redirect ended, nil when none did.
	// Pages wait for their turn to be visited (see fetchLevel), so the URL is
	// parsed again for their links (baseURL) rather than kept parsed.
	url        string
	redirected *url.URL
	cands      []candidate
	found      int // links offered, of which cands holds the first MaxLinksPerPage
	// ids are the identifiers of the page's members when it is a plain
	// collection whose members link nowhere, for guessing their URLs.
	ids memberIDs
	// harvest is what the page gives the OpenAPI exploration, or nil.
	harvest *harvest
	// dropped marks the answer to a guessed URL that is not an item: it is
	// neither recorded nor followed.
	dropped bool
}

// crawler walks breadth-first one depth level at a time. Each level is
// fetched concurrently, but the next level is built by visiting the pages in
// queue order, so which URLs get fetched does not depend on timing.
type crawler struct {
	cfg     Config
	client  *client
	start   *url.URL
	headers http.Header
	sampler *sampler

	decided  map[string]bool // URLs queued or skipped, and skip keys already counted
	variants map[string]int  // distinct query strings queued per path
	queued   int
	transit  int // pages of other shards' shapes queued (Session.Shard)
	skipped  map[string]int
	// lastSource is the last job source made: the links of one page found
	// the same way share one string.
	lastSource sourceText
	pages      []*exchange.Exchange
	spec       *specState // the OpenAPI document and its seeds; see spec.go
	cut        linkCut
	// startLinks counts the links the start page offered.
	startLinks int
	robots     *robotsRules // nil unless Config.RespectRobots; see robots.go
	// retryShapes counts, per path shape, the URLs queued that may be
	// asked again with other Accept values (see retryAccept).
	retryShapes map[string]int
	// refused are the answers to the crawl's Accept of the pages that only
	// another Accept got (see retryAccept), in no order; mu guards them,
	// since pages are fetched concurrently.
	mu      sync.Mutex
	refused []*exchange.Exchange
	// guessedFrom are the collection paths whose items' URLs were guessed,
	// each once whatever its query; guesses counts them for the note.
	guessedFrom map[string]bool
	guesses     guessTally
}

// linkCut remembers the pages whose links the per-page bound cut, for the
// report's note: the first one in crawl order, and how many in all.
type linkCut struct {
	pages         int
	first         string // "GET /path"
	kept, offered int    // of the first page
}

func newCrawler(cfg Config, c *client, start *url.URL, bodies *bodyKeeper) *crawler {
	h := http.Header{}
	h.Set("Accept", CrawlAccept)
	h.Set("User-Agent", cfg.UserAgent)
	for name, vs := range cfg.Headers {
		h[http.CanonicalHeaderKey(name)] = append([]string(nil), vs...)
	}
	return &crawler{
		cfg:         cfg,
		client:      c,
		start:       start,
		headers:     h,
		sampler:     newSampler(cfg.SamplesPerShape, cfg.BodiesPerShape, bodies, unreadHeader(c.respHdrs)),
		decided:     map[string]bool{},
		variants:    map[string]int{},
		skipped:     map[string]int{},
		spec:        &specState{cfg: cfg.Spec},
		retryShapes: map[string]int{},
		guessedFrom: map[string]bool{},
	}
}

func (cr *crawler) run(ctx context.Context) {
	startURL := cr.start.String()
	cr.decided[startURL] = true
	cr.queued = 1
	level := []job{{url: startURL, source: exchange.SourceStart, retryAccept: cr.mayRetry(startURL)}}
	for len(level) > 0 && ctx.Err() == nil {
		var next []job
		if cr.spec.settled() {
			cr.fetchLevel(ctx, level, func(i int, p *page) { next = cr.visit(level[i], p, next) })
		} else {
			pages := cr.fetchLevel(ctx, level, nil)
			if len(cr.pages) == 0 && len(pages) > 0 && pages[0] != nil {
				cr.startLinks = pages[0].found
			}
			next = cr.specJobs(ctx, level, pages)
			for i, p := range pages {
				if p != nil {
					next = cr.visit(level[i], p, next)
				}
			}
		}
		level = append(next, cr.exploreJobs(next)...)
	}
}

// visit records the page fetched for done and appends the jobs its links
// make to next, then those of the item URLs its identifiers give.
func (cr *crawler) visit(done job, p *page, next []job) []job {
	if done.guessed {
		cr.guesses.sent++
		if p.dropped {
			return next
		}
		cr.guesses.kept++
	}
	cr.pages = append(cr.pages, p.x)
	cr.cfg.progress.addPage()
	cr.noteCut(p)
	base := p.baseURL()
	for _, cand := range p.cands {
		if j, ok := cr.consider(cand, base, done.depth+1, p.x.Request.URL); ok {
			next = append(next, j)
		}
	}
	return cr.guessItems(p, base, done.depth+1, next)
}

// guessItems appends the jobs of the item URLs guessed from p's
// identifiers, once per collection path: the pages of one collection
// (?page=2) list members of the same kind, and its first few tell whether
// the guess is right. A guess is subject to every bound a link is, and
// counts against the page limit.
func (cr *crawler) guessItems(p *page, base *url.URL, depth int, next []job) []job {
	guesses := itemGuesses(base, p.ids)
	if len(guesses) == 0 || cr.guessedFrom[base.EscapedPath()] {
		return next
	}
	cr.guessedFrom[base.EscapedPath()] = true
	queued := false
	for _, cand := range guesses {
		if j, ok := cr.consider(cand, base, depth, p.x.Request.URL); ok {
			next, queued = append(next, j), true
		}
	}
	if queued {
		if cr.guesses.collections == 0 {
			cr.guesses.first = p.x.Request.Method + " " + exchange.PathOf(p.x.Request.URL)
		}
		cr.guesses.collections++
	}
	return next
}

// baseURL is what the page's references resolve against: where the request
// ended, or nil when it did not end at a URL.
func (p *page) baseURL() *url.URL {
	if p.redirected != nil || p.x.Response == nil {
		return p.redirected
	}
	u, err := url.Parse(p.url)
	if err != nil {
		return nil
	}
	return u
}

// fetchLevel fetches the jobs of one level concurrently. With visit nil it
// returns the pages, in job order, nil for a job the scan's end cut.
// Otherwise it hands each page to visit in job order as soon as the pages
// before it are in, and keeps none: a level of a large crawl then holds
// only the pages that arrived ahead of their turn.
func (cr *crawler) fetchLevel(ctx context.Context, jobs []job, visit func(int, *page)) []*page {
	out := make([]*page, len(jobs))
	done := make([]bool, len(jobs))
	var mu sync.Mutex
	turn := 0 // the next page to visit
	visitReady := func() {
		for ; turn < len(jobs) && done[turn]; turn++ {
			if out[turn] != nil {
				visit(turn, out[turn])
				out[turn] = nil
			}
		}
	}
	inParallel(ctx, len(jobs), cr.cfg.Concurrency, func(i int) {
		p := cr.fetchPage(ctx, jobs[i])
		mu.Lock()
		out[i], done[i] = p, true
		if visit != nil {
			visitReady()
		}
		mu.Unlock()
	})
	if visit == nil {
		return out
	}
	// Jobs the scan's end left unsent are skipped, as nil pages are.
	for i := turn; i < len(jobs); i++ {
		done[i] = true
	}
	visitReady()
	return nil
}

// fetchPage returns nil when the scan ended under the request: a request cut
// by the budget says nothing about the app.
func (cr *crawler) fetchPage(ctx context.Context, j job) *page {
	x, final := cr.client.sendUnscrubbed(ctx, http.MethodGet, j.url, cr.headers, nil)
	if x.Err != "" && ctx.Err() != nil {
		return nil
	}
	if j.guessed && !answersGuess(x) {
		return &page{x: x, url: j.url, dropped: true}
	}
	if j.retryAccept {
		x, final = cr.retryAccept(ctx, j.url, x, final)
	}
	x.Purpose, x.Depth, x.Source = exchange.PurposeCrawl, j.depth, j.source
	p := &page{x: x, url: j.url}
	if final != nil && final.String() != j.url {
		p.redirected = final
	}
	if x.Response != nil {
		var doc jsonDocument
		p.cands, p.found, doc = discover(x.Response, cr.cfg.MaxLinksPerPage)
		// A guess is not guessed from: an item's list of parts is not a
		// collection the server named.
		if base := p.baseURL(); !j.guessed && base != nil && x.Response.Status/100 == 2 {
			p.ids = collectionIDs(doc, pageNoun(base.EscapedPath(), nil), cr.cfg.SamplesPerShape)
		}
	}
	cr.client.scrub(x)
	if x.Response != nil {
		if cr.spec.exploring() {
			p.harvest = harvestPage(x, cr.spec.doc)
		}
		cr.retain(x, p.found > len(p.cands))
	}
	return p
}

// retryAccepts are the Accept values a page is asked with again when it
// refuses the crawl's: any type, then none ("" removes the field), which
// RFC 9110 §12.5.1 says get the default representation.
var retryAccepts = []string{"*/*", ""}

// maxRetriesPerShape bounds the URLs of one path shape that are asked
// again when they refuse the crawl's Accept: the first ones queued, as
// many as the crawl samples of a shape. Resources of one shape come from
// one handler; a shape of a thousand missing pages costs six requests
// more, not two thousand.
const maxRetriesPerShape = 3

// mayRetry reports whether a URL queued now may be asked again with other
// Accept values, and counts it against its shape's bound. It runs as jobs
// are queued, in queue order, so which URLs may be retried does not depend
// on which answers first.
func (cr *crawler) mayRetry(rawURL string) bool {
	shape := exchange.PathShape(exchange.PathOf(rawURL))
	if cr.retryShapes[shape] >= maxRetriesPerShape {
		return false
	}
	cr.retryShapes[shape]++
	return true
}

// retryAccept sends a page again with each of retryAccepts when it
// answered the crawl's Accept with a 4xx that Accept may explain
// (acceptMayExplain), and the user set no Accept of their own. The first
// 2xx is the page the crawl goes on from, and the refused answer is kept
// among refused: a resource that exists for one Accept and not for another
// is a finding, not a reason to stop. Otherwise x stands, and the retries
// are not recorded.
func (cr *crawler) retryAccept(ctx context.Context, rawURL string, x *exchange.Exchange, final *url.URL) (*exchange.Exchange, *url.URL) {
	if x.Response == nil || !acceptMayExplain(x.Response.Status) || cr.headers.Get("Accept") != CrawlAccept {
		return x, final
	}
	for _, accept := range retryAccepts {
		h := cr.headers.Clone()
		if accept == "" {
			h.Del("Accept")
		} else {
			h.Set("Accept", accept)
		}
		rx, rfinal := cr.client.sendUnscrubbed(ctx, http.MethodGet, rawURL, h, nil)
		if rx.Response == nil || rx.Response.Status/100 != 2 {
			continue
		}
		cr.client.scrub(x)
		cr.retain(x, false)
		x.Purpose, x.BasedOn = exchange.PurposeCrawlRefused, rawURL
		cr.mu.Lock()
		cr.refused = append(cr.refused, x)
		cr.mu.Unlock()
		return rx, rfinal
	}
	return x, final
}

// acceptMayExplain reports a 4xx that may depend on Accept alone: 406 and
// 415 are about Accept itself, and a 404 or a 400 may be, from a router
// that matches on Accept before it matches the path, or a handler that
// rejects a header it cannot parse. Every other 4xx says why it refused
// (access, payment, the method, throttling), and another Accept changes
// none of it.
func acceptMayExplain(status int) bool {
	switch status {
	case http.StatusBadRequest, http.StatusNotFound, http.StatusNotAcceptable, http.StatusUnsupportedMediaType:
		return true
	}
	return false
}

// noteCut counts the links of p that the per-page bound left out.
func (cr *crawler) noteCut(p *page) {
	left := p.found - len(p.cands)
	if left <= 0 {
		return
	}
	cr.skipped[skipLinksPerPage] += left
	if cr.cut.pages == 0 {
		cr.cut.first = p.x.Request.Method + " " + exchange.PathOf(p.x.Request.URL)
		cr.cut.kept, cr.cut.offered = len(p.cands), p.found
	}
	cr.cut.pages++
}

// note says what the per-page bound cut, or "".
func (c linkCut) note() string {
	if c.pages == 0 {
		return ""
	}
	more := ""
	if c.pages > 1 {
		more = fmt.Sprintf(" and %d more pages", c.pages-1)
	}
	return fmt.Sprintf("took %d of %d links from %s%s, cut by the per-page bound (--max-links-per-page); pages cut this way are not sampled, so neither probed nor judged by their body",
		c.kept, c.offered, c.first, more)
}

// startNote says when the start page answered but offered nothing to
// follow and the crawl reached nothing else: a plain-JSON API, with what to
// pass so that the scan sees more than one page.
func (cr *crawler) startNote() string {
	if len(cr.pages) != 1 || cr.startLinks > 0 {
		return ""
	}
	x := cr.pages[0]
	if x.Response == nil || x.Response.Status/100 != 2 {
		return ""
	}
	hint := "pass --openapi FILE|URL so that its operations are requested, or start from a URL that links to the API"
	if cr.spec.doc != nil {
		hint = "the OpenAPI document gave no operation the crawl could request; start from a URL that links to the API, or check --base-path"
	}
	return fmt.Sprintf("the start page %s offers no link to follow (no Link header, HAL or JSON:API links, next/items envelope, HTML link), "+
		"so the crawl reached nothing else: %s", x.Request.Method+" "+exchange.PathOf(x.Request.URL), hint)
}

// retain applies the body-retention policy once links are extracted. A page
// whose links the per-page bound cut is not sampled: judging and probing a
// page that large costs the checks as much as the crawl was spared.
func (cr *crawler) retain(x *exchange.Exchange, cut bool) {
	r := x.Response
	switch {
	case r.Status >= 400:
		if len(r.Body) > keepErrorBody {
			r.Body, r.Truncated = r.Body[:keepErrorBody:keepErrorBody], true
		}
	case r.Status >= 200 && r.Status < 300 && !cut:
		cr.sampler.offer(x)
	default:
		releaseBody(r)
	}
}

// consider decides the fate of a discovered reference: queued as a job, or
// counted once under a skip reason.
func (cr *crawler) consider(c candidate, base *url.URL, depth int, from string) (job, bool) {
	ref := c.ref
	if c.templated {
		expanded, ok := expandTemplate(ref)
		if !ok {
			cr.skipOnce(skipTemplate, ref)
			return job{}, false
		}
		ref = expanded
	}
	if ref == "" || len(ref) > maxURLLength || base == nil {
		cr.skipOnce(skipInvalid, ref)
		return job{}, false
	}
	if key, ok := plainKey(base, ref); ok && cr.decided[key] {
		return job{}, false // most links of a large crawl lead where it went
	}
	u, err := url.Parse(ref)
	if err != nil {
		cr.skipOnce(skipInvalid, ref)
		return job{}, false
	}
	u = normalize(base.ResolveReference(u))
	if u.Scheme != "http" && u.Scheme != "https" {
		cr.skipOnce(skipScheme, u.Scheme)
		return job{}, false
	}
	key := u.String()
	if cr.decided[key] {
		return job{}, false
	}
	cr.decided[key] = true
	if reason := cr.refusal(u, depth); reason != "" {
		cr.skipped[reason]++
		return job{}, false
	}
	if cr.foreign(key) {
		cr.transit++
	} else {
		cr.queued++
	}
	// A guess is never asked again: a miss is dropped, whatever Accept.
	return job{url: key, depth: depth, source: cr.sourceOf(c.source, from), guessed: c.guessed, retryAccept: !c.guessed && cr.mayRetry(key)}, true
}

type sourceText struct{ how, from, text string }

// sourceOf says a job was found how on the page at from.
func (cr *crawler) sourceOf(how, from string) string {
	if last := cr.lastSource; last.text != "" && last.how == how && last.from == from {
		return last.text
	}
	text := how + " of " + exchange.PathOf(from)
	cr.lastSource = sourceText{how, from, text}
	return text
}

// refusal is the reason not to fetch a new on-scheme URL, or "".
func (cr *crawler) refusal(u *url.URL, depth int) string {
	switch {
	case !urlx.SameOrigin(u, cr.start):
		return skipOffOrigin
	case !inScope(u.Path, cr.cfg.Include, cr.cfg.Exclude):
		return skipExcluded
	case cr.robots.disallows(u, cr.start):
		return skipRobots
	case depth > cr.cfg.MaxDepth:
		return skipMaxDepth
	}
	if u.RawQuery != "" {
		p := u.EscapedPath()
		if cr.variants[p] >= cr.cfg.MaxQueryVariants {
			return skipQueryVariants
		}
		cr.variants[p]++
	}
	if cr.overBudget(u.String()) {
		return skipMaxPages
	}
	return ""
}

// foreign reports a URL whose path shape another shard owns.
func (cr *crawler) foreign(u string) bool {
	sh := cr.cfg.shard
	return sh.Split() && exchange.URLShard(u, sh.Total) != sh.Index
}

// overBudget reports that the page limit refuses u. A shard's own pages
// have the whole limit, as one scan would; the pages of other shards'
// shapes it fetches only to reach its own through their links have the
// limit once per other shard, so that a shard never fetches more than the
// n scans it stands for together.
func (cr *crawler) overBudget(u string) bool {
	if cr.foreign(u) {
		return cr.transit >= cr.cfg.MaxPages*(cr.cfg.shard.Total-1)
	}
	return cr.queued >= cr.cfg.MaxPages
}

// skipOnce counts a reference that never became a URL, once per distinct
// reference, in the same space as URLs but under a key no URL can have.
func (cr *crawler) skipOnce(reason, ref string) {
	key := "\x00" + reason + "\x00" + ref
	if cr.decided[key] {
		return
	}
	cr.decided[key] = true
	cr.skipped[reason]++
}

// maxShapes bounds the path shapes sampled: a crawl of many pages could
// otherwise keep samples, and probe them, for as many shapes as pages.
const maxShapes = 2000

// sampler keeps, per path shape, the lexically smallest successful crawl URLs,
// for the lexically smallest maxShapes shapes. It runs while crawling so that
// only bodies still in the running can be kept: a page pushed out of its
// shape's sample releases its body at once.
type sampler struct {
	mu        sync.Mutex
	k         int
	shapes    map[string]*shapeSample
	tracked   leastSet[string]
	bodies    *bodyKeeper
	unsampled int // pages of shapes past maxShapes
	streams   int // pages that were streams, never sampled
	// read keeps, per path shape and media type, the pages whose bodies
	// the checks read; the others drop theirs once their links are out.
	read        map[shapeAndType]*leastSet[*exchange.Exchange]
	readInShape int64
	unread      int
	// unreadHeader is what an unread page keeps of its header.
	unreadHeader func(http.Header) http.Header
}

// shapeAndType keys the pages read: a struct, not a joined string, since
// every crawled page looks its key up.
type shapeAndType struct{ shape, mediaType string }

type shapeSample struct {
	seen   int
	chosen []*exchange.Exchange // sorted by URL, at most k
}

func newSampler(k, read int, bodies *bodyKeeper, unreadHeader func(http.Header) http.Header) *sampler {
	s := &sampler{
		k:            k,
		shapes:       map[string]*shapeSample{},
		tracked:      leastSet[string]{less: func(a, b string) bool { return a < b }, weight: func(string) int64 { return 1 }, limit: maxShapes},
		bodies:       bodies,
		readInShape:  int64(read),
		unreadHeader: unreadHeader,
	}
	// Reading every page needs no choice, and keeping one would sort them all.
	if read < math.MaxInt {
		s.read = map[shapeAndType]*leastSet[*exchange.Exchange]{}
	}
	return s
}

// unreadHeaderNames are what every pass that reaches an unread page reads
// of its header: its media type, and the links it offers in Link.
var unreadHeaderNames = []string{"Content-Type", "Link"}

// unreadHeader keeps of an unread page's header its unreadHeaderNames, in a
// map shared through held with the pages that keep the same.
func unreadHeader(held *responseHeaders) func(http.Header) http.Header {
	return func(h http.Header) http.Header {
		kept := make(http.Header, len(unreadHeaderNames))
		for _, name := range unreadHeaderNames {
			if vs, ok := h[name]; ok {
				kept[name] = vs
			}
		}
		return held.shared(kept)
	}
}

func (s *sampler) offer(x *exchange.Exchange) {
	shape := exchange.PathShape(exchange.PathOf(x.Request.URL))
	s.mu.Lock()
	defer s.mu.Unlock()
	if exchange.IsStream(x.Response.MediaType()) {
		s.streams++
		releaseBody(x.Response)
		return
	}
	read := s.chooseRead(shape, x)
	ss := s.track(shape)
	if ss == nil {
		s.unsampled++
		releaseBody(x.Response)
		return
	}
	ss.seen++
	if !read {
		return
	}
	at := sort.Search(len(ss.chosen), func(i int) bool { return ss.chosen[i].Request.URL >= x.Request.URL })
	ss.chosen = append(ss.chosen, nil)
	copy(ss.chosen[at+1:], ss.chosen[at:])
	ss.chosen[at] = x
	if len(ss.chosen) > s.k {
		out := ss.chosen[s.k]
		ss.chosen = ss.chosen[:s.k]
		s.bodies.release(out)
		if out == x {
			return
		}
	}
	s.bodies.keep(x)
}

// chooseRead reports whether x is among the least URLs of its shape and
// media type, which the checks read, and leaves unread x or the page it
// displaces from them. The samples are the least URLs of a shape, so they
// are always read, and so is the start page, which the report and several
// checks read apart.
func (s *sampler) chooseRead(shape string, x *exchange.Exchange) bool {
	if s.read == nil || x.Source == exchange.SourceStart {
		return true
	}
	key := shapeAndType{shape, x.Response.MediaType()}
	set := s.read[key]
	if set == nil {
		set = &leastSet[*exchange.Exchange]{less: exchangeLess, weight: func(*exchange.Exchange) int64 { return 1 }, limit: s.readInShape}
		s.read[key] = set
	}
	kept, evicted := set.admit(x)
	for _, e := range evicted {
		s.leaveUnread(e)
	}
	if !kept {
		s.leaveUnread(x)
	}
	return kept
}

// leaveUnread drops x's body and what its header holds beyond what the
// passes over every page read. The header is replaced, never edited: it may
// be shared with pages that are read.
func (s *sampler) leaveUnread(x *exchange.Exchange) {
	s.bodies.drop(x)
	x.Response.Header = s.unreadHeader(x.Response.Header)
	x.Response.Unread = true
	s.unread++
}

// track returns the sample of shape, or nil when the shape is past the
// bound; a shape that pushes a greater one out releases that one's samples.
func (s *sampler) track(shape string) *shapeSample {
	if ss := s.shapes[shape]; ss != nil {
		return ss
	}
	kept, evicted := s.tracked.admit(shape)
	for _, e := range evicted {
		for _, x := range s.shapes[e].chosen {
			s.bodies.release(x)
		}
		s.unsampled += s.shapes[e].seen
		delete(s.shapes, e)
	}
	if !kept {
		return nil
	}
	ss := &shapeSample{}
	s.shapes[shape] = ss
	return ss
}

// note says how many pages the shape bound left unsampled, or "".
func (s *sampler) note() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.unsampled == 0 {
		return ""
	}
	return fmt.Sprintf("%d crawled pages were not sampled: the crawl met more than %d path shapes, and only the first %d in lexical order are sampled and probed",
		s.unsampled, maxShapes, maxShapes)
}

// unreadNote says how many crawled pages dropped their bodies, or "".
func (s *sampler) unreadNote() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.unread == 0 {
		return ""
	}
	return fmt.Sprintf("%d crawled pages were read for their links alone, and their bodies not judged: the checks read the bodies of the first %d pages of each path shape and media type, in URL order",
		s.unread, s.readInShape)
}

// streamNote says how many crawled pages were streams, or "".
func (s *sampler) streamNote() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.streams == 0 {
		return ""
	}
	return fmt.Sprintf("%d crawled pages were streams (server-sent events or JSON lines): they were not probed, since a stream has no one representation to negotiate and may never end",
		s.streams)
}

// result returns the samples sorted by URL and the per-shape statistics
// sorted by shape.
func (s *sampler) result() ([]*exchange.Exchange, []finding.ShapeSample) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var samples []*exchange.Exchange
	stats := make([]finding.ShapeSample, 0, len(s.shapes))
	for shape, ss := range s.shapes {
		samples = append(samples, ss.chosen...)
		stats = append(stats, finding.ShapeSample{Shape: shape, Seen: ss.seen, Sampled: len(ss.chosen)})
	}
	sort.Slice(samples, func(i, j int) bool { return samples[i].Request.URL < samples[j].Request.URL })
	sort.Slice(stats, func(i, j int) bool { return stats[i].Shape < stats[j].Shape })
	return samples, stats
}
