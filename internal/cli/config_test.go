package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/finding"
	"github.com/agentready/agentready/fixtures/demo"
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
	if r := run(t, "scan", "-q"); r.code != ExitGateFailed {
		t.Fatalf("exit %d, want %d (the parent's file sets the target and fail-on): %s", r.code, ExitGateFailed, r.stderr)
	}
	r := run(t, "config", "check")
	if r.code != ExitOK || !strings.Contains(r.stdout, "gate.fail-on") {
		t.Fatalf("config check: %d %q %q", r.code, r.stdout, r.stderr)
	}
}

func TestConfigIgnoresAndOverridesApply(t *testing.T) {
	target := serve(t, demo.DefectNoVaryAccept)
	out := filepath.Join(t.TempDir(), "r.json")
	cfg := writeConfig(t, "checks:\n  vary-accept: error\nignores:\n  - check: vary-accept\n    url: /orders/*\n    reason: legacy shapes\n")
	r := run(t, "scan", "--config", cfg, "-q", "-o", "json="+out, target)
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
