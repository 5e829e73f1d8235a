package discovery

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/urlx"
)

func rfc8631(section, level string) finding.SpecRef {
	return ref("RFC 8631", section, level, "https://www.rfc-editor.org/rfc/rfc8631#section-"+section)
}

// serviceRels maps the RFC 8631 relations to the purpose of their probe.
var serviceRels = map[string]string{
	"service-desc": PurposeServiceDesc,
	"service-doc":  PurposeServiceDoc,
	"status":       PurposeStatus,
}

// svcLink is a service relation found in the crawl.
type svcLink struct {
	rel, purpose string
	target       string // absolute
	page         string // the crawled URL that carried it
	via          string // "Link header" or "HAL _links"
	// typeHint is the media type the link says its target has (the Link
	// header's type parameter, the HAL link's type member), or "".
	typeHint string
}

// serviceLinks lists the distinct same-origin service-desc, service-doc and
// status targets of the crawl, from Link headers and HAL _links, in crawl
// order, at most maxServiceLinks.
// maxBodiesPerShape bounds the HAL bodies read per path shape for service links.
const maxBodiesPerShape = 4

func serviceLinks(crawled []*exchange.Exchange) []svcLink {
	var out []svcLink
	seen := map[string]bool{}
	bodies := map[string]int{}
	for _, x := range crawled {
		if x.Purpose != exchange.PurposeCrawl || x.Response == nil {
			continue
		}
		base, err := url.Parse(x.Request.URL)
		if err != nil {
			continue
		}
		// Service links describe the API, not each item: reading the bodies of
		// a few resources per path shape finds them without decoding every
		// page of a large crawl. Link headers are cheap and always read.
		shape := exchange.PathShape(exchange.PathOf(x.Request.URL))
		bodies[shape]++
		for _, c := range serviceRefs(x, bodies[shape] <= maxBodiesPerShape) {
			t, err := url.Parse(c.ref)
			if err != nil {
				continue
			}
			abs := base.ResolveReference(t)
			abs.Fragment = ""
			key := c.rel + " " + abs.String()
			if seen[key] || !urlx.SameOrigin(abs, base) || len(out) >= maxServiceLinks {
				continue
			}
			seen[key] = true
			out = append(out, svcLink{rel: c.rel, purpose: serviceRels[c.rel], target: abs.String(), page: x.Request.URL, via: c.via, typeHint: c.typeHint})
		}
	}
	return out
}

type relRef struct{ rel, ref, via, typeHint string }

func serviceRefs(x *exchange.Exchange, readBody bool) []relRef {
	var out []relRef
	for _, l := range x.Response.Links() {
		if l.Anchored() {
			continue
		}
		for _, rel := range l.Rels {
			if _, ok := serviceRels[rel]; ok {
				out = append(out, relRef{rel, l.Target, "Link header", l.Params["type"]})
			}
		}
	}
	if readBody && exchange.IsJSONMediaType(x.Response.MediaType()) && !x.Response.Dropped && !x.Response.Truncated {
		out = append(out, halServiceRefs(x.Response)...)
	}
	return out
}

// halServiceRefs reads the service relations of a HAL document's top-level
// _links: a link object or an array of them.
func halServiceRefs(r *exchange.Response) []relRef {
	root := r.HAL().Root
	if root == nil {
		return nil
	}
	var out []relRef
	for _, name := range slices.Sorted(maps.Keys(serviceRels)) {
		rel := root.Relation(name)
		if rel == nil {
			continue
		}
		for _, l := range rel.Links {
			if l.Href != "" {
				out = append(out, relRef{name, l.Href, "HAL _links", l.Type})
			}
		}
	}
	return out
}

func crawled(in *checks.Input) []*exchange.Exchange {
	var out []*exchange.Exchange
	for x := range in.Recording.Crawled() {
		out = append(out, x)
	}
	return out
}

var openAPIKey = regexp.MustCompile(`(?m)^\s*"?(openapi|swagger)"?\s*:`)

// looksLikeOpenAPI accepts a JSON object with an openapi or swagger member,
// or YAML (or truncated JSON) whose top level has one.
func looksLikeOpenAPI(body []byte) bool {
	var obj map[string]json.RawMessage
	if json.Unmarshal(body, &obj) == nil {
		_, oas := obj["openapi"]
		_, swagger := obj["swagger"]
		return oas || swagger
	}
	return openAPIKey.Match(body[:min(len(body), 64<<10)])
}

// ServiceDesc reports service-desc links that do not resolve to an OpenAPI
// document.
type ServiceDesc struct{ plans }

func (ServiceDesc) Meta() checks.Meta {
	return checks.Meta{
		ID: "discovery-service-desc", Family: checks.FamilyDiscovery, Severity: finding.SeverityWarning,
		Since:    checks.FirstRelease,
		Title:    "service-desc links resolve to an API description",
		SpecRefs: []finding.SpecRef{rfc8631("4.1", "SHOULD"), ref("RFC 8288", "3.1", "MUST", "https://www.rfc-editor.org/rfc/rfc8288#section-3.1")},
		Help: `A ` + "`service-desc`" + ` link (RFC 8631 §4.1) tells agents where the machine-readable
description of the API is. When its target answers an error, or something that is
not an OpenAPI document, agents that follow the standard way in find nothing to
read, and fall back to guessing.

**How to fix:** point ` + "`service-desc`" + ` at the served OpenAPI document (relative
references resolve against the response's URL, RFC 8288 §3.1).`,
	}
}

func (c ServiceDesc) Run(_ context.Context, in *checks.Input) ([]finding.Finding, error) {
	links := relLinks(in, "service-desc")
	if len(links) == 0 {
		return nil, checks.Skip("no crawled response carries a service-desc link on the target's origin")
	}
	var out []finding.Finding
	for _, l := range links {
		x := in.Probe(l.purpose, l.target)
		if x == nil {
			continue
		}
		var problem string
		switch {
		case !ok2xx(x):
			problem = "answered " + statusText(x)
		case x.Response.Dropped || len(x.Response.Body) == 0:
			problem = "answered an empty body"
		case !looksLikeOpenAPI(x.Response.Body):
			problem = fmt.Sprintf("answered %s, which is not an OpenAPI document", x.Response.MediaType())
		default:
			continue
		}
		ev := evidence(x)
		ev.Expected, ev.Actual, ev.Excerpt = "an OpenAPI document", problem, checks.Excerpt(x)
		out = append(out, checks.New(c.Meta(), l.target, fmt.Sprintf(
			"service-desc %s (%s of %s) %s", l.target, l.via, exchange.PathOf(l.page), problem), ev))
	}
	return out, nil
}

var serviceLinksKey = checks.NewKey[[]svcLink]()

func relLinks(in *checks.Input, rel string) []svcLink {
	var out []svcLink
	all := checks.Memo(in, serviceLinksKey, func() []svcLink { return serviceLinks(crawled(in)) })
	for _, l := range all {
		if l.rel == rel {
			out = append(out, l)
		}
	}
	return out
}

// ServiceLinks reports service-doc and status links that do not resolve.
type ServiceLinks struct{ plans }

func (ServiceLinks) Meta() checks.Meta {
	return checks.Meta{
		ID: "discovery-service-links", Family: checks.FamilyDiscovery, Severity: finding.SeverityWarning,
		Since:    checks.FirstRelease,
		Title:    "service-doc and status links resolve",
		SpecRefs: []finding.SpecRef{rfc8631("4.2", "SHOULD"), rfc8631("5", "SHOULD")},
		Help: `` + "`service-doc`" + ` points at human documentation of the API and ` + "`status`" + ` at its health
resource (RFC 8631 §4.2, §5). A target that answers 404, 410 or a server error is a
dead end for an agent trying to learn or monitor the API.

**How to fix:** fix or remove the links named in the finding.`,
	}
}

func (c ServiceLinks) Run(_ context.Context, in *checks.Input) ([]finding.Finding, error) {
	links := append(relLinks(in, "service-doc"), relLinks(in, "status")...)
	if len(links) == 0 {
		return nil, checks.Skip("no crawled response carries a service-doc or status link on the target's origin")
	}
	var out []finding.Finding
	for _, l := range links {
		x := in.Probe(l.purpose, l.target)
		if !dead(x) {
			continue
		}
		ev := evidence(x)
		ev.Expected, ev.Actual = "an answer", statusText(x)
		out = append(out, checks.New(c.Meta(), l.rel+" "+l.target, fmt.Sprintf(
			"%s %s (%s of %s) answered %s", l.rel, l.target, l.via, exchange.PathOf(l.page), statusText(x)), ev))
	}
	return out, nil
}

// ServiceDescMissing reports an API root without service-desc while an
// OpenAPI document exists.
type ServiceDescMissing struct{ plans }

func (ServiceDescMissing) Meta() checks.Meta {
	return checks.Meta{
		ID: "discovery-service-desc-missing", Family: checks.FamilyDiscovery, Severity: finding.SeverityInfo,
		Since:    checks.FirstRelease,
		Title:    "The API root links its OpenAPI document with service-desc",
		SpecRefs: []finding.SpecRef{rfc8631("4.1", "MAY")},
		Help: `An OpenAPI document exists for this API, but its root response does not link it with
` + "`rel=\"service-desc\"`" + ` (RFC 8631), in a Link header or in its ` + "`_links`" + `. Agents that
start from the API, as most do, cannot find the description without guessing paths.

**How to fix:** add ` + "`Link: </openapi.json>; rel=\"service-desc\"`" + ` to the root response.`,
	}
}

func (c ServiceDescMissing) Run(_ context.Context, in *checks.Input) ([]finding.Finding, error) {
	if in.Spec == nil {
		return nil, checks.Skip("no OpenAPI document was given or found, so none is missing from the root")
	}
	root := startExchange(in)
	if root == nil || !ok2xx(root) {
		return nil, checks.Skip("the start URL did not answer 2xx")
	}
	for _, r := range serviceRefs(root, true) {
		if r.rel == "service-desc" {
			return nil, nil
		}
	}
	ev := evidence(root, "Link")
	ev.Header, ev.Expected, ev.Actual = "Link", `Link: <…>; rel="service-desc"`, "no service-desc"
	return []finding.Finding{checks.New(c.Meta(), "", fmt.Sprintf(
		"the API root %s has no service-desc link, although an OpenAPI document exists (%s)", exchange.PathOf(root.Request.URL), in.Spec.Source), ev)}, nil
}

// startExchange is the crawl of the start URL.
func startExchange(in *checks.Input) *exchange.Exchange {
	for x := range in.Recording.Crawled() {
		if x.Source == exchange.SourceStart {
			return x
		}
	}
	return nil
}

// hintedType is the media type of the link's type hint, without
// parameters, or "".
func (l svcLink) hintedType() string {
	mt, _ := exchange.MediaTypeOf(l.typeHint)
	return mt
}

// ServiceDescType reports a service-desc link whose type hint names a
// format its target does not serve.
type ServiceDescType struct{ plans }

func (ServiceDescType) Meta() checks.Meta {
	return checks.Meta{
		ID: "discovery-service-desc-type", Family: checks.FamilyDiscovery, Severity: finding.SeverityInfo,
		Since:    checks.FirstRelease,
		Title:    "A service-desc link's type hint matches the media type its target serves",
		SpecRefs: []finding.SpecRef{ref("RFC 8288", "3.4.1", "", "https://www.rfc-editor.org/rfc/rfc8288#section-3.4.1"), rfc8631("4.1", "")},
		Help: `The ` + "`type`" + ` of a link (a Link header's ` + "`type`" + ` parameter, a HAL link's ` + "`type`" + ` member)
hints at the media type of its target (RFC 8288 §3.4.1). Agents use it to pick
the description they can parse, JSON or YAML, and send it in ` + "`Accept`" + `. A hint of
` + "`application/openapi+json`" + ` on a target that answers that request with YAML, with
` + "`text/plain`" + ` or with 406 sends them to a document they then refuse or misparse.
The target is asked once with the hint as ` + "`Accept`" + `; an answer in the same format
under the generic type (` + "`application/json`" + ` for ` + "`application/openapi+json`" + `) matches.
A hint is not a promise, so this is advice.

**How to fix:** make the hint say what the target serves, or serve what the hint
says: ` + "`Link: </openapi.json>; rel=\"service-desc\"; type=\"application/openapi+json\"`" + ` with
` + "`Content-Type: application/openapi+json`" + ` (or ` + "`application/json`" + `).`,
	}
}

func (c ServiceDescType) Run(_ context.Context, in *checks.Input) ([]finding.Finding, error) {
	var out []finding.Finding
	hinted := 0
	for _, l := range relLinks(in, "service-desc") {
		hint := l.hintedType()
		// What does not resolve to an OpenAPI document at all,
		// discovery-service-desc reports.
		if hint == "" || !isOpenAPIDoc(in.Probe(l.purpose, l.target)) {
			continue
		}
		hinted++
		x := in.Probe(PurposeServiceDescTyped, l.target)
		problem := hintProblem(x, hint)
		if problem == "" {
			continue
		}
		ev := evidence(x)
		ev.Header, ev.Expected, ev.Actual = "Content-Type", hint, problem
		out = append(out, checks.New(c.Meta(), l.target, fmt.Sprintf(
			"service-desc %s (%s of %s) says type %s, but asked for it the target %s",
			l.target, l.via, exchange.PathOf(l.page), hint, problem), ev))
	}
	if hinted == 0 {
		return nil, checks.Skip("no service-desc link to an OpenAPI document carries a type hint")
	}
	return out, nil
}

func isOpenAPIDoc(x *exchange.Exchange) bool {
	return ok2xx(x) && x.Response.Whole() && looksLikeOpenAPI(x.Response.Body)
}

// hintProblem says how the answer to a request for the hinted type
// contradicts the hint, or "" when it does not (or was not sent).
func hintProblem(x *exchange.Exchange, hint string) string {
	switch {
	case x == nil || x.Response == nil:
		return ""
	case x.Response.Status == http.StatusNotAcceptable:
		return "answered 406 Not Acceptable"
	case !ok2xx(x):
		return ""
	}
	served := x.Response.MediaType()
	if syntaxOf(served) == syntaxOf(hint) {
		return ""
	}
	if served == "" {
		return "answered with no Content-Type"
	}
	return "answered " + served
}

// syntaxOf names the format of a media type: json for application/json and
// +json types, yaml for the YAML types and +yaml, else the type itself.
func syntaxOf(mt string) string {
	switch {
	case mt == "application/json" || strings.HasSuffix(mt, "+json"):
		return "json"
	case mt == "application/yaml" || mt == "application/x-yaml" || mt == "text/yaml" || mt == "text/x-yaml" ||
		mt == "application/vnd.oai.openapi" || strings.HasSuffix(mt, "+yaml"):
		return "yaml"
	}
	return mt
}
