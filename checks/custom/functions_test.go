package custom_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/agentready/agentready/checks/checkstest"
	"github.com/agentready/agentready/checks/custom"
	"github.com/agentready/agentready/internal/config"
	"github.com/agentready/agentready/internal/exchange"
)

// jsonPage is one crawled JSON response whose body is body.
func jsonPage(body string) *exchange.Exchange {
	return checkstest.Exchange(exchange.PurposeCrawl, "GET", "http://api.test/orders/1?x=1").Status(200).
		Header("Content-Type", "application/json").Header("Authorization-Info", "x").
		Header("Set-Cookie", "session=s3cr3t").Body(body).Build()
}

// judge runs one exchange rule, with then written as given, on body and
// returns the messages of its findings.
func judge(t *testing.T, given, then, body string) []string {
	t.Helper()
	c := compileRules(t, fmt.Sprintf("rules:\n  r:\n    target: exchange\n    given: %q\n    then: %s\n", given, then))["custom-r"]
	var out []string
	for _, f := range run(t, c, checkstest.Input("http://api.test/", nil, jsonPage(body))) {
		out = append(out, f.Message)
	}
	return out
}

func TestFunctions(t *testing.T) {
	const body = `{"id":"a-1","name":"Widget","count":3,"tags":["x","y"],"empty":"","zero":0,"off":false,"camelCase":"snake_case","nested":{"k":"v"}}`
	cases := []struct {
		name, given, then string
		fires             int
	}{
		{"truthy holds", "$.body", "{field: name, function: truthy}", 0},
		{"truthy on empty string", "$.body", "{field: empty, function: truthy}", 1},
		{"truthy on absent field", "$.body", "{field: missing, function: truthy}", 1},
		{"falsy on zero", "$.body", "{field: zero, function: falsy}", 0},
		{"falsy on count", "$.body", "{field: count, function: falsy}", 1},
		{"defined", "$.body", "{field: missing, function: defined}", 1},
		{"undefined", "$.body", "{field: id, function: undefined}", 1},
		{"pattern match", "$.body", `{field: id, function: pattern, functionOptions: {match: "^[a-z]-[0-9]+$"}}`, 0},
		{"pattern notMatch", "$.body", `{field: id, function: pattern, functionOptions: {notMatch: "-"}}`, 1},
		{"pattern slash form", "$.body", `{field: name, function: pattern, functionOptions: {match: "/^widget$/i"}}`, 0},
		{"pattern ignores numbers", "$.body", `{field: count, function: pattern, functionOptions: {match: "^x$"}}`, 0},
		{"pattern ignores absent", "$.body", `{field: missing, function: pattern, functionOptions: {match: "^x$"}}`, 0},
		{"enumeration", "$.body.tags[*]", `{function: enumeration, functionOptions: {values: [x, z]}}`, 1},
		{"enumeration numbers", "$.body", `{field: count, function: enumeration, functionOptions: {values: [1, 2, 3]}}`, 0},
		{"length of array", "$.body", `{field: tags, function: length, functionOptions: {max: 1}}`, 1},
		{"length of string", "$.body", `{field: name, function: length, functionOptions: {min: 2, max: 6}}`, 0},
		{"casing camel", "$.body", `{field: "@key", function: casing, functionOptions: {type: camel}}`, 0},
		{"casing of keys", "$.body.*", `{field: "@key", function: casing, functionOptions: {type: flat}}`, 1},
		{"casing snake", "$.body", `{field: camelCase, function: casing, functionOptions: {type: snake}}`, 0},
		{"schema", "$.body", `{function: schema, functionOptions: {schema: {type: object, required: [id, price]}}}`, 1},
		{"dotted field", "$", `{field: body.nested.k, function: enumeration, functionOptions: {values: [w]}}`, 1},
		{"JSONPath field", "$", `{field: "$.body.tags[*]", function: pattern, functionOptions: {match: "^x$"}}`, 1},
		{"headers by canonical name", "$", `{field: headers.Content-Type, function: pattern, functionOptions: {match: "^application/json$"}}`, 0},
		{"then as a list", "$.body", `[{field: id, function: truthy}, {field: empty, function: truthy}, {field: zero, function: truthy}]`, 2},
		{"filter in given", "$.body.tags[?@ == 'y']", `{function: enumeration, functionOptions: {values: [x]}}`, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := judge(t, c.given, c.then, body); len(got) != c.fires {
				t.Errorf("fired %d times, want %d: %q", len(got), c.fires, got)
			}
		})
	}
}

func TestExchangeShape(t *testing.T) {
	const then = `[{field: path, function: enumeration, functionOptions: {values: [/orders/1]}}, {field: query, function: enumeration, functionOptions: {values: [x=1]}}, {field: method, function: enumeration, functionOptions: {values: [GET]}}, {field: status, function: enumeration, functionOptions: {values: [200]}}, {field: mediaType, function: enumeration, functionOptions: {values: [application/json]}}, {field: url, function: enumeration, functionOptions: {values: ["http://api.test/orders/1?x=1"]}}, {field: body.a, function: enumeration, functionOptions: {values: [1]}}]`
	if got := judge(t, "$", then, `{"a":1}`); len(got) != 0 {
		t.Errorf("the documented shape does not hold: %q", got)
	}
	// A credential the response carries is redacted before any rule reads it.
	got := judge(t, "$.headers", `{field: Set-Cookie, function: pattern, functionOptions: {notMatch: "s3cr3t"}}`, `{}`)
	if len(got) != 0 {
		t.Errorf("Set-Cookie reached the rule unredacted: %q", got)
	}
	if got := judge(t, "$", `{field: body, function: defined}`, `not json`); len(got) != 1 {
		t.Errorf("a body that is not JSON must be absent: %q", got)
	}
}

func TestMessagePlaceholdersAndHostileValues(t *testing.T) {
	c := compileRules(t, `rules:
  r:
    target: exchange
    given: "$.body"
    message: "{{property}} is {{value}} at {{path}} ({{error}}) {{unknown}}"
    then: {field: name, function: pattern, functionOptions: {match: "^ok$"}}
`)["custom-r"]
	hostile := `{"name":"\u001b]0;pwned\u0007\u001b[2Jevil` + strings.Repeat("x", 400) + `"}`
	fs := run(t, c, checkstest.Input("http://api.test/", nil, jsonPage(hostile)))
	if len(fs) != 1 {
		t.Fatalf("findings = %d", len(fs))
	}
	msg, ev := fs[0].Message, fs[0].Evidence[0]
	if strings.ContainsRune(msg, 0x1b) || strings.ContainsRune(msg, 0x07) || strings.ContainsRune(ev.Actual, 0x1b) {
		t.Errorf("escape sequences survived: %q / %q", msg, ev.Actual)
	}
	if len(ev.Actual) > 130 || !strings.HasSuffix(ev.Actual, "…") {
		t.Errorf("value not truncated: %d bytes", len(ev.Actual))
	}
	want := `GET /orders/1 (200) at $['body']['name']: name is "`
	if !strings.HasPrefix(msg, want) || !strings.Contains(msg, ` at $['body']['name'] (must match the pattern "^ok$") {{unknown}}`) {
		t.Errorf("message = %q", msg)
	}
}

func TestFindingsAreBounded(t *testing.T) {
	c := compileRules(t, "rules:\n  r: {target: exchange, given: \"$.body[*]\", then: {function: falsy}}\n")["custom-r"]
	body := "[" + strings.TrimSuffix(strings.Repeat("1,", 150), ",") + "]"
	in := checkstest.Input("http://api.test/", nil, jsonPage(body))
	if fs := run(t, c, in); len(fs) != 100 {
		t.Errorf("findings = %d, want the bound 100", len(fs))
	}
	if obs := in.Observations("custom-r"); len(obs) != 1 || !strings.Contains(obs[0], "50 more") {
		t.Errorf("observations = %q", obs)
	}
}

func TestMalformedRules(t *testing.T) {
	const file = `version: 1
rules:
  bad-regex:
    target: exchange
    given: "$"
    then:
      - field: status
        function: pattern
        functionOptions: {match: "(unclosed"}
  bad-path:
    target: spec
    given: "$.paths[?"
    then: {function: truthy}
  bad-function:
    target: hal-link
    given: "$"
    then: {field: rel, function: looksGood}
  bad-target:
    target: graphql
    given: "$"
    then: {function: truthy}
  no-then:
    target: spec
    given: "$"
  bad-schema:
    target: spec
    given: "$"
    then: {function: schema, functionOptions: {schema: {type: 12}}}
  bad-option:
    target: spec
    given: "$"
    severity: fatal
    then: {function: length, functionOptions: {minimum: 1}}
`
	f, err := config.Parse([]byte(file))
	if err != nil {
		t.Fatal(err)
	}
	_, err = custom.Checks(f.Rules)
	if err == nil {
		t.Fatal("malformed rules compiled")
	}
	for _, want := range []string{
		`line 9, column 34: rules.bad-regex.then[0].functionOptions.match: error parsing regexp`,
		`line 12, column 12: rules.bad-path.given: not an RFC 9535 JSONPath`,
		`line 17, column 34: rules.bad-function.then[0].function: unknown function "looksGood"`,
		`line 19, column 13: rules.bad-target.target: unknown target "graphql"`,
		`line 22, column 3: rules.no-then: then is required`,
		`line 28, column 48: rules.bad-schema.then[0].functionOptions.schema: not a valid JSON Schema`,
		`line 32, column 15: rules.bad-option.severity: unknown severity "fatal"`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("missing %q in:\n%v", want, err)
		}
	}
	f.Rules["bad-option"] = config.Rule{Target: "spec", Given: "$", Then: config.Thens{{Function: "length", FunctionOptions: map[string]any{"minimum": 1}}}}
	if _, err := custom.Checks(map[string]config.Rule{"x": f.Rules["bad-option"]}); err == nil || !strings.Contains(err.Error(), `rules.x.then[0].functionOptions.minimum: unknown option "minimum"`) {
		t.Errorf("unknown option: %v", err)
	}
}

func TestSeverities(t *testing.T) {
	for sev, want := range map[string]string{"error": "error", "warn": "warning", "warning": "warning", "info": "info", "hint": "info", "": "warning"} {
		c := compileRules(t, fmt.Sprintf("rules:\n  r: {target: spec, given: $, severity: %q, then: {function: truthy}}\n", sev))["custom-r"]
		if got := c.Meta().Severity.String(); got != want {
			t.Errorf("severity %q = %s, want %s", sev, got, want)
		}
	}
}
