package stateful

import (
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/internal/activeplan"
	"github.com/agentready/agentready/checks/internal/hypermedia"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/halview"
	"github.com/agentready/agentready/internal/jsonorder"
)

// analysis holds every rule's issues by check ID.
type analysis struct {
	nodes   int // resources, top-level or embedded, that carry next_actions
	issues  map[string][]hypermedia.Issue
	catalog *catalog
}

func (a *analysis) add(id string, x *exchange.Exchange, v *jsonorder.Value, subject, msg, expected, actual string) {
	a.issues[id] = append(a.issues[id], hypermedia.Issue{X: x, Pointer: v.Pointer, Value: v, Subject: subject, Message: msg, Expected: expected, Actual: actual})
}

// kind gathers the documents of one path shape and media type: a kind of
// resource, served by one serializer. The resources embedded under one
// member of one kind of page are a kind of their own: a collection's item
// summaries come from another serializer than the item pages.
type kind struct {
	carrier *exchange.Exchange
	lacking []resource
}

// resource is one object judged as a node: a document's root, or a
// resource embedded in it, whose pointers point into the document.
type resource struct {
	x *exchange.Exchange
	v *jsonorder.Value
}

// embedded is one resource object embedded in a document.
type embedded struct {
	member string // "_embedded/orders", "items"
	v      *jsonorder.Value
}

// embeddedResources are the objects a document embeds: HAL's _embedded
// resources and the items of a collection envelope's array.
func embeddedResources(d *hypermedia.Doc) []embedded {
	var out []embedded
	root := d.Root()
	if d.HAL != nil && d.HAL.Root != nil {
		for _, e := range d.HAL.Root.Embedded {
			for _, res := range e.Resources {
				out = append(out, embedded{member: "_embedded/" + e.Rel, v: res.Value})
			}
		}
	}
	for _, name := range checks.EnvelopeArrays {
		for _, it := range root.Get(name).Elements() {
			if it.Is(jsonorder.Object) {
				out = append(out, embedded{member: name, v: it})
			}
		}
	}
	return out
}

// selfOf is the absolute URL a resource object names as its own: HAL's
// self link, else an "href" or "self" string member; "" when it names none.
func selfOf(x *exchange.Exchange, v *jsonorder.Value) string {
	href := ""
	if r := halview.ResourceOf(v); r != nil {
		href = r.SelfHref()
	}
	for _, k := range []string{"href", "self"} {
		if s, ok := v.Get(k).Str(); href == "" && ok {
			href = s
		}
	}
	if href == "" {
		return ""
	}
	base, err := url.Parse(x.Request.URL)
	if err != nil {
		return ""
	}
	u, err := base.Parse(href)
	if err != nil {
		return ""
	}
	u.Fragment = ""
	return u.String()
}

var analysisKey = checks.NewKey[*analysis]()

func analyze(in *checks.Input) *analysis {
	return checks.Memo(in, analysisKey, func() *analysis {
		a := &analysis{issues: map[string][]hypermedia.Issue{}, catalog: newCatalog(in.Spec, in.MCP)}
		kinds := map[string]*kind{}
		var order []string
		judge := func(key string, x *exchange.Exchange, v *jsonorder.Value) {
			k := kinds[key]
			if k == nil {
				k = &kind{}
				kinds[key] = k
				order = append(order, key)
			}
			if v.Get("next_actions") == nil {
				k.lacking = append(k.lacking, resource{x: x, v: v})
				return
			}
			if k.carrier == nil {
				k.carrier = x
			}
			a.nodes++
			(&node{a: a, x: x, v: v}).check()
		}
		docs := hypermedia.JSONDocs(in)
		judged := map[string]bool{}
		for _, d := range docs {
			if root := d.Root(); d.Err == nil && root.Is(jsonorder.Object) {
				judged[d.X.Request.URL] = true
				if self := selfOf(d.X, root); self != "" {
					judged[self] = true
				}
				judge(hypermedia.ShapeOf(d.X)+" "+d.X.Response.MediaType(), d.X, root)
			}
		}
		for _, d := range docs {
			if root := d.Root(); d.Err == nil && root.Is(jsonorder.Object) {
				for _, e := range embeddedResources(d) {
					self := selfOf(d.X, e.v)
					if self != "" && judged[self] {
						continue
					}
					if self != "" {
						judged[self] = true
					}
					judge("embedded "+hypermedia.ShapeOf(d.X)+" "+e.member+" "+d.X.Response.MediaType(), d.X, e.v)
				}
			}
		}
		for _, key := range order {
			a.missingLists(kinds[key])
		}
		return a
	})
}

// missingLists reports the documents of a kind that carry no next_actions
// while another of the kind does.
func (a *analysis) missingLists(k *kind) {
	if k.carrier == nil {
		return
	}
	for _, d := range k.lacking {
		shape, page := hypermedia.ShapeOf(d.x), exchange.PathOf(d.x.Request.URL)
		msg := fmt.Sprintf("%s carries no next_actions, while %s, of the same kind (%s), does: the model is not told what it may call next",
			page, exchange.PathOf(k.carrier.Request.URL), shape)
		if d.v.Pointer != "" {
			msg = fmt.Sprintf("the resource at %s of %s carries no next_actions, while another embedded there in a page of the same kind (%s) does: the model is not told what it may call next",
				d.v.Pointer, page, shape)
		}
		a.issues[idMissing] = append(a.issues[idMissing], hypermedia.Issue{X: d.x, Pointer: d.v.Pointer, Subject: "next_actions",
			Message: msg, Expected: "a next_actions member", Actual: "(absent)", Related: k.carrier})
	}
}

// node judges one document that carries next_actions.
type node struct {
	a *analysis
	x *exchange.Exchange
	v *jsonorder.Value
}

// entry is one next_actions entry that names a tool or an operation.
type entry struct {
	v    *jsonorder.Value
	name string
	text string // its description or title
}

func (n *node) check() {
	list := n.v.Get("next_actions")
	if !list.Is(jsonorder.Array) {
		return // the affordance family reports the shape
	}
	entries := entriesOf(list)
	if len(list.Items) == 0 {
		n.finishedTooEarly(list)
	}
	for _, e := range entries {
		n.confirmation(e)
		n.idempotency(e)
	}
	n.confirmWhileInvalid(entries)
	n.undescribed(entries)
	n.resultShapes()
	n.verify(list, entries)
	n.patchFields(entries)
	n.patchVersion()
}

func entriesOf(list *jsonorder.Value) []entry {
	var out []entry
	for _, it := range list.Items {
		e := entry{v: it}
		for _, k := range []string{"tool", "operation"} {
			if s, ok := it.Get(k).Str(); ok && strings.TrimSpace(s) != "" {
				e.name = s
				break
			}
		}
		for _, k := range []string{"description", "title"} {
			if s, ok := it.Get(k).Str(); ok && strings.TrimSpace(s) != "" {
				e.text = s
				break
			}
		}
		if e.name != "" {
			out = append(out, e)
		}
	}
	return out
}

// finishedTooEarly: an empty list says the flow is over; the node's own
// members can say it is not.
func (n *node) finishedTooEarly(list *jsonorder.Value) {
	var why []string
	if m := n.v.Get("missing"); m.Is(jsonorder.Array) && len(m.Items) > 0 {
		why = append(why, fmt.Sprintf("%d fields are still missing", len(m.Items)))
	}
	if n.v.Get("requires_confirmation").IsTrue() {
		why = append(why, "it asks for confirmation")
	}
	if n.v.Get("recoverable").IsTrue() {
		why = append(why, "it says it is recoverable")
	}
	if len(why) == 0 {
		return
	}
	n.a.add(idMissing, n.x, list, "next_actions",
		fmt.Sprintf("next_actions is empty, which says the flow is finished, but %s", strings.Join(why, " and ")),
		"the actions that finish the flow", "[]")
}

func (n *node) confirmation(e entry) {
	if e.v.Get("requires_confirmation").IsTrue() || n.v.Get("requires_confirmation").IsTrue() {
		return
	}
	why := ""
	switch {
	case e.v.Get("requires_user_approval").IsTrue():
		why = "it is marked requires_user_approval"
	case namesSideEffect(e.text):
		why = fmt.Sprintf("its description (%q) names a high-risk action (a payment, refund, deletion, permission change, export or sending)", e.text)
	case n.a.catalog.irreversible(e.name):
		why = "its MCP tool is declared destructive and not idempotent"
	default:
		return
	}
	state := "false"
	if n.v.Get("requires_confirmation") == nil {
		state = "absent"
	}
	n.a.add(idConfirmation, n.x, e.v, e.name,
		fmt.Sprintf("next_actions offers %s without requires_confirmation (%s on the node and the entry), although %s: the agent can take it without asking anyone", e.name, state, why),
		"requires_confirmation: true", "requires_confirmation: "+state)
}

func (n *node) idempotency(e entry) {
	if !activeplan.NamesStep(e.name, activeplan.SubmissionSteps...) {
		return
	}
	if declared, known := n.a.catalog.idempotency(e.name); known && !declared {
		n.a.add(idIdempotency, n.x, e.v, e.name,
			fmt.Sprintf("next_actions offers %s, a confirm, recover or retry step, but its operation declares no Idempotency-Key header and no idempotency_key member: a retried submission cannot be told from a new one", e.name),
			"an Idempotency-Key header parameter or an idempotency_key member", "(none)")
	}
}

// verify: a submitted or unknown outcome, not yet verified, must offer a
// way to check it.
func (n *node) verify(list *jsonorder.Value, entries []entry) {
	member, value := "", ""
	for _, k := range []string{"node", "status", "state", "current_node"} {
		if s, ok := n.v.Get(k).Str(); ok && (hasToken(s, "submitted") || hasToken(s, "unknown")) {
			member, value = k, s
			break
		}
	}
	if member == "" {
		return
	}
	if v := n.v.Get("verification"); v != nil && v.Kind != jsonorder.Null {
		return
	}
	if slices.ContainsFunc(entries, isVerifyAction) {
		return
	}
	n.a.add(idVerify, n.x, list, "next_actions",
		fmt.Sprintf("%s is %q and no verification is recorded, but next_actions offers no verify or status action: the model can only resubmit or give up", member, value),
		"a verify action", fmt.Sprintf("%d actions", len(list.Items)))
}

func (n *node) patchVersion() {
	allowed := n.v.Get("allowed_patch")
	if !allowed.Is(jsonorder.Array) || len(allowed.Items) == 0 {
		return
	}
	if v := n.v.Get("version"); v.Is(jsonorder.String) || v.Is(jsonorder.Number) {
		return
	}
	if n.x.Response != nil && n.x.Response.Header.Get("ETag") != "" {
		return
	}
	n.a.add(idPatchVersion, n.x, allowed, "allowed_patch",
		"the node allows a patch but carries no version member and no ETag: a patch computed from a stale view cannot be refused",
		"a version member", "(absent)")
}
