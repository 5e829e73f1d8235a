package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/fixtures/demo"
	"github.com/agentready/agentready/internal/config"
	"github.com/agentready/agentready/internal/finding"
)

// runWith is run with extra environment variables.
func runWith(t *testing.T, ctx context.Context, environ []string, args ...string) result {
	t.Helper()
	var out, errb bytes.Buffer
	code := Run(ctx, args, strings.NewReader(""), &out, &errb, append([]string{"NO_COLOR="}, environ...))
	return result{code, out.String(), errb.String()}
}

func writeConfig(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), config.FileName)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func readJSONReport(t *testing.T, path string) *finding.Report {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rep finding.Report
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	return &rep
}

// TestPrecedenceFlagsEnvFileDefaults observes the crawl limit through the
// report: the demo has more pages than any of these limits.
func TestPrecedenceFlagsEnvFileDefaults(t *testing.T) {
	target := serve(t)
	cfg := writeConfig(t, "limits:\n  max-pages: 1\n")
	tests := []struct {
		name    string
		environ []string
		flags   []string
		pages   int
	}{
		{"file over default", nil, nil, 1},
		{"env over file", []string{"AGENTREADY_MAX_PAGES=2"}, nil, 2},
		{"flag over env", []string{"AGENTREADY_MAX_PAGES=2"}, []string{"--max-pages", "3"}, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "r.json")
			args := append([]string{"scan", "--config", cfg, "-q", "-o", "json=" + out, "--fail-on", "none", target}, tt.flags...)
			if r := runWith(t, context.Background(), tt.environ, args...); r.code != ExitOK {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			if got := readJSONReport(t, out).Stats.Pages; got != tt.pages {
				t.Fatalf("%d pages crawled, want %d", got, tt.pages)
			}
		})
	}
}

func TestConfigGateAndTargetApply(t *testing.T) {
	target := serve(t, demo.DefectNoVaryAccept)
	cfg := writeConfig(t, "target: "+target+"\ngate:\n  fail-on: warning\n")
	// The file's target and gate: the warning fails the run.
	if r := runWith(t, context.Background(), nil, "scan", "--config", cfg, "-q"); r.code != ExitGateFailed {
		t.Fatalf("exit %d, want %d: %s", r.code, ExitGateFailed, r.stderr)
	}
	// A flag beats the file.
	if r := runWith(t, context.Background(), nil, "scan", "--config", cfg, "-q", "--fail-on", "error"); r.code != ExitOK {
		t.Fatalf("exit %d, want 0: %s", r.code, r.stderr)
	}
	// So does the environment, config path included.
	if r := runWith(t, context.Background(), []string{"AGENTREADY_CONFIG=" + cfg, "AGENTREADY_FAIL_ON=none"}, "scan", "-q"); r.code != ExitOK {
		t.Fatalf("exit %d, want 0: %s", r.code, r.stderr)
	}
}

func TestConfigErrorsAreUsageErrors(t *testing.T) {
	target := serve(t)
	tests := []struct{ body, want string }{
		{"gate:\n  fail_on: error\n", `did you mean "fail-on"?`},
		{"checks:\n  vary-acept: off\n", `did you mean "vary-accept"?`},
		{"ignores:\n  - check: vary-accept\n", "reason is required"},
	}
	for _, tt := range tests {
		r := run(t, "scan", "--config", writeConfig(t, tt.body), target)
		if r.code != ExitUsage || !strings.Contains(r.stderr, tt.want) {
			t.Errorf("%q: exit %d, stderr %q; want %d and %q", tt.body, r.code, r.stderr, ExitUsage, tt.want)
		}
	}
	if r := runWith(t, context.Background(), []string{"AGENTREADY_MAX_PAGES=many"}, "scan", target); r.code != ExitUsage || !strings.Contains(r.stderr, "AGENTREADY_MAX_PAGES") {
		t.Errorf("bad variable: exit %d, %q", r.code, r.stderr)
	}
	if r := run(t, "scan", "--config", filepath.Join(t.TempDir(), "missing.yaml"), target); r.code != ExitUsage {
		t.Errorf("missing file: exit %d", r.code)
	}
}

func TestConfigFileIsFoundInAParentDirectory(t *testing.T) {
	target := serve(t, demo.DefectNoVaryAccept)
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, config.FileName), []byte("target: "+target+"\ngate:\n  fail-on: warning\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(root, "svc", "api")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(sub)
	r := run(t, "scan", "-q")
	if r.code != ExitGateFailed {
		t.Fatalf("exit %d, want %d (the parent's file sets the target and fail-on): %s", r.code, ExitGateFailed, r.stderr)
	}
	// Said even with -q: the file changes what the run does.
	if want := "agentready: using config " + filepath.Join(root, config.FileName) + " (found in a parent directory)\n"; !strings.Contains(r.stderr, want) {
		t.Errorf("stderr %q lacks %q", r.stderr, want)
	}
	r = run(t, "config", "check")
	if r.code != ExitOK || !strings.Contains(r.stdout, "gate.fail-on") {
		t.Fatalf("config check: %d %q %q", r.code, r.stdout, r.stderr)
	}
}

func TestConfigIgnoresAndOverridesApply(t *testing.T) {
	// The configuration applies to the checks, so a replay of the shared
	// recording of the demo without Vary: Accept judges it as a scan would.
	recording := copyOf(t, noVaryAcceptRecording, "scan.har")
	out := filepath.Join(t.TempDir(), "r.json")
	cfg := writeConfig(t, "checks:\n  vary-accept: error\nignores:\n  - check: vary-accept\n    url: /orders/*\n    reason: legacy shapes\n")
	r := run(t, "scan", "--config", cfg, "-q", "-o", "json="+out, "--replay", recording)
	if r.code != ExitGateFailed {
		t.Fatalf("exit %d (vary-accept raised to error must fail): %s", r.code, r.stderr)
	}
	rep := readJSONReport(t, out)
	for _, f := range rep.Findings {
		if f.CheckID == "vary-accept" && strings.Contains(f.PrimaryURL(), "/orders/") {
			t.Errorf("ignored finding reported: %s", f.PrimaryURL())
		}
		if f.CheckID == "vary-accept" && f.Severity != finding.SeverityError {
			t.Errorf("override not applied: %s", f.Severity)
		}
	}
	if len(rep.Ignored) == 0 || rep.Ignored[0].Suppression.Reason != "legacy shapes" {
		t.Fatalf("ignored %+v", rep.Ignored)
	}
}

// TestConfigTwinLimitsReachTheCheck: the demo's twin with one extra link
// agrees with its page by default, and not when no link may differ.
func TestConfigTwinLimitsReachTheCheck(t *testing.T) {
	target := serve(t, demo.DefectMarkdownDeadLinks)
	divergent := func(cfg string) []string {
		out := filepath.Join(t.TempDir(), "r.json")
		args := []string{"scan", "-q", "-o", "json=" + out, target}
		if cfg != "" {
			args = append(args, "--config", writeConfig(t, cfg))
		}
		run(t, args...)
		var msgs []string
		for _, f := range readJSONReport(t, out).Findings {
			if f.CheckID == "discovery-markdown-divergent" {
				msgs = append(msgs, f.Message)
			}
		}
		return msgs
	}
	if got := divergent(""); len(got) != 0 {
		t.Errorf("by default: %q", got)
	}
	got := divergent("limits:\n  twin-max-link-differences: 0\n")
	if len(got) != 1 || !strings.Contains(got[0], "1 link target differs, over 0 (only in the twin: /orders/404)") {
		t.Errorf("with twin-max-link-differences 0: %q", got)
	}
}

func TestInitWritesAValidStarterFromAScan(t *testing.T) {
	target := serve(t, demo.DefectNoVaryAccept)
	p := filepath.Join(t.TempDir(), config.FileName)
	if r := run(t, "init", "-o", p, target); r.code != ExitOK {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	f, err := config.Load(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Validate(knownNames()); err != nil {
		t.Fatal(err)
	}
	body, _ := os.ReadFile(p)
	for _, want := range []string{"target: \"" + target + "\"", "openapi: ", "#   - check: \"vary-accept\"", "# Assessed by the first scan:"} {
		if !strings.Contains(string(body), want) {
			t.Errorf("starter lacks %q:\n%s", want, body)
		}
	}
	if r := run(t, "init", "-o", p, target); r.code != ExitUsage || !strings.Contains(r.stderr, "--force") {
		t.Fatalf("overwrote without --force: %d %s", r.code, r.stderr)
	}
	// The starter drives a scan as it is.
	if r := run(t, "scan", "--config", p, "-q"); r.code != ExitOK {
		t.Fatalf("scan with the starter: exit %d: %s", r.code, r.stderr)
	}
}

func TestConfigSchemaCommandMatchesThePublishedSchema(t *testing.T) {
	r := run(t, "config", "schema")
	want, err := os.ReadFile("../../docs/schema/agentready-config.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	if r.code != ExitOK || r.stdout != string(want) {
		t.Fatalf("config schema differs from docs/schema (run .ci/regenerate)")
	}
}

func TestConfigInUseIsNamedOnStderr(t *testing.T) {
	target := serve(t)
	cfg := writeConfig(t, "gate:\n  fail-on: none\n")
	tests := []struct {
		name    string
		environ []string
		args    []string
		want    string
	}{
		{"--config", nil, []string{"--config", cfg}, "agentready: using config " + cfg + " (named with --config)\n"},
		{"AGENTREADY_CONFIG", []string{"AGENTREADY_CONFIG=" + cfg}, nil, "agentready: using config " + cfg + " (named by AGENTREADY_CONFIG)\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := runWith(t, t.Context(), tt.environ, append(append([]string{"scan", "-q"}, tt.args...), target)...)
			if r.code != ExitOK || !strings.Contains(r.stderr, tt.want) {
				t.Fatalf("exit %d, stderr %q; want 0 and %q", r.code, r.stderr, tt.want)
			}
		})
	}
	t.Chdir(filepath.Dir(cfg))
	r := run(t, "scan", "-q", target)
	if want := "(found in the working directory)"; r.code != ExitOK || !strings.Contains(r.stderr, want) {
		t.Fatalf("exit %d, stderr %q; want 0 and %q", r.code, r.stderr, want)
	}
}

// parentConfig writes, in a new directory, a configuration whose start:
// command would create the returned marker, and moves into a subdirectory.
func parentConfig(t *testing.T, target string) (cfg, marker string) {
	t.Helper()
	root := t.TempDir()
	marker = filepath.Join(root, "started")
	cfg = filepath.Join(root, config.FileName)
	body := "target: " + target + "\ngate:\n  fail-on: none\nstart:\n  command: touch " + marker + " && exec sleep 30\n  grace: 1s\n"
	if err := os.WriteFile(cfg, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(root, "svc")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(sub)
	return cfg, marker
}

func TestConfigFoundInAParentDirectoryStartsNothing(t *testing.T) {
	cfg, marker := parentConfig(t, serve(t))
	// A variable cannot stand in for the flag that trusts the file.
	r := runWith(t, t.Context(), []string{"AGENTREADY_TRUST_CONFIG=true"}, "scan", "-q")
	if r.code != ExitUsage {
		t.Fatalf("exit %d, want %d: %s", r.code, ExitUsage, r.stderr)
	}
	for _, want := range []string{cfg + " sets start.command", "--config " + cfg, "--trust-config"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr %q lacks %q", r.stderr, want)
		}
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the parent directory's start.command ran")
	}
	// A command that has no --start is not concerned.
	if r := run(t, "config", "check"); r.code != ExitOK {
		t.Fatalf("config check: exit %d: %s", r.code, r.stderr)
	}
}

func TestNothingAssessedExits3WithTheReport(t *testing.T) {
	var body strings.Builder
	body.WriteString("families:\n")
	for _, f := range checks.FamilyNames() {
		body.WriteString("  " + f + ": false\n")
	}
	path := filepath.Join(t.TempDir(), "r.json")
	r := run(t, "scan", "--config", writeConfig(t, body.String()), "--fail-under", "0", "-q", "-o", "json="+path, serve(t))
	if r.code != ExitIncomplete || !strings.Contains(r.stderr, "no check could be evaluated") {
		t.Fatalf("exit %d, stderr %q; want %d", r.code, r.stderr, ExitIncomplete)
	}
	rep := readJSONReport(t, path)
	if rep.Score.Grade != finding.GradeNotAssessed || rep.Gate == nil || rep.Gate.Passed {
		t.Errorf("grade %q, gate %+v: nothing assessed meets no minimum", rep.Score.Grade, rep.Gate)
	}
}

// headerServer serves the demo and counts the requests that carry header
// name, and all requests.
func headerServer(t *testing.T, name string) (url string, carried, all *atomic.Int32) {
	t.Helper()
	carried, all = new(atomic.Int32), new(atomic.Int32)
	app := demo.New()
	url = serveHandler(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		all.Add(1)
		if r.Header.Get(name) != "" {
			carried.Add(1)
		}
		app.ServeHTTP(w, r)
	}))
	return url, carried, all
}

// inParentConfig writes body as the configuration of a new directory and
// moves into a subdirectory of it.
func inParentConfig(t *testing.T, body string) (cfg string) {
	t.Helper()
	root := t.TempDir()
	cfg = filepath.Join(root, config.FileName)
	if err := os.WriteFile(cfg, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(root, "svc")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(sub)
	return cfg
}

// TestConfigFoundInAParentDirectorySendsNoSecrets: such a file may name an
// environment variable and a target, and so send the variable to a server
// of its choosing, only once the user accepts the file.
func TestConfigFoundInAParentDirectorySendsNoSecrets(t *testing.T) {
	target, carried, all := headerServer(t, "X-Id")
	cfg := inParentConfig(t, "target: "+target+"\ngate:\n  fail-on: none\nlimits:\n  max-pages: 3\nidentities:\n  - {name: anonymous, header: X-Other, env: UNSET_HERE_42}\n  - {name: insider, header: X-Id, env: MY_CLOUD_SECRET}\n")
	environ := []string{"MY_CLOUD_SECRET=cloudsecret-do-not-send", "UNSET_HERE_42=x"}
	for _, args := range [][]string{
		{"scan", "-q"},
		{"scan", "-q", target},
		{"demo", "-q"},
		{"baseline", "write", "-o", filepath.Join(t.TempDir(), "b.json")},
	} {
		r := runWith(t, t.Context(), environ, args...)
		if r.code != ExitUsage {
			t.Fatalf("%v: exit %d, want %d: %s", args, r.code, ExitUsage, r.stderr)
		}
		for _, want := range []string{cfg + " sets identities", "--config " + cfg, "--trust-config"} {
			if !strings.Contains(r.stderr, want) {
				t.Errorf("%v: stderr %q lacks %q", args, r.stderr, want)
			}
		}
	}
	if n := all.Load(); n != 0 {
		t.Fatalf("%d request(s) reached the server", n)
	}
	// Accepted, the same file sends the credential: the refusal above is
	// what kept it from the server.
	for _, accept := range [][]string{{"--trust-config"}, {"--config", cfg}} {
		before := carried.Load()
		if r := runWith(t, t.Context(), environ, append([]string{"scan", "-q"}, accept...)...); r.code != ExitOK {
			t.Fatalf("%v: exit %d: %s", accept, r.code, r.stderr)
		}
		if carried.Load() == before {
			t.Errorf("%v: no request carried the identity's header", accept)
		}
	}
}

// TestConfigFoundInAParentDirectoryPicksNoTargetForCredentials: the
// command line's -H goes to the URL the user gives, not to one an untrusted
// file names.
func TestConfigFoundInAParentDirectoryPicksNoTargetForCredentials(t *testing.T) {
	target, carried, all := headerServer(t, "X-Tenant")
	cfg := inParentConfig(t, "target: "+target+"\ngate:\n  fail-on: none\nlimits:\n  max-pages: 3\n")
	for _, args := range [][]string{
		{"scan", "-q", "-H", "X-Tenant: tenantsecret4242"},
		{"scan", "-q", "--identity", "me", "--header-for", "me=X-Tenant: tenantsecret4242"},
	} {
		r := run(t, args...)
		if r.code != ExitUsage || !strings.Contains(r.stderr, cfg+" sets target") || !strings.Contains(r.stderr, "--trust-config") {
			t.Errorf("%v: exit %d, stderr %q; want %d naming the file's target", args, r.code, r.stderr, ExitUsage)
		}
	}
	r := runWith(t, t.Context(), []string{"AGENTREADY_HEADER=X-Tenant: tenantsecret4242"}, "scan", "-q")
	if r.code != ExitUsage {
		t.Errorf("AGENTREADY_HEADER: exit %d, want %d: %s", r.code, ExitUsage, r.stderr)
	}
	if n := all.Load(); n != 0 {
		t.Fatalf("%d request(s) reached the server", n)
	}
	for _, args := range [][]string{
		{"scan", "-q", "-H", "X-Tenant: tenantsecret4242", target},
		{"scan", "-q", "-H", "X-Tenant: tenantsecret4242", "--trust-config"},
		{"scan", "-q"},
	} {
		if r := run(t, args...); r.code != ExitOK {
			t.Errorf("%v: exit %d: %s", args, r.code, r.stderr)
		}
	}
	if carried.Load() == 0 {
		t.Error("no request carried -H")
	}
}

// TestConfigCheckNamesRealFlags: config check shows how each setting is given
// on the command line, and the target has no flag.
func TestConfigCheckNamesRealFlags(t *testing.T) {
	cfg := writeConfig(t, "target: http://127.0.0.1:1/\nlimits:\n  max-pages: 3\n")
	r := run(t, "--config", cfg, "config", "check")
	if r.code != ExitOK {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if strings.Contains(r.stdout, "--target") {
		t.Errorf("config check names a --target flag, which does not exist:\n%s", r.stdout)
	}
	for _, want := range []string{"the URL argument: http://127.0.0.1:1/", "--max-pages=3"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("config check output lacks %q:\n%s", want, r.stdout)
		}
	}
}

// TestEveryConfigFlagIsAScanFlag: a key's flag tag names a flag scan has,
// but for the target, which is scan's argument.
func TestEveryConfigFlagIsAScanFlag(t *testing.T) {
	fs := newScanCmd(&env{vars: map[string]string{}}).Flags()
	for flag, key := range config.FlagNames() {
		if fs.Lookup(flag) == nil && key != "target" {
			t.Errorf("%s names --%s, which scan does not have", key, flag)
		}
	}
}
