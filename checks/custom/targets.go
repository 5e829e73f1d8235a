package custom

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	yaml "github.com/pb33f/go-yaml"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/internal/mcpmap"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/halview"
	"github.com/agentready/agentready/internal/jsonorder"
	"github.com/agentready/agentready/internal/mcp"
	"github.com/agentready/agentready/internal/sanitize"
)

// The targets a rule may read.
const (
	TargetSpec     = "spec"
	TargetExchange = "exchange"
	TargetMCPTool  = "mcp-tool"
	TargetHALLink  = "hal-link"
)

// targets lists them in the order messages name them.
var targets = []string{TargetSpec, TargetExchange, TargetMCPTool, TargetHALLink}

// item is one JSON value a rule reads, and what a finding on it shows.
type item struct {
	doc any
	// nodes counts the values of doc, 0 when not counted yet.
	nodes int
	// label names the item in messages: "the OpenAPI document", "GET /orders
	// (200)", "MCP tool \"echo\"", "link rel=\"next\" of /orders".
	label string
	// subject is label with the path of a crawled URL as its shape, so
	// that the fingerprint does not depend on which IDs the crawl saw;
	// "" when the label names no URL.
	subject string
	// evidence builds the finding's evidence for the value at path.
	evidence func(path []any) (finding.Evidence, *finding.SourceLocation)
	// inlined names the reference the value at path was inlined from, ""
	// when it is written where the path says; nil for targets without
	// references.
	inlined func(path []any) string
}

// itemsOf reads what target names from the recording, or says why the rule
// does not apply (a skip).
func itemsOf(c *Rule, in *checks.Input) ([]item, error) {
	switch c.target {
	case TargetSpec:
		return specItems(c, in)
	case TargetExchange:
		return exchangeItems(c, in), nil
	case TargetMCPTool:
		return toolItems(in)
	case TargetHALLink:
		return linkItems(in), nil
	}
	return nil, fmt.Errorf("unknown target %q", c.target)
}

// maxSpecNodes bounds the values read from a document, aliases expanded, so
// that a served document of aliases of aliases cannot exhaust memory.
const maxSpecNodes = 4 << 20

var specTreeKey = checks.NewKey[*specTree]()

var resolvedKey = checks.NewKey[*resolved]()

func specItems(c *Rule, in *checks.Input) ([]item, error) {
	if err := in.NeedSpec(); err != nil {
		return nil, err
	}
	v := checks.Memo(in, specTreeKey, func() *specTree { return readSpec(in.Spec.Raw) })
	if v.err != nil {
		return nil, checks.Skip("the OpenAPI document could not be read as JSON values: " + v.err.Error())
	}
	root, nodes := v.value, v.nodes
	var res *resolved
	if !c.unresolved {
		res = checks.Memo(in, resolvedKey, func() *resolved { return resolve(v.value) })
		root, nodes = res.value, res.size
		if note := res.notes(); note != "" {
			in.Observe(c.meta.ID, note)
		}
	}
	doc := in.Spec
	var inlined func([]any) string
	if res != nil {
		inlined = func(path []any) string {
			_, ref := origin(v.value, res.value, path)
			return ref
		}
	}
	return []item{{doc: root, nodes: nodes, label: "the OpenAPI document", inlined: inlined, evidence: func(path []any) (finding.Evidence, *finding.SourceLocation) {
		// The location is set even for a fetched document (File empty), so
		// that no operation the document's URL matches claims the finding.
		ev := finding.Evidence{Method: "GET", URL: doc.Source}
		written := path
		if res != nil {
			var ref string
			if written, ref = origin(v.value, res.value, path); ref != "" {
				// Where the value is written, since the path is in the
				// resolved document only.
				ev.JSONPointer = pointer(written)
			}
		}
		loc := finding.SourceLocation{File: doc.File, Pointer: pointer(written)}
		// An absent member is located at its closest ancestor, as
		// Spectral does.
		for end := len(written); end >= 0; end-- {
			if n := keyAt(v.root, written[:end]); n != nil {
				loc.Line, loc.Column = n.Line, n.Column
				break
			}
		}
		return ev, &loc
	}}}, nil
}

// specTree is a document read once for every rule: its JSON value and the
// YAML tree that gives positions.
type specTree struct {
	root  *yaml.Node
	value any
	nodes int // values in value
	err   error
}

func readSpec(raw []byte) *specTree {
	if raw == nil {
		return &specTree{err: fmt.Errorf("its text was not kept")}
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(raw, &doc); err != nil {
		return &specTree{err: err}
	}
	if len(doc.Content) == 0 {
		return &specTree{err: fmt.Errorf("the document is empty")}
	}
	budget := maxSpecNodes
	v, err := nodeValue(doc.Content[0], &budget)
	return &specTree{root: doc.Content[0], value: v, nodes: maxSpecNodes - budget, err: err}
}

// nodeValue converts a YAML node to what encoding/json decodes from the same
// document: keys as strings, numbers as float64.
func nodeValue(n *yaml.Node, budget *int) (any, error) {
	if *budget--; *budget < 0 {
		return nil, fmt.Errorf("more than %d values", maxSpecNodes)
	}
	switch n.Kind {
	case yaml.AliasNode:
		if n.Alias == nil {
			return nil, nil
		}
		return nodeValue(n.Alias, budget)
	case yaml.MappingNode:
		out := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			v, err := nodeValue(n.Content[i+1], budget)
			if err != nil {
				return nil, err
			}
			if _, dup := out[n.Content[i].Value]; !dup {
				out[n.Content[i].Value] = v
			}
		}
		return out, nil
	case yaml.SequenceNode:
		out := make([]any, 0, len(n.Content))
		for _, item := range n.Content {
			v, err := nodeValue(item, budget)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	case yaml.ScalarNode:
		return scalarValue(n), nil
	}
	return nil, nil
}

func scalarValue(n *yaml.Node) any {
	switch n.ShortTag() {
	case "!!null":
		return nil
	case "!!bool":
		b, err := strconv.ParseBool(strings.ToLower(n.Value))
		if err == nil {
			return b
		}
	case "!!int", "!!float":
		var f float64
		if err := n.Load(&f); err == nil {
			return f
		}
	}
	return n.Value
}

// keyAt follows a path of keys and indexes through a YAML tree and returns
// the node that names its last step: the key of a member, so that a finding
// on an object points at the line that names it, or the item of a list; nil
// when the path leaves the tree.
func keyAt(n *yaml.Node, path []any) *yaml.Node {
	at := n
	for _, step := range path {
		for n != nil && n.Kind == yaml.AliasNode {
			n = n.Alias
		}
		if n == nil {
			return nil
		}
		var next *yaml.Node
		switch s := step.(type) {
		case string:
			if n.Kind == yaml.MappingNode {
				for i := 0; i+1 < len(n.Content); i += 2 {
					if n.Content[i].Value == s {
						next, at = n.Content[i+1], n.Content[i]
						break
					}
				}
			}
		case int:
			if n.Kind == yaml.SequenceNode && s < len(n.Content) {
				next = n.Content[s]
				at = next
			}
		}
		if next == nil {
			return nil
		}
		n = next
	}
	return at
}

// exchangeItems are the crawl's requests that were answered, each as
// {method, url, path, query, status, headers, mediaType, body}. A scan
// with such a rule reads every page; a recording made without one may hold
// pages left unread, which would look like pages without body or headers,
// so they are counted and left out.
func exchangeItems(c *Rule, in *checks.Input) []item {
	var out []item
	unread := 0
	for x := range in.Recording.WithPurpose(exchange.PurposeCrawl) {
		if x.Response == nil {
			continue
		}
		if x.Response.Unread {
			unread++
			continue
		}
		out = append(out, item{doc: exchangeValue(x), label: exchangeLabel(x), subject: exchangeSubject(x), evidence: func(path []any) (finding.Evidence, *finding.SourceLocation) {
			var named []string
			if len(path) > 1 && path[0] == "headers" {
				if h, ok := path[1].(string); ok {
					named = []string{h}
				}
			}
			ev := checks.Evidence(x, nil, named)
			if len(path) > 0 && path[0] == "body" {
				ev.JSONPointer = pointer(path[1:])
			}
			return ev, nil
		}})
	}
	if unread > 0 {
		in.Observe(c.meta.ID, fmt.Sprintf("%d crawled pages of the recording were left unread (no body, no header but Content-Type and Link) and not judged: record the scan with this rule configured", unread))
	}
	return out
}

func exchangeLabel(x *exchange.Exchange) string {
	return fmt.Sprintf("%s %s (%d)", x.Request.Method, pathOf(x.Request.URL), x.Response.Status)
}

func exchangeSubject(x *exchange.Exchange) string {
	return fmt.Sprintf("%s %s (%d)", x.Request.Method, exchange.PathShape(pathOf(x.Request.URL)), x.Response.Status)
}

func pathOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Path == "" {
		return raw
	}
	return u.Path
}

// exchangeValue is the JSON shape docs/custom-rules.md documents: headers
// by canonical name, credentials redacted, repeated lines joined as HTTP
// joins them; the body only when it is whole JSON.
func exchangeValue(x *exchange.Exchange) map[string]any {
	u, _ := url.Parse(x.Request.URL)
	v := map[string]any{
		"method":    x.Request.Method,
		"url":       x.Request.URL,
		"status":    float64(x.Response.Status),
		"headers":   headerValue(x.Response.Header),
		"mediaType": x.Response.MediaType(),
	}
	if u != nil {
		v["path"], v["query"] = u.Path, u.RawQuery
	}
	if exchange.IsJSONMediaType(x.Response.MediaType()) && x.Response.Whole() {
		var body any
		if json.Unmarshal(x.Response.Body, &body) == nil {
			v["body"] = body
		}
	}
	return v
}

func headerValue(h map[string][]string) map[string]any {
	red := exchange.RedactHeader(h, nil)
	out := make(map[string]any, len(red))
	for k, vs := range red {
		out[k] = strings.Join(vs, ", ")
	}
	return out
}

// toolItems are the tools of the first tools/list walk, each as listed.
func toolItems(in *checks.Input) ([]item, error) {
	if in.MCP == nil {
		return nil, checks.Skip("no MCP endpoint was given (--mcp) or found on the target")
	}
	if len(in.MCP.Listings) == 0 || len(in.MCP.Listings[0].Tools) == 0 {
		return nil, checks.Skip("the MCP endpoint listed no tools")
	}
	l := &in.MCP.Listings[0]
	var out []item
	for i := range l.Tools {
		t := &l.Tools[i]
		var doc any
		if json.Unmarshal(t.Raw, &doc) != nil {
			continue
		}
		out = append(out, item{doc: doc, label: toolName(t), evidence: func(path []any) (finding.Evidence, *finding.SourceLocation) {
			member := ""
			if len(path) > 0 {
				member = strings.TrimPrefix(pointer(path), "/")
			}
			return mcpmap.ToolEvidence(l, t, member), nil
		}})
	}
	return out, nil
}

func toolName(t *mcp.Tool) string {
	if t.Name == "" {
		return fmt.Sprintf("MCP tool #%d of page %d", t.Index+1, t.Page+1)
	}
	return fmt.Sprintf("MCP tool %q", sanitize.Truncate(t.Name, valueLimit))
}

// linkItems are the links of every crawled HAL resource the scan read (an
// unread page has no body to take them from), embedded resources included,
// each as {rel, href, templated, title, name, type, deprecation,
// profile, hreflang, resource}.
func linkItems(in *checks.Input) []item {
	var out []item
	for x := range in.Recording.WithPurpose(exchange.PurposeCrawl) {
		if x.Response == nil || x.Response.Status/100 != 2 || !halview.IsHAL(x.Response.MediaType()) {
			continue
		}
		view := x.Response.ReadHAL()
		if view.Root == nil {
			continue
		}
		walkResources(view.Root, func(rel halview.Relation, l halview.Link) {
			out = append(out, item{doc: linkValue(x, rel, l), label: fmt.Sprintf("link rel=%q of %s", rel.Name, pathOf(x.Request.URL)),
				subject: fmt.Sprintf("link rel=%q of %s", rel.Name, exchange.PathShape(pathOf(x.Request.URL))),
				evidence: func([]any) (finding.Evidence, *finding.SourceLocation) {
					ev := checks.Evidence(x, nil, []string{"Content-Type"})
					ev.JSONPointer = l.Value.Pointer
					return ev, nil
				}})
		})
	}
	return out
}

func walkResources(r *halview.Resource, visit func(halview.Relation, halview.Link)) {
	for _, rel := range r.Relations {
		for _, l := range rel.Links {
			visit(rel, l)
		}
	}
	for _, e := range r.Embedded {
		for _, sub := range e.Resources {
			walkResources(sub, visit)
		}
	}
}

func linkValue(x *exchange.Exchange, rel halview.Relation, l halview.Link) map[string]any {
	v := map[string]any{"rel": rel.Name, "resource": x.Request.URL, "templated": l.Templated}
	for _, key := range []string{"href", "title", "name", "type", "deprecation", "profile", "hreflang"} {
		if m := l.Value.Get(key); m != nil {
			v[key] = plain(m.Any())
		}
	}
	return v
}

// pointer is the RFC 6901 form of a path of keys and indexes.
func pointer(path []any) string {
	tokens := make([]string, len(path))
	for i, step := range path {
		tokens[i] = fmt.Sprint(step)
	}
	return jsonorder.Pointer(tokens)
}
