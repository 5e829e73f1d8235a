package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentready/agentready/fixtures/demo"
	"github.com/agentready/agentready/internal/finding"
)

// A trial takes the consent rules of active probes: an allow-list, a
// terminal or --yes, active.ci in CI, and the opt-in on the command line.
func TestTrialFlagErrors(t *testing.T) {
	url := serve(t)
	allow := []string{"--active-allow", "mcp:*"}
	tests := []struct {
		name    string
		environ []string
		args    []string
		want    string
	}{
		{"no allow-list", nil, []string{"--trial", "--yes"}, "--trial needs an allow-list"},
		{"bad rule", nil, []string{"--trial", "--yes", "--active-allow", "mcp:cancel order"}, "is not allowed in an MCP tool name"},
		{"reset without trial", nil, []string{"--trial-reset", "true"}, "only applies with --trial"},
		{"no terminal, no --yes", nil, append([]string{"--trial"}, allow...), "pass --yes"},
		{"CI without consent", []string{"CI=true"}, append([]string{"--trial", "--yes"}, allow...), "does not set active.ci: true"},
		{"trial from the environment is ignored", []string{"AGENTREADY_TRIAL=true", "AGENTREADY_YES=true"}, allow, "only apply with --active or --trial"},
		{"shards", nil, append([]string{"--trial", "--yes", "--shard", "1/2"}, allow...), "--shard and --trial exclude each other"},
	}
	for _, tt := range tests {
		r := runEnv(t, tt.environ, append([]string{"scan", url}, tt.args...)...)
		if r.code != ExitUsage || !strings.Contains(r.stderr, tt.want) {
			t.Errorf("%s: code %d, stderr %q; want %d and %q", tt.name, r.code, r.stderr, ExitUsage, tt.want)
		}
	}
	if r := run(t, "baseline", "write", url, "-o", filepath.Join(t.TempDir(), "b.json"), "--trial-plan", "--active-allow", "mcp:*"); r.code != ExitUsage {
		t.Errorf("baseline write with --trial-plan: code %d, stderr %q", r.code, r.stderr)
	}
}

// --trial-plan prints every request of the trial, credentials redacted,
// and the report lists the tasks as planned; in CI it needs no consent,
// since nothing of it is sent.
func TestTrialPlanOnly(t *testing.T) {
	r := runEnv(t, []string{"CI=true"}, "demo", "--trial-plan", "--active-allow", "mcp:*", "--active-allow", "POST /orders/*/*", "--format", "json")
	if r.code != ExitOK {
		t.Fatalf("code %d: %s", r.code, r.stderr)
	}
	var rep finding.Report
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Trials == nil || !rep.Trials.PlanOnly || rep.Trials.Reset != "restart" || len(rep.Trials.Tasks) == 0 {
		t.Fatalf("trials section %+v", rep.Trials)
	}
	for _, task := range rep.Trials.Tasks {
		for _, run := range task.Runs {
			if run.Outcome != "planned" || len(run.Sent) > 0 {
				t.Errorf("task %d, player %s: %+v, want planned and nothing sent", task.ID, run.Player, run)
			}
		}
	}
	for _, want := range []string{"Trial: ", "call: POST ", "Mcp-Name: payOrder", "Authorization: REDACTED", `"name":"payOrder"`} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("the printed plan lacks %q:\n%s", want, r.stderr)
		}
	}
	if strings.Contains(r.stderr, demo.UserToken) {
		t.Error("the printed plan shows a credential")
	}
}

// A trial with nothing to send asks for no confirmation and prints no
// plan: the report's notes say why each task was left out.
func TestTrialWithNothingToSendSaysWhy(t *testing.T) {
	r := run(t, "demo", "--trial", "--yes", "--active-allow", "mcp:createOrder", "--format", "json", "--fail-on", "none")
	if r.code != ExitOK {
		t.Fatalf("code %d: %s", r.code, r.stderr)
	}
	var rep finding.Report
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"trial: createOrder on /orders (no state) is not played: in the tool's inputSchema, /customer has no example",
		"trial: no declared state-changing operation the allow-list names could be played; nothing sent",
	} {
		if !slices.ContainsFunc(rep.Notes, func(n string) bool { return strings.Contains(n, want) }) {
			t.Errorf("the report's notes lack %q: %q", want, rep.Notes)
		}
	}
	if rep.Trials == nil || len(rep.Trials.Tasks) != 0 {
		t.Errorf("trials section %+v, want one with no task", rep.Trials)
	}
}

// --trial-reset runs its command before each run and after the last, and
// the report says the target was reset by it.
func TestTrialResetCommand(t *testing.T) {
	url := serveHandler(t, demo.New())
	log := filepath.Join(t.TempDir(), "resets")
	r := run(t, "scan", url, "--trial", "--yes", "--active-allow", "POST /orders/*/*", "--trial-reset", "echo reset >> "+log,
		"--format", "json", "--fail-on", "none")
	if r.code != ExitOK {
		t.Fatalf("code %d: %s", r.code, r.stderr)
	}
	var rep finding.Report
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatal(err)
	}
	runs := 0
	for _, task := range rep.Trials.Tasks {
		runs += len(task.Runs)
	}
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(string(b), "reset\n"); runs == 0 || got != runs+1 || rep.Trials.Reset != "command" {
		t.Errorf("%d resets for %d runs (reset %q); want one before each run and one after the last", got, runs, rep.Trials.Reset)
	}
}

// Trial findings are gated by --fail-on-trial, never by --fail-on: a
// played trial's finding at or above it fails the run, one below it or
// --fail-on-trial none does not, whatever --fail-on says.
func TestFailOnTrialGatesTrialFindings(t *testing.T) {
	allow := []string{"--trial", "--yes", "--active-allow", "mcp:*", "--active-allow", "POST /orders/*/*", "--format", "json"}
	readOnlyWrites := []string{"demo", "--defect", string(demo.DefectTrialReadOnlyTool)} // an error
	shipRepeats := []string{"demo", "--defect", string(demo.DefectTrialIdempotentShip)}  // a warning
	for _, tt := range []struct {
		name   string
		target []string
		flags  []string
		want   int
	}{
		{"error finding, default fail-on-trial", readOnlyWrites, []string{"--fail-on", "none"}, ExitGateFailed},
		{"error finding, fail-on-trial none", readOnlyWrites, []string{"--fail-on", "none", "--fail-on-trial", "none"}, ExitOK},
		{"warning finding below fail-on-trial, not counted by fail-on", shipRepeats, []string{"--fail-on", "warning"}, ExitOK},
		{"warning finding, fail-on-trial warning", shipRepeats, []string{"--fail-on", "none", "--fail-on-trial", "warning"}, ExitGateFailed},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := run(t, append(append(slices.Clone(tt.target), allow...), tt.flags...)...)
			if r.code != tt.want {
				t.Errorf("exit %d, want %d\n%s%s", r.code, tt.want, r.stdout, r.stderr)
			}
			if tt.want == ExitGateFailed && !strings.Contains(r.stdout+r.stderr, "(fail-on-trial)") {
				t.Errorf("the gate's reason does not name fail-on-trial:\n%s%s", r.stdout, r.stderr)
			}
		})
	}
	if r := run(t, "scan", "--fail-on-trial", "fatal", "http://127.0.0.1:1/"); r.code != ExitUsage {
		t.Errorf("--fail-on-trial fatal: exit %d, want %d", r.code, ExitUsage)
	}
}
