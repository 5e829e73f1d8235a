package hal

import (
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/internal/hypermedia"
	"github.com/agentready/agentready/checks/internal/uritemplate"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/halview"
	"github.com/agentready/agentready/internal/jsonorder"
	"github.com/agentready/agentready/internal/urlx"
)

// analysis is every HAL issue of the recording, by check ID. All checks of
// the family share it through Input.Memo, so each document is walked once.
type analysis struct {
	docs   int
	issues map[string][]hypermedia.Issue
	// shapes records, per relation, the first response that gave it as a
	// single link object and the first that gave it as an array.
	shapes map[string]*relShapes
	rels   []string // relations in order of first appearance
}

type relShapes struct {
	object, array *hypermedia.Issue
}

func (a *analysis) add(id string, is hypermedia.Issue) { a.issues[id] = append(a.issues[id], is) }

var analysisKey = checks.NewKey[*analysis]()

func analyze(in *checks.Input) *analysis {
	return checks.Memo(in, analysisKey, func() *analysis {
		a := &analysis{issues: map[string][]hypermedia.Issue{}, shapes: map[string]*relShapes{}}
		for _, d := range hypermedia.HALDocs(in) {
			a.document(d)
		}
		a.cardinality()
		return a
	})
}

func (a *analysis) document(d *hypermedia.Doc) {
	if errors.Is(d.Err, jsonorder.ErrLimit) {
		return // too large or deep to judge; not evidence of a defect
	}
	a.docs++
	if d.Err != nil {
		a.add(idRootObject, hypermedia.Issue{X: d.X, Pointer: "", Message: "the body served as " + d.X.Response.MediaType() + " is not JSON: " + d.Err.Error(),
			Expected: "a JSON object", Actual: "not JSON"})
		return
	}
	root := d.Root()
	if root.Kind != jsonorder.Object {
		a.add(idRootObject, hypermedia.Issue{X: d.X, Pointer: "", Value: root,
			Message:  fmt.Sprintf("the root of the HAL document is a JSON %s, not a resource object", root.Kind),
			Expected: "object", Actual: root.Kind.String()})
		return
	}
	w := &walker{a: a, x: d.X}
	if base, err := url.Parse(d.X.Request.URL); err == nil {
		w.base = base
	}
	w.resource(d.HAL.Root)
	w.offOrigin()
}

// walker visits one document.
type walker struct {
	a    *analysis
	x    *exchange.Exchange
	base *url.URL
	// links are the resolved hrefs of the document, for the off-origin rule.
	same, off []hypermedia.Issue
}

func (w *walker) add(id string, v *jsonorder.Value, msg, expected, actual string) {
	w.a.add(id, hypermedia.Issue{X: w.x, Pointer: v.Pointer, Value: v, Message: msg, Expected: expected, Actual: actual})
}

// resource checks one resource and those embedded in it.
func (w *walker) resource(r *halview.Resource) {
	v, links := r.Value, r.LinksValue
	where := "the resource"
	if v.Pointer != "" {
		where = "the embedded resource at " + v.Pointer
	}
	switch {
	case links == nil:
		w.add(idSelf, v, where+" has no _links, so no self link", "_links.self", "(absent)")
	case links.Kind != jsonorder.Object:
		w.add(idLinksShape, links, fmt.Sprintf("_links is a JSON %s, not an object keyed by relation", links.Kind), "object", links.Kind.String())
	default:
		w.curies(r)
		w.links(r)
		if r.Relation("self") == nil {
			w.add(idSelf, links, where+" has no self link", "_links.self", "(absent)")
		}
	}
	for _, e := range r.Embedded {
		for _, er := range e.Resources {
			w.resource(er)
		}
	}
}

// curies validates the resource's own curies entries.
func (w *walker) curies(r *halview.Resource) {
	c := r.Relation("curies")
	if c == nil {
		return
	}
	for _, cl := range c.Links {
		l := cl.Value
		if cl.Name == "" {
			w.add(idCurieTemplate, l, "curies entry has no name, so no prefix can refer to it", `"name": "<prefix>"`, l.Get("name").Literal())
		}
		href, ok := l.Get("href").Str()
		if !ok {
			continue // reported by hal-link-href
		}
		if !strings.Contains(href, "{rel}") {
			w.add(idCurieTemplate, l.Get("href"), fmt.Sprintf("curies href %q has no {rel} token, so relations cannot be expanded to documentation", href), "an href containing {rel}", href)
		} else if !cl.Templated {
			w.add(idCurieTemplate, l, fmt.Sprintf("curies entry %q is a template but lacks \"templated\": true", href), `"templated": true`, l.Get("templated").Literal())
		}
	}
}

// links checks every relation of the resource against the CURIE prefixes in
// scope: the enclosing resources' and its own (§8.3).
func (w *walker) links(r *halview.Resource) {
	scope := map[string]bool{}
	for _, name := range r.CurieNames() {
		scope[name] = true
	}
	for _, relation := range r.Relations {
		rel, val := relation.Name, relation.Value
		switch val.Kind {
		case jsonorder.Object:
			w.a.shape(rel, false, hypermedia.Issue{X: w.x, Pointer: val.Pointer, Value: val})
		case jsonorder.Array:
			if rel != "curies" {
				w.a.shape(rel, true, hypermedia.Issue{X: w.x, Pointer: val.Pointer, Value: val})
			}
			for _, item := range val.Items {
				if item.Kind != jsonorder.Object {
					w.add(idLinksShape, item, fmt.Sprintf("_links.%s holds a JSON %s where a link object belongs", rel, item.Kind), "link object", item.Kind.String())
				}
			}
		default:
			w.add(idLinksShape, val, fmt.Sprintf("_links.%s is a JSON %s, neither a link object nor an array of them", rel, val.Kind), "link object or array", val.Kind.String())
		}
		for _, l := range relation.Links {
			w.link(rel, l)
		}
		w.curie(rel, val, scope)
	}
}

// curie reports a namespaced relation whose prefix no curies entry defines.
func (w *walker) curie(rel string, v *jsonorder.Value, scope map[string]bool) {
	if rel == "curies" {
		return
	}
	prefix, rest, ok := strings.Cut(rel, ":")
	if !ok || prefix == "" || rest == "" || strings.HasPrefix(rest, "//") || uriSchemes[strings.ToLower(prefix)] {
		return // a registered relation or an absolute URI
	}
	if !scope[prefix] {
		w.add(idCurieUndefined, v, fmt.Sprintf("relation %q uses prefix %q but no curies entry is named %q", rel, prefix, prefix),
			fmt.Sprintf(`a curies entry with "name": %q`, prefix), "(absent)")
	}
}

// uriSchemes are schemes seen in extension relation types written as URIs
// without "//" (tag:, urn:); a relation with such a prefix is not a CURIE.
var uriSchemes = map[string]bool{"urn": true, "tag": true, "http": true, "https": true, "mailto": true, "data": true}

func (w *walker) link(rel string, hl halview.Link) {
	l := hl.Value
	hrefV := l.Get("href")
	href, ok := hrefV.Str()
	if !ok {
		w.add(idHref, l, fmt.Sprintf("link %s has no href string (href is %s)", rel, hrefV.Literal()), `"href": "<URI>"`, hrefV.Literal())
		return
	}
	t := l.Get("templated")
	if t != nil && t.Kind != jsonorder.Bool {
		w.add(idTemplatedString, t, fmt.Sprintf("link %s has \"templated\": %s, which clients read as false; use the boolean true", rel, t.Literal()),
			"true (boolean)", t.Literal())
	}
	switch {
	case hl.Templated:
		if err := uritemplate.Validate(href); err != nil {
			w.add(idInvalidTemplate, hrefV, fmt.Sprintf("link %s href %q is not a valid RFC 6570 template: %v", rel, href, err), "a valid URI Template", href)
		}
	case rel != "curies" && strings.Contains(href, "{") && (t == nil || t.Kind == jsonorder.Bool):
		// A curie's missing templated is hal-curie-malformed's to report.
		w.add(idUntemplated, hrefV, fmt.Sprintf("link %s href %q contains a template expression but the link lacks \"templated\": true", rel, href),
			`"templated": true`, t.Literal())
	}
	if dep := l.Get("deprecation"); dep != nil {
		depURL, _ := dep.Str()
		w.add(idDeprecation, dep, fmt.Sprintf("link %s is deprecated and will be removed; documentation: %s", rel, orNone(depURL)), "", depURL)
	}
	if rel != "curies" && !hl.Templated {
		w.origin(rel, hrefV, href)
	}
}

// offSiteRelations point at documents that normally live elsewhere.
var offSiteRelations = map[string]bool{
	"curies": true, "license": true, "terms-of-service": true, "help": true, "describedby": true,
	"profile": true, "privacy-policy": true, "author": true, "service-doc": true, "type": true,
}

func (w *walker) origin(rel string, v *jsonorder.Value, href string) {
	if w.base == nil || offSiteRelations[rel] {
		return
	}
	u, err := w.base.Parse(href)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return
	}
	is := hypermedia.Issue{X: w.x, Pointer: v.Pointer, Value: v, Subject: rel, Actual: u.Scheme + "://" + u.Host,
		Expected: w.base.Scheme + "://" + w.base.Host,
		Message:  fmt.Sprintf("link %s resolves to %s, another origin than the rest of the document's links (%s)", rel, u.Scheme+"://"+u.Host, w.base.Host)}
	if urlx.SameOrigin(u, w.base) {
		w.same = append(w.same, is)
	} else {
		w.off = append(w.off, is)
	}
}

// offOrigin reports off-origin links only where they are the exception.
func (w *walker) offOrigin() {
	if len(w.same) == 0 || len(w.off) >= len(w.same) {
		return
	}
	for _, is := range w.off {
		w.a.add(idOffOrigin, is)
	}
}

func (a *analysis) shape(rel string, array bool, is hypermedia.Issue) {
	s := a.shapes[rel]
	if s == nil {
		s = &relShapes{}
		a.shapes[rel] = s
		a.rels = append(a.rels, rel)
	}
	switch {
	case array && s.array == nil:
		s.array = &is
	case !array && s.object == nil:
		s.object = &is
	}
}

// cardinality reports relations given as an object in one place and as an
// array in another (§4.1.1).
func (a *analysis) cardinality() {
	for _, rel := range a.rels {
		s := a.shapes[rel]
		if s.object == nil || s.array == nil {
			continue
		}
		is := *s.array
		is.Related = s.object.X
		is.Subject = rel
		is.Message = fmt.Sprintf("relation %s is an array here but a single link object at %s %s", rel, exchange.PathOf(s.object.X.Request.URL), s.object.Pointer)
		is.Expected, is.Actual = "the same shape in every response", "array and object"
		a.add(idCardinality, is)
	}
}

func orNone(s string) string {
	if s == "" {
		return "(none given)"
	}
	return s
}
