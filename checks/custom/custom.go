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
	"math"
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
	given   *query
	thens   []then
	message string
	// unresolved is Spectral's resolved: false: a spec rule reads the
	// document as written, $ref objects and all.
	unresolved bool
	// scanBudget bounds the values the rule visits over a scan: scanVisits.
	scanBudget int
}

type then struct {
	field    string
	fieldSel *query // when field is a JSONPath
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
	c := &Rule{id: id, target: r.Target, given: compileQuery(given), message: r.Message, unresolved: r.Resolved != nil && !*r.Resolved, scanBudget: scanVisits}
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
		sel, err := jsonpath.Parse(t.Field)
		if err != nil {
			return then{}, fmt.Errorf("field: not an RFC 9535 JSONPath: %v", err)
		}
		th.fieldSel = compileQuery(sel)
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
		// It reads the tool definitions alone: lint runs it on a catalog.
		m.Needs, m.Documents = checks.NeedsMCP, checks.DocMCPTools
	}
	if r.Target == TargetSpec {
		// A rule on the document reads it alone: lint runs it too.
		m.Needs, m.Documents = checks.NeedsSpecText, checks.DocOpenAPI
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

// Meta describes the rule as a check.
func (c *Rule) Meta() checks.Meta { return c.meta }

// Run applies the rule to every item of its target, within its budgets
// (see eval.go): a document is read at most documentBudget of its values,
// and the items together at most scanVisits. A rule that a budget stopped
// says so in its observations when it found violations, which stand; one
// that found none is an error rather than a pass, since it did not judge
// all it was given.
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
	stops := budgetStops{scanBudget: c.scanBudget}
	left := c.scanBudget
	for i, it := range items {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if left == 0 {
			stops.unjudged = len(items) - i
			break
		}
		nodes := it.nodes
		if nodes == 0 {
			nodes = countValues(it.doc, math.MaxInt)
		}
		budget := min(documentBudget(nodes), left)
		w := newWalker(ctx, it.doc, nodes, budget)
		found, more := c.judge(it, w, maxFindings-len(out))
		if w.err != nil {
			return nil, w.err
		}
		left -= w.used
		if w.stopped {
			stops.add(it.label, w, left == 0)
		}
		out = append(out, found...)
		dropped += more
	}
	if dropped > 0 {
		in.Observe(c.meta.ID, fmt.Sprintf("%d more violations not reported (at most %d per rule)", dropped, maxFindings))
	}
	if what := stops.String(c.target, len(items)); what != "" {
		if len(out) == 0 {
			return nil, errors.New(what + ", and found no violation in what it evaluated: it cannot pass on what it did not judge")
		}
		in.Observe(c.meta.ID, what+": its verdict covers what it evaluated")
	}
	return out, nil
}

// budgetStops records where the budgets stopped a rule.
type budgetStops struct {
	// documents counts the items stopped short; first names the first,
	// and firstUsed and firstTooMany say how.
	documents    int
	first        string
	firstUsed    int
	firstTooMany bool
	// scan is set when the rule's budget for the scan ran out, and
	// unjudged counts the items it left unread.
	scan       bool
	scanBudget int
	unjudged   int
}

func (s *budgetStops) add(label string, w *walker, scanSpent bool) {
	if scanSpent && !w.tooMany {
		s.scan = true
		if s.first == "" {
			s.first = label
		}
		return
	}
	if s.documents == 0 {
		s.first, s.firstUsed, s.firstTooMany = label, w.used, w.tooMany
	}
	s.documents++
}

// String says what the rule did not evaluate, "" when it evaluated all.
func (s budgetStops) String(target string, items int) string {
	var parts []string
	first := sanitize.Truncate(sanitize.Line(s.first), valueLimit)
	if s.documents > 0 {
		how := fmt.Sprintf("after visiting %d values (its budget for one document: %d per value it holds, at least %d)", s.firstUsed, visitsPerValue, minDocumentVisits)
		if s.firstTooMany {
			how = fmt.Sprintf("after selecting %d values (its limit for one document)", maxMatches)
		}
		if s.documents == 1 {
			parts = append(parts, fmt.Sprintf("the rule was stopped on %s %s", first, how))
		} else {
			parts = append(parts, fmt.Sprintf("the rule was stopped on %d of %d %s values, first on %s %s", s.documents, items, target, first, how))
		}
	}
	if s.scan {
		parts = append(parts, fmt.Sprintf("the rule's budget for the scan (%d values visited) ran out on %s, and %d more of %d %s values were not evaluated", s.scanBudget, first, s.unjudged, items, target))
	}
	return strings.Join(parts, "; ")
}

// judge applies every then to every value given selects in one item, as
// far as w's budget goes. It returns the first room findings, and counts
// the others.
func (c *Rule) judge(it item, w *walker, room int) (out []finding.Finding, more int) {
	// path is the walker's, valid during the call: the targets and
	// findings built from it copy what they keep.
	w.each(c.given, it.doc, func(node any, path []any) bool {
		for _, th := range c.thens {
			for _, t := range th.targets(w, node, path) {
				if problem := th.fn.judge(t.value); problem != "" {
					if len(out) < room {
						out = append(out, c.finding(it, th, t, problem))
					} else {
						more++
					}
				}
			}
		}
		return w.err == nil
	})
	return out, more
}

// target is a value to judge and where it is in the item.
type target struct {
	value value
	path  []any
}

// targets resolves the then's field on a selected value, as Spectral does:
// no field is the value itself, @key its key (the last step of its path), a
// JSONPath every value it selects, and anything else a dotted property path,
// absent when any step is missing.
func (th then) targets(w *walker, node any, base []any) []target {
	switch {
	case th.field == "":
		return []target{{value{node, true}, base}}
	case th.field == "@key":
		if len(base) == 0 {
			return []target{{value{}, base}}
		}
		key := base[len(base)-1]
		if i, ok := key.(int); ok {
			return []target{{value{float64(i), true}, base}}
		}
		return []target{{value{key, true}, base}}
	case th.fieldSel != nil:
		var out []target
		// The field's $ is the selected value.
		root := w.root
		w.root = node
		for _, n := range w.selectAll(th.fieldSel, node) {
			out = append(out, target{value{n.node, true}, append(slices.Clip(base), n.path...)})
		}
		w.root = root
		if len(out) == 0 && !w.stopped {
			out = append(out, target{value{}, base})
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
			return []target{{value{}, append(path, key)}}
		}
		if cur, ok = obj[key]; !ok {
			return []target{{value{}, append(path, key)}}
		}
		path = append(path, key)
	}
	return []target{{value{cur, true}, path}}
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

func (c *Rule) finding(it item, th then, t target, problem string) finding.Finding {
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
