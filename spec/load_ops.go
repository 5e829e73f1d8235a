package spec

import (
	"fmt"
	"sort"
	"strings"

	yaml "github.com/pb33f/go-yaml"
	"github.com/pb33f/libopenapi/datamodel/high/base"
	v3high "github.com/pb33f/libopenapi/datamodel/high/v3"
	"github.com/pb33f/libopenapi/orderedmap"

	"github.com/agentready/agentready/finding"
	"github.com/agentready/agentready/internal/jsonorder"
)

// loader copies one built model into a Document.
type loader struct {
	doc  *Document
	root *yaml.Node
	conv *converter
}

func (d *Document) problem(n *yaml.Node, pointer string, format string, args ...any) {
	loc := finding.SourceLocation{File: d.File, Line: 1, Pointer: pointer}
	if n != nil && n.Line > 0 {
		loc.Line, loc.Column = n.Line, n.Column
	}
	d.Problems = append(d.Problems, Problem{Message: fmt.Sprintf(format, args...), Location: loc})
}

func (l *loader) loc(n *yaml.Node, pointer string) finding.SourceLocation {
	loc := finding.SourceLocation{File: l.doc.File, Pointer: pointer}
	if n != nil {
		loc.Line, loc.Column = n.Line, n.Column
	}
	if loc.Line <= 0 {
		loc.Line = 1
	}
	return loc
}

func (l *loader) paths(m *v3high.Document) {
	if m.Paths == nil || m.Paths.PathItems == nil {
		return
	}
	keyNodes := map[string]*yaml.Node{}
	if low := m.Paths.GoLow(); low != nil && low.PathItems != nil {
		for k := range low.PathItems.KeysFromOldest() {
			keyNodes[k.Value] = k.KeyNode
		}
	}
	for template, item := range m.Paths.PathItems.FromOldest() {
		if item == nil {
			continue
		}
		ptr := jsonorder.Join("/paths", template)
		shared := l.parameters(item.Parameters, ptr+"/parameters")
		l.doc.PathItems = append(l.doc.PathItems, PathItem{
			Template: template, Parameters: shared, Location: l.loc(keyNodes[template], ptr),
		})
		for method, op := range item.GetOperations().FromOldest() {
			if op != nil {
				l.operation(template, strings.ToUpper(method), op, shared, jsonorder.Join(ptr, method), m.Security)
			}
		}
	}
}

func (l *loader) operation(template, method string, op *v3high.Operation, shared []Parameter, ptr string, docSecurity []*base.SecurityRequirement) {
	o := &Operation{
		Method: method, PathTemplate: template, OperationID: op.OperationId,
		Summary: op.Summary, Description: op.Description,
		Deprecated: op.Deprecated != nil && *op.Deprecated,
		Parameters: mergeParameters(shared, l.parameters(op.Parameters, ptr+"/parameters")),
		Security:   security(op.Security, docSecurity),
	}
	low := op.GoLow()
	var keyNode *yaml.Node
	if low != nil {
		keyNode = low.KeyNode
		if keyNode == nil {
			keyNode = low.RootNode
		}
	}
	o.Location = l.loc(keyNode, ptr)
	if low != nil {
		l.bodies(o, low.RootNode)
	}
	l.extensions(o, op, ptr)
	l.doc.Operations = append(l.doc.Operations, o)
}

// mediaTypes iterates a content map, tolerating a nil one.
func mediaTypes(m *orderedmap.Map[string, *v3high.MediaType]) func(func(string, *v3high.MediaType) bool) {
	return func(yield func(string, *v3high.MediaType) bool) {
		if m == nil {
			return
		}
		for k, v := range m.FromOldest() {
			if !yield(k, v) {
				return
			}
		}
	}
}

func (l *loader) mediaSchema(media *v3high.MediaType) map[string]any {
	if media == nil {
		return nil
	}
	return l.schema(media.Schema)
}

// schema converts a schema to plain JSON from its YAML node, which keeps
// positions out of the way and resolves local $refs with a bounded walk.
func (l *loader) schema(p *base.SchemaProxy) map[string]any {
	if p == nil || p.GoLow() == nil {
		return nil
	}
	return l.conv.schema(p.GoLow().GetValueNode())
}

func (l *loader) parameters(ps []*v3high.Parameter, ptr string) []Parameter {
	var out []Parameter
	for i, p := range ps {
		if p == nil {
			continue
		}
		var n *yaml.Node
		if low := p.GoLow(); low != nil {
			n = low.RootNode
		}
		param := Parameter{
			Name: p.Name, In: p.In, Required: p.Required != nil && *p.Required,
			Schema:   l.schema(p.Schema),
			Location: l.loc(n, fmt.Sprintf("%s/%d", ptr, i)),
		}
		if param.Schema == nil && p.Content != nil {
			for _, media := range mediaTypes(p.Content) {
				param.Schema = l.mediaSchema(media)
				break
			}
		}
		out = append(out, param)
	}
	return out
}

// mergeParameters applies OpenAPI's rule: an operation parameter overrides
// the path item's parameter with the same name and location.
func mergeParameters(shared, own []Parameter) []Parameter {
	if len(shared) == 0 {
		return own
	}
	type key struct{ name, in string }
	overridden := map[key]bool{}
	for _, p := range own {
		overridden[key{p.Name, p.In}] = true
	}
	var out []Parameter
	for _, p := range shared {
		if !overridden[key{p.Name, p.In}] {
			out = append(out, p)
		}
	}
	return append(out, own...)
}

// security is the operation's requirement list when it declares one (an
// empty list removes the document's), otherwise the document's.
func security(own, doc []*base.SecurityRequirement) []map[string][]string {
	reqs := doc
	if own != nil {
		reqs = own
	}
	if reqs == nil {
		return nil
	}
	out := []map[string][]string{}
	for _, r := range reqs {
		alt := map[string][]string{}
		if r != nil && r.Requirements != nil {
			for name, scopes := range r.Requirements.FromOldest() {
				alt[name] = append([]string{}, scopes...)
			}
		}
		out = append(out, alt)
	}
	return out
}

// bodies reads the request body and responses from the operation's own
// YAML rather than the library's model: the model drops a whole responses
// object when one schema $ref in it is broken, and the declared status codes
// must survive that (the broken $ref is reported on its own).
func (l *loader) bodies(o *Operation, opNode *yaml.Node) {
	if opNode == nil || opNode.Kind != yaml.MappingNode {
		return
	}
	if rb := l.deref(mapValue(opNode, "requestBody")); rb != nil && rb.Kind == yaml.MappingNode {
		o.RequestBodyRequired = scalarTrue(mapValue(rb, "required"))
		if content := l.content(rb); content != nil {
			o.RequestBody = map[string]any{}
			for mt, schema := range content {
				o.RequestBody[mt] = schema
			}
		}
	}
	rs := l.deref(mapValue(opNode, "responses"))
	if rs == nil || rs.Kind != yaml.MappingNode {
		return
	}
	for i := 0; i+1 < len(rs.Content); i += 2 {
		code := rs.Content[i].Value
		if strings.HasPrefix(code, "x-") {
			continue
		}
		r := l.deref(rs.Content[i+1])
		if r == nil || r.Kind != yaml.MappingNode {
			continue
		}
		if o.Responses == nil {
			o.Responses = map[string]Response{}
		}
		o.Responses[code] = Response{Content: l.content(r)}
	}
}

// content maps the media types of a request body or response to schemas.
func (l *loader) content(n *yaml.Node) map[string]map[string]any {
	c := l.deref(mapValue(n, "content"))
	if c == nil || c.Kind != yaml.MappingNode || len(c.Content) == 0 {
		return nil
	}
	out := map[string]map[string]any{}
	for i := 0; i+1 < len(c.Content); i += 2 {
		var schema map[string]any
		if media := l.deref(c.Content[i+1]); media != nil && media.Kind == yaml.MappingNode {
			schema = l.conv.schema(mapValue(media, "schema"))
		}
		out[c.Content[i].Value] = schema
	}
	return out
}

// deref follows aliases and local $refs (a few hops: a chain longer than
// that is a loop).
func (l *loader) deref(n *yaml.Node) *yaml.Node {
	for range 8 {
		for n != nil && n.Kind == yaml.AliasNode {
			n = n.Alias
		}
		if n == nil || n.Kind != yaml.MappingNode {
			return n
		}
		ref, ok := refOf(n)
		if !ok || !strings.HasPrefix(ref, "#") {
			return n
		}
		n = lookupPointer(l.root, ref)
	}
	return nil
}

func scalarTrue(n *yaml.Node) bool {
	return n != nil && n.Kind == yaml.ScalarNode && n.ShortTag() == "!!bool" && strings.EqualFold(n.Value, "true")
}

func (l *loader) extensions(o *Operation, op *v3high.Operation, ptr string) {
	if op.Extensions == nil || op.Extensions.Len() == 0 {
		return
	}
	keys := map[string]*yaml.Node{}
	if low := op.GoLow(); low != nil && low.Extensions != nil {
		for k := range low.Extensions.KeysFromOldest() {
			keys[k.Value] = k.KeyNode
		}
	}
	o.Extensions = map[string]any{}
	o.ExtensionLocations = map[string]finding.SourceLocation{}
	for name, n := range op.Extensions.FromOldest() {
		v := l.conv.plain(n)
		o.Extensions[name] = v
		o.ExtensionLocations[name] = l.loc(keys[name], jsonorder.Join(ptr, name))
		switch name {
		case "x-hal-rel":
			l.doc.UsesHALRel = true
			o.HALRels, o.HALRelsRaw = decodeHALRel(v)
			loc := o.ExtensionLocations[name]
			o.HALRelLocation = &loc
		case "x-mcp-tool":
			o.MCPTool = mcpToolName(v)
		case "x-operation-uri":
			o.OperationURI, _ = v.(string)
		}
	}
}

// decodeHALRel keeps a well-formed array of strings verbatim, so that the
// well-formedness check sees empty strings and duplicates; anything else is
// kept raw, with its usable strings extracted.
func decodeHALRel(v any) (rels []string, raw any) {
	switch t := v.(type) {
	case []any:
		wellFormed := true
		for _, e := range t {
			s, ok := e.(string)
			if !ok {
				wellFormed = false
				continue
			}
			rels = append(rels, s)
		}
		if wellFormed {
			return rels, nil
		}
		return nonEmpty(rels), v
	case string:
		return nonEmpty([]string{t}), v
	}
	return nil, v
}

func nonEmpty(ss []string) []string {
	var out []string
	for _, s := range ss {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

// mcpToolName accepts x-mcp-tool as a name, or as an object with a name.
func mcpToolName(v any) string {
	switch t := v.(type) {
	case string:
		return t
	case map[string]any:
		s, _ := t["name"].(string)
		return s
	}
	return ""
}

func sortProblems(ps []Problem) {
	sort.SliceStable(ps, func(i, j int) bool {
		a, b := ps[i].Location, ps[j].Location
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		if a.Column != b.Column {
			return a.Column < b.Column
		}
		return ps[i].Message < ps[j].Message
	})
}
