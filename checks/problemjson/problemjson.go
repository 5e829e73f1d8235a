// Package problemjson checks that error responses are RFC 9457 problem
// details an agent can act on, and that they leak nothing. It judges every
// 4xx and 5xx the scan met (the crawl, the negotiation probes' 406s and 405s)
// plus a few safe error probes of its own: a not-found sibling per path
// shape, an unknown path, and query edge cases on collections. A 5xx to any
// safe request the scan sent, whichever family sent it, is a server error.
package problemjson

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/internal/conneg"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
)

// All returns the family's checks.
func All() []checks.Check {
	return []checks.Check{
		MediaType{}, DeclaredMediaType{}, ServedAsJSON{}, InvalidJSON{},
		StatusMismatch{}, MemberType{}, TypeURI{}, TitleReasonPhrase{}, TitleVaries{},
		ExtensionNames{}, ServerError{}, Leak{}, DeclaredType{}, UndeclaredStatus{}, RetryAfter{},
		SuccessLabelled{}, SuccessDeclared{}, QueryDecoding{}, ErrorsDeclared{},
	}
}

// probes is embedded by every check: they share one plan, which the probe
// de-duplicates, and the note that accounts for it.
type probes struct{}

func (probes) Plan(in *checks.PlanInput) []exchange.PlannedRequest { return plan(in) }

// PlanFollowUp sends again the two spellings of a query that were answered
// differently, so that only a difference that holds is reported, and the
// other families' probes that failed with a 5xx, so that only a failure
// that holds is.
func (probes) PlanFollowUp(in *checks.PlanInput) []exchange.PlannedRequest {
	return slices.Concat(planQueryRepeats(in), planConfirmations(in))
}

// Parts implements checks.WithParts.
func (probes) Parts() []checks.Part { return []checks.Part{probeNote{}} }

const (
	mediaProblemJSON = "application/problem+json"
	mediaProblemXML  = "application/problem+xml"
)

func rfc9457(section, level string) finding.SpecRef {
	return finding.SpecRef{
		Doc: "RFC 9457", Section: section, Level: level,
		URL: "https://www.rfc-editor.org/rfc/rfc9457#section-" + section,
	}
}

// judgedPurpose says whose error responses this family judges: the crawl,
// its own probes, and the negotiation probes (whose 406 it reuses rather
// than sending again). Other families' probes speak other protocols.
func judgedPurpose(p string) bool {
	return p == exchange.PurposeCrawl || strings.HasPrefix(p, PurposePrefix) ||
		strings.HasPrefix(p, "negotiation/") || strings.HasPrefix(p, "vary/")
}

var errorsKey = checks.NewKey[[]*exchange.Exchange]()

// errorResponses are the judged 4xx and 5xx answers, in recording order,
// then those the less privileged identities were given that the most
// privileged one was not, one per URL and status. HEAD is left out: it has
// no body and repeats GET's status. So are repeats, which would count one
// answer twice, and resources whose status changed between identical
// requests, which only negotiation-unstable-resource judges.
func errorResponses(in *checks.Input) []*exchange.Exchange {
	return checks.Memo(in, errorsKey, func() []*exchange.Exchange {
		var out []*exchange.Exchange
		seen := map[string]bool{}
		add := func(x *exchange.Exchange, judged func(string) bool) {
			if x.Response == nil || x.Request.Method == http.MethodHead || !judged(x.Purpose) || conneg.IsRepeat(x.Purpose) {
				return
			}
			if s := x.Response.Status; s < 400 || s > 599 || conneg.IsUnstable(in, resourceOf(x)) {
				return
			}
			k := fmt.Sprint(x.Response.Status) + " " + x.Request.URL
			if x.Identity != "" && x.Identity != in.Caller.Name && seen[k] {
				return
			}
			seen[k] = true
			out = append(out, x)
		}
		for _, x := range in.Recording.Exchanges {
			add(x, judgedPurpose)
		}
		for _, v := range in.Identities {
			if v.Recording == nil || v.Recording == in.Recording || v.Name == in.Caller.Name {
				continue
			}
			for _, x := range v.Recording.Exchanges {
				add(x, judgedLowerPurpose)
			}
		}
		return out
	})
}

// judgedLowerPurpose says which answers to a less privileged identity are
// judged: its crawl and the leakage family's fetches of what the most
// privileged identity was shown, which are where it meets 401 and 403.
func judgedLowerPurpose(p string) bool {
	return p == exchange.PurposeCrawl || strings.HasPrefix(p, "leakage/")
}

// resourceOf is the resource an exchange was sent for.
func resourceOf(x *exchange.Exchange) string {
	if x.BasedOn != "" {
		return x.BasedOn
	}
	return x.Request.URL
}

// speaksJSON reports whether the scanned app is a JSON API: at least one
// sampled resource answered JSON. Error format is only judged for those,
// because an HTML 404 page is right for a web site.
func speaksJSON(in *checks.Input) bool {
	for _, s := range in.Samples {
		if s.Response != nil && exchange.IsJSONMediaType(s.Response.MediaType()) {
			return true
		}
	}
	return false
}

// errorsToJudge returns the error responses, or a skip explaining why none
// can be judged.
func errorsToJudge(in *checks.Input) ([]*exchange.Exchange, error) {
	if !speaksJSON(in) {
		return nil, checks.Skip("no sampled resource answered JSON, so the target is not judged as an API")
	}
	xs := errorResponses(in)
	if len(xs) == 0 {
		return nil, checks.Skip("no 4xx or 5xx response was observed")
	}
	return xs, nil
}

// eachError is the walk of a check that judges the error responses one by
// one: what judge finds in each (occurrences, or the problems to judge), in
// order, or the skip that says why there is no error response to judge.
func eachError[T any](ctx context.Context, in *checks.Input, judge func(x *exchange.Exchange) []T) ([]T, error) {
	xs, err := errorsToJudge(in)
	if err != nil {
		return nil, err
	}
	var out []T
	for _, x := range xs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		out = append(out, judge(x)...)
	}
	return out, nil
}

// problem is a decoded problem details object.
type problem struct {
	members map[string]any
}

// readable reports whether the body can be judged: present and complete.
func readable(x *exchange.Exchange) bool {
	return !x.Response.Truncated && !x.Response.Dropped
}

// decodeProblem returns the problem object of a response served as
// problem+json, or served as other JSON with a problem's shape.
func decodeProblem(x *exchange.Exchange) (problem, bool) {
	if !readable(x) {
		return problem{}, false
	}
	mt := x.Response.MediaType()
	if mt != mediaProblemJSON && !exchange.IsJSONMediaType(mt) {
		return problem{}, false
	}
	if !json.Valid(x.Response.Body) {
		return problem{}, false
	}
	v, err := x.Response.JSON()
	obj, ok := v.(map[string]any)
	if err != nil || !ok {
		return problem{}, false
	}
	p := problem{members: obj}
	if mt != mediaProblemJSON && !p.shaped() {
		return problem{}, false
	}
	return p, true
}

var standardMembers = []string{"type", "title", "status", "detail", "instance"}

// shaped reports an object that reads as problem details: two standard
// members, one of them a string type, title or detail. A framework's
// {"status":404,"error":"Not Found"} is not one.
func (p problem) shaped() bool {
	present, text := 0, false
	for _, m := range standardMembers {
		v, ok := p.members[m]
		if !ok {
			continue
		}
		present++
		if _, isString := v.(string); isString && m != "status" && m != "instance" {
			text = true
		}
	}
	return present >= 2 && text
}

// str returns a member that is a JSON string.
func (p problem) str(name string) (string, bool) {
	s, ok := p.members[name].(string)
	return s, ok
}

// typeURI is the type member as the consumer sees it: absent or of the
// wrong JSON type means about:blank (RFC 9457 §3.1, §3.1.1).
func (p problem) typeURI() string {
	if s, ok := p.str("type"); ok {
		return s
	}
	return "about:blank"
}

// occurrence is one exchange that breaks a rule, with what to say about it.
type occurrence struct {
	x       *exchange.Exchange
	subject string
	message string
	ev      finding.Evidence
}

// group reports repeated occurrences once per status, path shape and
// subject, naming how many there were: fifty 404s from one route are one
// problem.
func group(m checks.Meta, occs []occurrence) []finding.Finding {
	type key struct {
		status         int
		shape, subject string
	}
	var order []key
	byKey := map[key][]occurrence{}
	for _, o := range occs {
		k := key{o.x.Response.Status, exchange.PathShape(exchange.PathOf(o.x.Request.URL)), o.subject}
		if _, ok := byKey[k]; !ok {
			order = append(order, k)
		}
		byKey[k] = append(byKey[k], o)
	}
	out := make([]finding.Finding, 0, len(order))
	for _, k := range order {
		os := byKey[k]
		msg := os[0].message
		if n := len(os); n > 1 {
			msg += fmt.Sprintf(" (%d responses like it)", n)
		}
		out = append(out, checks.New(m, k.subject, msg, os[0].ev))
	}
	return out
}

// evidence names the headers that matter for an error response.
func evidence(x *exchange.Exchange, actual, expected string) finding.Evidence {
	ev := checks.Evidence(x, []string{"Accept"}, []string{"Content-Type", "Content-Language", "Allow"})
	ev.Actual, ev.Expected = actual, expected
	return ev
}

// describe names a request in a message: method, path and query.
func describe(x *exchange.Exchange) string {
	target := exchange.PathOf(x.Request.URL)
	if i := strings.IndexByte(x.Request.URL, '?'); i >= 0 {
		target += x.Request.URL[i:]
	}
	if x.Identity != "" {
		return fmt.Sprintf("%s %s (as %q)", x.Request.Method, target, x.Identity)
	}
	return x.Request.Method + " " + target
}

func mediaOrNone(x *exchange.Exchange) string {
	if mt := x.Response.MediaType(); mt != "" {
		return mt
	}
	if len(x.Response.Body) == 0 && x.Response.BodySize == 0 {
		return "no body"
	}
	return "no Content-Type"
}
