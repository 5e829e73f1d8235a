package activeplan

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strings"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/internal/hypermedia"
	"github.com/agentready/agentready/checks/internal/purpose"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/spec"
)

// Kinds selects the probes to plan; a kind whose check will not run is not
// sent, since nothing would judge its answer.
type Kinds struct{ Hidden, Stale, State, OffList, Patch, Replay bool }

// PlanActive implements checks.ActivePlanner: the allow-list plans the kinds
// of probe the selected checks judge.
func (rs Rules) PlanActive(in *checks.ActivePlanInput) []exchange.ActiveRequest {
	kinds := Kinds{Hidden: in.Needs.Has(checks.NeedsActiveHidden), Stale: in.Needs.Has(checks.NeedsActiveStale),
		State: in.Needs.Has(checks.NeedsActiveState), OffList: in.Needs.Has(checks.NeedsActiveOffList),
		Patch: in.Needs.Has(checks.NeedsActivePatch), Replay: in.Needs.Has(checks.NeedsActiveReplay)}
	return Plan(in.Views, in.Spec, rs, kinds)
}

// Plan lists the active probes the recordings of views (what each identity
// was shown, least privileged first) call for and the rules allow,
// stale-version probes first, then hidden operations, state transitions,
// and the next_actions flows' patch-outside, idempotent-replay and off-list
// probes, in a stable order, bounded by MaxPerKind each (a flow probe is
// the one request of its kind, or two sends of it, with the re-reads of the
// node that follow). No two kinds target the same URL, so
// that a probe wrongly executed cannot turn another kind's answer into a
// refusal for another reason.
func Plan(views []checks.IdentityView, doc *spec.Document, rules Rules, kinds Kinds) []exchange.ActiveRequest {
	if len(views) == 0 || len(rules) == 0 {
		return nil
	}
	var idx *spec.Index
	if doc != nil {
		idx = doc.Index()
	}
	allowed := func(o hypermedia.Offer) bool {
		var op *spec.Operation
		if idx != nil {
			op = idx.Match(o.Method, o.Target)
		}
		// A target the recording redacted is not the real URL any more.
		return !safe(o.Method) && !strings.Contains(o.Target, exchange.Redacted) && rules.Allows(o.Method, o.Target, op)
	}
	top := views[len(views)-1]
	topOffers := offersByResource(top.Recording, doc)
	var hiddenReqs []exchange.ActiveRequest
	if kinds.Hidden {
		taken := map[string]bool{}
		for _, v := range views[:len(views)-1] {
			hiddenReqs = append(hiddenReqs, hidden(v, top.Name, topOffers, offersByResource(v.Recording, doc), allowed, taken)...)
		}
		hiddenReqs = trimKind(hiddenReqs, purpose.ActiveHidden, MaxPerKind)
	}
	var out []exchange.ActiveRequest
	if kinds.Stale {
		taken := map[string]bool{}
		for _, r := range hiddenReqs {
			taken[r.URL] = true
		}
		out = stale(top, topOffers, allowed, taken)
	}
	out = append(out, hiddenReqs...)
	if kinds.State {
		taken := map[string]bool{}
		for _, r := range out {
			taken[r.URL] = true
		}
		out = append(out, transitions(top, doc, allowed, taken)...)
	}
	if kinds.OffList || kinds.Patch || kinds.Replay {
		f := &flowPlanner{top: top, nodes: FlowNodes(top.Recording, doc), taken: map[string]bool{},
			allowed: func(method, target string, op *spec.Operation) bool { return rules.Allows(method, target, op) }}
		for _, r := range out {
			f.taken[r.URL], f.taken[r.BasedOn] = true, true
		}
		if kinds.Patch {
			out = append(out, f.patchOutside()...)
		}
		if kinds.Replay {
			out = append(out, f.replay()...)
		}
		if kinds.OffList {
			out = append(out, f.offList()...)
		}
	}
	return out
}

// resourceOffers is what one resource offered its caller, keyed by URL.
type resourceOffers map[string][]hypermedia.Offer

func offersByResource(rec *exchange.Recording, doc *spec.Document) resourceOffers {
	out := resourceOffers{}
	if rec == nil {
		return out
	}
	for _, x := range rec.Exchanges {
		if x.Purpose != exchange.PurposeCrawl && x.Purpose != purpose.CrossFetch {
			continue
		}
		for _, o := range hypermedia.Offers([]*exchange.Exchange{x}) {
			if o, ok := withMethod(o, doc); ok {
				out[x.Request.URL] = append(out[x.Request.URL], o)
			}
		}
		if _, ok := out[x.Request.URL]; !ok && fetchedOK(x) {
			out[x.Request.URL] = []hypermedia.Offer{}
		}
	}
	return out
}

// withMethod settles the method of an affordance entry that names none
// (hypermedia.Offer.Resolve). When it cannot be told, the control is not
// probed.
func withMethod(o hypermedia.Offer, doc *spec.Document) (hypermedia.Offer, bool) {
	method, _ := o.Resolve(doc)
	if method == "" {
		return o, false
	}
	o.Method = method
	return o, true
}

func fetchedOK(x *exchange.Exchange) bool {
	return x.Request.Method == http.MethodGet && x.Response != nil && x.Response.Status == http.StatusOK &&
		!x.Response.Truncated && !x.Response.Dropped && exchange.IsJSONMediaType(x.Response.MediaType())
}

func sortedURLs(m resourceOffers) []string {
	out := make([]string, 0, len(m))
	for u := range m {
		out = append(out, u)
	}
	sort.Strings(out)
	return out
}

// operationKey groups requests to the same operation: one probe each.
func operationKey(identity string, o hypermedia.Offer) string {
	return identity + " " + o.Method + " " + exchange.PathShape(exchange.PathOf(o.Target))
}

// stale plans, as the most privileged identity, one request per offered
// operation on a resource that has an entity tag or a validForVersion,
// conditional on StaleETag.
func stale(top checks.IdentityView, offers resourceOffers, allowed func(hypermedia.Offer) bool, taken map[string]bool) []exchange.ActiveRequest {
	var out []exchange.ActiveRequest
	seen := map[string]bool{}
	for _, u := range sortedURLs(offers) {
		for _, o := range offers[u] {
			key := operationKey(top.Name, o)
			if seen[key] || taken[o.Target] || !allowed(o) || !versioned(o) || len(out) >= MaxPerKind {
				continue
			}
			seen[key] = true
			req := request(o, purpose.ActiveStale, top.Name, true)
			req.Header.Set("If-Match", StaleETag)
			req.Why = fmt.Sprintf("%s on %s, conditional on a version it does not have: must be refused with 412 or 409",
				o.Name, exchange.PathOf(u))
			out = append(out, req)
		}
	}
	return out
}

// RefusesStale reports the refusals a stale-version probe should get: the
// precondition failed (412), or the server reports the conflict in its own
// terms (409).
func RefusesStale(status int) bool {
	return status == http.StatusPreconditionFailed || status == http.StatusConflict
}

// versioned reports a control whose request a version governs: one that
// says which version it is valid for, or one that acts on the very resource
// whose entity tag the response carried. A control on another URL (a POST
// into a sub-collection) is not governed by that tag, and many servers
// rightly ignore If-Match there.
func versioned(o hypermedia.Offer) bool {
	if _, ok := o.Control["validForVersion"]; ok {
		return true
	}
	return o.X.Response != nil && o.X.Response.Header.Get("ETag") != "" && sameResource(o.Target, o.X.Request.URL)
}

func sameResource(a, b string) bool {
	ua, errA := url.Parse(a)
	ub, errB := url.Parse(b)
	return errA == nil && errB == nil && ua.Host == ub.Host && strings.TrimSuffix(ua.Path, "/") == strings.TrimSuffix(ub.Path, "/")
}

// hidden plans, as a lower identity, the requests behind controls the most
// privileged identity was offered on a resource the lower identity also read
// successfully without that control.
// taken holds the targets earlier identities probe: each identity gets
// another resource where there is one, so that a request wrongly executed
// for one caller does not turn the next caller's answer into a 409.
func hidden(low checks.IdentityView, topName string, topOffers, lowOffers resourceOffers, allowed func(hypermedia.Offer) bool, taken map[string]bool) []exchange.ActiveRequest {
	var out []exchange.ActiveRequest
	seen := map[string]bool{}
	for _, u := range sortedURLs(topOffers) {
		mine, read := lowOffers[u]
		if !read {
			continue
		}
		for _, o := range topOffers[u] {
			key := operationKey(low.Name, o)
			if seen[key] || taken[o.Target] || !allowed(o) || offered(mine, o) {
				continue
			}
			seen[key], taken[o.Target] = true, true
			req := request(o, purpose.ActiveHidden, low.Name, false)
			req.Why = fmt.Sprintf("%s, offered on %s to %q only: must be refused with 401, 403, 404 or 409 and problem+json",
				o.Name, exchange.PathOf(u), topName)
			out = append(out, req)
		}
	}
	return out
}

// RefusesHidden reports the refusals a hidden-operation probe should get,
// in terms a client can act on: authenticate (401), not allowed (403), no
// such resource for this caller, which also hides its existence (404), or
// not in this state (409).
func RefusesHidden(status int) bool {
	switch status {
	case http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound, http.StatusConflict:
		return true
	}
	return false
}

func offered(offers []hypermedia.Offer, o hypermedia.Offer) bool {
	for _, m := range offers {
		if m.Method == o.Method && m.Target == o.Target {
			return true
		}
	}
	return false
}

func request(o hypermedia.Offer, purpose, identity string, ownValues bool) exchange.ActiveRequest {
	body, contentType := Body(o.Control, ownValues)
	h := http.Header{}
	h.Set("Content-Type", contentType)
	h.Set("Accept", "application/problem+json, application/hal+json;q=0.9, application/json;q=0.8")
	return exchange.ActiveRequest{
		PlannedRequest: exchange.PlannedRequest{Purpose: purpose, Method: o.Method, URL: o.Target, Header: h, BasedOn: o.X.Request.URL, Body: body},
		Identity:       identity,
		Operation:      o.Name,
	}
}

func countKind(rs []exchange.ActiveRequest, purpose string) int {
	n := 0
	for _, r := range rs {
		if r.Purpose == purpose {
			n++
		}
	}
	return n
}

func trimKind(rs []exchange.ActiveRequest, purpose string, limit int) []exchange.ActiveRequest {
	if countKind(rs, purpose) <= limit {
		return rs
	}
	var out []exchange.ActiveRequest
	n := 0
	for _, r := range rs {
		if r.Purpose == purpose {
			if n >= limit {
				continue
			}
			n++
		}
		out = append(out, r)
	}
	return out
}

// placeholder is the text sent for a required property without a value.
const placeholder = "agentready active probe"

// Body builds the request body a control describes, so that a server that
// skips its checks has a request it can accept: an affordance's bound
// arguments, or a HAL-FORMS template's properties with their values, and a
// placeholder of their type for required ones without a value. ownValues is
// false when the request is sent as another identity than the one the
// control was shown to: the values of hidden properties, which a server
// fills in for that caller (an anti-forgery token, say), are not replayed as
// someone else. With nothing to send, the body is {}.
func Body(control map[string]any, ownValues bool) ([]byte, string) {
	contentType, _ := control["contentType"].(string)
	if contentType == "" {
		contentType = "application/json"
	}
	values := map[string]any{}
	if args, ok := control["arguments"].(map[string]any); ok {
		for k, v := range args {
			values[k] = v
		}
	}
	props, _ := control["properties"].([]any)
	for _, p := range props {
		prop, _ := p.(map[string]any)
		name, _ := prop["name"].(string)
		if name == "" {
			continue
		}
		if v, ok := prop["value"]; ok && v != "" && v != nil && (ownValues || prop["type"] != "hidden") {
			values[name] = v
			continue
		}
		if prop["required"] == true {
			values[name] = placeholderFor(prop)
		}
	}
	if strings.HasPrefix(contentType, "application/x-www-form-urlencoded") {
		form := url.Values{}
		for k, v := range values {
			form.Set(k, fmt.Sprint(v))
		}
		return []byte(form.Encode()), contentType
	}
	raw, err := json.Marshal(values)
	if err != nil {
		return []byte("{}"), "application/json"
	}
	return raw, "application/json"
}

func placeholderFor(prop map[string]any) any {
	switch prop["type"] {
	case "number", "range":
		if m, ok := prop["min"].(float64); ok {
			return m
		}
		return 1
	case "email":
		return "agentready@example.com"
	case "url":
		return "https://example.com/"
	case "date":
		return "2026-01-01"
	}
	return placeholder
}
