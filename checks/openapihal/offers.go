package openapihal

import (
	"maps"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/exchange"
	"github.com/agentready/agentready/internal/jsonorder"
	"github.com/agentready/agentready/internal/sanitize"
)

// offer is one relation a representation offers: a link in _links (of the
// resource or of an embedded one) or a HAL-FORMS template in _templates.
type offer struct {
	x   *exchange.Exchange
	rel string // the _links key or the template key
	// href is the link's href or the template's target as written; path is
	// its resolved path with URI Template expressions replaced, ready for
	// matching.
	href, path string
	// method is the template's method; "" for links, which say none.
	method   string
	template bool
	pointer  string // JSON pointer to the link or template in the body
	// curies are the CURIE prefixes declared in scope (lower case).
	curies map[string]bool
	// offOrigin hrefs point outside the scanned API and are not matched.
	offOrigin bool
}

// maxEmbeddedDepth bounds recursion into _embedded; hostile documents nest.
const maxEmbeddedDepth = 8

// maxOffersPerDoc bounds the work per representation.
const maxOffersPerDoc = 2000

// analysis is what every check of the family reads, built once per Input.
type analysis struct {
	offers []offer
	// offered holds every relation seen, lower case.
	offered map[string]bool
	docs    int
}

func analyze(in *checks.Input) *analysis {
	return in.Memo("openapi-hal/offers", func() any {
		a := &analysis{offered: map[string]bool{}}
		for _, x := range in.Recording.Exchanges {
			if !isHALDoc(x) {
				continue
			}
			doc, err := x.Response.JSON()
			root, ok := doc.(map[string]any)
			if err != nil || !ok {
				continue
			}
			a.docs++
			w := walker{x: x, target: in.Target}
			w.base, _ = url.Parse(x.Request.URL)
			w.resource(root, "", nil, 0)
			if _, forms := root["_templates"]; forms {
				w.templates(root)
			}
			for _, o := range w.out {
				a.offered[strings.ToLower(o.rel)] = true
			}
			a.offers = append(a.offers, w.out...)
		}
		return a
	}).(*analysis)
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
	out    []offer
}

func (w *walker) resource(obj map[string]any, ptr string, curies map[string]bool, depth int) {
	links, _ := obj["_links"].(map[string]any)
	scope := curiesIn(links, curies)
	for _, rel := range slices.Sorted(maps.Keys(links)) {
		if rel == "curies" || len(w.out) >= maxOffersPerDoc {
			continue
		}
		for i, l := range linkObjects(links[rel]) {
			href, _ := l["href"].(string)
			if href == "" {
				continue
			}
			p := jsonorder.Join(ptr+"/_links", rel)
			if _, isArray := links[rel].([]any); isArray {
				p += "/" + strconv.Itoa(i)
			}
			templated, _ := l["templated"].(bool)
			w.add(offer{rel: rel, pointer: p, curies: scope}, href, templated)
		}
	}
	if depth >= maxEmbeddedDepth {
		return
	}
	embedded, _ := obj["_embedded"].(map[string]any)
	for _, rel := range slices.Sorted(maps.Keys(embedded)) {
		switch v := embedded[rel].(type) {
		case map[string]any:
			w.resource(v, jsonorder.Join(ptr+"/_embedded", rel), scope, depth+1)
		case []any:
			for i, item := range v {
				if m, ok := item.(map[string]any); ok {
					w.resource(m, jsonorder.Join(ptr+"/_embedded", rel)+"/"+strconv.Itoa(i), scope, depth+1)
				}
			}
		}
	}
}

// templates reads HAL-FORMS templates; a template without target acts on the
// document's own URL.
func (w *walker) templates(root map[string]any) {
	templates, _ := root["_templates"].(map[string]any)
	links, _ := root["_links"].(map[string]any)
	scope := curiesIn(links, nil)
	for _, key := range slices.Sorted(maps.Keys(templates)) {
		t, ok := templates[key].(map[string]any)
		if !ok || len(w.out) >= maxOffersPerDoc {
			continue
		}
		method, _ := t["method"].(string)
		target, _ := t["target"].(string)
		if target == "" {
			target = w.x.Request.URL
		}
		w.add(offer{rel: key, method: strings.ToUpper(strings.TrimSpace(method)), template: true,
			pointer: jsonorder.Join("/_templates", key), curies: scope}, target, false)
	}
}

// maxShown bounds the server-given strings (relations, hrefs, methods) that
// findings quote; the server is hostile and may send megabytes or escapes.
const maxShown = 200

func shown(s string) string { return sanitize.Truncate(sanitize.Line(s), maxShown) }

func (w *walker) add(o offer, href string, templated bool) {
	o.x = w.x
	o.rel, o.method = shown(o.rel), shown(o.method)
	ref, err := url.Parse(templatePath(href, templated))
	if err != nil || w.base == nil {
		return
	}
	u := w.base.ResolveReference(ref)
	o.href = shown(href)
	o.path = u.EscapedPath()
	if o.path == "" {
		o.path = "/"
	}
	o.offOrigin = w.target != nil && !strings.EqualFold(u.Host, w.target.Host)
	w.out = append(w.out, o)
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

// curiesIn adds the prefixes declared by a curies link to those in scope.
func curiesIn(links map[string]any, inherited map[string]bool) map[string]bool {
	declared := linkObjects(links["curies"])
	if len(declared) == 0 {
		return inherited
	}
	scope := map[string]bool{}
	for p := range inherited {
		scope[p] = true
	}
	for _, c := range declared {
		if name, _ := c["name"].(string); name != "" {
			scope[strings.ToLower(name)] = true
		}
	}
	return scope
}

// linkObjects accepts a link object or an array of them, as HAL allows.
func linkObjects(v any) []map[string]any {
	switch t := v.(type) {
	case map[string]any:
		return []map[string]any{t}
	case []any:
		out := make([]map[string]any, 0, len(t))
		for _, e := range t {
			if m, ok := e.(map[string]any); ok {
				out = append(out, m)
			}
		}
		return out
	}
	return nil
}
