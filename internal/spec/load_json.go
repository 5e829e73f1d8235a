package spec

import (
	"math"
	"net/url"
	"strconv"
	"strings"

	yaml "github.com/pb33f/go-yaml"

	"github.com/agentready/agentready/internal/jsonorder"
)

// Bounds of the YAML-to-JSON conversion. Descriptions are user input, and
// recursive schemas are legal: depth stops runaway inline nesting, the node
// budget stops a document that is small on disk but huge once its $refs are
// expanded (each $ref target is converted once and then shared).
const (
	maxConvertDepth = 64
	maxConvertNodes = 4 << 20
)

// converter turns YAML nodes into plain JSON values (map[string]any,
// []any, string, float64, bool, nil). Resolved $ref targets are memoized and
// shared between the operations that use them, so results are read-only.
type converter struct {
	root   *yaml.Node
	memo   map[string]any
	active map[string]bool
	// schemas memoizes by node: a parameter or response written once in
	// components and used by hundreds of operations is converted once.
	schemas map[*yaml.Node]map[string]any
	budget  int
}

func newConverter(root *yaml.Node) *converter {
	return &converter{root: root, memo: map[string]any{}, active: map[string]bool{},
		schemas: map[*yaml.Node]map[string]any{}, budget: maxConvertNodes}
}

// schema converts a schema node. A boolean schema (3.1) becomes its object
// equivalent: true accepts anything ({}), false nothing ({"not": {}}).
func (c *converter) schema(n *yaml.Node) map[string]any {
	if n == nil {
		return nil
	}
	if s, ok := c.schemas[n]; ok {
		return s
	}
	var s map[string]any
	switch v := c.value(n, 0, true).(type) {
	case map[string]any:
		s = v
	case bool:
		s = map[string]any{}
		if !v {
			s["not"] = map[string]any{}
		}
	}
	c.schemas[n] = s
	return s
}

// plain converts a value without following $refs: extensions are data.
func (c *converter) plain(n *yaml.Node) any { return c.value(n, 0, false) }

func (c *converter) value(n *yaml.Node, depth int, refs bool) any {
	if n == nil || depth > maxConvertDepth || c.budget <= 0 {
		return nil
	}
	c.budget--
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return nil
		}
		return c.value(n.Content[0], depth, refs)
	case yaml.AliasNode:
		return c.value(n.Alias, depth+1, refs)
	case yaml.SequenceNode:
		out := make([]any, 0, len(n.Content))
		for _, e := range n.Content {
			out = append(out, c.value(e, depth+1, refs))
		}
		return out
	case yaml.MappingNode:
		return c.mapping(n, depth, refs)
	case yaml.ScalarNode:
		return scalar(n)
	}
	return nil
}

func (c *converter) mapping(n *yaml.Node, depth int, refs bool) any {
	if refs {
		if ref, ok := refOf(n); ok && strings.HasPrefix(ref, "#") {
			target := c.resolve(ref, depth)
			if len(n.Content) == 2 {
				return target
			}
			// Siblings of $ref (legal in 3.1) are kept over the target's
			// keywords, as the library does by default.
			out := map[string]any{}
			if m, ok := target.(map[string]any); ok {
				for k, v := range m {
					out[k] = v
				}
			}
			for i := 0; i+1 < len(n.Content); i += 2 {
				if k := n.Content[i].Value; k != "$ref" {
					out[k] = c.value(n.Content[i+1], depth+1, refs)
				}
			}
			return out
		}
	}
	out := make(map[string]any, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		out[n.Content[i].Value] = c.value(n.Content[i+1], depth+1, refs)
	}
	return out
}

func refOf(n *yaml.Node) (string, bool) {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == "$ref" && n.Content[i+1].Kind == yaml.ScalarNode {
			return n.Content[i+1].Value, true
		}
	}
	return "", false
}

// resolve converts a local $ref target once. A reference met again while
// its own target is being converted is a cycle: it stays a {"$ref": ...}
// object, which is what a recursive schema means.
func (c *converter) resolve(ref string, depth int) any {
	if v, ok := c.memo[ref]; ok {
		return v
	}
	if c.active[ref] {
		return map[string]any{"$ref": ref}
	}
	target := lookupPointer(c.root, ref)
	if target == nil {
		// Unresolvable: the loader reports it with its line.
		return map[string]any{"$ref": ref}
	}
	c.active[ref] = true
	v := c.value(target, depth+1, true)
	delete(c.active, ref)
	c.memo[ref] = v
	return v
}

// lookupPointer follows a "#/a/b" fragment through the YAML tree.
func lookupPointer(root *yaml.Node, ref string) *yaml.Node {
	frag := strings.TrimPrefix(ref, "#")
	if dec, err := url.PathUnescape(frag); err == nil {
		frag = dec
	}
	n := root
	if n != nil && n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		n = n.Content[0]
	}
	if frag == "" {
		return n
	}
	if !strings.HasPrefix(frag, "/") {
		return nil
	}
	for _, tok := range strings.Split(frag[1:], "/") {
		tok = jsonorder.Unescape(tok)
		for n != nil && n.Kind == yaml.AliasNode {
			n = n.Alias
		}
		if n == nil {
			return nil
		}
		switch n.Kind {
		case yaml.MappingNode:
			var next *yaml.Node
			for i := 0; i+1 < len(n.Content); i += 2 {
				if n.Content[i].Value == tok {
					next = n.Content[i+1]
					break
				}
			}
			n = next
		case yaml.SequenceNode:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(n.Content) {
				return nil
			}
			n = n.Content[i]
		default:
			return nil
		}
	}
	return n
}

// scalar decodes by the resolved YAML tag; numbers become float64 as
// encoding/json would decode them.
func scalar(n *yaml.Node) any {
	switch n.ShortTag() {
	case "!!null":
		return nil
	case "!!bool":
		b, err := strconv.ParseBool(n.Value)
		if err != nil {
			var v bool
			if n.Decode(&v) == nil {
				return v
			}
			return n.Value
		}
		return b
	case "!!int", "!!float":
		var f float64
		if err := n.Decode(&f); err == nil && !math.IsInf(f, 0) && !math.IsNaN(f) {
			return f
		}
		return n.Value
	}
	return n.Value
}
