package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	yaml "github.com/pb33f/go-yaml"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
)

// LoadChecked is Load reporting every problem of the file's shape at once:
// the decoder stops at the first key unknown or value of the wrong type, so
// a file it refuses is validated against the JSON Schema generated for k,
// which names every one, each with its line. The names of checks and
// families in a file of the right shape are left to Validate.
func LoadChecked(path string, k Known) (*File, error) {
	data, err := readBounded(path)
	if err != nil {
		return nil, err
	}
	f, err := Parse(data)
	if err != nil {
		if all := shapeProblems(data, k); all != nil {
			return nil, fmt.Errorf("%s:\n  %s", path, strings.ReplaceAll(all.Error(), "\n", "\n  "))
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	f.Path = path
	return f, nil
}

// shapeProblems are the unknown keys (with their "did you mean" hints),
// the unknown check and family names (with theirs) and every other
// violation of the schema, in the order of their lines; nil when there are
// none or the document cannot be read as JSON's data model.
func shapeProblems(data []byte, k Known) error {
	var root yaml.Node
	if yaml.Unmarshal(data, &root) != nil || len(root.Content) == 0 {
		return nil
	}
	doc := root.Content[0]
	var all []lineError
	if err := checkKeys(doc, fileShape()); err != nil {
		for _, e := range unjoin(err) {
			all = append(all, lineError{line: leadingLine(e.Error()), msg: e.Error()})
		}
	}
	all = append(all, nameProblems(doc, k)...)
	var v any
	if yaml.Unmarshal(data, &v) == nil {
		all = append(all, schemaProblems(doc, v, k)...)
	}
	if len(all) == 0 {
		return nil
	}
	slices.SortStableFunc(all, func(a, b lineError) int { return a.line - b.line })
	errs := make([]error, len(all))
	for i, e := range all {
		errs[i] = errors.New(e.msg)
	}
	return errors.Join(errs...)
}

// lineError is a problem and the line it is on, for the file order.
type lineError struct {
	line int
	msg  string
}

func unjoin(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

// leadingLine reads the "line N:" checkKeys starts its errors with.
func leadingLine(msg string) int {
	var n int
	if _, err := fmt.Sscanf(msg, "line %d:", &n); err != nil {
		return 0
	}
	return n
}

// nameProblems names the unknown checks and families the file's checks:
// and families: keys give, as Validate does; the schema's list of every
// name would be no help.
func nameProblems(doc *yaml.Node, k Known) []lineError {
	var out []lineError
	checkIDs := slices.Clone(k.Checks)
	if rules := mappingValue(doc, "rules"); rules != nil && rules.Kind == yaml.MappingNode {
		for i := 0; i < len(rules.Content); i += 2 {
			checkIDs = append(checkIDs, CheckID(rules.Content[i].Value))
		}
	}
	for _, sec := range []struct {
		key, kind string
		known     []string
	}{{"checks", "check", checkIDs}, {"families", "family", k.Families}} {
		n := mappingValue(doc, sec.key)
		if n == nil || n.Kind != yaml.MappingNode {
			continue
		}
		for i := 0; i < len(n.Content); i += 2 {
			name := n.Content[i]
			if msg := unknownName(sec.kind, name.Value, sec.known); msg != "" {
				out = append(out, lineError{line: name.Line, msg: fmt.Sprintf("line %d: %s.%s: %s", name.Line, sec.key, name.Value, msg)})
			}
		}
	}
	return out
}

// schemaProblems are the violations of the schema but the unknown keys and
// names, which checkKeys and nameProblems tell better.
func schemaProblems(doc *yaml.Node, v any, k Known) []lineError {
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		return nil
	}
	schema, err := compiledSchema(k)
	if err != nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(schema.Validate(inst), &ve) {
		return nil
	}
	var out []lineError
	for _, u := range ve.BasicOutput().Errors {
		if u.Error == nil || !isLeafKind(u.Error.Kind) || strings.Contains(u.KeywordLocation, "/propertyNames/") {
			continue
		}
		if _, unknownKey := u.Error.Kind.(*kind.AdditionalProperties); unknownKey {
			continue
		}
		msg := u.Error.String()
		if p, ok := u.Error.Kind.(*kind.Pattern); ok && p.Want == durationPattern {
			msg = fmt.Sprintf("%q: want a duration such as 10s, 1m30s or 2h", p.Got)
		}
		line := lineOf(doc, u.InstanceLocation)
		out = append(out, lineError{line: line, msg: fmt.Sprintf("line %d: %s: %s", line, keyPath(u.InstanceLocation), msg)})
	}
	return out
}

func compiledSchema(k Known) (*jsonschema.Schema, error) {
	raw, err := Schema(k)
	if err != nil {
		return nil, err
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource(SchemaID, doc); err != nil {
		return nil, err
	}
	return c.Compile(SchemaID)
}

// isLeafKind tells an error that says what is wrong from one that says a
// subschema failed.
func isLeafKind(k jsonschema.ErrorKind) bool {
	switch k.(type) {
	case *kind.Group, *kind.Schema, *kind.Reference, *kind.AllOf, *kind.AnyOf, *kind.PropertyNames:
		return false
	}
	return true
}

// keyPath writes a JSON pointer as the file's keys are written elsewhere
// in errors: limits.max-pages, ignores[0].check.
func keyPath(pointer string) string {
	var b strings.Builder
	for _, tok := range pointerTokens(pointer) {
		if _, err := strconv.Atoi(tok); err == nil {
			b.WriteString("[" + tok + "]")
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(tok)
	}
	if b.Len() == 0 {
		return "(the file)"
	}
	return b.String()
}

func pointerTokens(pointer string) []string {
	pointer = strings.TrimPrefix(pointer, "/")
	if pointer == "" {
		return nil
	}
	toks := strings.Split(pointer, "/")
	for i, t := range toks {
		toks[i] = strings.ReplaceAll(strings.ReplaceAll(t, "~1", "/"), "~0", "~")
	}
	return toks
}

// lineOf is the line of the node at pointer in doc, or that of the
// nearest node on its way that is there.
func lineOf(doc *yaml.Node, pointer string) int {
	n := doc
	for _, tok := range pointerTokens(pointer) {
		for n.Kind == yaml.AliasNode && n.Alias != nil {
			n = n.Alias
		}
		next := (*yaml.Node)(nil)
		switch n.Kind {
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				if n.Content[i].Value == tok {
					next = n.Content[i+1]
				}
			}
		case yaml.SequenceNode:
			if i, err := strconv.Atoi(tok); err == nil && i >= 0 && i < len(n.Content) {
				next = n.Content[i]
			}
		}
		if next == nil {
			return n.Line
		}
		n = next
	}
	return n.Line
}
