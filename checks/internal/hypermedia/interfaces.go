package hypermedia

import (
	"cmp"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/halview"
	"github.com/agentready/agentready/internal/jsonorder"
	"github.com/agentready/agentready/internal/mcp"
	"github.com/agentready/agentready/internal/spec"
)

// Interfaces is the part that prices seed 000's three interfaces from the
// recording: a static catalog (A), the catalog plus contextual references
// (B) and HAL-FORMS templates (C). docs/interfaces.md has the method.
type Interfaces struct{}

// Annotate implements checks.Annotator.
func (Interfaces) Annotate(in *checks.Input, rep *finding.Report) {
	rep.Interfaces = InterfaceCosts(in, in.MCP)
}

// catalogEntry is one operation of the static catalog.
type catalogEntry struct {
	name string
	// kind is the path shape of the resources the operation acts on, ""
	// when nothing says, and then it applies to every kind.
	kind string
	// op is the operation's method and path shape, as a template's method
	// and target compare with it; zero for a tool no OpenAPI operation
	// describes.
	op       [2]string
	readOnly bool
	text     string
}

// visit is what one crawled resource offered under each interface.
type visit struct {
	url, kind, state string
	// refs are the operations its affordances and next_actions name; refText
	// is those members as JSON, "" when it has neither.
	refs    []string
	refText string
	// templates are {method, target shape} of its HAL-FORMS templates;
	// templateText is the _templates member as JSON, "" when it has none.
	templates    [][2]string
	templateText string
	// forms says its templates are known: it was fetched as HAL-FORMS or
	// its crawled body had _templates. C's figures count only those.
	forms     bool
	refTokens int
	tplTokens int
}

// figures is one interface's per-resource numbers before medians.
type figures struct{ tokens, choices, invalid []float64 }

// InterfaceCosts computes the interfaces section; an interface the scan did
// not see is there too, as not offered. It counts tokens only for what an interface
// offers, so a scan that saw no catalog and no controls never loads the
// tokenizer.
func InterfaceCosts(in *checks.Input, snap *mcp.Snapshot) *finding.Interfaces {
	target := in.Target
	catalog, source := catalogOf(in.Spec, snap)
	visits := factsOf(in).visits.all()
	out := &finding.Interfaces{Catalog: source, Resources: len(visits)}
	count := func(text string) int {
		if text == "" {
			return 0
		}
		n, how := mcp.CountTokens(text)
		if out.Tokenizer == "" || how != mcp.Tokenizer {
			out.Tokenizer = how
		}
		return n
	}
	upfront := 0
	if source == "mcp" {
		upfront = snap.Catalog.Tokens
		out.Tokenizer = snap.Catalog.Tokenizer
	} else {
		for _, e := range catalog {
			upfront += count(e.text)
		}
	}
	entryTokens := 0
	for i := range visits {
		v := &visits[i]
		v.refTokens, v.tplTokens = count(v.refText), count(v.templateText)
		if target != nil && sameResource(v.url, target) {
			entryTokens = v.tplTokens
		}
	}
	assignKinds(catalog, visits)
	offered := offeredIn(visits)
	steps := withChoices(catalog, visits)
	out.Resources = len(steps)
	out.Entries = entriesOf(catalog, steps, offered, visits)
	for i, c := range out.Entries {
		if !c.Offered {
			continue
		}
		switch c.Interface {
		case finding.InterfaceStatic, finding.InterfaceReferenced:
			out.Entries[i].UpfrontTokens = ptr(upfront)
			// The catalog is listed once and MCP forbids it to vary with
			// prior requests: every step starts with the same text.
			out.Entries[i].CacheStablePrefix = ptr(true)
		case finding.InterfaceDynamic:
			out.Entries[i].UpfrontTokens = ptr(entryTokens)
			out.Entries[i].CacheStablePrefix = ptr(sameTemplatesEverywhere(visits))
		}
	}
	// Per kind, A alone compares with nothing: the lines would repeat the
	// catalog for every kind.
	if out.Entries[1].Offered || out.Entries[2].Offered {
		out.Kinds = kindsOf(catalog, steps, offered, visits)
	}
	return out
}

// sameResource reports whether a crawled URL is the scan's entry point.
func sameResource(u string, target *url.URL) bool {
	p, err := url.Parse(u)
	if err != nil {
		return false
	}
	tp := cmp.Or(target.Path, "/")
	return p.Host == target.Host && cmp.Or(p.Path, "/") == tp
}

// catalogOf is the static catalog: the MCP tools when a catalog was listed,
// else the OpenAPI document's operations.
func catalogOf(doc *spec.Document, snap *mcp.Snapshot) ([]catalogEntry, string) {
	ops := map[string]*spec.Operation{}
	if doc != nil {
		for _, op := range doc.Operations {
			if op.OperationID != "" {
				ops[op.OperationID] = op
			}
			if op.MCPTool != "" {
				ops[op.MCPTool] = op
			}
		}
	}
	if snap != nil && len(snap.Catalog.Tools) > 0 {
		var out []catalogEntry
		for _, t := range snap.Catalog.Tools {
			e := catalogEntry{name: t.Name, readOnly: t.ReadOnly}
			if op := ops[t.Name]; op != nil {
				e.kind, e.op = kindOfPath(op.PathTemplate), opKey(op.Method, op.PathTemplate)
				e.readOnly = e.readOnly || safeMethod(op.Method)
			}
			out = append(out, e)
		}
		return out, "mcp"
	}
	if doc == nil || len(doc.Operations) == 0 {
		return nil, ""
	}
	var out []catalogEntry
	for _, op := range doc.Operations {
		out = append(out, catalogEntry{name: cmp.Or(op.OperationID, op.Method+" "+op.PathTemplate), kind: kindOfPath(op.PathTemplate),
			op: opKey(op.Method, op.PathTemplate), readOnly: safeMethod(op.Method), text: operationText(op)})
	}
	return out, "openapi"
}

// operationText is what a host would put in context for one operation: the
// fields an MCP tool built from it would carry.
func operationText(op *spec.Operation) string {
	params := make([]map[string]any, 0, len(op.Parameters))
	for _, p := range op.Parameters {
		params = append(params, map[string]any{"name": p.Name, "in": p.In, "required": p.Required, "schema": p.Schema})
	}
	b, _ := json.Marshal(map[string]any{"operationId": op.OperationID, "method": op.Method, "path": op.PathTemplate,
		"summary": op.Summary, "description": op.Description, "parameters": params, "requestBody": op.RequestBody})
	return string(b)
}

func safeMethod(m string) bool {
	return m == http.MethodGet || m == http.MethodHead || m == http.MethodOptions
}

// normalShape writes every template segment as {id}, as PathShape writes
// identifiers, so that /orders/{orderId} meets /orders/17.
func normalShape(p string) string {
	segs := strings.Split(p, "/")
	for i, s := range segs {
		if strings.HasPrefix(s, "{") && strings.HasSuffix(s, "}") {
			segs[i] = "{id}"
		}
	}
	return exchange.PathShape(strings.Join(segs, "/"))
}

// kindOfPath is the kind an operation acts on: its path up to the last
// parameter, so /orders/{id}/payment acts on /orders/{id}.
func kindOfPath(p string) string {
	segs := strings.Split(normalShape(p), "/")
	for i := len(segs) - 1; i > 0; i-- {
		if segs[i] == "{id}" {
			return strings.Join(segs[:i+1], "/")
		}
	}
	return normalShape(p)
}

func opKey(method, path string) [2]string {
	return [2]string{strings.ToUpper(method), normalShape(path)}
}

// references are the operations a resource's affordances and next_actions
// name, and those members as JSON.
func references(root *jsonorder.Value) ([]string, string) {
	var names []string
	members := map[string]any{}
	for _, m := range []struct{ member, key string }{{"affordances", "operation"}, {"next_actions", "tool"}, {"next_actions", "operation"}} {
		v := root.Get(m.member)
		if !v.Is(jsonorder.Array) {
			continue
		}
		members[m.member] = v.Any()
		for _, it := range v.Elements() {
			if name, ok := it.Get(m.key).Str(); ok && name != "" && !slices.Contains(names, name) {
				names = append(names, name)
			}
		}
	}
	if len(members) == 0 {
		return nil, ""
	}
	b, _ := json.Marshal(members)
	return names, string(b)
}

// templates are a resource's HAL-FORMS templates as {method, target shape}
// (the resource itself when a template has no target), and _templates as
// JSON.
func templates(r *halview.Resource) ([][2]string, string) {
	if len(r.Templates) == 0 {
		return nil, ""
	}
	var out [][2]string
	for _, t := range r.Templates {
		out = append(out, opKey(cmp.Or(t.Method, http.MethodGet), exchange.PathOf(t.Target)))
	}
	b, _ := json.Marshal(r.TemplatesValue.Any())
	return out, string(b)
}

// assignKinds gives a tool no OpenAPI operation placed the kind whose
// references name it, when exactly one kind does.
func assignKinds(catalog []catalogEntry, visits []visit) {
	for i := range catalog {
		e := &catalog[i]
		if e.kind != "" {
			continue
		}
		var kinds []string
		for _, v := range visits {
			if slices.Contains(v.refs, e.name) && !slices.Contains(kinds, v.kind) {
				kinds = append(kinds, v.kind)
			}
		}
		if len(kinds) == 1 {
			e.kind = kinds[0]
		}
	}
}

// offer is what a kind's resources offered: per state, and in any state.
type offer struct {
	names map[string]map[string]bool // state → operation names
	ops   map[string]map[[2]string]bool
	any   map[string]bool
	anyOp map[[2]string]bool
}

// offeredIn gathers, per kind, what each state offered under B or C: the
// state matrix, keyed as a catalog entry can be looked up.
func offeredIn(visits []visit) map[string]*offer {
	out := map[string]*offer{}
	for _, v := range visits {
		o := out[v.kind]
		if o == nil {
			o = &offer{names: map[string]map[string]bool{}, ops: map[string]map[[2]string]bool{}, any: map[string]bool{}, anyOp: map[[2]string]bool{}}
			out[v.kind] = o
		}
		if o.names[v.state] == nil {
			o.names[v.state], o.ops[v.state] = map[string]bool{}, map[[2]string]bool{}
		}
		for _, n := range v.refs {
			o.names[v.state][n], o.any[n] = true, true
		}
		for _, t := range v.templates {
			o.ops[v.state][t], o.anyOp[t] = true, true
		}
	}
	return out
}

// applies lists the catalog's state-changing operations an agent relying on
// the catalog alone must consider on a resource of the kind.
func applies(catalog []catalogEntry, kind string) []catalogEntry {
	var out []catalogEntry
	for _, e := range catalog {
		if !e.readOnly && (e.kind == "" || e.kind == kind) {
			out = append(out, e)
		}
	}
	return out
}

// changingTemplates counts a resource's state-changing templates, C's
// choices: a read-only template (HAL-FORMS' GET "Reload" of the resource
// itself, a search form) is no more a choice than a read-only operation is
// among A's, since reading is safe in every state.
func changingTemplates(v visit) int {
	n := 0
	for _, t := range v.templates {
		if !safeMethod(t[0]) {
			n++
		}
	}
	return n
}

// invalid counts the operations the kind's other states were seen to offer
// and this state was not: what the state matrix shows an agent relying on
// the catalog could attempt in vain.
func invalid(cands []catalogEntry, o *offer, state string) int {
	n := 0
	for _, e := range cands {
		known := o.any[e.name] || (e.op != [2]string{} && o.anyOp[e.op])
		here := o.names[state][e.name] || (e.op != [2]string{} && o.ops[state][e.op])
		if known && !here {
			n++
		}
	}
	return n
}

// collect computes each interface's per-resource figures over visits.
func collect(catalog []catalogEntry, visits []visit, offered map[string]*offer) (a, b, c figures) {
	for _, v := range visits {
		cands := applies(catalog, v.kind)
		a.tokens = append(a.tokens, 0)
		a.choices = append(a.choices, float64(len(cands)))
		a.invalid = append(a.invalid, float64(invalid(cands, offered[v.kind], v.state)))
		b.tokens = append(b.tokens, float64(v.refTokens))
		b.choices = append(b.choices, float64(len(v.refs)))
		if v.forms {
			c.tokens = append(c.tokens, float64(v.tplTokens))
			c.choices = append(c.choices, float64(changingTemplates(v)))
		}
	}
	return a, b, c
}

// entriesOf builds the three entries over visits; all is every visit of the
// scan, which decides whether an interface is offered at all.
func entriesOf(catalog []catalogEntry, visits []visit, offered map[string]*offer, all []visit) []finding.InterfaceCost {
	a, b, c := collect(catalog, visits, offered)
	static := finding.InterfaceCost{Interface: finding.InterfaceStatic, Offered: len(catalog) > 0}
	if !static.Offered {
		static.Reason = "no MCP tool catalog and no OpenAPI document"
	} else if len(visits) > 0 {
		static.PerStepTokens, static.ChoicesPerStep, static.InvalidChoicesPerStep = ptr(median(a.tokens)), ptr(median(a.choices)), ptr(median(a.invalid))
	}
	referenced := finding.InterfaceCost{Interface: finding.InterfaceReferenced, Offered: slices.ContainsFunc(all, func(v visit) bool { return v.refText != "" })}
	if !referenced.Offered {
		referenced.Reason = "no resource names its operations (affordances, next_actions)"
	} else if len(visits) > 0 {
		referenced.PerStepTokens, referenced.ChoicesPerStep = ptr(median(b.tokens)), ptr(median(b.choices))
	}
	dynamic := finding.InterfaceCost{Interface: finding.InterfaceDynamic, Offered: slices.ContainsFunc(all, func(v visit) bool { return v.templateText != "" })}
	if !dynamic.Offered {
		dynamic.Reason = "no HAL-FORMS _templates were discovered"
	} else if len(c.choices) > 0 {
		dynamic.PerStepTokens, dynamic.ChoicesPerStep = ptr(median(c.tokens)), ptr(median(c.choices))
	}
	return []finding.InterfaceCost{static, referenced, dynamic}
}

// kindsOf computes the per-step figures per kind and state, sorted.
func kindsOf(catalog []catalogEntry, steps []visit, offered map[string]*offer, all []visit) []finding.InterfaceKind {
	groups := map[[2]string][]visit{}
	for _, v := range steps {
		k := [2]string{v.kind, v.state}
		groups[k] = append(groups[k], v)
	}
	var out []finding.InterfaceKind
	for k, vs := range groups {
		out = append(out, finding.InterfaceKind{Kind: k[0], State: k[1], Resources: len(vs), Entries: entriesOf(catalog, vs, offered, all)})
	}
	slices.SortFunc(out, func(a, b finding.InterfaceKind) int {
		return cmp.Or(cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.State, b.State))
	})
	return out
}

// withChoices keeps the resources on which some interface offers an
// operation: a step where the agent has something to choose. The entry
// point and plain collections would otherwise pull every median to zero.
func withChoices(catalog []catalogEntry, visits []visit) []visit {
	var out []visit
	for _, v := range visits {
		if len(applies(catalog, v.kind)) > 0 || len(v.refs) > 0 || changingTemplates(v) > 0 {
			out = append(out, v)
		}
	}
	return out
}

// sameTemplatesEverywhere: C's context has a stable prefix only when every
// visited resource offered the same templates.
func sameTemplatesEverywhere(visits []visit) bool {
	for _, v := range visits[min(1, len(visits)):] {
		if v.templateText != visits[0].templateText {
			return false
		}
	}
	return true
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(xs))
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func ptr[T any](v T) *T { return &v }
