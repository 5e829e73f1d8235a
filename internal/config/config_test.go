package config_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentready/agentready/internal/config"
)

// known is a fixed vocabulary, so these tests do not move with the checks.
var known = config.Known{
	Checks:   []string{"negotiation-q-zero", "vary-accept", "vary-prefer"},
	Families: []string{"mcp", "negotiation", "vary"},
}

func parse(t *testing.T, doc string) (*config.File, error) {
	t.Helper()
	f, err := config.Parse([]byte(doc))
	if err != nil {
		return nil, err
	}
	return f, f.Validate(known)
}

func TestFullFileLoadsAndValidates(t *testing.T) {
	f, err := config.Load("testdata/full.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Validate(known); err != nil {
		t.Fatal(err)
	}
	if *f.Limits.MaxDepth != 0 || f.Gate.FailOn != "warning" || f.Start.Env["PORT"] != "8080" || f.Identities[0].Env != "READER_TOKEN" {
		t.Fatalf("decoded %+v", f)
	}
}

func TestUnknownKeysAreErrorsWithHints(t *testing.T) {
	tests := []struct{ doc, want string }{
		{"gate:\n  fail_on: error\n", `line 2: unknown key "fail_on" in gate (did you mean "fail-on"?)`},
		{"ignore:\n  - check: vary-accept\n", `line 1: unknown key "ignore" (did you mean "ignores"?)`},
		{"limits:\n  maxpages: 3\n", `unknown key "maxpages" in limits (did you mean "max-pages"?)`},
		{"ignores:\n  - check: vary-accept\n    reason: x\n    expiry: 2030-01-01\n", `line 4: unknown key "expiry" in ignores[0] (did you mean "expires"?)`},
		{"identities:\n  - name: a\n    token: s3cr3t\n", `unknown key "token" in identities[0]`},
		{"zzzzzzzz: 1\n", `unknown key "zzzzzzzz" (known keys: access, active, base-path, baseline, checks,`},
	}
	for _, tt := range tests {
		_, err := parse(t, tt.doc)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: got %v, want %q", tt.doc, err, tt.want)
		}
	}
}

func TestUnknownChecksAndFamiliesAreErrorsWithHints(t *testing.T) {
	tests := []struct{ doc, want string }{
		{"checks:\n  vary-acept: off\n", `checks.vary-acept: unknown check "vary-acept" (did you mean "vary-accept"?)`},
		{"ignores:\n  - check: vary-prefr\n    reason: r\n", `ignores[0]: check: unknown check "vary-prefr" (did you mean "vary-prefer"?)`},
		{"families:\n  negotation: false\n", `families.negotation: unknown family "negotation" (did you mean "negotiation"?)`},
		{"checks:\n  vary-accept: fatal\n", `checks.vary-accept: "fatal": want error, warning, info or off`},
	}
	for _, tt := range tests {
		_, err := parse(t, tt.doc)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: got %v, want %q", tt.doc, err, tt.want)
		}
	}
}

func TestInvalidValues(t *testing.T) {
	tests := []struct{ doc, want string }{
		{"ignores:\n  - check: vary-accept\n", "reason is required"},
		{"ignores:\n  - check: vary-accept\n    reason: r\n    expires: next week\n", `expires "next week": want a date YYYY-MM-DD`},
		{"ignores:\n  - check: vary-accept\n    reason: r\n    url: orders/*\n", "a path pattern starts with /"},
		{"ignores:\n  - check: vary-accept\n    reason: r\n    url: /a/[\n", "syntax error in pattern"},
		{"gate:\n  fail-under: Z\n", "gate.fail-under"},
		{"gate:\n  fail-under: 101\n", "score 101: want 0 to 100"},
		{"gate:\n  min-coverage: 101\n", "gate.min-coverage: 101: want a percentage from 0 to 100"},
		{"gate:\n  fail-on: fatal\n", "gate.fail-on"},
		{"limits:\n  max-pages: 0\n", "limits.max-pages: must be at least 1"},
		{"limits:\n  timeout: 10 seconds\n", `limits.timeout "10 seconds"`},
		{"target: example.com\n", `target "example.com": want an absolute http or https URL`},
		{"start:\n  ready: listening\n", "start.command is required"},
		{"version: 2\n", "this release reads version 1"},
		{"limits:\n  max-pages: lots\n", "cannot"},
	}
	for _, tt := range tests {
		_, err := parse(t, tt.doc)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: got %v, want %q", tt.doc, err, tt.want)
		}
	}
}

func TestIdentitiesNameVariablesNeverSecrets(t *testing.T) {
	secret := "Bearer eyJhbGciOiJIUzI1NiJ9.payload"
	_, err := parse(t, "identities:\n  - name: reader\n    env: \""+secret+"\"\n")
	if err == nil || !strings.Contains(err.Error(), "not a credential") {
		t.Fatalf("got %v", err)
	}
	if strings.Contains(err.Error(), "eyJ") {
		t.Fatalf("the error echoes what may be a secret: %v", err)
	}
	for doc, want := range map[string]string{
		"identities:\n  - name: a\n    env: A\n  - name: a\n    env: B\n": `name "a" is used twice`,
		"identities:\n  - name: a\n":                                      "env is required",
		"identities:\n  - name: a\n    env: A\n    header: \"X Y\"\n":     "not a valid header name",
	} {
		if _, err := parse(t, doc); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: got %v, want %q", doc, err, want)
		}
	}
}

func TestEveryProblemIsReportedAtOnce(t *testing.T) {
	_, err := parse(t, "checks:\n  nope: off\nfamilies:\n  nada: true\ngate:\n  fail-on: x\n")
	if err == nil || strings.Count(err.Error(), "\n") < 2 {
		t.Fatalf("want three problems, got %v", err)
	}
}

func TestIgnoreExpiry(t *testing.T) {
	ig := config.Ignore{Check: "vary-accept", Reason: "r", Expires: "2026-03-31"}
	day := func(s string) time.Time { d, _ := time.Parse(time.RFC3339, s); return d }
	if ig.Expired(day("2026-03-31T23:59:59Z")) {
		t.Error("expired during its last day")
	}
	if !ig.Expired(day("2026-04-01T00:00:00Z")) {
		t.Error("not expired the day after")
	}
	if (config.Ignore{Check: "x"}).Expired(day("2999-01-01T00:00:00Z")) {
		t.Error("an ignore without expires expired")
	}
}

func TestSettingsMapKeysToFlagsAndResolvePaths(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, config.FileName)
	doc := "openapi: specs/api.yaml\nmcp: http://h/mcp\nlimits:\n  max-depth: 0\n  rate: 2.5\ninclude: [/a/*, /b/*]\ngate:\n  strict-baseline: true\nbaseline: base.json\nstart:\n  command: npm start\n  env: {B: \"2\", A: \"1\"}\n"
	if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := config.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]string{}
	for _, s := range f.Settings() {
		got[s.Flag] = s.Values
		// Only the start: section starts a process.
		if starts := strings.HasPrefix(s.Key, "start."); s.Runs != starts {
			t.Errorf("%s: Runs is %v", s.Key, s.Runs)
		}
	}
	want := map[string][]string{
		"openapi": {filepath.Join(dir, "specs/api.yaml")}, "mcp": {"http://h/mcp"},
		"max-depth": {"0"}, "rate": {"2.5"}, "include": {"/a/*", "/b/*"},
		"strict-baseline": {"true"}, "baseline": {filepath.Join(dir, "base.json")},
		"start": {"npm start"}, "start-env": {"A=1", "B=2"},
	}
	for flag, vals := range want {
		if !slices.Equal(got[flag], vals) {
			t.Errorf("--%s: got %q, want %q", flag, got[flag], vals)
		}
	}
	if len(got) != len(want) {
		t.Errorf("settings %v, want exactly %v", got, want)
	}
}

func TestFlagNamesCoverEveryFlagTag(t *testing.T) {
	names := config.FlagNames()
	for flag, key := range map[string]string{"fail-on": "gate.fail-on", "max-pages": "limits.max-pages", "start": "start.command", "start-log": "start.log", "target": "target"} {
		if names[flag] != key {
			t.Errorf("flag %s maps to %q, want %q", flag, names[flag], key)
		}
	}
}

func TestFindLooksInParents(t *testing.T) {
	root := t.TempDir()
	sub := filepath.Join(root, "a", "b")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if p, err := config.Find(sub); err != nil || p != "" {
		t.Fatalf("found %q, %v in an empty tree", p, err)
	}
	want := filepath.Join(root, "a", config.FileName)
	if err := os.WriteFile(want, []byte("version: 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if p, err := config.Find(sub); err != nil || p != want {
		t.Fatalf("found %q, %v; want %q", p, err, want)
	}
}

func TestEmptyFileIsDefaults(t *testing.T) {
	f, err := parse(t, "# nothing yet\n")
	if err != nil || len(f.Settings()) != 0 {
		t.Fatalf("got %+v, %v", f, err)
	}
}

func TestIdentityCredentialComesFromTheEnvironment(t *testing.T) {
	env := map[string]string{"READER_TOKEN": "abc"}
	getenv := func(k string) string { return env[k] }
	h, v, ok := config.Identity{Name: "r", Scheme: "Bearer", Env: "READER_TOKEN"}.Credential(getenv)
	if !ok || h != "Authorization" || v != "Bearer abc" {
		t.Fatalf("got %q %q %v", h, v, ok)
	}
	h, v, ok = config.Identity{Name: "k", Header: "X-Api-Key", Env: "READER_TOKEN"}.Credential(getenv)
	if !ok || h != "X-Api-Key" || v != "abc" {
		t.Fatalf("got %q %q %v", h, v, ok)
	}
	if _, _, ok := (config.Identity{Name: "x", Env: "UNSET"}).Credential(getenv); ok {
		t.Fatal("an unset variable gave a credential")
	}
}

// TestSecretKeys: identities send the environment's credentials; nothing
// else in the file names a secret, and an empty section is not set.
func TestSecretKeys(t *testing.T) {
	for doc, want := range map[string][]string{
		"target: http://h/\nidentities:\n  - {name: user, env: USER_TOKEN}\n": {"identities"},
		"target: http://h/\nstart:\n  command: npm start\n":                   nil,
		"identities: []\n": nil,
	} {
		f, err := config.Parse([]byte(doc))
		if err != nil {
			t.Fatal(err)
		}
		if got := f.SecretKeys(); !slices.Equal(got, want) {
			t.Errorf("%q: SecretKeys() = %v, want %v", doc, got, want)
		}
	}
}

func TestTargetsLoadAndInherit(t *testing.T) {
	f, err := config.Load("testdata/targets.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Validate(known); err != nil {
		t.Fatal(err)
	}
	if len(f.Targets) != 2 || f.Targets[0].NameOf() != "orders" || f.Targets[1].NameOf() != "billing.staging.example.com-api" {
		t.Fatalf("targets %+v", f.Targets)
	}
	if got := f.SecretKeys(); !slices.Equal(got, []string{"identities", "targets"}) {
		t.Errorf("SecretKeys() = %v: a target's identities send credentials too", got)
	}
}

// TestTargetsErrorsCarryTheirLine: each problem of a target names the line
// its item starts on, like an unknown key does.
func TestTargetsErrorsCarryTheirLine(t *testing.T) {
	doc := "targets:\n" +
		"  - name: api\n    url: http://a.test/\n" + // line 2
		"  - name: api\n    url: http://b.test/\n" + // line 4
		"  - name: web\n" + // line 6
		"  - name: bad/name\n    url: http://c.test/\n" + // line 7
		"  - url: ftp://d.test/\n    mcp: nope\n" + // line 9
		"  - url: http://e.test/\n    identities:\n      - {name: x, env: \"Bearer abc\"}\n" // line 11
	_, err := parse(t, doc)
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{
		`line 4: targets[1]: name "api" is used twice (first by targets[0])`,
		`line 6: targets[2]: url is required`,
		`line 7: targets[3]: name "bad/name": want letters`,
		`line 9: targets[4]: url "ftp://d.test/": want an absolute http or https URL`,
		`line 9: targets[4]: mcp "nope"`,
		`line 11: targets[5].identities[0]: env must be the name of an environment variable`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("missing %q in:\n%v", want, err)
		}
	}
	if strings.Contains(err.Error(), "line 2:") {
		t.Errorf("the first of two same-named targets is blamed:\n%v", err)
	}
	if _, err := parse(t, "targets:\n  - url: http://a.test/\n    token: x\n"); err == nil || !strings.Contains(err.Error(), `line 3: unknown key "token" in targets[0]`) {
		t.Errorf("unknown key in a target: %v", err)
	}
	if _, err := parse(t, "target: http://a.test/\ntargets:\n  - url: http://b.test/\n"); err == nil || !strings.Contains(err.Error(), "target and targets are both set") {
		t.Errorf("target with targets: %v", err)
	}
}

func TestTargetName(t *testing.T) {
	for in, want := range map[string]string{
		"http://127.0.0.1:8080/":                     "127.0.0.1-8080",
		"https://api.example.com/v2/":                "api.example.com-v2",
		"https://api.example.com":                    "api.example.com",
		"http://[::1]:9000/x":                        "1-9000-x",
		"https://h.test/" + strings.Repeat("a", 100): "h.test-" + strings.Repeat("a", 57),
		"not a url": "",
	} {
		if got := config.TargetName(in); got != want {
			t.Errorf("TargetName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestRulesParseInSpectralShapeWithPositions(t *testing.T) {
	f, err := config.Parse([]byte(`rules:
  one-then:
    target: mcp-tool
    given: "$"
    then: {field: name, function: pattern, functionOptions: {match: "^acme_"}}
  many-thens:
    target: spec
    given: "$.paths[*].post"
    then:
      - function: truthy
      - field: operationId
        function: defined
checks:
  custom-one-then: off
`))
	if err != nil {
		t.Fatal(err)
	}
	one, many := f.Rules["one-then"], f.Rules["many-thens"]
	if len(one.Then) != 1 || one.Then[0].FunctionOptions["match"] != "^acme_" || len(many.Then) != 2 || many.Then[1].Field != "operationId" {
		t.Fatalf("rules = %+v", f.Rules)
	}
	for path, want := range map[string]config.Position{
		"":                              {2, 3},
		"given":                         {4, 12},
		"then[0].functionOptions.match": {5, 69},
		"then[1].function":              {12, 19},
		"then[1]":                       {11, 9},
		"then[0].nothing.here":          {5, 5},
	} {
		r := one
		if strings.HasPrefix(path, "then[1]") {
			r = many
		}
		if path == "given" || path == "" {
			r = one
		}
		if got := r.At(path); got != want {
			t.Errorf("At(%q) = %v, want %v", path, got, want)
		}
	}
	if err := f.Validate(config.Known{}); err != nil {
		t.Errorf("a severity override may name a rule's check: %v", err)
	}
	f, err = config.Parse([]byte("rules:\n  Bad_Id: {target: spec, given: $, then: {function: truthy}}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Validate(config.Known{}); err == nil || !strings.Contains(err.Error(), "line 2, column 3: rules.Bad_Id: a rule ID is kebab-case") {
		t.Errorf("Validate = %v", err)
	}
}

// TestOAuthIdentityValidation: an oauth identity needs a token URL, a
// client ID and a secret given by reference, never the secret itself,
// which no message echoes, and no env beside it.
func TestOAuthIdentityValidation(t *testing.T) {
	ok := "identities:\n  - name: svc\n    oauth: {token-url: https://auth.example/token, client-id: scanner, client-secret: env:SECRET}\n"
	if _, err := parse(t, ok); err != nil {
		t.Fatalf("valid oauth identity refused: %v", err)
	}
	for doc, want := range map[string]string{
		"identities:\n  - name: svc\n    oauth: {token-url: https://auth.example/token, client-id: scanner, client-secret: hunter2-literal}\n":       "client-secret must be env:VAR or file:PATH",
		"identities:\n  - name: svc\n    env: TOKEN\n    oauth: {token-url: https://auth.example/token, client-id: scanner, client-secret: env:S}\n": "either oauth or env",
		"identities:\n  - name: svc\n    oauth: {token-url: /token, client-id: scanner, client-secret: env:S}\n":                                     "token-url",
		"identities:\n  - name: svc\n    oauth: {token-url: https://a.example/t, client-secret: env:S, auth: jwt}\n":                                 "client-id is required",
	} {
		_, err := parse(t, doc)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: err = %v, want %q", doc, err, want)
		}
		if err != nil && strings.Contains(err.Error(), "hunter2-literal") {
			t.Errorf("the secret is echoed: %v", err)
		}
	}
}
