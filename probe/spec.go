package probe

import (
	"context"
	"errors"
	"fmt"
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
	// NoSeed keeps the crawl from adding the description's parameterless GET
	// operations (and those filled from values seen in crawled URLs).
	NoSeed bool
	// OnLoad, when set, is called once with the document before any probe
	// is planned, so that planning can use it.
	OnLoad func(*spec.Document)
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
			out = append(out, cr.seedJobs()...)
		}
	}
	if s.doc == nil || s.cfg.NoSeed {
		return out
	}
	for i, p := range pages {
		if p != nil && p.x.Response != nil && p.x.Response.Status/100 == 2 {
			out = append(out, cr.filledJobs(p.x.Request.URL, level[i].depth+1)...)
		}
	}
	return out
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
	if s.doc != nil && s.cfg.OnLoad != nil {
		s.cfg.OnLoad(s.doc)
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
		u, ok := cr.specURL(start.base, l.ref)
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
		maxHops: c.maxHops, userHdrs: c.userHdrs, credentials: c.credentials, redact: c.redact, secrets: c.secrets, requested: c.requested, log: c.log,
	}
}

// seedJobs proposes the document's GET operations whose paths need no
// value and which require no query, header or cookie parameter.
func (cr *crawler) seedJobs() []job {
	s := cr.spec
	base := cr.basePath()
	var out []job
	for _, op := range s.doc.Operations {
		if op.Method != http.MethodGet || strings.Contains(op.PathTemplate, "{") || requiresParameters(op) {
			continue
		}
		ref := joinPath(base, op.PathTemplate)
		if j, ok := cr.consider(candidate{ref: ref, source: "openapi " + op.Key()}, cr.start, 1, s.doc.Source); ok {
			out = append(out, j)
		}
	}
	return out
}

// filledJobs proposes GET templates that extend the template a crawled URL
// matched, filled with the values that URL bound: /orders/1 fills
// /orders/{id}/payment, never /customers/{id}.
func (cr *crawler) filledJobs(rawURL string, depth int) []job {
	s := cr.spec
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil
	}
	ix := s.doc.Index()
	matched, vars, ok := ix.Bind(u.EscapedPath())
	if !ok || len(vars) == 0 {
		return nil
	}
	base := cr.basePath()
	var out []job
	for _, op := range s.doc.Operations {
		if op.Method != http.MethodGet || op.PathTemplate == matched || !spec.HasTemplatePrefix(op.PathTemplate, matched) || requiresParameters(op) {
			continue
		}
		filled, ok := spec.Expand(op.PathTemplate, vars)
		key := op.PathTemplate + "\x00" + filled
		if !ok || s.bound[key] {
			continue
		}
		if s.bound == nil {
			s.bound = map[string]bool{}
		}
		s.bound[key] = true
		if j, ok := cr.consider(candidate{ref: joinPath(base, filled), source: "openapi " + op.Key()}, cr.start, depth, rawURL); ok {
			out = append(out, j)
		}
	}
	return out
}

// requiresParameters reports required parameters that are not in the path:
// the crawl has no value for them.
func requiresParameters(op *spec.Operation) bool {
	for _, p := range op.Parameters {
		if p.Required && p.In != "path" {
			return true
		}
	}
	return false
}

// basePath is the server path the operations live under: the one the start
// URL is inside, else the first declared.
func (cr *crawler) basePath() string {
	bases := cr.spec.doc.BasePaths
	for _, b := range bases {
		b = strings.TrimSuffix(b, "/")
		if b != "" && (cr.start.Path == b || strings.HasPrefix(cr.start.Path, b+"/")) {
			return b
		}
	}
	if len(bases) > 0 {
		return strings.TrimSuffix(bases[0], "/")
	}
	return ""
}

func joinPath(base, p string) string {
	return strings.TrimSuffix(base, "/") + p
}
