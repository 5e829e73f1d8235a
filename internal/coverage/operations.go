package coverage

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/spec"
	"github.com/agentready/agentready/probe"
)

// Facts are what the probe knew about the document's operations that
// the recording cannot show.
type Facts struct {
	// Explored is set when the crawl requested the document's operations;
	// Unfilled then names, per operation key, why one never had a URL.
	Explored bool
	Unfilled map[string]string
	// BasePath is the prefix the operations were requested under;
	// BaseMismatch says that neither candidate answered but 404.
	BasePath     string
	BaseMismatch bool
}

// Operations says, for each GET operation the document declares,
// whether the crawl reached it with a 2xx, else the best status it got,
// else why it was not requested. Only requests that asked for the
// operation itself count (the crawl and the base-path probes): an error
// probe's deliberate 404 says nothing about whether the operation was
// reachable.
func Operations(doc *spec.Document, rec *exchange.Recording, facts Facts) *finding.OperationCoverage {
	best := bestAnswers(doc, rec, facts.BasePath)
	out := &finding.OperationCoverage{Items: []finding.OperationReach{}}
	for _, op := range doc.Operations {
		if op.Method != http.MethodGet {
			continue
		}
		item := finding.OperationReach{Method: op.Method, Path: op.PathTemplate, OperationID: op.OperationID}
		if x := best[op]; x != nil {
			item.URL = x.Request.URL
			if x.Response != nil {
				item.Status = x.Response.Status
			}
			item.Reached = item.Status/100 == 2
			if !item.Reached {
				item.Reason = answeredReason(doc, op, x, facts)
			}
		} else {
			item.Reason = unsentReason(op, facts)
		}
		out.Declared++
		if item.Reached {
			out.Reached++
		}
		out.Items = append(out.Items, item)
	}
	return out
}

// bestAnswers picks, per operation, the request that went best: a 2xx, else
// a 3xx, else another 4xx, else a 5xx, else a 404, else one with no answer;
// the first in recording order among equals.
func bestAnswers(doc *spec.Document, rec *exchange.Recording, basePath string) map[*spec.Operation]*exchange.Exchange {
	best := map[*spec.Operation]*exchange.Exchange{}
	if rec == nil {
		return best
	}
	ix := doc.Index()
	for _, x := range rec.Exchanges {
		if x.Request.Method != http.MethodGet || !countsForReach(x.Purpose) {
			continue
		}
		op := ix.Match(http.MethodGet, withoutBase(x.Request.URL, basePath))
		if op == nil {
			continue
		}
		if cur, ok := best[op]; !ok || answerRank(x) < answerRank(cur) {
			best[op] = x
		}
	}
	return best
}

// withoutBase is the path of a URL with a base path the document does not
// declare (one given with --base-path) taken off; the index strips the
// declared ones itself.
func withoutBase(rawURL, base string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return rawURL
	}
	p := u.EscapedPath()
	if base == "" {
		return p
	}
	if rest, ok := strings.CutPrefix(p, base); ok && (rest == "" || strings.HasPrefix(rest, "/")) {
		if rest == "" {
			rest = "/"
		}
		return rest
	}
	return p
}

func answerRank(x *exchange.Exchange) int {
	if x.Response == nil {
		return 6
	}
	switch st := x.Response.Status; {
	case st/100 == 2:
		return 0
	case st/100 == 3:
		return 1
	case st == http.StatusNotFound:
		return 4
	case st/100 == 4:
		return 2
	case st/100 == 5:
		return 3
	}
	return 5
}

// answeredReason says why an operation that was requested was not reached.
func answeredReason(doc *spec.Document, op *spec.Operation, x *exchange.Exchange, facts Facts) string {
	st := 0
	if x.Response != nil {
		st = x.Response.Status
	}
	switch {
	case st == http.StatusUnauthorized || st == http.StatusForbidden:
		return finding.ReasonCredentials
	case requiresSecurity(op) && !sentCredential(doc, op, x):
		return finding.ReasonCredentials
	case st == http.StatusPaymentRequired:
		return finding.ReasonPayment
	case st == http.StatusNotFound && facts.BaseMismatch:
		return finding.ReasonBasePath
	}
	return finding.ReasonAnsweredError
}

// unsentReason says why an operation was never requested: the exploration's
// reason when it had one, else what the operation needs, else the bounds.
func unsentReason(op *spec.Operation, facts Facts) string {
	if r := facts.Unfilled[op.Key()]; r != "" {
		return r
	}
	if !facts.Explored {
		switch {
		case strings.Contains(op.PathTemplate, "{"):
			return finding.ReasonPathParameter
		case requiresNonPath(op):
			return finding.ReasonRequiredParameter
		}
	}
	return finding.ReasonBudget
}

func requiresNonPath(op *spec.Operation) bool {
	for _, p := range op.Parameters {
		if p.Required && p.In != "path" {
			return true
		}
	}
	return false
}

// requiresSecurity reports an operation every alternative of whose
// security requirement names a scheme: none lets an anonymous caller in.
func requiresSecurity(op *spec.Operation) bool {
	if len(op.Security) == 0 {
		return false
	}
	for _, alt := range op.Security {
		if len(alt) == 0 {
			return false
		}
	}
	return true
}

// sentCredential reports whether x carried what some alternative of op's
// security requirement asks for: an Authorization header for http, OAuth 2
// and OpenID Connect schemes, the named header, query parameter or cookie
// for API keys. The recording keeps header names even when it redacts
// their values.
func sentCredential(doc *spec.Document, op *spec.Operation, x *exchange.Exchange) bool {
	for _, alt := range op.Security {
		all := true
		for name := range alt {
			all = all && carries(x, doc.SecuritySchemes[name])
		}
		if all {
			return true
		}
	}
	return false
}

func carries(x *exchange.Exchange, s spec.SecurityScheme) bool {
	h := x.Request.Header
	switch s.Type {
	case "http", "oauth2", "openIdConnect":
		return h.Get("Authorization") != ""
	case "apiKey":
		switch s.In {
		case "header":
			return h.Get(s.Name) != ""
		case "query":
			u, err := url.Parse(x.Request.URL)
			return err == nil && u.Query().Has(s.Name)
		case "cookie":
			r := http.Request{Header: http.Header{"Cookie": h.Values("Cookie")}}
			_, err := r.Cookie(s.Name)
			return err == nil || strings.Contains(strings.Join(h.Values("Cookie"), ";"), exchange.Redacted)
		}
	}
	return false
}

// countsForReach tells the requests that asked for an operation as such:
// the crawl's, the base-path probes', and the fetch of a document that is
// itself an operation (GET /openapi.json).
func countsForReach(purpose string) bool {
	return purpose == exchange.PurposeCrawl || purpose == probe.PurposeBasePath || purpose == probe.PurposeSpecFetch
}
