package config

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	yaml "github.com/pb33f/go-yaml"
)

// Rule is a house rule in Spectral's rule shape, so that a team can port
// the rules it has. The file holds it as data; checks/custom compiles it
// (JSONPath, regular expressions, schemas) and reports what does not
// compile at the rule's Position.
type Rule struct {
	Description string `yaml:"description,omitempty" doc:"What the rule requires, in one line: the check's title."`
	Message     string `yaml:"message,omitempty" doc:"Message of each finding; {{property}}, {{value}}, {{path}} and {{error}} are replaced as in Spectral."`
	Severity    string `yaml:"severity,omitempty" enum:"error,warn,warning,info,hint" doc:"Spectral's error, warn, info or hint (or warning); hint is reported as info. Default warn."`
	Target      string `yaml:"target" enum:"spec,exchange,mcp-tool,hal-link" doc:"What the rule reads: spec (the OpenAPI document), exchange (each recorded request and response), mcp-tool (each tool the MCP catalog lists) or hal-link (each HAL link); docs/custom-rules.md gives their JSON shapes."`
	Given       string `yaml:"given" doc:"RFC 9535 JSONPath selecting what the rule judges in each target value, e.g. $ or $.paths[*].post."`
	Then        Thens  `yaml:"then" one:"true" doc:"What each selected value must satisfy: one {field, function, functionOptions} or a list of them."`
	Resolved    *bool  `yaml:"resolved,omitempty" doc:"As in Spectral: a spec rule reads the document with its local $ref inlined unless this is false."`

	// Positions maps where the rule's keys are in the file, by dotted path
	// below the rule ("" for the rule's own key, "then[0].functionOptions.match",
	// ...), so that a rule that does not compile is reported at its line.
	Positions map[string]Position `yaml:"-"`
}

// Then is one function applied to what given selected.
type Then struct {
	Field           string         `yaml:"field,omitempty" doc:"Property of the selected value to judge, or @key for its key; the value itself when absent."`
	Function        string         `yaml:"function" enum:"truthy,falsy,defined,undefined,pattern,enumeration,length,casing,schema" doc:"Spectral core function to apply."`
	FunctionOptions map[string]any `yaml:"functionOptions,omitempty" doc:"The function's options: match/notMatch (pattern), values (enumeration), min/max (length), type (casing), schema (schema)."`
}

// Thens is a then written as one object or as a list, as Spectral takes it.
type Thens []Then

// UnmarshalYAML takes one object as a list of one.
func (t *Thens) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.MappingNode {
		var one Then
		if err := n.Load(&one, yaml.WithKnownFields()); err != nil {
			return err
		}
		*t = Thens{one}
		return nil
	}
	var many []Then
	if err := n.Load(&many, yaml.WithKnownFields()); err != nil {
		return err
	}
	*t = many
	return nil
}

// Position is a line and column in the file, both from 1.
type Position struct{ Line, Column int }

func (p Position) String() string { return fmt.Sprintf("line %d, column %d", p.Line, p.Column) }

// At is the position of the key at path below the rule, else of the
// nearest key above it that was written.
func (r Rule) At(path string) Position {
	for {
		if p, ok := r.Positions[path]; ok {
			return p
		}
		if path == "" {
			return Position{}
		}
		path = parentPath(path)
	}
}

// parentPath drops the last key or index of a dotted path.
func parentPath(path string) string {
	i := max(strings.LastIndexByte(path, '.'), strings.LastIndexByte(path, '['))
	if i < 0 {
		return ""
	}
	return path[:i]
}

// ruleID is the form of a rule's ID: kebab-case, as check IDs are.
var ruleID = regexp.MustCompile(`^[a-z][a-z0-9]*(-[a-z0-9]+)*$`)

// CustomFamily is the family of the checks rules become; a rule's check ID
// is the family, a dash and the rule's ID.
const CustomFamily = "custom"

// CheckID is the ID of the check the rule with id becomes.
func CheckID(id string) string { return CustomFamily + "-" + id }

// RuleCheckIDs lists the check IDs of the file's rules, sorted.
func (f *File) RuleCheckIDs() []string {
	var out []string
	for _, id := range slices.Sorted(maps.Keys(f.Rules)) {
		out = append(out, CheckID(id))
	}
	return out
}

// validateRuleIDs checks the form of the rules' IDs; what a rule says is
// checks/custom's to judge, when it compiles the rule.
func (f *File) validateRuleIDs() []error {
	var errs []error
	for _, id := range slices.Sorted(maps.Keys(f.Rules)) {
		if !ruleID.MatchString(id) {
			errs = append(errs, fmt.Errorf("%s: rules.%s: a rule ID is kebab-case (lower-case letters, digits, dashes), e.g. house-tool-prefix; its check ID is %s-<id>", f.Rules[id].At(""), id, CustomFamily))
		}
	}
	return errs
}

// rulePositions records where each rule's keys are, from the parsed tree.
func rulePositions(root *yaml.Node, f *File) {
	rules := mappingValue(root, "rules")
	if rules == nil || rules.Kind != yaml.MappingNode {
		return
	}
	for i := 0; i+1 < len(rules.Content); i += 2 {
		key, val := rules.Content[i], rules.Content[i+1]
		r, ok := f.Rules[key.Value]
		if !ok {
			continue
		}
		r.Positions = map[string]Position{"": {key.Line, key.Column}}
		recordPositions(val, "", r.Positions)
		if then := mappingValue(val, "then"); then != nil && then.Kind == yaml.MappingNode {
			// One then is the list's first: compiled rules name it then[0].
			recordPositions(then, "then[0]", r.Positions)
		}
		f.Rules[key.Value] = r
	}
}

// recordPositions maps each key below n, and each item of a list, to its
// position; a scalar value's position is its own, so that an error names the
// value rather than its key.
func recordPositions(n *yaml.Node, path string, out map[string]Position) {
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			key, val := n.Content[i], n.Content[i+1]
			p := join(path, key.Value)
			out[p] = Position{key.Line, key.Column}
			if val.Kind == yaml.ScalarNode {
				out[p] = Position{val.Line, val.Column}
			}
			recordPositions(val, p, out)
		}
	case yaml.SequenceNode:
		for i, item := range n.Content {
			p := fmt.Sprintf("%s[%d]", path, i)
			out[p] = Position{item.Line, item.Column}
			recordPositions(item, p, out)
		}
	}
}

// mappingValue is the value of key in mapping n, or nil.
func mappingValue(n *yaml.Node, key string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}
