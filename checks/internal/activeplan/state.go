package activeplan

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/internal/hypermedia"
	"github.com/agentready/agentready/checks/internal/purpose"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/spec"
)

// stateful is one crawled resource whose representation names its
// lifecycle state, with the controls it offered on itself.
type stateful struct {
	x      *exchange.Exchange
	kind   string // path shape and state member: resources compared together
	state  string
	offers map[string]hypermedia.Offer // by transitionKey
}

// transitionKey names a control by method and by its target relative to the
// resource it acts on ("POST /cancellation"), the same on every resource of
// a kind. ok is false for a control that acts elsewhere: its target on
// another resource cannot be told.
func transitionKey(o hypermedia.Offer, resource string) (key, suffix string, ok bool) {
	t, errT := url.Parse(o.Target)
	r, errR := url.Parse(resource)
	if errT != nil || errR != nil || t.RawQuery != "" || t.Host != r.Host {
		return "", "", false
	}
	base := strings.TrimSuffix(r.EscapedPath(), "/")
	p := t.EscapedPath()
	if p != base && !strings.HasPrefix(p, base+"/") {
		return "", "", false
	}
	suffix = strings.TrimPrefix(p, base)
	return o.Method + " " + suffix, suffix, true
}

// statefulResources reads, from rec's crawl, each resource with a state and
// the state-changing controls of its top level: a control of an embedded
// resource is that resource's, not the page's.
func statefulResources(rec *exchange.Recording, doc *spec.Document) []stateful {
	var out []stateful
	for _, x := range rec.Exchanges {
		if x.Purpose != exchange.PurposeCrawl || !fetchedOK(x) {
			continue
		}
		v := x.Response.ReadHAL()
		if v.Err != nil || v.Doc.Root == nil {
			continue
		}
		member, state := hypermedia.StateOf(v.Doc.Root)
		if state == "" {
			continue
		}
		r := stateful{x: x, kind: hypermedia.ShapeOf(x) + " " + member, state: state, offers: map[string]hypermedia.Offer{}}
		var offers []hypermedia.Offer
		if hypermedia.Offering(x) {
			offers = hypermedia.OffersOf(x, v.Doc.Root)
		}
		for _, o := range offers {
			if strings.HasPrefix(o.Pointer, "/_embedded/") {
				continue
			}
			o, ok := withMethod(o, doc)
			if !ok || safe(o.Method) {
				continue
			}
			if key, _, ok := transitionKey(o, x.Request.URL); ok {
				if _, dup := r.offers[key]; !dup {
					r.offers[key] = o
				}
			}
		}
		out = append(out, r)
	}
	slices.SortStableFunc(out, func(a, b stateful) int { return strings.Compare(a.x.Request.URL, b.x.Request.URL) })
	return out
}

// transitions plans, as the most privileged identity, the request behind
// each control a kind of resource offered in some state, sent to a resource
// of that kind in a state where no resource offered it: one per control and
// state, on the first such resource whose target no other probe takes.
func transitions(top checks.IdentityView, doc *spec.Document, allowed func(hypermedia.Offer) bool, taken map[string]bool) []exchange.ActiveRequest {
	if top.Recording == nil {
		return nil
	}
	resources := statefulResources(top.Recording, doc)
	offeredIn := map[string]map[string]bool{} // kind + key → states
	example := map[string]stateful{}          // kind + key → first resource offering it
	var keys []string
	for _, r := range resources {
		for key := range r.offers {
			k := r.kind + "\x00" + key
			if offeredIn[k] == nil {
				offeredIn[k] = map[string]bool{}
				example[k] = r
				keys = append(keys, k)
			}
			offeredIn[k][r.state] = true
		}
	}
	slices.Sort(keys)
	var out []exchange.ActiveRequest
	for _, k := range keys {
		kind, key, _ := strings.Cut(k, "\x00")
		from := example[k]
		o := from.offers[key]
		_, suffix, _ := transitionKey(o, from.x.Request.URL)
		probed := map[string]bool{}
		for _, r := range resources {
			if len(out) >= MaxPerKind {
				return out
			}
			if r.kind != kind || offeredIn[k][r.state] || probed[r.state] {
				continue
			}
			target, ok := targetOn(r.x.Request.URL, suffix)
			moved := o
			moved.Target, moved.X = target, r.x
			if !ok || taken[target] || !allowed(moved) {
				continue
			}
			probed[r.state], taken[target] = true, true
			req := request(withoutBoundValues(moved), purpose.ActiveState, top.Name, false)
			req.Why = fmt.Sprintf("%s, offered on %s in state %q and on no resource in state %q, sent to %s (%s): must be refused with 409, 422, 403 or 404 and problem+json",
				o.Name, exchange.PathOf(from.x.Request.URL), from.state, r.state, exchange.PathOf(r.x.Request.URL), r.state)
			out = append(out, req)
		}
	}
	return out
}

// withoutBoundValues drops what the control bound to the resource it was
// offered on (an affordance's arguments, a template's hidden values): sent
// to another resource, they would name the first one, and a server that
// trusts the body would act on it instead.
func withoutBoundValues(o hypermedia.Offer) hypermedia.Offer {
	control := make(map[string]any, len(o.Control))
	for k, v := range o.Control {
		if k != "arguments" {
			control[k] = v
		}
	}
	o.Control = control
	return o
}

// targetOn is the URL of the control whose target is suffix relative to
// resource.
func targetOn(resource, suffix string) (string, bool) {
	r, err := url.Parse(resource)
	if err != nil {
		return "", false
	}
	t, err := url.Parse(strings.TrimSuffix(r.EscapedPath(), "/") + suffix)
	if err != nil {
		return "", false
	}
	return r.ResolveReference(t).String(), true
}

// RefusesTransition reports a refusal of a state-transition probe in terms
// a caller can act on: the resource is not in a state for it (409), the
// request cannot be processed in it (422), or the caller may not (403) or
// cannot see it (404).
func RefusesTransition(status int) bool {
	switch status {
	case http.StatusConflict, http.StatusUnprocessableEntity, http.StatusForbidden, http.StatusNotFound:
		return true
	}
	return false
}
