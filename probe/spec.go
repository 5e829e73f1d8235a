package probe

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/spec"
	"github.com/agentready/agentready/internal/urlx"
)

// PurposeSpecFetch tags the GETs that fetched (or looked for) the OpenAPI
// document.
const PurposeSpecFetch = "openapi/fetch"

// SpecConfig says where the OpenAPI document comes from. With none of
// Document, URL and Discover set, the scan runs without one (the CLI
// discovers by default).
type SpecConfig struct {
	// Document is a description loaded beforehand (--openapi FILE).
	Document *spec.Document
	// URL is a description to fetch (--openapi URL). It may be on another
	// origin, since the user named it; the user's headers are then not sent.
	URL string
	// Discover looks for a description when neither is given: a Link or HAL
	// link with rel="service-desc" on the start resource (RFC 8631), then
	// well-known paths on the target's origin.
	Discover bool
	// MaxBody caps a fetched description; default spec.DefaultMaxSize.
	MaxBody int64
	// NoSeed keeps the crawl from adding the description's GET operations,
	// parameterless or filled with values seen in responses, examples and
	// links.
	NoSeed bool
	// BasePath, when set, is where the operations live on the target ("/"
	// for the root), instead of the servers' path or the bare path,
	// whichever answers.
	BasePath string
	// Server, when positive, chooses the servers entry (1 is the first)
	// whose path is tried first.
	Server int
	// onLoad and keepRaw are Session's OnSpec and KeepSpecText, which
	// RunSession hands each run.
	onLoad  func(*spec.Document)
	keepRaw bool
}

// SpecAccept prefers the OpenAPI media types, then JSON, then YAML.
const SpecAccept = "application/openapi+json, application/vnd.oai.openapi+json;q=0.9, application/json;q=0.9, " +
	"application/openapi+yaml;q=0.8, application/yaml;q=0.8, */*;q=0.1"

// wellKnownSpecPaths are tried in order, GET only, when the start resource
// links no service description. The list is short on purpose: each entry is
// a request to the user's API.
var wellKnownSpecPaths = []string{
	"openapi.json", "openapi.yaml", ".well-known/openapi", ".well-known/openapi.json",
	"openapi", "swagger.json", "api-docs", "v3/api-docs", "openapi.yml",
}

// Discovery labels, also shown in the report.
const (
	SpecGiven      = "--openapi"
	SpecLinkHeader = "Link rel=service-desc"
	SpecHALLink    = "HAL _links.service-desc"
	SpecWellKnown  = "well-known path"
)

// specState is the crawl's view of the document: found once after the start
// page, then used to seed the frontier level by level.
type specState struct {
	cfg       SpecConfig
	doc       *spec.Document
	discovery string
	exchanges []*exchange.Exchange
	notes     []string
	done      bool
	// bound records, per template, the values already used for filling, so
	// that each filled URL is proposed once.
	bound map[string]bool
	// base is where the operations were requested; ex fills their
	// parameters. Both are set once the document is loaded and seeding.
	base BasePath
	ex   *explorer
}

// specJobs is called by the crawler after each level is fetched. After the
// start level it loads the document; then it returns the jobs the document
// adds: its parameterless GETs once, and the templates that the level's URLs
// give values for.
func (cr *crawler) specJobs(ctx context.Context, level []job, pages []*page) []job {
	s := cr.spec
	if s == nil {
		return nil
	}
	var out []job
	if !s.done {
		s.done = true
		cr.loadSpec(ctx, pages)
		if s.doc != nil && !s.cfg.NoSeed {
			cr.resolveBasePath(ctx)
			s.ex = newExplorer(s.doc, cr.cfg.Headers, cr.cfg.SamplesPerShape)
			out = append(out, cr.seedJobs()...)
		}
	}
	if s.ex == nil {
		return out
	}
	for i, p := range pages {
		if p == nil {
			continue
		}
		if p.dropped {
			continue // a guess that missed: nothing to read, nothing tracked
		}
		s.ex.settle(level[i].op, p.x)
		if p.x.Response != nil && p.x.Response.Status/100 == 2 {
			s.ex.absorb(p.harvest, level[i].depth)
			out = append(out, cr.pageJobs(p, level[i].depth+1)...)
		}
	}
	return out
}

// settled reports that the pages of the levels to come give the OpenAPI
// document nothing: it was looked for, and is not being explored.
func (s *specState) settled() bool { return s.done && s.ex == nil }

// reached hands the exploration's outcome to the result.
func (s *specState) reached(res *Result) {
	if s.ex == nil {
		return
	}
	b := s.base
	res.BasePath, res.Unfilled = &b, s.ex.unfilled()
}

// exploring reports whether pages are read for values: while a document
// may still come, and once one came, unless seeding is off.
func (s *specState) exploring() bool {
	c := s.cfg
	if c.NoSeed || (c.Document == nil && c.URL == "" && !c.Discover) {
		return false
	}
	return !s.done || s.ex != nil
}

func (cr *crawler) loadSpec(ctx context.Context, pages []*page) {
	s := cr.spec
	switch {
	case s.cfg.Document != nil:
		s.doc, s.discovery = s.cfg.Document, SpecGiven
	case s.cfg.URL != "":
		if doc, note := cr.fetchSpec(ctx, s.cfg.URL, SpecGiven); doc != nil {
			s.doc, s.discovery = doc, SpecGiven
		} else {
			s.notes = append(s.notes, note)
		}
	case s.cfg.Discover:
		cr.discoverSpec(ctx, pages)
	}
	if s.doc != nil && s.cfg.onLoad != nil {
		s.cfg.onLoad(s.doc)
	}
}

// discoverSpec follows service-desc links of the start resource first, then
// tries the well-known paths, and stops at the first description that loads.
func (cr *crawler) discoverSpec(ctx context.Context, pages []*page) {
	s := cr.spec
	var start *page
	if len(pages) > 0 {
		start = pages[0]
	}
	for _, l := range serviceDescLinks(start) {
		u, ok := cr.specURL(start.baseURL(), l.ref)
		if !ok {
			s.notes = append(s.notes, fmt.Sprintf("the %s link %q is not on the target's origin and was not followed", l.how, l.ref))
			continue
		}
		doc, note := cr.fetchSpec(ctx, u, l.how)
		if doc != nil {
			s.doc, s.discovery = doc, l.how
			return
		}
		s.notes = append(s.notes, note)
	}
	for _, u := range cr.wellKnownSpecURLs() {
		if ctx.Err() != nil {
			return
		}
		if doc, _ := cr.fetchSpec(ctx, u, SpecWellKnown); doc != nil {
			s.doc, s.discovery = doc, SpecWellKnown
			return
		}
	}
	s.notes = append(s.notes, "no OpenAPI document was found (no service-desc link on the start resource, none at "+
		strings.Join(wellKnownSpecPaths[:4], ", ")+" ...); pass --openapi FILE|URL to check the openapi-hal family")
}

type specLink struct{ ref, how string }

// serviceDescLinks reads rel="service-desc" (RFC 8631 §4) from the start
// resource's Link header and its HAL _links, in that order, as the crawler
// discovered them before the page was scrubbed: a link holding a secret is
// followed as the server wrote it.
func serviceDescLinks(p *page) []specLink {
	if p == nil {
		return nil
	}
	var out []specLink
	for _, c := range p.cands {
		rels, isLink := strings.CutPrefix(c.source, "Link rel=")
		switch {
		case isLink && slices.Contains(strings.Fields(rels), "service-desc"):
			out = append(out, specLink{ref: c.ref, how: SpecLinkHeader})
		case c.source == "hal _links.service-desc":
			out = append(out, specLink{ref: c.ref, how: SpecHALLink})
		}
	}
	return out
}

// specURL resolves a discovered link; discovery stays on the target's origin.
func (cr *crawler) specURL(base *url.URL, ref string) (string, bool) {
	if base == nil {
		base = cr.start
	}
	r, err := url.Parse(strings.TrimSpace(ref))
	if err != nil {
		return "", false
	}
	u := normalize(base.ResolveReference(r))
	if !urlx.SameOrigin(u, cr.start) {
		return "", false
	}
	return u.String(), true
}

// wellKnownSpecURLs are the well-known paths at the origin's root, and below
// the start URL's directory when the API does not live at the root.
func (cr *crawler) wellKnownSpecURLs() []string {
	dirs := []string{"/"}
	if d := path.Dir(cr.start.Path + "x"); d != "/" && d != "." {
		dirs = append([]string{d + "/"}, dirs...)
	}
	var out []string
	for _, d := range dirs {
		for _, p := range wellKnownSpecPaths {
			u := *cr.start
			u.Path, u.RawPath, u.RawQuery = d+p, "", ""
			out = append(out, normalize(&u).String())
		}
	}
	return out
}

// fetchSpec GETs and loads one candidate. It returns the document, or a
// note saying why this candidate gave none. The exchange is recorded either
// way, and the URL is never crawled as a page.
func (cr *crawler) fetchSpec(ctx context.Context, rawURL, how string) (*spec.Document, string) {
	s := cr.spec
	cr.decided[rawURL] = true
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return nil, fmt.Sprintf("OpenAPI document %q: want an http or https URL", rawURL)
	}
	h := http.Header{}
	h.Set("Accept", SpecAccept)
	h.Set("User-Agent", cr.cfg.UserAgent)
	if urlx.SameOrigin(u, cr.start) {
		for name, vs := range cr.cfg.Headers {
			if http.CanonicalHeaderKey(name) != "Accept" {
				h[http.CanonicalHeaderKey(name)] = append([]string(nil), vs...)
			}
		}
	}
	x, _ := cr.specClient().fetch(ctx, http.MethodGet, rawURL, h)
	x.Purpose, x.Source = PurposeSpecFetch, how
	s.exchanges = append(s.exchanges, x)
	r := x.Response
	switch {
	case r == nil:
		return nil, fmt.Sprintf("OpenAPI document %s (%s) could not be fetched: %s", rawURL, how, x.Err)
	case r.Status/100 != 2:
		return nil, fmt.Sprintf("OpenAPI document %s (%s) answered %d", rawURL, how, r.Status)
	case r.Truncated:
		releaseSpecBody(r)
		tooLarge := &spec.TooLargeError{Source: fmt.Sprintf("OpenAPI document %s (%s)", rawURL, how), Max: s.maxBody()}
		if r.BodySize > tooLarge.Max+1 {
			// Declared by Content-Length; otherwise reading stopped one byte past the cap.
			tooLarge.Size = r.BodySize
		}
		return nil, fmt.Sprintf("%v, and was not loaded; raise the cap (--max-spec-size)", tooLarge)
	}
	// The recording lets go of the body before parsing, so that the parse
	// holds the only reference and the bytes are freed with the library's
	// document rather than at the end of the load.
	body := r.Body
	releaseSpecBody(r)
	doc, err := spec.Load(body, rawURL, "")
	if errors.Is(err, spec.ErrNotOpenAPI) || doc == nil {
		return nil, fmt.Sprintf("%s (%s) is not an OpenAPI document", rawURL, how)
	}
	if s.cfg.keepRaw {
		doc.Raw = body
	}
	return doc, ""
}

// releaseSpecBody frees a description once parsed: checks get the Document,
// and a 10 MB body has no place in the recording.
func releaseSpecBody(r *exchange.Response) {
	if len(r.Body) > keepCrawlBody {
		r.Body, r.Dropped = nil, true
	}
}

func (s *specState) maxBody() int64 {
	if s.cfg.MaxBody > 0 {
		return s.cfg.MaxBody
	}
	return spec.DefaultMaxSize
}

// specClient shares the scan's transport, rate limit and request count, with
// the larger body cap of descriptions and a longer timeout to read them.
func (cr *crawler) specClient() *client {
	c := cr.client
	return &client{
		http: c.http, start: c.start, timeout: max(c.timeout, 30*time.Second), maxBody: cr.spec.maxBody(),
		maxHops: c.maxHops, userHdrs: c.userHdrs, credentials: c.credentials, redact: c.redact, secrets: c.secrets, bearer: c.bearer, requested: c.requested, log: c.log,
		respHdrs: c.respHdrs, throttle: c.throttle,
	}
}

// seedJobs proposes the document's GET operations whose paths need no
// value and which require no query parameter, nor a header or cookie the
// user did not give.
func (cr *crawler) seedJobs() []job {
	s := cr.spec
	var out []job
	for _, op := range s.ex.gets {
		if !s.ex.seedable(op) {
			continue
		}
		if j, ok := cr.consider(candidate{ref: joinPath(s.base.Path, op.PathTemplate), source: "openapi " + op.Key()}, cr.start, 1, s.doc.Source); ok {
			out = append(out, j)
		}
	}
	return out
}

// pageJobs proposes what one crawled page gives: the operations its
// OpenAPI links fill, then the templates that extend the one its URL
// matched, filled with the values that URL bound (/orders/1 fills
// /orders/{id}/payment, never /customers/{id}) and, for a collection, with
// its items' identifiers (/orders lists 7 and 9: /orders/{id} gets 7 and 9).
func (cr *crawler) pageJobs(p *page, depth int) []job {
	rawURL := p.x.Request.URL
	out := cr.linkJobs(p.harvest, depth, rawURL)
	u, err := url.Parse(rawURL)
	if err != nil {
		return out
	}
	s := cr.spec
	matched, vars, ok := s.doc.Index().Bind(u.EscapedPath())
	if !ok {
		return out
	}
	for _, op := range s.ex.gets {
		if op.PathTemplate == matched || !spec.HasTemplatePrefix(op.PathTemplate, matched) {
			continue
		}
		if filled, ok := spec.Expand(op.PathTemplate, vars); ok {
			out = append(out, cr.boundJob(op, filled, unescaped(vars), depth, rawURL)...)
			continue
		}
		if next := itemVar(op.PathTemplate, matched, vars); next != "" && p.harvest != nil {
			out = append(out, cr.itemJobs(op, next, unescaped(vars), p.harvest, depth, rawURL)...)
		}
	}
	return out
}

// boundJob proposes op at a path filled entirely from a crawled URL, each
// once; required query parameters take their first candidate.
func (cr *crawler) boundJob(op *spec.Operation, filled string, vars map[string]string, depth int, from string) []job {
	s := cr.spec
	key := op.PathTemplate + "\x00" + filled
	if s.bound[key] {
		return nil
	}
	if s.bound == nil {
		s.bound = map[string]bool{}
	}
	s.bound[key] = true
	v, reason := s.ex.assignment(op, vars, 0)
	if reason != "" {
		return nil
	}
	return cr.propose(proposal{op: op, ref: fillURL(s.base.Path, op, v), depth: depth, from: from})
}

// unescaped decodes the values a URL bound; one that does not decode is
// left out.
func unescaped(vars map[string]string) map[string]string {
	out := make(map[string]string, len(vars))
	for k, raw := range vars {
		if v, err := url.PathUnescape(raw); err == nil {
			out[k] = v
		}
	}
	return out
}

// itemVar is the one expression of the segment that follows prefix in
// template, when every other expression of template is bound: the
// identifier of an item of the collection at prefix.
func itemVar(template, prefix string, bound map[string]string) string {
	t := strings.Split(strings.TrimPrefix(template, "/"), "/")
	n := len(strings.Split(strings.TrimPrefix(prefix, "/"), "/"))
	if prefix == "/" {
		n = 0
	}
	if n >= len(t) {
		return ""
	}
	names := spec.TemplateVars(t[n])
	if len(names) != 1 || t[n] != "{"+names[0]+"}" {
		return ""
	}
	for _, name := range spec.TemplateVars(template) {
		if _, ok := bound[name]; !ok && name != names[0] {
			return ""
		}
	}
	return names[0]
}

// itemJobs fills the item's expression of op from the identifiers of the
// collection's items, the parameter's own name first ("issue_number" of an
// issue is its "number"), a few items per operation.
func (cr *crawler) itemJobs(op *spec.Operation, name string, bound map[string]string, h *harvest, depth int, from string) []job {
	s := cr.spec
	fixed := maps.Clone(bound)
	p := declared(op, name, "path")
	var out []job
	for _, item := range h.items {
		if s.ex.tried[op] >= s.ex.perOp {
			break
		}
		v := itemIdentifier(item, name, h.noun, p)
		if v == "" {
			continue
		}
		fixed[name] = v
		vals, reason := s.ex.assignment(op, fixed, 0)
		if reason != "" {
			break
		}
		out = append(out, cr.propose(proposal{op: op, ref: fillURL(s.base.Path, op, vals), depth: depth, from: from})...)
	}
	return out
}

// itemIdentifier is the member of item that names it in the parameter
// name: the parameter's own name, its name without the collection's noun
// ("issue_number" in issues is "number"), then the usual identifiers.
func itemIdentifier(item map[string]string, name, noun string, p *spec.Parameter) string {
	key := normName(name)
	keys := []string{key}
	if rest, ok := strings.CutPrefix(key, noun); ok && rest != "" && noun != "" {
		keys = append(keys, rest)
	}
	keys = append(keys, identifierFields...)
	for _, k := range keys {
		if v, ok := item[k]; ok && accepts(p, v) {
			return v
		}
	}
	return ""
}

// linkJobs proposes the operations a page's OpenAPI links fill.
func (cr *crawler) linkJobs(h *harvest, depth int, from string) []job {
	if h == nil {
		return nil
	}
	s := cr.spec
	var out []job
	for _, l := range h.links {
		if s.ex.tried[l.op] >= s.ex.perOp {
			continue
		}
		v, reason := s.ex.assignment(l.op, l.vals, 0)
		if reason != "" {
			continue
		}
		out = append(out, cr.propose(proposal{op: l.op, ref: fillURL(s.base.Path, l.op, v), depth: depth, from: from})...)
	}
	return out
}

// exploreJobs proposes, once the next level is otherwise known, the
// operations that values pooled so far and the document's examples fill,
// leaving out those the level already requests or the crawl reached: a
// guess is worth a request only where nothing better is on its way.
func (cr *crawler) exploreJobs(queued []job) []job {
	s := cr.spec
	if s.ex == nil {
		return nil
	}
	s.ex.track(queued)
	var out []job
	for _, p := range s.ex.next(s.base.Path, cr.isDecided) {
		out = append(out, cr.propose(p)...)
	}
	s.ex.track(out)
	return out
}

// propose offers a filled URL to the crawl and counts it against its
// operation's quota, whether the crawl's bounds let it through or not.
func (cr *crawler) propose(p proposal) []job {
	if p.ref == "" {
		return nil
	}
	ex := cr.spec.ex
	if j, ok := cr.consider(candidate{ref: p.ref, source: "openapi " + p.op.Key()}, cr.start, p.depth, p.from); ok {
		ex.tried[p.op]++
		return []job{j}
	}
	if cr.isDecided(p.ref) {
		// Refused by a bound, or already fetched by the crawl: either way it
		// was tried.
		ex.tried[p.op]++
	}
	return nil
}

// isDecided reports a reference the crawl already queued or refused.
func (cr *crawler) isDecided(ref string) bool {
	u, err := url.Parse(ref)
	if err != nil {
		return true
	}
	return cr.decided[normalize(cr.start.ResolveReference(u)).String()]
}

// requiresParameters reports required parameters that are not in the path
// and that the crawl has no value for: every query parameter, and headers
// and cookies the user did not give.
func requiresParameters(op *spec.Operation, given http.Header) bool {
	if missingHeaders(op, given) {
		return true
	}
	for _, p := range op.Parameters {
		if p.Required && p.In == "query" {
			return true
		}
	}
	return false
}

// missingHeaders reports a required header or cookie parameter the user's
// headers (-H) do not supply. Those they supply are sent on every request.
func missingHeaders(op *spec.Operation, given http.Header) bool {
	for _, p := range op.Parameters {
		if !p.Required {
			continue
		}
		switch p.In {
		case "header":
			if given.Get(p.Name) == "" {
				return true
			}
		case "cookie":
			if !hasCookie(given, p.Name) {
				return true
			}
		}
	}
	return false
}

// hasCookie reports a cookie named name in the given Cookie headers.
func hasCookie(given http.Header, name string) bool {
	r := http.Request{Header: http.Header{"Cookie": given.Values("Cookie")}}
	_, err := r.Cookie(name)
	return err == nil
}

func joinPath(base, p string) string {
	return strings.TrimSuffix(base, "/") + p
}
