// Package halview reads the hypermedia controls of a JSON body: each
// resource's links by relation, its CURIEs, its HAL-FORMS templates and its
// embedded resources. It is built on the bounded, order-keeping decoder of
// internal/jsonorder, and keeps each control's decoded value, so that the
// crawler following links, the checks judging their shape (with a JSON
// pointer to the offending member) and the checks matching them to the
// OpenAPI document read the same view of the same bytes.
package halview

import (
	"slices"
	"strings"

	"github.com/agentready/agentready/internal/jsonorder"
)

// Limits bound the decoding of a body read for judging. Bodies are already
// capped by the probe; these bound the tree built from them.
var Limits = jsonorder.Limits{MaxDepth: 64, MaxString: 256 << 10, MaxValues: 100_000}

// MaxEmbeddedDepth bounds the nesting of _embedded that is read: the root is
// at depth 0, and resources embedded deeper are not part of the view.
const MaxEmbeddedDepth = 8

// View is one body read for its controls.
type View struct {
	Doc *jsonorder.Document
	// Err is set when the body is not JSON or exceeds the limits
	// (errors.Is(Err, jsonorder.ErrLimit) tells which).
	Err error
	// Root is the top-level resource, nil unless the body is a JSON object.
	Root *Resource
}

// Parse decodes body within lim and reads its controls.
func Parse(body []byte, lim jsonorder.Limits) *View {
	doc, err := jsonorder.Decode(body, lim)
	return FromDocument(doc, err)
}

// FromDocument reads the controls of an already decoded document; err is
// the decoding error, if any.
func FromDocument(doc *jsonorder.Document, err error) *View {
	v := &View{Doc: doc, Err: err}
	if err == nil && doc != nil && doc.Root.Is(jsonorder.Object) {
		v.Root = readResource(doc.Root, nil, 0)
	}
	return v
}

// Resource is one HAL resource object: the root or an embedded one.
type Resource struct {
	Value  *jsonorder.Value
	Parent *Resource
	Depth  int
	// LinksValue is the _links member as written, nil when absent.
	// Relations are its members, in document order, when it is an object.
	LinksValue *jsonorder.Value
	Relations  []Relation
	// TemplatesValue is the _templates member as written, nil when absent.
	// Templates are its members, in document order, when it is an object.
	TemplatesValue *jsonorder.Value
	Templates      []Template
	// Embedded are the members of _embedded, in document order, when it is
	// an object and the resource is above MaxEmbeddedDepth.
	Embedded []Embedded
}

// Relation is one member of _links.
type Relation struct {
	Name string
	// Value is the member as written: a link object, an array of them, or
	// something else that is no link at all.
	Value *jsonorder.Value
	// Links are the link objects: Value itself, or the objects among its
	// items.
	Links []Link
}

// IsArray reports a relation written as an array of links.
func (r Relation) IsArray() bool { return r.Value.Is(jsonorder.Array) }

// Link is one link object.
type Link struct {
	Value *jsonorder.Value
	// Href, Type and Name are the members' strings, "" when absent or not
	// strings.
	Href, Type, Name string
	// Templated is set by the JSON literal true only: clients read the
	// string "true" as false.
	Templated bool
}

// Template is one member of _templates (HAL-FORMS).
type Template struct {
	Key   string
	Value *jsonorder.Value
	// Method and Target are the members' strings, "" when absent, not
	// strings, or when the template is not an object.
	Method, Target string
}

// Embedded is one member of _embedded.
type Embedded struct {
	Rel string
	// Value is the member as written; Resources are the resource objects in
	// it: Value itself, or the objects among its items.
	Value     *jsonorder.Value
	Resources []*Resource
}

// ResourceOf reads the controls of one object wherever it sits in a
// document, without its embedded resources or inherited CURIEs. It is nil
// for anything but an object.
func ResourceOf(v *jsonorder.Value) *Resource {
	if !v.Is(jsonorder.Object) {
		return nil
	}
	return readResource(v, nil, MaxEmbeddedDepth)
}

func readResource(v *jsonorder.Value, parent *Resource, depth int) *Resource {
	r := &Resource{Value: v, Parent: parent, Depth: depth, LinksValue: v.Get("_links"), TemplatesValue: v.Get("_templates")}
	for _, m := range members(r.LinksValue) {
		rel := Relation{Name: m.Key, Value: m.Value}
		for _, o := range objects(m.Value) {
			rel.Links = append(rel.Links, readLink(o))
		}
		r.Relations = append(r.Relations, rel)
	}
	for _, m := range members(r.TemplatesValue) {
		t := Template{Key: m.Key, Value: m.Value}
		t.Method, _ = m.Value.Get("method").Str()
		t.Target, _ = m.Value.Get("target").Str()
		r.Templates = append(r.Templates, t)
	}
	if depth >= MaxEmbeddedDepth {
		return r
	}
	for _, m := range members(v.Get("_embedded")) {
		e := Embedded{Rel: m.Key, Value: m.Value}
		for _, o := range objects(m.Value) {
			e.Resources = append(e.Resources, readResource(o, r, depth+1))
		}
		r.Embedded = append(r.Embedded, e)
	}
	return r
}

func readLink(v *jsonorder.Value) Link {
	l := Link{Value: v, Templated: v.Get("templated").IsTrue()}
	l.Href, _ = v.Get("href").Str()
	l.Type, _ = v.Get("type").Str()
	l.Name, _ = v.Get("name").Str()
	return l
}

func members(v *jsonorder.Value) []jsonorder.Member {
	if !v.Is(jsonorder.Object) {
		return nil
	}
	return v.Members
}

// objects is v when it is an object, or the objects among its items when it
// is an array: HAL allows one link or resource, or an array of them.
func objects(v *jsonorder.Value) []*jsonorder.Value {
	switch {
	case v.Is(jsonorder.Object):
		return []*jsonorder.Value{v}
	case v.Is(jsonorder.Array):
		var out []*jsonorder.Value
		for _, it := range v.Items {
			if it.Is(jsonorder.Object) {
				out = append(out, it)
			}
		}
		return out
	}
	return nil
}

// Relation returns the first relation named name, or nil.
func (r *Resource) Relation(name string) *Relation {
	for i := range r.Relations {
		if r.Relations[i].Name == name {
			return &r.Relations[i]
		}
	}
	return nil
}

// SelfHref is the href of the resource's self link when that is a single
// link object, as HAL requires; "" otherwise.
func (r *Resource) SelfHref() string {
	if self := r.Relation("self"); self != nil && !self.IsArray() && len(self.Links) == 1 {
		return self.Links[0].Href
	}
	return ""
}

// CurieNames are the CURIE prefixes in scope: those the enclosing resources
// declare, then the resource's own, as written.
func (r *Resource) CurieNames() []string {
	var out []string
	if r.Parent != nil {
		out = r.Parent.CurieNames()
	}
	if c := r.Relation("curies"); c != nil {
		for _, l := range c.Links {
			if l.Name != "" {
				out = append(out, l.Name)
			}
		}
	}
	return out
}

// SortedRelations are the relations ordered by name, for readers whose
// output must not depend on the order the server wrote them in.
func (r *Resource) SortedRelations() []Relation {
	return slices.SortedStableFunc(slices.Values(r.Relations), func(a, b Relation) int { return strings.Compare(a.Name, b.Name) })
}

// SortedTemplates are the templates ordered by key.
func (r *Resource) SortedTemplates() []Template {
	return slices.SortedStableFunc(slices.Values(r.Templates), func(a, b Template) int { return strings.Compare(a.Key, b.Key) })
}

// SortedEmbedded are the embedded members ordered by relation.
func (r *Resource) SortedEmbedded() []Embedded {
	return slices.SortedStableFunc(slices.Values(r.Embedded), func(a, b Embedded) int { return strings.Compare(a.Rel, b.Rel) })
}

// The HAL media types, kept here so that what only needs to recognise HAL
// (the crawl's coverage, the hypermedia families) names them once.
const (
	MediaHAL       = "application/hal+json"
	MediaHALLegacy = "application/vnd.hal+json"
	MediaHALForms  = "application/prs.hal-forms+json"
)

// IsHAL reports the HAL media types, including the older vnd spelling that
// the HAL-FORMS examples use.
func IsHAL(mt string) bool { return mt == MediaHAL || mt == MediaHALLegacy }
