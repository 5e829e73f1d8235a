// Package custom turns the house rules of the configuration (rules:, in
// Spectral's rule shape) into checks of the custom family. A rule is
// compiled once, when the configuration is read, so that a rule that cannot
// run is a configuration error with its line; its check then reads the
// recording like every other check.
package custom

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/theory/jsonpath"
	jpspec "github.com/theory/jsonpath/spec"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/internal/config"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/sanitize"
)

// JSONPath is github.com/theory/jsonpath rather than pb33f/jsonpath (which
// the OpenAPI loader already pulls in): it implements RFC 9535 exactly,
// passes the standard's compliance suite, selects from the values
// encoding/json decodes, which every target is, and returns each match's
// normalized path, which a finding's evidence names.

// maxFindings bounds the findings of one rule: a rule that fails on every
// page says so by its count, which the observation gives.
const maxFindings = 100

// valueLimit bounds the value quoted in a message or evidence.
const valueLimit = 120

// Checks compiles the rules into checks, sorted by ID. The error names every
// rule that does not compile, each at its line and column in the file.
func Checks(rules map[string]config.Rule) ([]checks.Check, error) {
	var out []checks.Check
	var errs []error
	for _, id := range slices.Sorted(maps.Keys(rules)) {
		c, err := compile(id, rules[id])
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out = append(out, c)
	}
	return out, errors.Join(errs...)
}

// Rule is one compiled house rule: a check.
type Rule struct {
	id      string
	meta    checks.Meta
	target  string
	given   *jsonpath.Path
	thens   []then
	message string
	// unresolved is Spectral's resolved: false: a spec rule reads the
	// document as written, $ref objects and all.
	unresolved bool
}

type then struct {
	field    string
	fieldSel *jsonpath.Path // when field is a JSONPath
	fn       function
}

// ruleError is a rule that does not compile, at the position of what is wrong.
func ruleError(id string, r config.Rule, key, format string, a ...any) error {
	at := r.At(key)
	where := "rules." + id
	if key != "" {
		where += "." + key
	}
	msg := fmt.Sprintf(format, a...)
	if at.Line == 0 {
		return fmt.Errorf("%s: %s", where, msg)
	}
	return fmt.Errorf("%s: %s: %s", at, where, msg)
}

func compile(id string, r config.Rule) (*Rule, error) {
	switch {
	case r.Target == "":
		return nil, ruleError(id, r, "", "target is required: %s", strings.Join(targets, ", "))
	case r.Given == "":
		return nil, ruleError(id, r, "", "given is required: a JSONPath such as $")
	}
	if !slices.Contains(targets, r.Target) {
		return nil, ruleError(id, r, "target", "unknown target %q: want %s", r.Target, strings.Join(targets, ", "))
	}
	given, err := jsonpath.Parse(r.Given)
	if err != nil {
		return nil, ruleError(id, r, "given", "not an RFC 9535 JSONPath: %v", err)
	}
	if len(r.Then) == 0 {
		return nil, ruleError(id, r, "", "then is required: {field, function, functionOptions}")
	}
	sev, err := severityOf(r.Severity)
	if err != nil {
		return nil, ruleError(id, r, "severity", "%v", err)
	}
	if r.Resolved != nil && r.Target != TargetSpec {
		return nil, ruleError(id, r, "resolved", "resolved applies to the spec target only")
	}
	c := &Rule{id: id, target: r.Target, given: given, message: r.Message, unresolved: r.Resolved != nil && !*r.Resolved}
	for i, t := range r.Then {
		th, err := compileThen(t)
		if err != nil {
			key := fmt.Sprintf("then[%d].function", i)
			var oe *optionError
			if errors.As(err, &oe) {
				key = fmt.Sprintf("then[%d].functionOptions", i)
				if oe.option != "" {
					key += "." + oe.option
				}
			} else if strings.HasPrefix(err.Error(), "field") {
				key = fmt.Sprintf("then[%d].field", i)
			}
			return nil, ruleError(id, r, key, "%v", err)
		}
		c.thens = append(c.thens, th)
	}
	c.meta = meta(id, r, sev)
	return c, nil
}

func compileThen(t config.Then) (then, error) {
	build, ok := functions[t.Function]
	if !ok {
		return then{}, fmt.Errorf("unknown function %q: want one of %s", t.Function, strings.Join(functionNames(), ", "))
	}
	fn, err := build(t.FunctionOptions)
	if err != nil {
		return then{}, err
	}
	th := then{field: t.Field, fn: fn}
	if strings.HasPrefix(t.Field, "$") {
		if th.fieldSel, err = jsonpath.Parse(t.Field); err != nil {
			return then{}, fmt.Errorf("field: not an RFC 9535 JSONPath: %v", err)
		}
	}
	return th, nil
}

// severityOf maps Spectral's severities to ours: error and warn as they
// are, info as info, and hint, which Spectral shows only in editors, as
// info too. Our own warning is taken as well. Spectral's default is warn.
func severityOf(s string) (finding.Severity, error) {
	switch s {
	case "error":
		return finding.SeverityError, nil
	case "", "warn", "warning":
		return finding.SeverityWarning, nil
	case "info", "hint":
		return finding.SeverityInfo, nil
	}
	return finding.SeverityNone, fmt.Errorf("unknown severity %q: want error, warn, info or hint", s)
}

// levels are the requirement each severity stands for, as the built-in
// checks' clauses give it.
var levels = map[finding.Severity]string{
	finding.SeverityError: "MUST", finding.SeverityWarning: "SHOULD", finding.SeverityInfo: "MAY",
}

func meta(id string, r config.Rule, sev finding.Severity) checks.Meta {
	title := strings.TrimSpace(sanitize.Line(r.Description))
	if title == "" {
		title = "House rule " + id
	}
	m := checks.Meta{
		ID:       config.CheckID(id),
		Family:   checks.FamilyCustom,
		Title:    title,
		Severity: sev,
		SpecRefs: []finding.SpecRef{{Doc: "house rule", Section: "rules." + id, Level: levels[sev]}},
		Help:     help(r),
	}
	if r.Target == TargetMCPTool {
		m.Needs = checks.NeedsMCP
	}
	if r.Target == TargetSpec {
		m.Needs = checks.NeedsSpecText
	}
	if r.Target == TargetExchange {
		// A rule may name any header, or all of them, and the body.
		m.Needs = checks.NeedsEveryPage
	}
	return m
}

func help(r config.Rule) string {
	var b strings.Builder
	if d := strings.TrimSpace(r.Description); d != "" {
		b.WriteString(d + "\n\n")
	}
	b.WriteString("A house rule of the configuration")
	if pos := r.At(""); pos.Line > 0 {
		fmt.Fprintf(&b, " (line %d)", pos.Line)
	}
	fmt.Fprintf(&b, ". It reads each %s value, selects `%s` in it, and requires:\n\n", r.Target, r.Given)
	for _, t := range r.Then {
		subject := "the selected value"
		if t.Field != "" {
			subject = "`" + t.Field + "`"
		}
		fmt.Fprintf(&b, "- %s: `%s`", subject, t.Function)
		if len(t.FunctionOptions) > 0 {
			fmt.Fprintf(&b, " with `%s`", render(plain(t.FunctionOptions)))
		}
		b.WriteString("\n")
	}
	b.WriteString("\n**How to fix:** change what the rule judges so that it holds, or change the rule in the configuration if it no longer states the house's intent. docs/custom-rules.md describes what each target reads.\n")
	return b.String()
}

// Static makes a rule on the document one that lint runs too.
func (c *Rule) Static() bool { return c.target == TargetSpec }

// Meta describes the rule as a check.
func (c *Rule) Meta() checks.Meta { return c.meta }

// Run applies the rule to every item of its target.
func (c *Rule) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	items, err := itemsOf(c, in)
	if err != nil {
		return nil, err
	}
	if len(items) == 0 {
		return nil, checks.Skip(fmt.Sprintf("the scan recorded no %s to read", c.target))
	}
	var out []finding.Finding
	dropped := 0
	for _, it := range items {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		for _, f := range c.judge(it) {
			if len(out) < maxFindings {
				out = append(out, f)
			} else {
				dropped++
			}
		}
	}
	if dropped > 0 {
		in.Observe(c.meta.ID, fmt.Sprintf("%d more violations not reported (at most %d per rule)", dropped, maxFindings))
	}
	return out, nil
}

// judge applies every then to every value given selects in one item.
func (c *Rule) judge(it item) []finding.Finding {
	var out []finding.Finding
	for _, node := range c.given.SelectLocated(it.doc) {
		base := steps(node.Path)
		for _, th := range c.thens {
			for _, t := range th.targets(node.Node, base) {
				if problem := th.fn.judge(t.value); problem != "" {
					out = append(out, c.finding(it, th, t, problem))
				}
			}
		}
	}
	return out
}

// located is a value to judge and where it is in the item.
type located struct {
	value value
	path  []any
}

// targets resolves the then's field on a selected value, as Spectral does:
// no field is the value itself, @key its key (the last step of its path), a
// JSONPath every value it selects, and anything else a dotted property path,
// absent when any step is missing.
func (th then) targets(node any, base []any) []located {
	switch {
	case th.field == "":
		return []located{{value{node, true}, base}}
	case th.field == "@key":
		if len(base) == 0 {
			return []located{{value{}, base}}
		}
		key := base[len(base)-1]
		if i, ok := key.(int); ok {
			return []located{{value{float64(i), true}, base}}
		}
		return []located{{value{key, true}, base}}
	case th.fieldSel != nil:
		var out []located
		for _, n := range th.fieldSel.SelectLocated(node) {
			out = append(out, located{value{n.Node, true}, append(slices.Clip(base), steps(n.Path)...)})
		}
		if len(out) == 0 {
			out = append(out, located{value{}, base})
		}
		return out
	}
	path := slices.Clip(base)
	cur := node
	for _, key := range strings.Split(th.field, ".") {
		obj, ok := cur.(map[string]any)
		if !ok {
			if arr, isArr := cur.([]any); isArr {
				if i, err := strconv.Atoi(key); err == nil && i >= 0 && i < len(arr) {
					cur, path = arr[i], append(path, i)
					continue
				}
			}
			return []located{{value{}, append(path, key)}}
		}
		if cur, ok = obj[key]; !ok {
			return []located{{value{}, append(path, key)}}
		}
		path = append(path, key)
	}
	return []located{{value{cur, true}, path}}
}

// steps converts a normalized path to keys (string) and indexes (int).
func steps(np jpspec.NormalizedPath) []any {
	out := make([]any, 0, len(np))
	for _, sel := range np {
		switch s := sel.(type) {
		case jpspec.Name:
			out = append(out, string(s))
		case jpspec.Index:
			out = append(out, int(s))
		}
	}
	return out
}

// normalized is the RFC 9535 normalized path of steps.
func normalized(path []any) string {
	np := make(jpspec.NormalizedPath, len(path))
	for i, step := range path {
		switch s := step.(type) {
		case string:
			np[i] = jpspec.Name(s)
		case int:
			np[i] = jpspec.Index(s)
		}
	}
	return np.String()
}

func (c *Rule) finding(it item, th then, t located, problem string) finding.Finding {
	path := normalized(t.path)
	shown := "undefined"
	if t.value.defined {
		shown = quoted(t.value.v)
	}
	where := it.label
	if len(t.path) > 0 {
		where += " at " + path
	}
	if it.inlined != nil {
		if ref := it.inlined(t.path); ref != "" {
			where += " (inlined from " + sanitize.Truncate(sanitize.Line(ref), valueLimit) + ")"
		}
	}
	msg := where + ": " + property(th, t.path) + " " + problem
	if c.message != "" {
		msg = where + ": " + expand(c.message, map[string]string{
			"property": property(th, t.path), "value": shown, "path": path, "error": problem,
		})
	}
	ev, loc := it.evidence(t.path)
	ev.JSONPath = path
	ev.Expected = sanitize.Line(th.fn.expects())
	ev.Actual = actual(t.value)
	subject := it.label
	if it.subject != "" {
		subject = it.subject
	}
	f := checks.New(c.meta, subject+" "+path, sanitize.Line(msg), ev)
	f.Location = loc
	return f
}

// property names what was judged: the field, else the last key of its path.
func property(th then, path []any) string {
	if th.field != "" && th.field != "@key" && th.fieldSel == nil {
		return sanitize.Truncate(sanitize.Line(th.field), valueLimit)
	}
	if len(path) == 0 {
		return "the value"
	}
	return sanitize.Truncate(sanitize.Line(fmt.Sprint(path[len(path)-1])), valueLimit)
}

// actual is the value for the evidence, which reporters quote themselves: a
// string as it is, anything else as JSON, both made safe like quoted.
func actual(v value) string {
	if s, ok := v.v.(string); ok && v.defined {
		return sanitize.Truncate(sanitize.Line(s), valueLimit)
	}
	if !v.defined {
		return "undefined"
	}
	return quoted(v.v)
}

// quoted is a value as JSON on one line, cut short and stripped of what a
// terminal would act on: it comes from the app.
func quoted(v any) string {
	return sanitize.Truncate(sanitize.Line(render(v)), valueLimit)
}

// expand replaces Spectral's {{placeholders}}; an unknown one stays as
// written, as Spectral leaves it.
func expand(tmpl string, vars map[string]string) string {
	var b strings.Builder
	for {
		start := strings.Index(tmpl, "{{")
		if start < 0 {
			break
		}
		end := strings.Index(tmpl[start:], "}}")
		if end < 0 {
			break
		}
		name := strings.TrimSpace(tmpl[start+2 : start+end])
		b.WriteString(tmpl[:start])
		if v, ok := vars[name]; ok {
			b.WriteString(v)
		} else {
			b.WriteString(tmpl[start : start+end+2])
		}
		tmpl = tmpl[start+end+2:]
	}
	b.WriteString(tmpl)
	return b.String()
}
