package spec

import (
	"fmt"
	"net/http"
	"sort"
	"strings"

	yaml "github.com/pb33f/go-yaml"
	"github.com/pb33f/libopenapi/datamodel/high/base"
	v3high "github.com/pb33f/libopenapi/datamodel/high/v3"
	"github.com/pb33f/libopenapi/orderedmap"

	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/jsonorder"
)

// loader copies one built model into a Document in two passes. The first
// (readModel) runs while the library's model exists and copies what needs
// no conversion, keeping the YAML nodes of schemas, bodies and extensions;
// the second (convert) runs after the model is released and turns those
// nodes into plain values, so the two never take memory at the same time.
type loader struct {
	doc  *Document
	root *yaml.Node
	conv *converter
	ops  []pendingOp
	// items holds, for each of doc.PathItems, the nodes of each of its
	// parameters.
	items [][]paramNodes
}

// pendingOp is what the second pass converts for one operation.
type pendingOp struct {
	op *Operation
	// node is the operation object, read for its request body and responses.
	node *yaml.Node
	// params holds the nodes of each of op.Parameters.
	params     []paramNodes
	extensions []extension
}

type extension struct {
	name  string
	value *yaml.Node
}

// param is a parameter as read from the model, with the nodes the second
// pass converts.
type param struct {
	Parameter
	nodes paramNodes
}

// paramNodes are a parameter's schema and its example values (example, then
// each of examples), converted in the second pass.
type paramNodes struct {
	schema   *yaml.Node
	examples []*yaml.Node
}

// problemAt is a problem at a node of the document, or at its first line.
func (d *Document) problemAt(n *yaml.Node, format string, args ...any) Problem {
	loc := finding.SourceLocation{File: d.File, Line: 1}
	if n != nil && n.Line > 0 {
		loc.Line, loc.Column = n.Line, n.Column
	}
	return Problem{Message: fmt.Sprintf(format, args...), Location: loc}
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
		params, nodes := splitParams(shared)
		l.doc.PathItems = append(l.doc.PathItems, PathItem{
			Template: template, Parameters: params, Location: l.loc(keyNodes[template], ptr),
		})
		l.items = append(l.items, nodes)
		for method, op := range item.GetOperations().FromOldest() {
			if op != nil {
				l.operation(template, strings.ToUpper(method), op, shared, jsonorder.Join(ptr, method), m.Security)
			}
		}
	}
}

func (l *loader) operation(template, method string, op *v3high.Operation, shared []param, ptr string, docSecurity []*base.SecurityRequirement) {
	params, nodes := splitParams(mergeParameters(shared, l.parameters(op.Parameters, ptr+"/parameters")))
	o := &Operation{
		Method: method, PathTemplate: template, OperationID: op.OperationId,
		Summary: op.Summary, Description: op.Description,
		Deprecated: op.Deprecated != nil && *op.Deprecated,
		Parameters: params,
		Security:   security(op.Security, docSecurity),
	}
	var keyNode, node *yaml.Node
	if low := op.GoLow(); low != nil {
		keyNode, node = low.KeyNode, low.RootNode
		if keyNode == nil {
			keyNode = low.RootNode
		}
	}
	o.Location = l.loc(keyNode, ptr)
	l.doc.Operations = append(l.doc.Operations, o)
	l.ops = append(l.ops, pendingOp{op: o, node: node, params: nodes, extensions: l.extensionNodes(o, op, ptr)})
}

// convert is the second pass: schemas of parameters, request bodies,
// responses and extensions, from the nodes the first pass kept.
func (l *loader) convert() {
	for i, nodes := range l.items {
		l.parameterValues(l.doc.PathItems[i].Parameters, nodes)
	}
	for _, p := range l.ops {
		l.parameterValues(p.op.Parameters, p.params)
		l.bodies(p.op, p.node)
		l.extensions(p.op, p.extensions)
	}
	l.items, l.ops = nil, nil
}

func (l *loader) parameterValues(ps []Parameter, nodes []paramNodes) {
	for i, n := range nodes {
		ps[i].Schema = l.conv.schema(n.schema)
		for _, e := range n.examples {
			if v := l.conv.plain(e); v != nil {
				ps[i].Examples = append(ps[i].Examples, v)
			}
		}
	}
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

// schemaNode is where a schema is written, for the second pass.
func schemaNode(p *base.SchemaProxy) *yaml.Node {
	if p == nil || p.GoLow() == nil {
		return nil
	}
	return p.GoLow().GetValueNode()
}

func (l *loader) parameters(ps []*v3high.Parameter, ptr string) []param {
	var out []param
	for i, p := range ps {
		if p == nil {
			continue
		}
		var n *yaml.Node
		if low := p.GoLow(); low != nil {
			n = low.RootNode
		}
		out = append(out, param{
			Parameter: Parameter{
				Name: p.Name, In: p.In, Required: p.Required != nil && *p.Required,
				Location: l.loc(n, fmt.Sprintf("%s/%d", ptr, i)),
			},
			nodes: paramNodes{schema: parameterSchemaNode(p), examples: parameterExampleNodes(p)},
		})
	}
	return out
}

// parameterSchemaNode is the parameter's schema, or the schema of its first
// media type when it is described by content instead.
func parameterSchemaNode(p *v3high.Parameter) *yaml.Node {
	if n := schemaNode(p.Schema); n != nil {
		return n
	}
	for _, media := range mediaTypes(p.Content) {
		if media != nil {
			return schemaNode(media.Schema)
		}
		break
	}
	return nil
}

// parameterExampleNodes are the parameter's own example and the value of
// each of its examples, in document order; an example given only by
// externalValue has no value here.
func parameterExampleNodes(p *v3high.Parameter) []*yaml.Node {
	var out []*yaml.Node
	if p.Example != nil {
		out = append(out, p.Example)
	}
	if p.Examples != nil {
		for _, e := range p.Examples.FromOldest() {
			if e != nil && e.Value != nil {
				out = append(out, e.Value)
			}
		}
	}
	return out
}

func splitParams(ps []param) ([]Parameter, []paramNodes) {
	if len(ps) == 0 {
		return nil, nil
	}
	params := make([]Parameter, len(ps))
	nodes := make([]paramNodes, len(ps))
	for i, p := range ps {
		params[i], nodes[i] = p.Parameter, p.nodes
	}
	return params, nodes
}

// mergeParameters applies OpenAPI's rule: an operation parameter overrides
// the path item's parameter with the same name and location.
func mergeParameters(shared, own []param) []param {
	if len(shared) == 0 {
		return own
	}
	type key struct{ name, in string }
	overridden := map[key]bool{}
	for _, p := range own {
		overridden[key{p.Name, p.In}] = true
	}
	var out []param
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
			o.RequestBodyLocations = l.schemaLocations(rb, o.Location.Pointer+"/requestBody")
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
		o.Responses[code] = Response{Content: l.content(r),
			SchemaLocations: l.schemaLocations(r, jsonorder.Join(o.Location.Pointer+"/responses", code)),
			Headers:         l.headerNames(r)}
		o.Links = append(o.Links, l.links(code, r)...)
	}
}

// headerNames are the names of the headers a response declares, in
// canonical form: header names are case-insensitive (RFC 9110 §5.1), and
// OpenAPI keys them as written.
func (l *loader) headerNames(response *yaml.Node) []string {
	hs := l.deref(mapValue(response, "headers"))
	if hs == nil || hs.Kind != yaml.MappingNode {
		return nil
	}
	var out []string
	for i := 0; i+1 < len(hs.Content); i += 2 {
		out = append(out, http.CanonicalHeaderKey(hs.Content[i].Value))
	}
	return out
}

// links reads the link objects of one response, in document order.
func (l *loader) links(code string, response *yaml.Node) []Link {
	ls := l.deref(mapValue(response, "links"))
	if ls == nil || ls.Kind != yaml.MappingNode {
		return nil
	}
	var out []Link
	for i := 0; i+1 < len(ls.Content); i += 2 {
		n := l.deref(ls.Content[i+1])
		if n == nil || n.Kind != yaml.MappingNode {
			continue
		}
		link := Link{Status: code, Name: ls.Content[i].Value,
			OperationID: scalarString(mapValue(n, "operationId")), OperationRef: scalarString(mapValue(n, "operationRef"))}
		if ps, ok := l.conv.plain(mapValue(n, "parameters")).(map[string]any); ok {
			link.Parameters = ps
		}
		out = append(out, link)
	}
	return out
}

// scalarString is the value of a scalar node, or "".
func scalarString(n *yaml.Node) string {
	if n == nil || n.Kind != yaml.ScalarNode {
		return ""
	}
	return n.Value
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

// schemaLocations says where the schema of each media type of a response or
// request body is written; ptr is the pointer of the response or body.
func (l *loader) schemaLocations(n *yaml.Node, ptr string) map[string]finding.SourceLocation {
	c := l.deref(mapValue(n, "content"))
	if c == nil || c.Kind != yaml.MappingNode {
		return nil
	}
	out := map[string]finding.SourceLocation{}
	for i := 0; i+1 < len(c.Content); i += 2 {
		mt := c.Content[i].Value
		if media := l.deref(c.Content[i+1]); media != nil && media.Kind == yaml.MappingNode {
			if s := mapValue(media, "schema"); s != nil {
				out[mt] = l.loc(s, jsonorder.Join(jsonorder.Join(ptr+"/content", mt), "schema"))
			}
		}
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

// extensionNodes records where each x- extension is written and returns
// their values for the second pass.
func (l *loader) extensionNodes(o *Operation, op *v3high.Operation, ptr string) []extension {
	if op.Extensions == nil || op.Extensions.Len() == 0 {
		return nil
	}
	keys := map[string]*yaml.Node{}
	if low := op.GoLow(); low != nil && low.Extensions != nil {
		for k := range low.Extensions.KeysFromOldest() {
			keys[k.Value] = k.KeyNode
		}
	}
	out := make([]extension, 0, op.Extensions.Len())
	o.ExtensionLocations = map[string]finding.SourceLocation{}
	for name, n := range op.Extensions.FromOldest() {
		loc := l.loc(keys[name], jsonorder.Join(ptr, name))
		o.ExtensionLocations[name] = loc
		if name == "x-hal-rel" {
			o.HALRelLocation = &loc
		}
		out = append(out, extension{name: name, value: n})
	}
	return out
}

func (l *loader) extensions(o *Operation, exts []extension) {
	if len(exts) == 0 {
		return
	}
	o.Extensions = make(map[string]any, len(exts))
	for _, e := range exts {
		v := l.conv.plain(e.value)
		o.Extensions[e.name] = v
		switch e.name {
		case "x-hal-rel":
			l.doc.UsesHALRel = true
			o.HALRels, o.HALRelsRaw = decodeHALRel(v)
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
