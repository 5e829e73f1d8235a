package problemjson

import (
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/agentready/agentready/checks"
	purposes "github.com/agentready/agentready/checks/internal/purpose"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/halview"
	"github.com/agentready/agentready/internal/jsonorder"
	"github.com/agentready/agentready/internal/linkheader"
	"github.com/agentready/agentready/internal/spec"
)

// Probe purposes. Every error probe is a GET of a URL the app did not
// advertise; none changes state.
const (
	PurposePrefix   = "problem-json/"
	PurposeNotFound = PurposePrefix + "not-found-sibling"
	// PurposeNotFoundChild asks a sampled collection for a member it does
	// not have (/items/<missing> from /items), and PurposeNotFoundOperation
	// a GET operation of the document whose last segment is its one path
	// parameter, filled with a value typed by the parameter's schema.
	PurposeNotFoundChild     = PurposePrefix + "not-found-child"
	PurposeNotFoundOperation = PurposePrefix + "not-found-operation"
	PurposeUnknownPath       = PurposePrefix + "unknown-path"
	PurposeColonCursor       = PurposePrefix + "colon-cursor"
	PurposeValuelessFlag     = PurposePrefix + "valueless-param"
	PurposeNegativeLimit     = PurposePrefix + "negative-limit"
	// The baselines of the colon cursor and the valueless flag: the same
	// query decoded as a client library would write it.
	PurposePlainColonCursor = PurposePrefix + "plain-colon-cursor"
	PurposeLimitOnly        = PurposePrefix + "limit-only"
)

// MissingID replaces the last path segment of a sampled resource, and names
// the unknown path under the root: no real API uses it as an identifier.
const MissingID = "agentready-missing-7f3c"

// problemAccept is added to the resource's own type, so that a server able to
// answer with problem details is asked for them.
const problemAccept = "application/problem+json"

// maxNotFoundHeads bounds the HEADs of not-found URLs, the first ones
// planned: how a router answers HEAD for a missing resource shows on a few,
// and on an API of hundreds of shapes one per shape would take the time
// the negotiation probes of its resources need.
const maxNotFoundHeads = 4

// maxOperationProbes bounds the not-found probes the document's operations
// add beside the sampled shapes'.
const maxOperationProbes = 8

// plan derives the error probes: per path shape, one not-found sibling of
// its first JSON sample and, for collections, one missing child, three
// query edge cases and the two requests they are compared with; one unknown
// path under the target; and one missing item per GET operation of the
// document with a path parameter as its last segment (at most
// maxOperationProbes). The first not-found URLs (maxNotFoundHeads) are also
// asked with HEAD, whose statuses must agree with GET's. At most 7 per
// shape, plus 1, plus 1 per operation, plus the HEADs.
func plan(in *checks.PlanInput) []exchange.PlannedRequest {
	firsts := firstJSONSamplePerShape(in.Samples)
	if len(firsts) == 0 {
		return nil
	}
	var out []exchange.PlannedRequest
	seen := map[string]bool{}
	heads := 0
	add := func(purpose, rawURL string, s *exchange.Exchange) {
		if rawURL == "" || seen[rawURL] {
			return
		}
		seen[rawURL] = true
		h := http.Header{}
		h.Set("Accept", s.Response.MediaType()+", "+problemAccept)
		out = append(out, exchange.PlannedRequest{Purpose: purpose, Method: http.MethodGet, URL: rawURL, Header: h, BasedOn: s.Request.URL})
		if isNotFound(purpose) && heads < maxNotFoundHeads {
			heads++
			out = append(out, exchange.PlannedRequest{Purpose: purposes.NotFoundHead, Method: http.MethodHead, URL: rawURL, Header: h.Clone(), BasedOn: s.Request.URL})
		}
	}
	if in.Target != nil {
		add(PurposeUnknownPath, in.Target.ResolveReference(&url.URL{Path: MissingID}).String(), firsts[0])
	}
	for _, s := range firsts {
		sibling, typed := typedSibling(in.Spec, s.Request.URL)
		if !typed {
			sibling = siblingURL(s.Request.URL)
		}
		add(PurposeNotFound, sibling, s)
		if !isCollection(s) {
			continue
		}
		add(PurposeNotFoundChild, childURL(s.Request.URL), s)
		base, cursor := collectionBase(s)
		add(PurposeColonCursor, base+"?"+url.QueryEscape(cursor)+"=a%3Ab", s)
		add(PurposePlainColonCursor, base+"?"+url.QueryEscape(cursor)+"=a:b", s)
		add(PurposeValuelessFlag, base+"?debug&limit=1", s)
		add(PurposeLimitOnly, base+"?limit=1", s)
		add(PurposeNegativeLimit, base+"?limit=-1", s)
	}
	if in.Target != nil {
		for _, rawURL := range operationURLs(in.Spec, in.Target) {
			add(PurposeNotFoundOperation, rawURL, firsts[0])
		}
	}
	return out
}

// isNotFound says which probes ask for a resource that does not exist.
func isNotFound(purpose string) bool {
	switch purpose {
	case PurposeUnknownPath, PurposeNotFound, PurposeNotFoundChild, PurposeNotFoundOperation:
		return true
	}
	return false
}

// childURL is a member of the collection at raw that it does not have: its
// path (query dropped) with MissingID appended, keeping a trailing slash.
func childURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	p := u.EscapedPath()
	if !strings.HasSuffix(p, "/") {
		return withPath(u, p+"/"+MissingID)
	}
	return withPath(u, p+MissingID+"/")
}

// operationURLs are, under the target's origin and the document's first
// base path, the GET operations whose one path parameter is their last
// segment, filled with a typed missing value: the document says the item
// URL even where the crawl reached no item. Templates in order, at most
// maxOperationProbes.
func operationURLs(doc *spec.Document, target *url.URL) []string {
	if doc == nil {
		return nil
	}
	base := ""
	if len(doc.BasePaths) > 0 {
		base = strings.TrimSuffix(doc.BasePaths[0], "/")
	}
	ops := slices.Clone(doc.Operations)
	slices.SortStableFunc(ops, func(a, b *spec.Operation) int { return strings.Compare(a.PathTemplate, b.PathTemplate) })
	var out []string
	for _, op := range ops {
		if len(out) == maxOperationProbes {
			break
		}
		if op.Method != http.MethodGet || len(spec.TemplateVars(op.PathTemplate)) != 1 {
			continue
		}
		p := lastPathParameter(op)
		if p == nil {
			continue
		}
		v, ok := missingValue(p)
		if !ok {
			continue
		}
		filled, ok := spec.Expand(op.PathTemplate, map[string]string{p.Name: url.PathEscape(v)})
		if !ok {
			continue
		}
		out = append(out, withPath(target, base+filled))
	}
	return out
}

// firstJSONSamplePerShape keeps the first (lexically smallest) sample of
// each path shape whose GET answered JSON: error probes are about APIs.
func firstJSONSamplePerShape(samples []*exchange.Exchange) []*exchange.Exchange {
	var out []*exchange.Exchange
	seen := map[string]bool{}
	for _, s := range samples {
		if s.Response == nil || s.Request.Method != http.MethodGet || !exchange.IsJSONMediaType(s.Response.MediaType()) {
			continue
		}
		shape := exchange.PathShape(exchange.PathOf(s.Request.URL))
		if seen[shape] {
			continue
		}
		seen[shape] = true
		out = append(out, s)
	}
	return out
}

// siblingURL replaces the last non-empty path segment, keeping a trailing
// slash; the root has no sibling.
func siblingURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	p := u.EscapedPath()
	trailing := strings.HasSuffix(p, "/")
	trimmed := strings.TrimSuffix(p, "/")
	i := strings.LastIndexByte(trimmed, '/')
	if trimmed == "" || i < 0 {
		return ""
	}
	next := trimmed[:i+1] + MissingID
	if trailing {
		next += "/"
	}
	sib := url.URL{Scheme: u.Scheme, Host: u.Host, RawPath: next}
	sib.Path, _ = url.PathUnescape(next)
	return sib.String()
}

// isCollection recognises a list resource: by its body, a top-level JSON
// array, an array of items (see items), a next link (see nextHref) or a
// next_cursor member; or by a Link header with rel="next".
func isCollection(s *exchange.Exchange) bool {
	if len(linkheader.WithRel(s.Response.Links(), "next")) > 0 {
		return true
	}
	v := s.Response.HAL()
	if _, ok := items(v); ok {
		return true
	}
	if v.Err != nil || v.Root == nil {
		return false
	}
	return nextHref(s) != "" || v.Root.Value.Get("next_cursor") != nil
}

// items are a collection's items: the top-level array, the first HAL
// _embedded array, or an envelope's array.
func items(v *halview.View) ([]*jsonorder.Value, bool) {
	switch {
	case v.Err != nil:
		return nil, false
	case v.Doc.Root.Is(jsonorder.Array):
		return v.Doc.Root.Items, true
	case v.Root == nil:
		return nil, false
	}
	for _, e := range v.Root.Embedded {
		if e.Value.Is(jsonorder.Array) {
			return e.Value.Items, true
		}
	}
	for _, name := range checks.EnvelopeArrays {
		if a := v.Root.Value.Get(name); a.Is(jsonorder.Array) {
			return a.Items, true
		}
	}
	return nil, false
}

// nextHref is the next link of a collection: HAL's, else that of a plain
// "links" object or a top-level "next" member, each a link object or a bare
// URL, else the Link header's.
func nextHref(s *exchange.Exchange) string {
	if r := s.Response.HAL().Root; r != nil {
		var next *jsonorder.Value
		if rel := r.Relation("next"); rel != nil {
			next = rel.Value
		}
		for _, v := range []*jsonorder.Value{next, r.Value.Get("links").Get("next"), r.Value.Get("next")} {
			if v.Is(jsonorder.String) {
				return v.Text
			}
			if href, ok := v.Get("href").Str(); ok {
				return href
			}
		}
	}
	if links := linkheader.WithRel(s.Response.Links(), "next"); len(links) > 0 {
		return links[0].Target
	}
	return ""
}

// collectionBase is the sample's URL without query, and the parameter that
// carries the position or filter: the first parameter of the next link, else
// of the sample's own URL, else "cursor".
func collectionBase(s *exchange.Exchange) (base, cursor string) {
	u, err := url.Parse(s.Request.URL)
	if err != nil {
		return s.Request.URL, "cursor"
	}
	cursor = "cursor"
	for _, ref := range []string{nextHref(s), s.Request.URL} {
		if name := firstParam(ref); name != "" {
			cursor = name
			break
		}
	}
	u.RawQuery, u.Fragment = "", ""
	return u.String(), cursor
}

func firstParam(ref string) string {
	u, err := url.Parse(ref)
	if err != nil || u.RawQuery == "" {
		return ""
	}
	first, _, _ := strings.Cut(u.RawQuery, "&")
	name, _, _ := strings.Cut(first, "=")
	name, err = url.QueryUnescape(name)
	if err != nil {
		return ""
	}
	return name
}
