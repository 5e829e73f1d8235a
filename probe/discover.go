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

	"github.com/agentready/agentready/exchange"
)

// candidate is a reference found in a response, not yet resolved or scoped.
type candidate struct {
	ref string
	// source says where it was found, e.g. "hal _links.next".
	source string
	// templated marks RFC 6570 templates, which need expanding first.
	templated bool
}

// maxEmbeddedDepth bounds recursion into _embedded; hostile documents can nest
// thousands of levels.
const maxEmbeddedDepth = 8

// discover extracts link candidates from a response, in a stable order:
// headers first, then the body.
func discover(resp *exchange.Response) []candidate {
	var out []candidate
	out = append(out, fromHeaders(resp.Header)...)
	if len(resp.Body) == 0 {
		return out
	}
	// A truncated JSON body fails to parse and yields nothing; the links of a
	// truncated HTML page are still real links, so both go through.
	mt := resp.MediaType()
	switch {
	case exchange.IsJSONMediaType(mt):
		out = append(out, fromHAL(resp.Body)...)
	case mt == "text/html" || mt == "application/xhtml+xml":
		out = append(out, fromHTML(resp.Body)...)
	}
	return out
}

func fromHeaders(h http.Header) []candidate {
	var out []candidate
	for _, l := range ParseLinkHeader(h.Values("Link")) {
		rel := strings.Join(l.Rels, " ")
		out = append(out, candidate{ref: l.URI, source: "Link rel=" + rel})
	}
	for _, name := range []string{"Location", "Content-Location"} {
		for _, v := range h.Values(name) {
			out = append(out, candidate{ref: strings.TrimSpace(v), source: name})
		}
	}
	return out
}

// fromHAL walks _links, _templates and _embedded of a HAL document.
func fromHAL(body []byte) []candidate {
	dec := json.NewDecoder(bytes.NewReader(body))
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return nil
	}
	var out []candidate
	walkHAL(doc, "", 0, &out)
	return out
}

func walkHAL(v any, prefix string, depth int, out *[]candidate) {
	obj, ok := v.(map[string]any)
	if !ok || depth > maxEmbeddedDepth {
		return
	}
	if links, ok := obj["_links"].(map[string]any); ok {
		for _, rel := range slices.Sorted(maps.Keys(links)) {
			for _, l := range linkObjects(links[rel]) {
				href, _ := l["href"].(string)
				templated, _ := l["templated"].(bool)
				if href != "" {
					*out = append(*out, candidate{ref: href, source: "hal " + prefix + "_links." + rel, templated: templated})
				}
			}
		}
	}
	if templates, ok := obj["_templates"].(map[string]any); ok {
		for _, name := range slices.Sorted(maps.Keys(templates)) {
			t, _ := templates[name].(map[string]any)
			if target, _ := t["target"].(string); target != "" {
				*out = append(*out, candidate{ref: target, source: "hal-forms " + prefix + "_templates." + name + ".target"})
			}
		}
	}
	if embedded, ok := obj["_embedded"].(map[string]any); ok {
		for _, rel := range slices.Sorted(maps.Keys(embedded)) {
			for _, item := range linkObjects(embedded[rel]) {
				walkHAL(item, prefix+"_embedded."+rel+".", depth+1, out)
			}
		}
	}
}

// linkObjects accepts a single object or an array of them, as HAL allows for
// both _links and _embedded values.
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

func fromHTML(body []byte) []candidate {
	doc, err := goquery.NewDocumentFromReader(bytes.NewReader(body))
	if err != nil {
		return nil
	}
	var out []candidate
	doc.Find("a[href], link[href]").Each(func(_ int, s *goquery.Selection) {
		href, _ := s.Attr("href")
		out = append(out, candidate{ref: strings.TrimSpace(href), source: "html <" + goquery.NodeName(s) + " href>"})
	})
	return out
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
