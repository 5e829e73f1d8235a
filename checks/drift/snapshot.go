package drift

import (
	"cmp"
	"encoding/json"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/internal/hypermedia"
	"github.com/agentready/agentready/checks/internal/llmstxt"
	"github.com/agentready/agentready/checks/internal/purpose"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/mcp"
	"github.com/agentready/agentready/internal/spec"
	"github.com/agentready/agentready/internal/urlx"
)

// Bounds on what a snapshot keeps of a large or hostile surface, so that
// the report and a committed baseline stay readable.
const (
	maxOperations = 2000
	// maxSchemaDepth cuts the parameter and body schemas of the OpenAPI
	// document, whose resolved $refs may nest without end.
	maxSchemaDepth = 8
	maxSkills      = 500
	// maxResponseBytes bounds the response schemas a snapshot records, over
	// the whole document: past it, an operation's responses are left
	// unknown (and not compared) rather than bloat every report.
	maxResponseBytes = 4 << 20
	// maxEntries bounds the prompts and resources kept.
	maxEntries = 2000
)

var snapshotKey = checks.NewKey[*finding.Snapshot]()

// Snapshot is the agent surface of the scan, computed once per Input.
func Snapshot(in *checks.Input) *finding.Snapshot {
	return checks.Memo(in, snapshotKey, func() *finding.Snapshot {
		return &finding.Snapshot{
			MCP: toolsOf(in.MCP), OpenAPI: operationsOf(in.Spec), Hypermedia: relationsOf(in),
			AgentCard: agentCardOf(in), LLMs: llmsOf(in),
		}
	})
}

// toolsOf is the first tools/list walk, when it was complete: a catalog
// read in part would show the rest as removed.
func toolsOf(s *mcp.Snapshot) *finding.SnapshotMCP {
	if !s.Assessed() || len(s.Listings) == 0 || !s.Listings[0].Complete {
		return nil
	}
	out := &finding.SnapshotMCP{Endpoint: s.Endpoint.URL, Tools: map[string]finding.SnapshotTool{}, OutputSchemas: true,
		Prompts: promptsOf(s), Resources: resourcesOf(s)}
	for i := range s.Listings[0].Tools {
		t := &s.Listings[0].Tools[i]
		if _, dup := out.Tools[t.Name]; dup || !t.NameValid {
			continue
		}
		st := finding.SnapshotTool{Fingerprint: t.Fingerprint(), InputSchema: mcp.Canonical(t.InputSchema), OutputSchema: mcp.Canonical(t.OutputSchema)}
		if a := t.Annotations; a != nil {
			st.Annotations = &finding.ToolAnnotations{Title: a.Title, ReadOnlyHint: a.ReadOnlyHint,
				DestructiveHint: a.DestructiveHint, IdempotentHint: a.IdempotentHint, OpenWorldHint: a.OpenWorldHint}
		}
		out.Tools[t.Name] = st
	}
	return out
}

// listed is the entries under member of the first answer to an MCP listing
// method, nil when none was answered or the listing has a further page: a
// listing read in part would show the rest as removed.
func listed(s *mcp.Snapshot, method, member string) []json.RawMessage {
	for _, c := range s.CallsTo(method) {
		if c.Message == nil || c.Message.Result == nil {
			continue
		}
		var entries []json.RawMessage
		var cursor string
		if !mcp.ResultMember(c.Message.Result, member, &entries) ||
			mcp.ResultMember(c.Message.Result, "nextCursor", &cursor) && cursor != "" {
			return nil
		}
		if entries == nil {
			entries = []json.RawMessage{}
		}
		return entries
	}
	return nil
}

// promptsOf is prompts/list by name, with each prompt's arguments.
func promptsOf(s *mcp.Snapshot) map[string]finding.SnapshotPrompt {
	entries := listed(s, "prompts/list", "prompts")
	if entries == nil {
		return nil
	}
	out := map[string]finding.SnapshotPrompt{}
	for _, raw := range entries {
		var p struct {
			Name      string `json:"name"`
			Arguments []struct {
				Name     string `json:"name"`
				Required bool   `json:"required"`
			} `json:"arguments"`
		}
		if json.Unmarshal(raw, &p) != nil || p.Name == "" || len(out) >= maxEntries {
			continue
		}
		if _, dup := out[p.Name]; dup {
			continue
		}
		args := map[string]bool{}
		for _, a := range p.Arguments {
			if a.Name != "" {
				args[a.Name] = args[a.Name] || a.Required
			}
		}
		out[p.Name] = finding.SnapshotPrompt{Fingerprint: mcp.EntryFingerprint(raw), Arguments: args}
	}
	return out
}

// resourcesOf is resources/list by URI and resources/templates/list by URI
// template, known only when both were answered in full.
func resourcesOf(s *mcp.Snapshot) map[string]finding.SnapshotResource {
	plain := listed(s, "resources/list", "resources")
	templates := listed(s, "resources/templates/list", "resourceTemplates")
	if plain == nil || templates == nil {
		return nil
	}
	out := map[string]finding.SnapshotResource{}
	add := func(entries []json.RawMessage, key string, template bool) {
		for _, raw := range entries {
			var r map[string]any
			if json.Unmarshal(raw, &r) != nil || len(out) >= maxEntries {
				continue
			}
			id, _ := r[key].(string)
			mime, _ := r["mimeType"].(string)
			if _, dup := out[id]; id == "" || dup {
				continue
			}
			out[id] = finding.SnapshotResource{Fingerprint: mcp.EntryFingerprint(raw), Template: template, MimeType: mime}
		}
	}
	add(plain, "uri", false)
	add(templates, "uriTemplate", true)
	return out
}

// operationsOf is the operations of an OpenAPI 3 document; a Swagger 2.0
// document is not read operation by operation.
func operationsOf(doc *spec.Document) *finding.SnapshotOpenAPI {
	if doc == nil || doc.Swagger2 {
		return nil
	}
	out := &finding.SnapshotOpenAPI{Source: doc.Source, Operations: map[string]finding.SnapshotOperation{}}
	budget := maxResponseBytes
	for _, op := range doc.Operations {
		if len(out.Operations) >= maxOperations {
			break
		}
		if _, dup := out.Operations[op.Key()]; dup {
			continue
		}
		out.Operations[op.Key()] = finding.SnapshotOperation{OperationID: op.OperationID, InputSchema: inputSchema(op), HALRels: halRels(op),
			Responses: responsesOf(op, &budget)}
	}
	return out
}

// responsesOf is what the operation declares it answers, status by status;
// nil (unknown) once the document's responses have used up budget, so that
// the operations past it are not compared rather than seen to lose them.
func responsesOf(op *spec.Operation, budget *int) map[string]finding.SnapshotResponse {
	if *budget <= 0 {
		return nil
	}
	out := map[string]finding.SnapshotResponse{}
	for status, r := range op.Responses {
		sr := finding.SnapshotResponse{MediaTypes: slices.Sorted(maps.Keys(r.Content))}
		if sr.MediaTypes == nil {
			sr.MediaTypes = []string{}
		}
		content := make(map[string]any, len(r.Content))
		for mt, schema := range r.Content {
			content[mt] = schema
		}
		problem := problemSchema(status, r)
		if problem != nil {
			sr.ProblemTypes = problemTypes(problem)
		}
		if mt, ok := jsonMediaType(content); ok {
			body, _ := content[mt].(map[string]any)
			if isProblemJSON(mt) && sr.ProblemTypes != nil {
				body = spec.Unpinned(body, "type")
			}
			raw, err := json.Marshal(prune(schemaOrAny(body), maxSchemaDepth))
			if err == nil {
				sr.Schema = raw
				*budget -= len(raw)
			}
		}
		out[status] = sr
	}
	if *budget < 0 {
		return nil
	}
	return out
}

// inputSchema gathers an operation's parameters and JSON body into one
// object schema (see finding.SnapshotOperation).
func inputSchema(op *spec.Operation) json.RawMessage {
	props := map[string]any{}
	required := []string{}
	for _, p := range op.Parameters {
		name := p.In + ":" + p.Name
		props[name] = prune(schemaOrAny(p.Schema), maxSchemaDepth)
		if p.Required && !slices.Contains(required, name) {
			required = append(required, name)
		}
	}
	if body, ok := jsonBody(op.RequestBody); ok {
		props["body"] = prune(schemaOrAny(body), maxSchemaDepth)
		if op.RequestBodyRequired {
			required = append(required, "body")
		}
	}
	sort.Strings(required)
	raw, err := json.Marshal(map[string]any{"type": "object", "properties": props, "required": required})
	if err != nil {
		return json.RawMessage(`{}`)
	}
	return raw
}

func schemaOrAny(s map[string]any) map[string]any {
	if s == nil {
		return map[string]any{}
	}
	return s
}

// jsonBody is the request body schema an agent sends: application/json, or
// else the first JSON media type by name.
func jsonBody(content map[string]any) (map[string]any, bool) {
	mt, ok := jsonMediaType(content)
	if !ok {
		return nil, false
	}
	m, _ := content[mt].(map[string]any)
	return m, true
}

// jsonMediaType is the media type of the JSON body among content:
// application/json, or else the first JSON media type by name.
func jsonMediaType(content map[string]any) (string, bool) {
	if _, ok := content["application/json"]; ok {
		return "application/json", true
	}
	for _, mt := range slices.Sorted(maps.Keys(content)) {
		if strings.Contains(mt, "json") {
			return mt, true
		}
	}
	return "", false
}

func isProblemJSON(mt string) bool {
	t, _ := exchange.MediaTypeOf(mt)
	return t == "application/problem+json"
}

// problemSchema is the application/problem+json schema of an error
// response, nil for any other response.
func problemSchema(status string, r spec.Response) map[string]any {
	if !spec.IsErrorStatus(status) {
		return nil
	}
	for _, mt := range slices.Sorted(maps.Keys(r.Content)) {
		if isProblemJSON(mt) {
			return r.Content[mt]
		}
	}
	return nil
}

// problemTypes are the type URIs a problem schema pins, sorted and
// distinct; nil when it pins none.
func problemTypes(schema map[string]any) []string {
	var out []string
	for _, v := range spec.PinnedValues(schema, "type") {
		if uri, ok := v.(string); ok && !slices.Contains(out, uri) {
			out = append(out, uri)
		}
	}
	sort.Strings(out)
	return out
}

// prune copies a schema down to depth; deeper members become {} (any).
// Keywords that annotate rather than constrain are left out: they change
// nothing an agent may send, and a large document's descriptions would
// otherwise be most of the snapshot. The members of properties and the
// like are names, never keywords, and are all kept.
func prune(v any, depth int) any { return pruneSchema(v, depth, false) }

func pruneSchema(v any, depth int, names bool) any {
	switch t := v.(type) {
	case map[string]any:
		if depth <= 0 {
			return map[string]any{}
		}
		out := make(map[string]any, len(t))
		for k, x := range t {
			if !names && (annotation[k] || strings.HasPrefix(k, "x-")) {
				continue
			}
			out[k] = pruneSchema(x, depth-1, !names && namedMembers[k])
		}
		return out
	case []any:
		if depth <= 0 {
			return []any{}
		}
		out := make([]any, len(t))
		for i, x := range t {
			out[i] = pruneSchema(x, depth-1, false)
		}
		return out
	}
	return v
}

// namedMembers are the keywords whose members are named schemas.
var namedMembers = map[string]bool{
	"properties": true, "patternProperties": true, "$defs": true, "definitions": true, "dependentSchemas": true,
}

// annotation are the JSON Schema keywords that describe a value without
// constraining it.
var annotation = map[string]bool{
	"description": true, "title": true, "example": true, "examples": true, "$comment": true,
	"externalDocs": true,
}

func halRels(op *spec.Operation) []string {
	var out []string
	for _, r := range op.HALRels {
		if r != "" && !slices.Contains(out, r) {
			out = append(out, r)
		}
	}
	sort.Strings(out)
	return out
}

// relationsOf gathers, per path shape, the link relations the crawled HAL
// resources offered; nil when the crawl met none. It reads the documents
// the hypermedia families decode, once per scan and a bounded number per
// path shape; a body cut short is not read, since it would seem to have
// lost links.
func relationsOf(in *checks.Input) *finding.SnapshotHypermedia {
	out := &finding.SnapshotHypermedia{Offered: map[string][]string{}, Always: map[string][]string{}}
	for _, d := range hypermedia.HALDocs(in) {
		if d.HAL == nil || d.HAL.Root == nil {
			continue
		}
		var rels []string
		for _, r := range d.HAL.Root.Relations {
			if !pagination[r.Name] && !slices.Contains(rels, r.Name) {
				rels = append(rels, r.Name)
			}
		}
		sort.Strings(rels)
		shape := hypermedia.ShapeOf(d.X)
		if _, seen := out.Offered[shape]; !seen {
			out.Offered[shape], out.Always[shape] = nonNil(rels), nonNil(slices.Clone(rels))
			continue
		}
		out.Offered[shape] = union(out.Offered[shape], rels)
		out.Always[shape] = slices.DeleteFunc(out.Always[shape], func(r string) bool { return !slices.Contains(rels, r) })
	}
	if len(out.Offered) == 0 {
		return nil
	}
	return out
}

// pagination relations (RFC 8288's registry) depend on the page, not on
// what the resource offers.
var pagination = map[string]bool{"first": true, "last": true, "next": true, "prev": true, "previous": true}

func union(a, b []string) []string {
	out := slices.Clone(a)
	for _, r := range b {
		if !slices.Contains(out, r) {
			out = append(out, r)
		}
	}
	sort.Strings(out)
	return out
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// wellKnown is a path at the top of the target's origin, where the
// discovery family fetches its documents.
func wellKnown(target *url.URL, path string) string {
	u := url.URL{Scheme: target.Scheme, Host: target.Host, Path: path}
	return u.String()
}

// agentCardExchange is the agent card the discovery family fetched, at the
// current location or else the legacy one.
func agentCardExchange(in *checks.Input) *exchange.Exchange {
	if in.Target == nil {
		return nil
	}
	current := in.Probe(purpose.AgentCard, wellKnown(in.Target, purpose.AgentCardPath))
	if ok2xx(current) {
		return current
	}
	if legacy := in.Probe(purpose.AgentCardLegacy, wellKnown(in.Target, "/.well-known/agent.json")); ok2xx(legacy) {
		return legacy
	}
	return current
}

func ok2xx(x *exchange.Exchange) bool {
	return x != nil && x.Response != nil && x.Response.Status/100 == 2
}

// agentCardOf is the card's skills. A card that answers 404 or 410 is gone
// and has none; one that was not fetched, or answered otherwise, is not
// known.
func agentCardOf(in *checks.Input) *finding.SnapshotAgentCard {
	x := agentCardExchange(in)
	if x == nil || x.Response == nil {
		return nil
	}
	out := &finding.SnapshotAgentCard{URL: x.Request.URL, Skills: map[string]finding.SnapshotSkill{}}
	if s := x.Response.Status; s == http.StatusNotFound || s == http.StatusGone {
		return out
	}
	v, err := x.Response.JSON()
	obj, ok := v.(map[string]any)
	if !ok2xx(x) || err != nil || !ok {
		return nil
	}
	skills, _ := obj["skills"].([]any)
	for _, s := range skills {
		if len(out.Skills) >= maxSkills {
			break
		}
		m, _ := s.(map[string]any)
		id, _ := m["id"].(string)
		name, _ := m["name"].(string)
		key := cmp.Or(id, name)
		if _, dup := out.Skills[key]; key == "" || dup {
			continue
		}
		out.Skills[key] = finding.SnapshotSkill{Name: name}
	}
	return out
}

// llmsOf is the file lists of llms.txt; a link to the scanned origin is
// kept as its path, so that a baseline taken on another port still matches.
func llmsOf(in *checks.Input) *finding.SnapshotLLMs {
	if in.Target == nil {
		return nil
	}
	x := in.Probe(purpose.LLMs, wellKnown(in.Target, purpose.LLMsPath))
	if !ok2xx(x) || x.Response.MediaType() == "text/html" || len(x.Response.Body) == 0 {
		return nil
	}
	out := &finding.SnapshotLLMs{URL: x.Request.URL, Entries: map[string]string{}}
	for _, l := range llmstxt.Parse(x.Response.Body).Links() {
		if _, dup := out.Entries[l.Name]; dup {
			continue
		}
		out.Entries[l.Name] = originPath(in.Target, l.URL)
	}
	return out
}

func originPath(target *url.URL, ref string) string {
	u, err := url.Parse(ref)
	if err != nil || !u.IsAbs() || !urlx.SameOrigin(u, target) {
		return ref
	}
	p := u.EscapedPath()
	if u.RawQuery != "" {
		p += "?" + u.RawQuery
	}
	return p
}
