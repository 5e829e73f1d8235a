// Package coverage says what a scan reached and what it could not: pages
// by status class, the API resources that answered, the GET operations of
// the OpenAPI document, and the likely cause when nothing was reached. It
// reads the recording only, so every reporter and the grade rest on the
// same account.
package coverage

import (
	"bytes"
	"fmt"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"strings"

	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/halview"
	"github.com/agentready/agentready/internal/oauthmeta"
	"github.com/agentready/agentready/internal/sanitize"
	"github.com/agentready/agentready/internal/spec"
)

// Of is what the judged identity's crawl reached: pages by status class,
// the distinct API resources that answered 2xx, the surfaces seen, and,
// when nothing was reached, the likely cause. ops are the document's
// operations as Operations counted them, nil without a document; mcp says
// whether an MCP endpoint answered; sent are the probe's counts of
// throttled requests (probe.Result.Throttling), nil when there were none.
func Of(rec *exchange.Recording, start *url.URL, doc *spec.Document, mcp bool, ops *finding.OperationCoverage, sent *finding.Throttling) *finding.Coverage {
	c := &finding.Coverage{Pages: map[string]int{}, Operations: ops}
	specURL := ""
	if doc != nil {
		specURL = doc.Source
		c.Surfaces = append(c.Surfaces, finding.SurfaceOpenAPI)
	}
	resources := map[string]bool{}
	hyper, stateful := false, false
	var crawlGETs, crawlThrottled int
	for _, x := range rec.Exchanges {
		hyper = hyper || offersHypermedia(x)
		stateful = stateful || carriesNextActions(x)
		if x.Purpose != exchange.PurposeCrawl {
			continue
		}
		c.Pages[statusClass(x.Response)]++
		if x.Request.Method == http.MethodGet {
			crawlGETs++
			if x.Response.Throttled() {
				crawlThrottled++
			}
		}
		if isAPIResource(x, specURL) {
			resources[x.Request.URL] = true
		}
	}
	c.APIResources = len(resources)
	if hyper {
		c.Surfaces = append(c.Surfaces, finding.SurfaceHypermedia)
	}
	if stateful {
		c.Surfaces = append(c.Surfaces, finding.SurfaceStatefulActions)
	}
	if mcp {
		c.Surfaces = append(c.Surfaces, finding.SurfaceMCP)
	}
	if ops != nil && ops.Declared > 0 {
		f := float64(ops.Reached) / float64(ops.Declared)
		c.Fraction = &f
	}
	if sent != nil || crawlThrottled > 0 {
		t := finding.Throttling{CrawlGETs: crawlGETs, CrawlThrottled: crawlThrottled}
		if sent != nil {
			t.Requests, t.Throttled, t.StillThrottled = sent.Requests, sent.Throttled, sent.StillThrottled
		}
		c.Throttling = &t
	}
	switch {
	case c.Throttled():
		c.Cause = ThrottledCause(c.Throttling)
	case !c.Reached():
		c.Cause = likelyCause(rec, start, doc, ops)
	}
	return c
}

// ThrottledCause says why a crawl the server throttled too much has no
// grade (finding.Throttling.Overwhelmed), and what to pass instead.
func ThrottledCause(t *finding.Throttling) string {
	return fmt.Sprintf("the server throttled more than half of the crawl's GET requests (%d of %d); lower --rate or --concurrency", t.CrawlThrottled, t.CrawlGETs)
}

// MCPAnswered reports an MCP endpoint that spoke either revision.
func MCPAnswered(info *finding.MCPInfo) bool {
	return info != nil && (info.Era == "modern" || info.Era == "legacy")
}

// statusClass is "2xx" for a 204, "none" when no answer came back.
func statusClass(r *exchange.Response) string {
	if r == nil || r.Status < 100 || r.Status > 599 {
		return "none"
	}
	return fmt.Sprintf("%dxx", r.Status/100)
}

// isAPIResource reports a crawled GET that answered 2xx with a media type an
// API serves. HTML pages are a site's, and discovery documents (robots.txt,
// llms.txt, the well-known files, the OpenAPI document itself) describe the
// API without being part of it.
func isAPIResource(x *exchange.Exchange, specURL string) bool {
	r := x.Response
	if r == nil || x.Request.Method != http.MethodGet || r.Status < 200 || r.Status > 299 {
		return false
	}
	return isAPIMediaType(r.MediaType()) && !isDiscoveryDocument(x.Request.URL, specURL)
}

func isAPIMediaType(mt string) bool {
	switch {
	case exchange.IsJSONMediaType(mt), mt == "text/plain":
		return true
	case mt == "application/xml", mt == "text/xml", strings.HasSuffix(mt, "+xml"):
		return true
	case mt == "application/yaml", mt == "application/x-yaml", mt == "text/yaml", mt == "text/x-yaml", strings.HasSuffix(mt, "+yaml"):
		return true
	}
	return false
}

// discoveryFiles are the paths of documents about a site or an API.
var discoveryFiles = map[string]bool{"/robots.txt": true, "/llms.txt": true, "/llms-full.txt": true, "/sitemap.xml": true}

func isDiscoveryDocument(rawURL, specURL string) bool {
	if specURL != "" && rawURL == specURL {
		return true
	}
	p := exchange.PathOf(rawURL)
	base := path.Base(p)
	return discoveryFiles[p] || strings.HasPrefix(p, "/.well-known/") ||
		strings.HasPrefix(base, "openapi.") || strings.HasPrefix(base, "swagger.")
}

// affordanceMembers mark a JSON body that offers controls without HAL; a
// substring test suffices, since it only decides whether the hypermedia
// families are "not present" or judged.
var affordanceMembers = [][]byte{[]byte(`"affordances"`), []byte(`"unavailableAffordances"`), []byte(`"next_actions"`)}

// offersHypermedia reports a 2xx response served as HAL or HAL-FORMS, or a
// JSON one that carries affordances or next actions.
func offersHypermedia(x *exchange.Exchange) bool {
	r := x.Response
	if r == nil || r.Status < 200 || r.Status > 299 {
		return false
	}
	mt := r.MediaType()
	if halview.IsHAL(mt) || mt == halview.MediaHALForms {
		return true
	}
	if !exchange.IsJSONMediaType(mt) {
		return false
	}
	for _, m := range affordanceMembers {
		if bytes.Contains(r.Body, m) {
			return true
		}
	}
	return false
}

// carriesNextActions reports a 2xx JSON response that names next_actions;
// a substring test suffices, as for offersHypermedia.
func carriesNextActions(x *exchange.Exchange) bool {
	r := x.Response
	return r != nil && r.Status >= 200 && r.Status <= 299 && exchange.IsJSONMediaType(r.MediaType()) &&
		bytes.Contains(r.Body, []byte(`"next_actions"`))
}

// likelyCause names the misconfiguration that most often leaves a scan
// with nothing reached, and what to pass instead. It reads the crawl in
// order of how sure the evidence is: a refusal says credentials, a 4xx
// everywhere below a declared base path says the path, an HTML start page
// says the start URL.
func likelyCause(rec *exchange.Recording, start *url.URL, doc *spec.Document, ops *finding.OperationCoverage) string {
	var total, answered, denied, clientErrors int
	var startPage *exchange.Exchange
	var refused refusedCredentials
	for x := range rec.Crawled() {
		total++
		if x.Source == exchange.SourceStart || start != nil && x.Request.URL == start.String() {
			startPage = x
		}
		r := x.Response
		if r == nil {
			continue
		}
		answered++
		switch {
		case r.Status == http.StatusUnauthorized || r.Status == http.StatusForbidden:
			denied++
			clientErrors++
			refused.note(x)
		case r.Status >= 400 && r.Status < 500:
			clientErrors++
		}
	}
	needCredentials := operationsFor(ops, finding.ReasonCredentials)
	base := declaredBasePath(doc)
	switch {
	case answered == 0:
		return "no page answered: check that the start URL is the API's and that it can be reached from here"
	case refused.sent:
		return fmt.Sprintf("%d of %d pages answered 401 or 403: %s", denied, total, refused.advice())
	case denied > 0 || needCredentials > 0:
		return credentialsCause(denied, total, needCredentials)
	case clientErrors == answered && base != "":
		return fmt.Sprintf("every page answered 4xx, and the OpenAPI document's servers put the API under %s, where nothing answered: "+
			"start the scan at the path this server serves the API under, or pass a document whose servers match it with --openapi", base)
	case startPage != nil && startPage.Response != nil && startPage.Response.MediaType() == "text/html":
		return "the start page is HTML and links to no API resource on its origin: start the scan at an API resource (a URL that answers JSON), " +
			"or pass the API's OpenAPI document with --openapi so the scan can find its operations"
	case clientErrors == answered:
		return "every page answered 4xx: start the scan at an API resource, or pass the API's OpenAPI document with --openapi so the scan can find its operations"
	}
	return "no page answered 2xx with an API media type (JSON, XML, YAML or plain text): start the scan at an API resource, " +
		"or pass the API's OpenAPI document with --openapi"
}

func credentialsCause(denied, total, operations int) string {
	what := fmt.Sprintf("%d of %d pages answered 401 or 403", denied, total)
	if denied == 0 {
		what = fmt.Sprintf("%d GET operations need credentials", operations)
	}
	return what + ": the API needs credentials; pass them with -H (e.g. -H 'Authorization: Bearer …', or the header the API expects), " +
		"or scan as several callers with --identity and --header-for"
}

// refusedCredentials is what the crawl learnt of credentials it sent and
// the server answered 401 to: a user who passed them needs to hear that they
// were refused, and why, rather than to pass some.
type refusedCredentials struct {
	sent      bool
	challenge oauthmeta.Refusal
	said      bool // challenge holds the first refusal that gave a reason
}

// note reads a 401 or 403 answer. Credentials sent show in the recorded
// request as Redacted: the user's -H values, an identity's header, an
// OAuth token.
func (c *refusedCredentials) note(x *exchange.Exchange) {
	if x.Response.Status != http.StatusUnauthorized || !carriesSecret(x.Request.Header) {
		return
	}
	c.sent = true
	if !c.said {
		c.challenge, c.said = oauthmeta.RefusalOf(x.Response.Header.Values("WWW-Authenticate"))
	}
}

func carriesSecret(h http.Header) bool {
	for _, vs := range h {
		for _, v := range vs {
			if strings.Contains(v, exchange.Redacted) {
				return true
			}
		}
	}
	return false
}

// Bounds of what the advice quotes of the server's challenge.
const (
	maxChallengeError       = 64
	maxChallengeDescription = 200
)

// advice says the credentials were refused, quoting the challenge's error
// and description (RFC 6750 §3), sanitized and bounded: they are the
// server's words.
func (c refusedCredentials) advice() string {
	const renew = "; renew them, or check that they are the ones this API expects"
	if !c.said {
		return "the server refused the credentials sent, without an error in its WWW-Authenticate challenge" + renew
	}
	quoted := func(s string, n int) string { return strconv.Quote(sanitize.Truncate(sanitize.Line(s), n)) }
	why := "error=" + quoted(c.challenge.Error, maxChallengeError)
	if scheme := sanitize.Truncate(sanitize.Line(c.challenge.Scheme), 20); scheme != "" {
		why = scheme + " " + why
	}
	if c.challenge.Description != "" {
		why += ": " + quoted(c.challenge.Description, maxChallengeDescription)
	}
	return "the server refused the credentials sent (" + why + ")" + renew
}

func operationsFor(ops *finding.OperationCoverage, reason string) int {
	if ops == nil {
		return 0
	}
	n := 0
	for _, it := range ops.Items {
		if !it.Reached && it.Reason == reason {
			n++
		}
	}
	return n
}

// declaredBasePath is the first non-root path of the document's servers,
// the one the crawl puts operations under when the start URL is outside
// them all.
func declaredBasePath(doc *spec.Document) string {
	if doc == nil {
		return ""
	}
	for _, b := range doc.BasePaths {
		if b = strings.TrimSuffix(b, "/"); b != "" {
			return b
		}
	}
	return ""
}
