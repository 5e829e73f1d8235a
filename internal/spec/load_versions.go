package spec

import (
	"fmt"
	"strconv"
	"strings"

	yaml "github.com/pb33f/go-yaml"

	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/jsonorder"
)

// Schema keywords that exist only in the JSON Schema 2020-12 dialect of
// OpenAPI 3.1 and later. In a 3.0 Schema Object they are not allowed, and
// 3.0 tools ignore them.
var only31Keywords = map[string]bool{
	"const": true, "prefixItems": true, "$defs": true, "$schema": true, "$id": true,
	"unevaluatedProperties": true, "unevaluatedItems": true, "dependentSchemas": true,
	"dependentRequired": true, "contentMediaType": true, "contentEncoding": true,
	"if": true, "then": true, "else": true, "examples": true, "patternProperties": true,
	"propertyNames": true, "contains": true,
}

// Keywords whose values are schemas, maps of schemas or lists of schemas.
var (
	subschema     = []string{"items", "additionalProperties", "not", "if", "then", "else", "contains", "propertyNames", "unevaluatedItems", "unevaluatedProperties"}
	subschemaMap  = []string{"properties", "patternProperties", "$defs", "dependentSchemas"}
	subschemaList = []string{"allOf", "anyOf", "oneOf", "prefixItems"}
)

// mixedFeatures finds constructs of one OpenAPI version in a document that
// declares another: 3.1 schema keywords in 3.0, and 3.0's nullable and
// boolean exclusive bounds in 3.1 and later. The library accepts both
// silently, and then tools disagree about what the document means.
func mixedFeatures(d *Document, root *yaml.Node) []Problem {
	is30 := strings.HasPrefix(d.Version, "3.0")
	w := &mixWalker{doc: d, is30: is30, list: newProblemList()}
	if root != nil && root.Kind == yaml.DocumentNode && len(root.Content) > 0 {
		root = root.Content[0]
	}
	if root == nil || root.Kind != yaml.MappingNode {
		return nil
	}
	if is30 {
		for i := 0; i+1 < len(root.Content); i += 2 {
			if k := root.Content[i]; k.Value == "webhooks" || k.Value == "jsonSchemaDialect" {
				w.add(k, []string{k.Value}, true, "%q is OpenAPI 3.1; a %s document cannot declare it", k.Value, d.Version)
			}
		}
	}
	// Room for the deepest path the walk descends to, so that extending it
	// in place never allocates (a schema keyword and an index can add two
	// elements to a level).
	w.walk(root, make([]string, 0, 2*maxConvertDepth+4), 0)
	return listed(&w.list, "constructs of another OpenAPI version")
}

type mixWalker struct {
	doc  *Document
	is30 bool
	list problemList
}

func (w *mixWalker) add(n *yaml.Node, path []string, warning bool, format string, args ...any) {
	w.list.Add(Problem{
		Message:  fmt.Sprintf(format, args...),
		Location: finding.SourceLocation{File: w.doc.File, Line: max(n.Line, 1), Column: n.Column, Pointer: jsonorder.Pointer(path)},
		Warning:  warning,
	})
}

// walk visits the document looking for schemas: values of "schema" keys and
// the entries of components.schemas. Examples and extensions are data and
// are not entered.
//
// The walk extends one path, in place, as it descends: a problem copies it
// into its pointer when it is found, and nothing else keeps it, so the
// entries of one mapping reuse the slot of the last element instead of
// allocating a path each.
func (w *mixWalker) walk(n *yaml.Node, path []string, depth int) {
	if n == nil || depth > maxConvertDepth {
		return
	}
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i].Value, n.Content[i+1]
			if k == "example" || k == "examples" || strings.HasPrefix(k, "x-") {
				continue
			}
			p := append(path, k)
			switch {
			case k == "schema":
				w.schema(v, p, depth+1)
			case k == "schemas" && len(path) == 1 && path[0] == "components":
				w.schemaMap(v, p, depth+1)
			default:
				w.walk(v, p, depth+1)
			}
		}
	case yaml.SequenceNode:
		for i, e := range n.Content {
			w.walk(e, append(path, strconv.Itoa(i)), depth+1)
		}
	}
}

func (w *mixWalker) schemaMap(n *yaml.Node, path []string, depth int) {
	if n == nil || n.Kind != yaml.MappingNode {
		return
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		w.schema(n.Content[i+1], append(path, n.Content[i].Value), depth+1)
	}
}

func (w *mixWalker) schema(n *yaml.Node, path []string, depth int) {
	if n == nil || n.Kind != yaml.MappingNode || depth > maxConvertDepth {
		return
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		kn, v := n.Content[i], n.Content[i+1]
		w.keyword(kn, v, append(path, kn.Value))
	}
	for _, k := range subschema {
		if v := mapValue(n, k); v != nil {
			w.schema(v, append(path, k), depth+1)
		}
	}
	for _, k := range subschemaMap {
		if v := mapValue(n, k); v != nil {
			w.schemaMap(v, append(path, k), depth+1)
		}
	}
	for _, k := range subschemaList {
		if v := mapValue(n, k); v != nil && v.Kind == yaml.SequenceNode {
			for i, e := range v.Content {
				w.schema(e, append(path, k, strconv.Itoa(i)), depth+1)
			}
		}
	}
}

// keyword judges one schema keyword against the document's version.
func (w *mixWalker) keyword(kn, v *yaml.Node, path []string) {
	k := kn.Value
	switch {
	case w.is30 && k == "type" && v.Kind == yaml.SequenceNode:
		w.add(kn, path, false, "type is a list, which is OpenAPI 3.1; in %s type must be a single string (use nullable: true or oneOf)", w.doc.Version)
	case w.is30 && (k == "exclusiveMinimum" || k == "exclusiveMaximum") && v.Kind == yaml.ScalarNode && v.ShortTag() != "!!bool":
		w.add(kn, path, false, "%s is a number, which is OpenAPI 3.1; in %s it must be a boolean next to minimum/maximum", k, w.doc.Version)
	case w.is30 && only31Keywords[k]:
		w.add(kn, path, true, "%s is an OpenAPI 3.1 schema keyword; %s tools ignore it", k, w.doc.Version)
	case !w.is30 && k == "nullable":
		w.add(kn, path, true, "nullable is OpenAPI 3.0 and is ignored in %s: add \"null\" to type instead", w.doc.Version)
	case !w.is30 && (k == "exclusiveMinimum" || k == "exclusiveMaximum") && v.ShortTag() == "!!bool":
		w.add(kn, path, false, "%s is a boolean, which is OpenAPI 3.0; in %s it must be the bound itself (a number)", k, w.doc.Version)
	}
}

func mapValue(n *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}
