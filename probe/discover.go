package probe

import (
	"bytes"
	"encoding/json"
	"maps"
	"net/http"
	"regexp"
	"slices"
	"strings"

	"github.com/PuerkitoBio/goquery"

	"github.com/agentready/agentready/internal/exchange"
)

// candidate is a reference found in a response, not yet resolved or scoped.
type candidate struct {
	ref string
	// source says where it was found, e.g. "hal _links.next".
	source string
	// templated marks RFC 6570 templates, which need expanding first.
	templated bool
	// guessed marks an item URL the crawl made up from a collection's
	// identifiers (see collectionIDs), which no page offered.
	guessed bool
}

// maxEmbeddedDepth bounds recursion into _embedded; hostile documents can nest
// thousands of levels.
const maxEmbeddedDepth = 8

// linkSink collects the candidates of one response: the first limit in
// extraction order are kept, and every link offered is counted, so that the
// report can say how many a page offered when the per-page bound cut them.
type linkSink struct {
	limit int
	kept  []candidate
	found int
}

func (s *linkSink) add(c candidate) {
	s.found++
	if s.room() {
		s.kept = append(s.kept, c)
	}
}

func (s *linkSink) room() bool { return len(s.kept) < s.limit }

// jsonDocument is a JSON body as link extraction read it: its first value,
// valid, and that value's members when it is an object.
type jsonDocument struct {
	root    json.RawMessage
	members map[string]json.RawMessage
}

// discover extracts link candidates from a response in a stable order:
// headers first, then the body. It keeps the first limit of them and returns
// how many it found in all, and the JSON document it read them from (empty
// for any other body), which the crawl reads again for a plain collection's
// identifiers (collectionIDs).
func discover(resp *exchange.Response, limit int) (kept []candidate, found int, doc jsonDocument) {
	sink := &linkSink{limit: limit}
	fromHeaders(resp.Header, sink)
	if len(resp.Body) == 0 {
		return sink.kept, sink.found, doc
	}
	// A truncated JSON body fails to parse and yields nothing; the links of a
	// truncated HTML page are still real links, so both go through.
	mt := resp.MediaType()
	switch {
	case exchange.IsJSONMediaType(mt):
		doc.root = documentRoot(resp.Body)
		doc.members = validMembers(doc.root)
		walkHAL(doc.members, "", 0, sink)
		fromJSON(doc, sink)
	case mt == "text/html" || mt == "application/xhtml+xml":
		fromHTML(resp.Body, sink)
	}
	return sink.kept, sink.found, doc
}

func fromHeaders(h http.Header, sink *linkSink) {
	for _, l := range ParseLinkHeader(h.Values("Link")) {
		rel := strings.Join(l.Rels, " ")
		sink.add(candidate{ref: l.URI, source: "Link rel=" + rel})
	}
	for _, name := range []string{"Location", "Content-Location"} {
		for _, v := range h.Values(name) {
			sink.add(candidate{ref: strings.TrimSpace(v), source: name})
		}
	}
}

// walkHAL walks _links, _templates and _embedded of a HAL document. Members
// are decoded one level at a time and arrays one element at a time, so that
// a document of a hundred thousand links never becomes a tree of as many
// maps: only the links themselves are read.

// documentRoot is the first JSON value of body, valid, or nil when there
// is none. What follows that value is ignored.
func documentRoot(body []byte) json.RawMessage {
	if json.Valid(body) {
		return body
	}
	var first json.RawMessage
	if json.NewDecoder(bytes.NewReader(body)).Decode(&first) != nil {
		return nil
	}
	return first
}

func walkHAL(obj map[string]json.RawMessage, prefix string, depth int, sink *linkSink) {
	if depth > maxEmbeddedDepth {
		return
	}
	links := members(obj["_links"])
	for _, rel := range slices.Sorted(maps.Keys(links)) {
		// One source string per relation: a relation can hold thousands
		// of links.
		source := "hal " + prefix + "_links." + rel
		eachObject(links[rel], func(raw json.RawMessage) {
			// Every link object counts as offered. Past the bound one is
			// only counted: decoding the rest of a flood would cost what the
			// bound saves.
			if !sink.room() {
				sink.found++
				return
			}
			l := members(raw)
			href := stringMember(l, "href")
			if href == "" {
				// Not a link: nothing was offered, so nothing was cut.
				return
			}
			var templated bool
			_ = json.Unmarshal(l["templated"], &templated)
			sink.add(candidate{ref: href, source: source, templated: templated})
		})
	}
	templates := members(obj["_templates"])
	for _, name := range slices.Sorted(maps.Keys(templates)) {
		if target := stringMember(members(templates[name]), "target"); target != "" {
			sink.add(candidate{ref: target, source: "hal-forms " + prefix + "_templates." + name + ".target"})
		}
	}
	embedded := members(obj["_embedded"])
	for _, rel := range slices.Sorted(maps.Keys(embedded)) {
		eachObject(embedded[rel], func(item json.RawMessage) {
			walkHAL(members(item), prefix+"_embedded."+rel+".", depth+1, sink)
		})
	}
}

// members splits a JSON object one level deep; anything else is no members.
// Every value it is given comes from a document already validated.
func members(raw json.RawMessage) map[string]json.RawMessage { return validMembers(raw) }

// stringMember is the member name of obj when it is a string, else "".
func stringMember(obj map[string]json.RawMessage, name string) string {
	s, _ := stringValue(obj[name])
	return s
}

// eachObject calls fn with a single object, or with each object of an array,
// as HAL allows for both _links and _embedded values; other values are
// skipped.
func eachObject(raw json.RawMessage, fn func(json.RawMessage)) {
	switch firstByte(raw) {
	case '{':
		fn(raw)
	case '[':
		for _, e := range validElements(raw) {
			if firstByte(e) == '{' {
				fn(e)
			}
		}
	}
}

// firstByte is the first byte of a JSON value, past white space.
func firstByte(raw json.RawMessage) byte {
	if t := bytes.TrimLeft(raw, " \t\r\n"); len(t) > 0 {
		return t[0]
	}
	return 0
}

// htmlSources names where an HTML link was found, one string per element
// name rather than one per link.
var htmlSources = map[string]string{"a": "html <a href>", "link": "html <link href>"}

func fromHTML(body []byte, sink *linkSink) {
	doc, err := goquery.NewDocumentFromReader(bytes.NewReader(body))
	if err != nil {
		return
	}
	doc.Find("a[href], link[href]").Each(func(_ int, s *goquery.Selection) {
		href, _ := s.Attr("href")
		sink.add(candidate{ref: strings.TrimSpace(href), source: htmlSources[goquery.NodeName(s)]})
	})
}

var optionalQueryExpr = regexp.MustCompile(`\{[?&][^{}]*\}`)

// expandTemplate expands what can be expanded without values: optional query
// expressions ({?a,b} and {&c}) expand to nothing under RFC 6570 when their
// variables are undefined. Anything else needs a value the crawl does not
// have, and a stray brace means the template is malformed: ok is false.
func expandTemplate(t string) (string, bool) {
	s := optionalQueryExpr.ReplaceAllString(t, "")
	if strings.ContainsAny(s, "{}") {
		return "", false
	}
	return s, true
}

// envelopeRels are the members of a plain-JSON envelope that name its
// neighbours: {"items": [...], "next": "/orders?page=2"}.
var envelopeRels = []string{"next", "prev", "previous", "first", "last"}

// envelopeItemArrays hold an envelope's items, whose own links are read.
var envelopeItemArrays = []string{"items", "data", "results"}

// fromJSON reads the links plain JSON carries: a links object (JSON:API
// §7.6, and the links.next of many paginated APIs), an envelope's next,
// prev, first and last, and the links (or self) of its items, or of the
// items of a document that is a bare array. A member that is not a URL or
// a path (an opaque cursor) is not a link.
func fromJSON(doc jsonDocument, sink *linkSink) {
	if firstByte(doc.root) == '[' {
		itemLinks(doc.root, "json [].", sink)
		return
	}
	linksObject(doc.members["links"], "json links.", sink)
	for _, rel := range envelopeRels {
		if ref := stringMember(doc.members, rel); isReference(ref) {
			sink.add(candidate{ref: ref, source: "json " + rel})
		}
	}
	for _, name := range envelopeItemArrays {
		if firstByte(doc.members[name]) == '[' {
			itemLinks(doc.members[name], "json "+name+"[].", sink)
		}
	}
}

// itemLinks reads the links object and the self link of each object of
// arr, an array of a collection's items.
func itemLinks(arr json.RawMessage, prefix string, sink *linkSink) {
	eachObject(arr, func(raw json.RawMessage) {
		if !sink.room() {
			return
		}
		item := members(raw)
		linksObject(item["links"], prefix+"links.", sink)
		if ref := stringMember(item, "self"); isReference(ref) {
			sink.add(candidate{ref: ref, source: prefix + "self"})
		}
	})
}

// linksObject reads a links object: each member a URL, or an object with
// an href (JSON:API link objects).
func linksObject(raw json.RawMessage, prefix string, sink *linkSink) {
	links := members(raw)
	for _, rel := range slices.Sorted(maps.Keys(links)) {
		ref, ok := stringValue(links[rel])
		if !ok {
			ref = stringMember(members(links[rel]), "href")
		}
		if isReference(ref) {
			sink.add(candidate{ref: ref, source: prefix + rel})
		}
	}
}

// isReference accepts what is written as a URL: absolute http(s), or a
// path or query reference.
func isReference(s string) bool {
	if s == "" || strings.ContainsAny(s, " \t\r\n") {
		return false
	}
	for _, p := range []string{"/", "?", "http://", "https://"} {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}
