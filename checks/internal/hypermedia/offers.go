package hypermedia

import (
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/halview"
	"github.com/agentready/agentready/internal/jsonorder"
	"github.com/agentready/agentready/internal/spec"
	"github.com/agentready/agentready/internal/urlx"
)

// Offer is one operation a response offered its caller: a HAL link, a
// HAL-FORMS template or an affordance entry.
type Offer struct {
	X       *exchange.Exchange
	Method  string
	Target  string // absolute URL
	Name    string // relation, template key or operation name
	Pointer string
	// Control is the HAL-FORMS template or affordance object, nil for a
	// link; active probes build their request body from it.
	Control map[string]any
	// DefaultMethod marks an affordance entry that stated no method: Method
	// is POST by default, a guess that checks with an OpenAPI document
	// should replace by the method of the operation the entry names.
	DefaultMethod bool
}

// Offers lists what the successful JSON GETs among xs offered, in order.
func Offers(xs []*exchange.Exchange) []Offer {
	var out []Offer
	for _, x := range xs {
		if !Offering(x) {
			continue
		}
		if v := x.Response.ReadHAL(); v.Err == nil {
			out = append(out, OffersOf(x, v.Doc.Root)...)
		}
	}
	return out
}

// Offering reports a response whose body Offers reads: a successful JSON
// GET kept whole.
func Offering(x *exchange.Exchange) bool {
	return x.Request.Method == http.MethodGet && x.Response != nil && x.Response.Status == http.StatusOK &&
		x.Response.Whole() && exchange.IsJSONMediaType(x.Response.MediaType())
}

// OffersOf lists what x offered, given its decoded body: for a pass that
// derives more than the offers from each page it decodes.
func OffersOf(x *exchange.Exchange, root *jsonorder.Value) []Offer {
	var out []Offer
	WalkObjects(root, func(obj *jsonorder.Value) {
		out = append(out, offersIn(x, obj)...)
	})
	return out
}

// offersIn lists the controls of one object: its HAL links and HAL-FORMS
// templates, wherever it sits in the document, and its affordances.
func offersIn(x *exchange.Exchange, obj *jsonorder.Value) []Offer {
	var out []Offer
	add := func(method, target, name, pointer string, control map[string]any) {
		if u, ok := resolve(x.Request.URL, target); ok && name != "self" {
			out = append(out, Offer{X: x, Method: strings.ToUpper(method), Target: u, Name: name, Pointer: pointer, Control: control})
		}
	}
	guessed := func(method, target, name, pointer string, control map[string]any) {
		n := len(out)
		add(method, target, name, pointer, control)
		if len(out) > n {
			out[n].DefaultMethod = true
		}
	}
	r := halview.ResourceOf(obj)
	self := x.Request.URL
	if h := r.SelfHref(); h != "" {
		self = h
	}
	for _, rel := range r.SortedRelations() {
		for _, l := range rel.Links {
			if !l.Templated {
				add(http.MethodGet, l.Href, rel.Name, l.Value.Pointer, nil)
			}
		}
	}
	for _, t := range r.SortedTemplates() {
		target := t.Target
		if target == "" {
			target = self
		}
		if t.Method != "" {
			add(t.Method, target, t.Key, t.Value.Pointer, control(t.Value))
		}
	}
	for _, a := range Objects(obj.Get("affordances")) {
		op, _ := a.Get("operation").Str()
		target, _ := a.Get("target").Str()
		method, _ := a.Get("method").Str()
		switch {
		case op == "" || target == "":
		case method == "":
			guessed(http.MethodPost, target, op, a.Pointer, control(a))
		default:
			add(method, target, op, a.Pointer, control(a))
		}
	}
	return out
}

// control is a template or affordance object as the active probes read it.
func control(v *jsonorder.Value) map[string]any {
	m, _ := v.Any().(map[string]any)
	return m
}

func resolve(base, ref string) (string, bool) {
	b, err := url.Parse(base)
	if err != nil || ref == "" {
		return "", false
	}
	u, err := b.Parse(ref)
	if err != nil || !urlx.SameOrigin(u, b) {
		return "", false
	}
	u.Fragment = ""
	return u.String(), true
}

// Resolve is the method a control invokes and its OpenAPI operation (nil
// without a document or a match). An affordance entry that states no method
// takes it from the operation its operationId names, else from the one
// operation declared at its target path; otherwise the method cannot be
// told and is "".
func (o Offer) Resolve(doc *spec.Document) (string, *spec.Operation) {
	switch {
	case doc == nil && o.DefaultMethod:
		return "", nil
	case doc == nil:
		return o.Method, nil
	case !o.DefaultMethod:
		return o.Method, doc.Index().Match(o.Method, o.Target)
	}
	for _, op := range doc.Operations {
		if op.OperationID != "" && op.OperationID == o.Name {
			return op.Method, op
		}
	}
	if u, err := url.Parse(o.Target); err == nil {
		if _, ops := doc.Index().MatchPath(u.EscapedPath()); len(ops) == 1 {
			for _, op := range ops {
				return op.Method, op
			}
		}
	}
	return "", nil
}

// maxWalkDepth bounds WalkObjects: a hostile body nested deeper is not
// walked further.
const maxWalkDepth = 16

// WalkObjects calls fn on every object, depth-first with members in key
// order, bounded in depth.
func WalkObjects(v *jsonorder.Value, fn func(*jsonorder.Value)) { walkObjects(v, 0, fn) }

func walkObjects(v *jsonorder.Value, depth int, fn func(*jsonorder.Value)) {
	if depth > maxWalkDepth {
		return
	}
	switch v.Kind {
	case jsonorder.Object:
		fn(v)
		byKey := slices.SortedStableFunc(slices.Values(v.Members), func(a, b jsonorder.Member) int { return strings.Compare(a.Key, b.Key) })
		for _, m := range byKey {
			walkObjects(m.Value, depth+1, fn)
		}
	case jsonorder.Array:
		for _, it := range v.Items {
			walkObjects(it, depth+1, fn)
		}
	}
}

// Objects are the objects among an array's items.
func Objects(v *jsonorder.Value) []*jsonorder.Value {
	var out []*jsonorder.Value
	for _, e := range v.Elements() {
		if e.Is(jsonorder.Object) {
			out = append(out, e)
		}
	}
	return out
}
