// Package linkset parses the JSON serialisation of RFC 9264 linksets
// (application/linkset+json), the format RFC 9727 API catalogs must offer.
// It is pure and bounded: it never panics, keeps at most MaxContexts context
// objects and MaxTargets targets, and reports what does not conform instead
// of failing.
package linkset

import (
	"encoding/json"
	"fmt"
	"sort"
)

// Bounds on what is kept from a hostile document.
const (
	MaxContexts = 1000
	MaxTargets  = 10000
	MaxProblems = 50
)

// Linkset is a parsed document.
type Linkset struct {
	Contexts []Context
	// Problems name, with a JSON pointer, what does not follow RFC 9264 §4.2;
	// at most MaxProblems are kept.
	Problems []Problem
}

// Problem is one non-conformance.
type Problem struct {
	Pointer string
	Message string
}

// Context is one link context object.
type Context struct {
	Anchor  string
	Pointer string
	// Links are the targets by relation type, relations sorted.
	Links []Target
}

// Target is one target object under a relation type.
type Target struct {
	Rel     string
	Href    string
	Type    string
	Pointer string
}

// Parse decodes body. A body that is not a JSON object with a "linkset"
// array yields an error; everything finer is a Problem.
func Parse(body []byte) (*Linkset, error) {
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(body, &doc); err != nil {
		return nil, fmt.Errorf("not a JSON object: %v", err)
	}
	raw, ok := doc["linkset"]
	if !ok {
		return nil, fmt.Errorf(`no "linkset" member`)
	}
	var contexts []json.RawMessage
	if err := json.Unmarshal(raw, &contexts); err != nil {
		return nil, fmt.Errorf(`"linkset" is not an array`)
	}
	ls := &Linkset{}
	targets := 0
	for i, c := range contexts {
		if i >= MaxContexts {
			break
		}
		ls.context(c, fmt.Sprintf("/linkset/%d", i), &targets)
	}
	return ls, nil
}

func (ls *Linkset) problem(ptr, format string, args ...any) {
	if len(ls.Problems) < MaxProblems {
		ls.Problems = append(ls.Problems, Problem{Pointer: ptr, Message: fmt.Sprintf(format, args...)})
	}
}

func (ls *Linkset) context(raw json.RawMessage, ptr string, targets *int) {
	var members map[string]json.RawMessage
	if err := json.Unmarshal(raw, &members); err != nil || members == nil {
		ls.problem(ptr, "a link context must be a JSON object")
		return
	}
	ctx := Context{Pointer: ptr}
	if a, ok := members["anchor"]; ok {
		if err := json.Unmarshal(a, &ctx.Anchor); err != nil {
			ls.problem(ptr+"/anchor", "anchor must be a string")
		}
	}
	rels := make([]string, 0, len(members))
	for k := range members {
		if k != "anchor" {
			rels = append(rels, k)
		}
	}
	sort.Strings(rels)
	for _, rel := range rels {
		relPtr := ptr + "/" + escape(rel)
		var objs []json.RawMessage
		if err := json.Unmarshal(members[rel], &objs); err != nil {
			ls.problem(relPtr, "relation %q must hold an array of target objects", rel)
			continue
		}
		for j, o := range objs {
			if *targets >= MaxTargets {
				return
			}
			if t, ok := ls.target(o, rel, fmt.Sprintf("%s/%d", relPtr, j)); ok {
				ctx.Links = append(ctx.Links, t)
				*targets++
			}
		}
	}
	ls.Contexts = append(ls.Contexts, ctx)
}

func (ls *Linkset) target(raw json.RawMessage, rel, ptr string) (Target, bool) {
	var obj struct {
		Href *string         `json:"href"`
		Type json.RawMessage `json:"type"`
	}
	if err := json.Unmarshal(raw, &obj); err != nil {
		ls.problem(ptr, "a target must be a JSON object")
		return Target{}, false
	}
	if obj.Href == nil || *obj.Href == "" {
		ls.problem(ptr, "a target object must have an href string")
		return Target{}, false
	}
	t := Target{Rel: rel, Href: *obj.Href, Pointer: ptr}
	_ = json.Unmarshal(obj.Type, &t.Type)
	return t, true
}

// WithRel returns every target of relation rel, in document order.
func (ls *Linkset) WithRel(rel string) []Target {
	var out []Target
	for _, c := range ls.Contexts {
		for _, t := range c.Links {
			if t.Rel == rel {
				out = append(out, t)
			}
		}
	}
	return out
}

// escape encodes a member name as a JSON pointer token (RFC 6901).
func escape(s string) string {
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '~':
			out = append(out, '~', '0')
		case '/':
			out = append(out, '~', '1')
		default:
			out = append(out, s[i])
		}
	}
	return string(out)
}
