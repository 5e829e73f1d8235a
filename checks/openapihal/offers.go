package openapihal

import (
	"maps"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/halview"
	"github.com/agentready/agentready/internal/jsonorder"
	"github.com/agentready/agentready/internal/sanitize"
	"github.com/agentready/agentready/internal/urlx"
)

// offer is one relation a representation offers: a link in _links (of the
// resource or of an embedded one) or a HAL-FORMS template in _templates.
// What offers have alike from page to page (relation, method, pointer,
// CURIE scope) is one offerKind shared by them: the analysis holds every
// offer of a crawl.
type offer struct {
	*offerKind
	x *exchange.Exchange
	// href is the link's href or the template's target as written; path is
	// its resolved path with URI Template expressions replaced, ready for
	// matching.
	href, path string
	// offOrigin hrefs point outside the scanned API and are not matched.
	offOrigin bool
}

// offerKind is the part of an offer that many offers share; it is never
// written once made.
type offerKind struct {
	rel string // the _links key or the template key
	// method is the template's method; "" for links, which say none.
	method   string
	template bool
	pointer  string // JSON pointer to the link or template in the body
	// curies are the CURIE prefixes declared in scope (lower case).
	curies map[string]bool
}

// maxOffersPerDoc bounds the work per representation.
const maxOffersPerDoc = 2000

// analysis is what every check of the family reads, built once per Input.
// It holds every offer of every page, so each is kept small: what repeats
// from page to page is held once (see offerKind, interner), and an empty
// CURIE scope is nil.
type analysis struct {
	offers []offer
	// byExchange holds where in offers the offers of each exchange are.
	byExchange map[*exchange.Exchange]span
	// offered holds every relation seen, lower case.
	offered map[string]bool
	docs    int
	// complete says every page was read; otherwise offers is empty.
	complete bool
	// same and kinds share what offers repeat while the pages are read.
	same  interner
	kinds kinds
}

// span is a range of analysis.offers.
type span struct{ from, to int }

var offersKey = checks.NewKey[*analysis]()

func analyze(in *checks.Input) *analysis {
	return checks.Memo(in, offersKey, func() *analysis {
		in.ReadPages(offersReader{})
		a := building(in)
		a.same, a.kinds = nil, nil
		a.complete = readsEveryPage(in)
		return a
	})
}

var readsEveryPageKey = checks.NewKey[bool]()

// readsEveryPage: the offers of every page are read only for a document
// whose operations name relations (x-hal-rel), which every check that
// matches them all needs. Without one, the checks that compare the
// offers of a few responses read those alone (see offersOf), and a large
// crawl keeps no offer per page.
func readsEveryPage(in *checks.Input) bool {
	return checks.Memo(in, readsEveryPageKey, func() bool { return needHALRel(in) == nil })
}

var buildingKey = checks.NewKey[*analysis]()

// building is the analysis while offersReader reads the pages into it.
func building(in *checks.Input) *analysis {
	return checks.Memo(in, buildingKey, func() *analysis {
		return &analysis{offered: map[string]bool{}, byExchange: map[*exchange.Exchange]span{}, same: interner{}, kinds: kinds{}}
	})
}

// offersReader reads the offers of every page into the family's analysis,
// the part every check of the family brings.
type offersReader struct{}

func (offersReader) PageKey() string { return "openapi-hal/offers" }

func (offersReader) ReadsPage(x *exchange.Exchange) bool { return isHALDoc(x) }

// ReadPage keeps only the page's offers.
func (offersReader) ReadPage(in *checks.Input, x *exchange.Exchange, v *halview.View) {
	root := v.Root
	if root == nil || !readsEveryPage(in) {
		return
	}
	a := building(in)
	a.docs++
	w := walker{x: x, target: in.Target, same: a.same, kinds: a.kinds}
	w.read(root)
	for _, o := range w.out {
		a.offered[strings.ToLower(o.rel)] = true
	}
	if len(w.out) > 0 {
		a.byExchange[x] = span{len(a.offers), len(a.offers) + len(w.out)}
	}
	a.offers = append(a.offers, w.out...)
}

// offersOfPage reads the offers of one exchange, as the analysis of every
// page would have.
func offersOfPage(in *checks.Input, x *exchange.Exchange) []offer {
	if !isHALDoc(x) {
		return nil
	}
	root := x.Response.ReadHAL().Root
	if root == nil {
		return nil
	}
	w := walker{x: x, target: in.Target, same: interner{}, kinds: kinds{}}
	w.read(root)
	return w.out
}

// read reads the offers of the document whose root is root.
func (w *walker) read(root *halview.Resource) {
	w.base, _ = url.Parse(w.x.Request.URL)
	w.resource(root)
	w.templates(root)
}

// interner holds one copy of each string it is given, up to maxInterned
// strings: a server that names every link differently gains nothing from it.
type interner map[string]string

const maxInterned = 4096

func (in interner) of(s string) string {
	if held, ok := in[s]; ok {
		return held
	}
	if len(in) < maxInterned {
		in[s] = s
	}
	return s
}

// isHALDoc: a successful GET whose JSON body can carry _links: HAL,
// HAL-FORMS, or JSON that turns out to have _links.
func isHALDoc(x *exchange.Exchange) bool {
	if x.Request.Method != http.MethodGet || x.Response == nil || x.Response.Status < 200 || x.Response.Status > 299 {
		return false
	}
	if x.Response.Truncated || x.Response.Dropped || len(x.Response.Body) == 0 {
		return false
	}
	return exchange.IsJSONMediaType(x.Response.MediaType())
}

type walker struct {
	x      *exchange.Exchange
	base   *url.URL
	target *url.URL
	same   interner
	kinds  kinds
	out    []offer
}

// kinds holds one offerKind per distinct kind, up to maxInterned of them.
type kinds map[kindID]*offerKind

// kindID tells offerKinds apart; curies are the scope's names, sorted,
// scoped whether there is a scope.
type kindID struct {
	rel, method, pointer, curies string
	template, scoped             bool
}

func (ks kinds) of(k offerKind) *offerKind {
	id := kindID{rel: k.rel, method: k.method, pointer: k.pointer, template: k.template, scoped: k.curies != nil}
	if k.curies != nil {
		id.curies = strings.Join(slices.Sorted(maps.Keys(k.curies)), "\x00")
	}
	if held, ok := ks[id]; ok {
		return held
	}
	held := &k
	if len(ks) < maxInterned {
		ks[id] = held
	}
	return held
}

// resource reads the links of a resource and of those it embeds, relations
// in name order.
func (w *walker) resource(r *halview.Resource) {
	scope := curieScope(r)
	for _, rel := range r.SortedRelations() {
		if rel.Name == "curies" || len(w.out) >= maxOffersPerDoc {
			continue
		}
		for _, l := range rel.Links {
			if l.Href != "" {
				w.add(offerKind{rel: rel.Name, pointer: l.Value.Pointer, curies: scope}, l.Href, l.Templated)
			}
		}
	}
	for _, e := range r.SortedEmbedded() {
		for _, er := range e.Resources {
			w.resource(er)
		}
	}
}

// templates reads the document's HAL-FORMS templates; a template without
// target acts on the document's own URL.
func (w *walker) templates(root *halview.Resource) {
	scope := curieScope(root)
	for _, t := range root.SortedTemplates() {
		if !t.Value.Is(jsonorder.Object) || len(w.out) >= maxOffersPerDoc {
			continue
		}
		target := t.Target
		if target == "" {
			target = w.x.Request.URL
		}
		w.add(offerKind{rel: t.Key, method: strings.ToUpper(strings.TrimSpace(t.Method)), template: true,
			pointer: t.Value.Pointer, curies: scope}, target, false)
	}
}

// maxShown bounds the server-given strings (relations, hrefs, methods) that
// findings quote; the server is hostile and may send megabytes or escapes.
const maxShown = 200

func shown(s string) string { return sanitize.Truncate(sanitize.Line(s), maxShown) }

func (w *walker) add(k offerKind, href string, templated bool) {
	if w.base == nil {
		return
	}
	path, host, ok := resolvePlain(w.base, href)
	if !ok {
		if path, host, ok = resolve(w.base, templatePath(href, templated)); !ok {
			return
		}
	}
	k.rel, k.method, k.pointer = w.same.of(shown(k.rel)), w.same.of(shown(k.method)), w.same.of(k.pointer)
	o := offer{offerKind: w.kinds.of(k), x: w.x}
	o.href = shown(href)
	o.path = path
	switch o.path {
	case "":
		o.path = "/"
	case o.href:
		o.path = o.href // one string where the href is the path already
	}
	o.offOrigin = w.target != nil && !strings.EqualFold(host, w.target.Host)
	w.out = append(w.out, o)
}

// resolve is the escaped path and the host that ref names, from base.
func resolve(base *url.URL, ref string) (path, host string, ok bool) {
	u, err := url.Parse(ref)
	if err != nil {
		return "", "", false
	}
	u = base.ResolveReference(u)
	return u.EscapedPath(), u.Host, true
}

// resolvePlain is resolve of a plain path (urlx.IsPlainPath), as most
// hrefs are: parsing each was most of the family's time on a large crawl.
func resolvePlain(base *url.URL, href string) (path, host string, ok bool) {
	if !urlx.IsPlainPath(href) {
		return "", "", false
	}
	return href, base.Host, true
}

var (
	queryExpr   = regexp.MustCompile(`\{[?&#][^{}]*\}`)
	segmentExpr = regexp.MustCompile(`\{/[^{}]*\}`)
	otherExpr   = regexp.MustCompile(`\{[^{}]*\}`)
)

// templatePath makes an RFC 6570 template matchable against OpenAPI path
// templates: query and fragment expressions go, and every other expression
// stands for one value, as a concrete URL would have one.
func templatePath(href string, templated bool) string {
	if !templated && !strings.Contains(href, "{") {
		return href
	}
	href = queryExpr.ReplaceAllString(href, "")
	href = segmentExpr.ReplaceAllString(href, "/value")
	return otherExpr.ReplaceAllString(href, "value")
}

// curieScope is the set of CURIE prefixes in scope of a resource, lower
// case; nil when there are none, as on most pages.
func curieScope(r *halview.Resource) map[string]bool {
	names := r.CurieNames()
	if len(names) == 0 {
		return nil
	}
	scope := map[string]bool{}
	for _, name := range names {
		scope[strings.ToLower(name)] = true
	}
	return scope
}
