package custom

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
)

// function is one of Spectral's core functions, its options compiled. judge
// returns what is wrong with v, "" when it holds. A value the function does
// not apply to (pattern on a number, anything but defined or truthy on an
// absent field) holds: a house rule reports what it was written for.
type function interface {
	judge(v value) string
	// expects says what the function requires, for the finding's evidence.
	expects() string
}

// value is what a rule judges: a JSON value, or the absence of one.
type value struct {
	v       any
	defined bool
}

// optionError is an option that does not compile, by the option's key.
type optionError struct {
	option string
	msg    string
}

func (e *optionError) Error() string { return e.msg }

func optErr(option, format string, a ...any) error {
	return &optionError{option: option, msg: fmt.Sprintf(format, a...)}
}

// functions builds each function from its options.
var functions = map[string]func(opts map[string]any) (function, error){
	"truthy":      func(o map[string]any) (function, error) { return truthy{}, noOptions(o) },
	"falsy":       func(o map[string]any) (function, error) { return falsy{}, noOptions(o) },
	"defined":     func(o map[string]any) (function, error) { return defined{}, noOptions(o) },
	"undefined":   func(o map[string]any) (function, error) { return undefined{}, noOptions(o) },
	"pattern":     newPattern,
	"enumeration": newEnumeration,
	"length":      newLength,
	"casing":      newCasing,
	"schema":      newSchema,
}

// functionNames lists the functions, sorted, for messages.
func functionNames() []string { return slices.Sorted(maps.Keys(functions)) }

func noOptions(o map[string]any) error { return onlyOptions(o) }

// onlyOptions refuses an option the function does not take, as Spectral does.
func onlyOptions(o map[string]any, known ...string) error {
	for _, k := range slices.Sorted(maps.Keys(o)) {
		if !slices.Contains(known, k) {
			if len(known) == 0 {
				return optErr(k, "unknown option %q: this function takes none", k)
			}
			return optErr(k, "unknown option %q (this function takes %s)", k, strings.Join(known, ", "))
		}
	}
	return nil
}

type truthy struct{}

func (truthy) judge(v value) string {
	if !isTruthy(v) {
		return "is not truthy"
	}
	return ""
}
func (truthy) expects() string { return "truthy" }

type falsy struct{}

func (falsy) judge(v value) string {
	if isTruthy(v) {
		return "is not falsy"
	}
	return ""
}
func (falsy) expects() string { return "falsy" }

type defined struct{}

func (defined) judge(v value) string {
	if !v.defined {
		return "must be defined"
	}
	return ""
}
func (defined) expects() string { return "defined" }

type undefined struct{}

func (undefined) judge(v value) string {
	if v.defined {
		return "must be undefined"
	}
	return ""
}
func (undefined) expects() string { return "undefined" }

// isTruthy is JavaScript's truthiness, which Spectral's truthy and falsy use.
func isTruthy(v value) bool {
	if !v.defined {
		return false
	}
	switch x := v.v.(type) {
	case nil:
		return false
	case bool:
		return x
	case float64:
		return x != 0 && !math.IsNaN(x)
	case string:
		return x != ""
	}
	return true
}

type pattern struct {
	match, notMatch *regexp.Regexp
}

func newPattern(o map[string]any) (function, error) {
	if err := onlyOptions(o, "match", "notMatch"); err != nil {
		return nil, err
	}
	var p pattern
	for key, dst := range map[string]**regexp.Regexp{"match": &p.match, "notMatch": &p.notMatch} {
		raw, ok := o[key]
		if !ok {
			continue
		}
		s, ok := raw.(string)
		if !ok {
			return nil, optErr(key, "%s must be a regular expression, written as a string", key)
		}
		re, err := compileRegexp(s)
		if err != nil {
			return nil, optErr(key, "%v", err)
		}
		*dst = re
	}
	if p.match == nil && p.notMatch == nil {
		return nil, optErr("", "pattern needs functionOptions match or notMatch")
	}
	return p, nil
}

// slashForm is Spectral's /source/flags notation.
var slashForm = regexp.MustCompile(`^/(.+)/([a-z]*)$`)

// compileRegexp takes a pattern as Spectral does: the source, or
// /source/flags with the flags Go's RE2 knows (i, m, s).
func compileRegexp(s string) (*regexp.Regexp, error) {
	if m := slashForm.FindStringSubmatch(s); m != nil {
		flags := strings.ReplaceAll(m[2], "g", "")
		if strings.Trim(flags, "ims") != "" {
			return nil, fmt.Errorf("flags %q: only i, m and s are supported", m[2])
		}
		s = m[1]
		if flags != "" {
			s = "(?" + flags + ")" + s
		}
	}
	return regexp.Compile(s)
}

func (p pattern) judge(v value) string {
	s, ok := v.v.(string)
	if !v.defined || !ok {
		return ""
	}
	if p.match != nil && !p.match.MatchString(s) {
		return fmt.Sprintf(`must match the pattern "%s"`, p.match.String())
	}
	if p.notMatch != nil && p.notMatch.MatchString(s) {
		return fmt.Sprintf(`must not match the pattern "%s"`, p.notMatch.String())
	}
	return ""
}

func (p pattern) expects() string {
	var parts []string
	if p.match != nil {
		parts = append(parts, "match "+p.match.String())
	}
	if p.notMatch != nil {
		parts = append(parts, "notMatch "+p.notMatch.String())
	}
	return strings.Join(parts, ", ")
}

type enumeration struct{ values []any }

func newEnumeration(o map[string]any) (function, error) {
	if err := onlyOptions(o, "values"); err != nil {
		return nil, err
	}
	vals, ok := o["values"].([]any)
	if !ok {
		return nil, optErr("values", "enumeration needs functionOptions values: a list of the allowed values")
	}
	e := enumeration{}
	for _, v := range vals {
		e.values = append(e.values, plain(v))
	}
	return e, nil
}

func (e enumeration) judge(v value) string {
	if !v.defined || !isPrimitive(v.v) {
		return ""
	}
	for _, allowed := range e.values {
		if allowed == v.v {
			return ""
		}
	}
	return "must be equal to one of the allowed values: " + e.list()
}

func (e enumeration) list() string {
	parts := make([]string, len(e.values))
	for i, v := range e.values {
		parts[i] = render(v)
	}
	return strings.Join(parts, ", ")
}

func (e enumeration) expects() string { return "one of " + e.list() }

func isPrimitive(v any) bool {
	switch v.(type) {
	case string, float64, bool, nil:
		return true
	}
	return false
}

type length struct{ min, max *float64 }

func newLength(o map[string]any) (function, error) {
	if err := onlyOptions(o, "min", "max"); err != nil {
		return nil, err
	}
	var l length
	for key, dst := range map[string]**float64{"min": &l.min, "max": &l.max} {
		raw, ok := o[key]
		if !ok {
			continue
		}
		n, ok := plain(raw).(float64)
		if !ok {
			return nil, optErr(key, "%s must be a number", key)
		}
		*dst = &n
	}
	if l.min == nil && l.max == nil {
		return nil, optErr("", "length needs functionOptions min or max")
	}
	return l, nil
}

func (l length) judge(v value) string {
	if !v.defined {
		return ""
	}
	var n float64
	switch x := v.v.(type) {
	case string:
		n = float64(utf8.RuneCountInString(x))
	case []any:
		n = float64(len(x))
	case map[string]any:
		n = float64(len(x))
	case float64:
		n = x
	default:
		return ""
	}
	if l.min != nil && n < *l.min {
		return fmt.Sprintf("must be longer than %s", render(*l.min))
	}
	if l.max != nil && n > *l.max {
		return fmt.Sprintf("must be shorter than %s", render(*l.max))
	}
	return ""
}

func (l length) expects() string {
	var parts []string
	if l.min != nil {
		parts = append(parts, "min "+render(*l.min))
	}
	if l.max != nil {
		parts = append(parts, "max "+render(*l.max))
	}
	return "length " + strings.Join(parts, ", ")
}

// casings are Spectral's, with {D} standing for the digits unless
// disallowDigits is set.
var casings = map[string]string{
	"flat":   `^[a-z][a-z{D}]*$`,
	"camel":  `^[a-z][a-z{D}]*(?:[A-Z{D}](?:[a-z{D}]+|$))*$`,
	"pascal": `^[A-Z][a-z{D}]*(?:[A-Z{D}](?:[a-z{D}]+|$))*$`,
	"kebab":  `^[a-z][a-z{D}]*(?:-[a-z{D}]+)*$`,
	"cobol":  `^[A-Z][A-Z{D}]*(?:-[A-Z{D}]+)*$`,
	"snake":  `^[a-z][a-z{D}]*(?:_[a-z{D}]+)*$`,
	"macro":  `^[A-Z][A-Z{D}]*(?:_[A-Z{D}]+)*$`,
}

type casing struct {
	name string
	re   *regexp.Regexp
}

func newCasing(o map[string]any) (function, error) {
	if err := onlyOptions(o, "type", "disallowDigits"); err != nil {
		return nil, err
	}
	name, _ := o["type"].(string)
	src, ok := casings[name]
	if !ok {
		return nil, optErr("type", "casing needs functionOptions type: one of %s", strings.Join(slices.Sorted(maps.Keys(casings)), ", "))
	}
	digits := "0-9"
	if raw, ok := o["disallowDigits"]; ok {
		b, ok := raw.(bool)
		if !ok {
			return nil, optErr("disallowDigits", "disallowDigits must be true or false")
		}
		if b {
			digits = ""
		}
	}
	return casing{name: name, re: regexp.MustCompile(strings.ReplaceAll(src, "{D}", digits))}, nil
}

func (c casing) judge(v value) string {
	s, ok := v.v.(string)
	if !v.defined || !ok || c.re.MatchString(s) {
		return ""
	}
	return "must be " + c.name + " case"
}

func (c casing) expects() string { return c.name + " case" }

type schema struct{ sch *jsonschema.Schema }

// schemaURL names the schema of a rule for the compiler, which needs one.
const schemaURL = "agentready:custom-rule.json"

func newSchema(o map[string]any) (function, error) {
	if err := onlyOptions(o, "schema"); err != nil {
		return nil, err
	}
	raw, ok := o["schema"]
	if !ok {
		return nil, optErr("schema", "schema needs functionOptions schema: a JSON Schema")
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(mustJSON(plain(raw))))
	if err != nil {
		return nil, optErr("schema", "not a valid JSON Schema: %s", oneLine(err))
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	// A rule's schema is self-contained: nothing is fetched to compile it.
	c.UseLoader(noLoader{})
	if err := c.AddResource(schemaURL, doc); err != nil {
		return nil, optErr("schema", "not a valid JSON Schema: %s", oneLine(err))
	}
	sch, err := c.Compile(schemaURL)
	if err != nil {
		return nil, optErr("schema", "not a valid JSON Schema: %s", oneLine(err))
	}
	return schema{sch: sch}, nil
}

type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("%s: a rule's schema may not refer to other documents", url)
}

func (s schema) judge(v value) string {
	if !v.defined {
		return ""
	}
	var ve *jsonschema.ValidationError
	if !errors.As(s.sch.Validate(v.v), &ve) {
		return ""
	}
	// The first error that says what is wrong, rather than that a
	// subschema failed; the validator's order is the schema's.
	for _, u := range ve.BasicOutput().Errors {
		if u.Error != nil && isLeaf(u.Error.Kind) {
			return fmt.Sprintf("at %q: %s", "/"+strings.TrimPrefix(u.InstanceLocation, "/"), u.Error.String())
		}
	}
	return "does not match the rule's schema"
}

func isLeaf(k jsonschema.ErrorKind) bool {
	switch k.(type) {
	case *kind.Group, *kind.Schema, *kind.Reference, *kind.AllOf:
		return false
	}
	return true
}

func (schema) expects() string { return "valid against the rule's schema" }

// oneLine folds a multi-line error, such as the compiler's tree of causes.
func oneLine(err error) string {
	var parts []string
	for _, l := range strings.Split(err.Error(), "\n") {
		if l = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(l), "- ")); l != "" {
			parts = append(parts, l)
		}
	}
	return strings.Join(parts, "; ")
}

// plain converts a value decoded from YAML to what encoding/json decodes,
// so that options compare equal to the values they judge.
func plain(v any) any {
	var out any
	if err := json.Unmarshal(mustJSON(v), &out); err != nil {
		return v
	}
	return out
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		return []byte("null")
	}
	return b
}

// render writes a value as JSON, for messages.
func render(v any) string { return string(mustJSON(v)) }
