package probe

import (
	"bytes"
	"math"
	"net/http"
	"regexp"
	"strings"

	"github.com/PuerkitoBio/goquery"

	"github.com/agentready/agentready/exchange"
	"github.com/agentready/agentready/internal/halview"
	"github.com/agentready/agentready/internal/jsonorder"
)

// candidate is a reference found in a response, not yet resolved or scoped.
type candidate struct {
	ref string
	// source says where it was found, e.g. "hal _links.next".
	source string
	// templated marks RFC 6570 templates, which need expanding first.
	templated bool
}

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

// crawlJSON bounds the decoding of a crawled body for its links. The body is
// already capped (MaxBody); a collection page of small items holds many
// values, and the crawl must still find its next link, so the value bound
// is wider than the checks' (halview.Limits). Links sit near the top, so
// what nests deeper than the depth bound is dropped rather than costing the
// whole document its links.
var crawlJSON = jsonorder.Limits{MaxBytes: math.MaxInt, MaxValues: 1 << 20, MaxString: 1 << 20, MaxPointerBytes: 64 << 20, PruneDeeper: true}

// fromHAL lists the links and HAL-FORMS targets of a HAL document and of the
// resources it embeds, each in name order. The body is not final yet (its
// credentials are scrubbed after discovery), so it is read here and not
// through the response's cached view.
func fromHAL(body []byte) []candidate {
	v := halview.Parse(body, crawlJSON)
	if v.Root == nil {
		return nil
	}
	var out []candidate
	walkHAL(v.Root, "", &out)
	return out
}

func walkHAL(r *halview.Resource, prefix string, out *[]candidate) {
	for _, rel := range r.SortedRelations() {
		for _, l := range rel.Links {
			if l.Href != "" {
				*out = append(*out, candidate{ref: l.Href, source: "hal " + prefix + "_links." + rel.Name, templated: l.Templated})
			}
		}
	}
	for _, t := range r.SortedTemplates() {
		if t.Target != "" {
			*out = append(*out, candidate{ref: t.Target, source: "hal-forms " + prefix + "_templates." + t.Key + ".target"})
		}
	}
	for _, e := range r.SortedEmbedded() {
		for _, item := range e.Resources {
			walkHAL(item, prefix+"_embedded."+e.Rel+".", out)
		}
	}
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
