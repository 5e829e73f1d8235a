package checks

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/urlx"
)

// EnvelopeArrays are the members plain-JSON collection envelopes hold their
// items in ({"items": [...], "next": ...}).
var EnvelopeArrays = []string{"items", "data", "results"}

// CrawledTarget is the crawl's exchange for the target of a link found in
// the response to base: ref resolved against base and normalized as the
// crawler normalizes what it queues. It is nil when the crawl did not follow
// the link (another origin, a bound, a template it could not expand).
func (in *Input) CrawledTarget(base, ref string) *exchange.Exchange {
	b, err := url.Parse(base)
	if err != nil {
		return nil
	}
	r, err := url.Parse(strings.TrimSpace(ref))
	if err != nil {
		return nil
	}
	return in.Index.Get(exchange.PurposeCrawl, urlx.Normalize(b.ResolveReference(r)).String())
}

// Gone reports an answer saying the target does not exist: 404 Not Found
// or 410 Gone. Other errors (401, 405, 5xx) say something else about a
// resource that may well be there.
func Gone(x *exchange.Exchange) bool {
	if x == nil || x.Response == nil {
		return false
	}
	return x.Response.Status == http.StatusNotFound || x.Response.Status == http.StatusGone
}

// MaybeAction lowers a dead-link finding whose relation is not known to be
// read (see ReadLink) to info, and says why: a custom relation may name a
// POST-only resource, to which many routers answer GET with 404, so its
// 404 is worth a look but is no broken promise.
func MaybeAction(f finding.Finding) finding.Finding {
	f.Severity = finding.SeverityInfo
	f.Message += " (the relation is not known to be read: may be a POST-only target)"
	return f
}

// readRels are the registered link relations (IANA Link Relations) whose
// target is a resource to read: a client follows them with GET. A relation
// outside this list may name an action (HAL APIs link "pay" or "cancel" to
// POST-only resources), and many routers answer GET on those with 404.
var readRels = map[string]bool{
	"about": true, "alternate": true, "appendix": true, "archives": true, "author": true, "bookmark": true,
	"canonical": true, "chapter": true, "cite-as": true, "collection": true, "contents": true, "copyright": true,
	"current": true, "describedby": true, "describes": true, "edit-form": true, "first": true, "glossary": true,
	"help": true, "icon": true, "index": true, "item": true, "last": true, "latest-version": true, "license": true,
	"linkset": true, "next": true, "predecessor-version": true, "prev": true, "previous": true, "privacy-policy": true,
	"profile": true, "related": true, "replies": true, "search": true, "section": true, "self": true, "start": true,
	"subsection": true, "successor-version": true, "terms-of-service": true, "type": true, "up": true,
	"version-history": true, "via": true, "working-copy": true, "working-copy-of": true,
}

// ReadLink reports whether a link of relation rel to target is meant to be
// followed with GET, so that a 404 or 410 to GET says the link is dead. A
// registered relation to read is, and so is any link to a well-known URI
// (RFC 8615 defines them for retrieval); any other relation only when the
// OpenAPI document declares a GET at the target's path, or no operation
// there at all. A path with only unsafe operations is an action the link
// names.
func (in *Input) ReadLink(rel, target string) bool {
	if readRels[strings.ToLower(rel)] {
		return true
	}
	u, err := url.Parse(target)
	if err != nil {
		return false
	}
	if strings.HasPrefix(u.EscapedPath(), "/.well-known/") {
		return true
	}
	if in.Spec == nil || in.Spec.Swagger2 {
		return false
	}
	_, ops := in.Spec.Index().MatchPath(u.EscapedPath())
	return len(ops) == 0 || ops[http.MethodGet] != nil
}
