package hypermedia

import (
	"cmp"
	"slices"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/halview"
)

// States is the part the hal, hal-forms and affordance families bring: the
// report's state matrix, a reading aid for their findings about controls.
type States struct{}

// Annotate implements checks.Annotator.
func (States) Annotate(in *checks.Input, rep *finding.Report) {
	rep.States = stateMatrices(in)
}

// controlOrder sorts control types in the matrix.
var controlOrder = map[string]int{"link": 0, "template": 1, "affordance": 2, "next-action": 3}

// stateKind accumulates one path shape's observations.
type stateKind struct {
	member    string
	states    []string
	resources map[string]bool
	offered   map[[2]string]map[string]bool // {type, name} → states
}

// stateMatrices builds, per path shape, which controls were offered in each
// observed state: HAL links and affordances from the crawl, HAL-FORMS
// templates from the HAL-FORMS fetches. Only shapes seen in two or more
// states are kept, since one state compares with nothing.
func stateMatrices(in *checks.Input) []finding.StateMatrix {
	s := factsOf(in).states
	var out []finding.StateMatrix
	for _, shape := range slices.Sorted(slices.Values(s.order)) {
		if k := s.kinds[shape]; len(k.states) >= 2 {
			out = append(out, k.matrix(shape))
		}
	}
	return out
}

// observable: the crawl's JSON responses and the HAL-FORMS fetches answered
// as HAL-FORMS.
func observable(x *exchange.Exchange) bool {
	if !Judgeable(x) {
		return false
	}
	mt := x.Response.MediaType()
	switch x.Purpose {
	case exchange.PurposeCrawl:
		return exchange.IsJSONMediaType(mt)
	case PurposeFetch:
		return mt == MediaHALForms
	}
	return false
}

// controls lists the controls of a resource as {type, name} pairs.
func controls(r *halview.Resource, x *exchange.Exchange) [][2]string {
	var out [][2]string
	root := r.Value
	if x.Purpose == exchange.PurposeCrawl {
		for _, rel := range r.Relations {
			if rel.Name != "self" && rel.Name != "curies" {
				out = append(out, [2]string{"link", rel.Name})
			}
		}
		for _, it := range root.Get("affordances").Elements() {
			if op, ok := it.Get("operation").Str(); ok {
				out = append(out, [2]string{"affordance", op})
			}
		}
		for _, it := range root.Get("next_actions").Elements() {
			for _, key := range []string{"tool", "operation"} {
				if name, ok := it.Get(key).Str(); ok {
					out = append(out, [2]string{"next-action", name})
					break
				}
			}
		}
		return out
	}
	for _, t := range r.Templates {
		out = append(out, [2]string{"template", templateName(t)})
	}
	return out
}

// templateName is the template's key, and for the anonymous "default" key
// also what it does, so the default of one state is not mistaken for
// another's.
func templateName(t halview.Template) string {
	if t.Key != "default" || t.Method == "" || t.Target == "" {
		return t.Key
	}
	return "default (" + t.Method + " " + exchange.PathShape(exchange.PathOf(t.Target)) + ")"
}

func (k *stateKind) matrix(shape string) finding.StateMatrix {
	m := finding.StateMatrix{Kind: shape, Member: k.member, Resources: len(k.resources), States: k.states}
	for c, in := range k.offered {
		sc := finding.StateControl{Type: c[0], Name: c[1], OfferedIn: []string{}}
		for _, s := range k.states {
			if in[s] {
				sc.OfferedIn = append(sc.OfferedIn, s)
			}
		}
		m.Controls = append(m.Controls, sc)
	}
	slices.SortFunc(m.Controls, func(a, b finding.StateControl) int {
		return cmp.Or(cmp.Compare(controlOrder[a.Type], controlOrder[b.Type]), cmp.Compare(a.Name, b.Name))
	})
	return m
}

// Parts are the parts every check of the hal, hal-forms and affordance
// families brings: the state matrix, which also reads every page for them
// (see pages.go), and the interfaces section.
func Parts() []checks.Part { return []checks.Part{States{}, Interfaces{}} }
