//go:build unix

package actiontest

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/agentready/agentready/harness/harnesstest"
)

func TestMain(m *testing.M) { os.Exit(harnesstest.Main(m)) }

// TestActionMetadata checks what actionlint does not: no input reaches a
// script except through env:, every uses: is pinned by commit, and the
// outputs the issue promises exist.
func TestActionMetadata(t *testing.T) {
	a, root := loadAction(t)
	if a.Runs.Using != "composite" {
		t.Fatalf("runs.using %q", a.Runs.Using)
	}
	for _, s := range a.Runs.Steps {
		if strings.Contains(s.Run, "${{") {
			t.Errorf("step %q interpolates an expression into its script; pass it through env:", s.Name)
		}
	}
	raw, _ := os.ReadFile(filepath.Join(root, "action.yml"))
	sha := regexp.MustCompile(`^[0-9a-f]{40}$`)
	for _, s := range a.Runs.Steps {
		if s.Uses == "" {
			continue
		}
		_, ref, _ := strings.Cut(s.Uses, "@")
		tagged := regexp.MustCompile(regexp.QuoteMeta(s.Uses) + ` # v\d`)
		if !sha.MatchString(ref) || !tagged.Match(raw) {
			t.Errorf("%s is not pinned by commit SHA with its tag in a comment", s.Uses)
		}
	}
	for _, in := range []string{"url", "start", "ready", "openapi", "mcp", "config", "baseline", "identities", "fail-on", "fail-under", "sarif", "category", "comment", "version"} {
		if _, ok := a.Inputs[in]; !ok {
			t.Errorf("no input %q", in)
		}
	}
	if a.Inputs["sarif"].Default != "agentready.sarif" {
		t.Errorf("sarif defaults to %q", a.Inputs["sarif"].Default)
	}
	for _, out := range []string{"grade", "score", "sarif", "report-json", "new-findings"} {
		if a.Outputs[out].Value == "" {
			t.Errorf("no output %q", out)
		}
	}
}

// TestActionRunsAgainstTheDemo runs the action's steps against the demo
// API started by the action itself (start + ready), through the shim of
// doc.go. The first run builds agentready; the others hit the cache.
func TestActionRunsAgainstTheDemo(t *testing.T) {
	if testing.Short() {
		t.Skip("builds agentready")
	}
	a, root := loadAction(t)
	temp := t.TempDir()
	server := harnesstest.BuildServer(t)
	start := func(server string, defects ...string) map[string]string {
		addr := harnesstest.FreeAddr(t)
		cmd := server + " -addr " + addr
		for _, d := range defects {
			cmd += " -defect " + d
		}
		return map[string]string{"url": "http://" + addr + "/", "start": cmd, "ready": "listening on"}
	}
	with := func(base map[string]string, kv ...string) map[string]string {
		for i := 0; i+1 < len(kv); i += 2 {
			base[kv[i]] = kv[i+1]
		}
		return base
	}
	pwned := filepath.Join(t.TempDir(), "pwned")
	payload := `x"; echo injected; $(touch ` + pwned + `) ` + "`touch " + pwned + "`"
	assertNotInjected := func(t *testing.T, r result) {
		t.Helper()
		if _, err := os.Stat(pwned); err == nil {
			t.Fatal("an input was executed as a command")
		}
		for _, line := range strings.Split(r.log, "\n") {
			if strings.TrimSpace(line) == "injected" {
				t.Fatal("an input was executed: 'injected' was printed")
			}
		}
	}

	var savedReport string
	t.Run("gate passes, outputs and summary are written, hostile inputs stay data", func(t *testing.T) {
		sarif := filepath.Join(t.TempDir(), "out.sarif")
		r := runAction(t, a, root, temp, with(start(server), "fail-on", "warning", "sarif", sarif, "category", payload))
		if r.code != 0 {
			t.Fatalf("exit %d\n%s", r.code, r.log)
		}
		if g := r.outputs["grade"]; g != "A" && g != "A+" {
			t.Errorf("grade output %q", g)
		}
		if n, err := strconv.Atoi(r.outputs["score"]); err != nil || n < 90 {
			t.Errorf("score output %q", r.outputs["score"])
		}
		if r.outputs["sarif"] != sarif {
			t.Errorf("sarif output %q", r.outputs["sarif"])
		}
		if b, err := os.ReadFile(sarif); err != nil || !strings.Contains(string(b), `"version": "2.1.0"`) {
			t.Errorf("no SARIF at %s: %v", sarif, err)
		}
		if _, err := os.Stat(r.outputs["report-json"]); err != nil {
			t.Errorf("report-json output %q: %v", r.outputs["report-json"], err)
		}
		if !strings.Contains(r.summary, "## agentready: grade") || !strings.Contains(r.summary, "| Family |") {
			t.Errorf("the step summary lacks the Markdown report:\n%s", r.summary)
		}
		assertNotInjected(t, r)
	})

	t.Run("gate fails on a finding", func(t *testing.T) {
		r := runAction(t, a, root, temp, with(start(server, "no-vary-accept"), "fail-on", "warning", "sarif", filepath.Join(t.TempDir(), "s.sarif")))
		if r.code != 1 {
			t.Fatalf("exit %d, want 1\n%s", r.code, r.log)
		}
		if r.outputs["grade"] == "" || !strings.Contains(r.summary, "## agentready") {
			t.Errorf("a failed gate still reports: outputs %v", r.outputs)
		}
		if !strings.Contains(r.log, "::stop-commands::agentready-") {
			t.Error("the app's output was not fenced off from workflow commands")
		}
		b, err := os.ReadFile(r.outputs["report-json"])
		if err != nil {
			t.Fatal(err)
		}
		savedReport = filepath.Join(temp, "baseline.json")
		os.WriteFile(savedReport, b, 0o644)
	})

	t.Run("a baseline gates on new findings only", func(t *testing.T) {
		if savedReport == "" {
			t.Skip("needs the report of the failing run")
		}
		r := runAction(t, a, root, temp, with(start(server, "no-vary-accept"), "fail-on", "warning", "baseline", savedReport, "sarif", filepath.Join(t.TempDir(), "s.sarif")))
		if r.code != 0 || r.outputs["new-findings"] != "0" {
			t.Fatalf("known findings: exit %d, new-findings %q\n%s", r.code, r.outputs["new-findings"], r.log)
		}
		r = runAction(t, a, root, temp, with(start(server, "no-vary-accept", "405-without-allow"), "fail-on", "warning", "baseline", savedReport, "sarif", filepath.Join(t.TempDir(), "s.sarif")))
		if n, _ := strconv.Atoi(r.outputs["new-findings"]); r.code != 1 || n == 0 {
			t.Fatalf("a new finding: exit %d, new-findings %q", r.code, r.outputs["new-findings"])
		}
	})

	t.Run("a hostile input that is invalid is a usage error, not a command", func(t *testing.T) {
		r := runAction(t, a, root, temp, with(start(server), "fail-under", payload, "sarif", filepath.Join(t.TempDir(), "s.sarif")))
		if r.code != 2 {
			t.Fatalf("exit %d, want 2\n%s", r.code, r.log)
		}
		assertNotInjected(t, r)
	})

	t.Run("identities must be set and are names", func(t *testing.T) {
		r := runAction(t, a, root, temp, with(start(server), "identities", "AGENTREADY_TEST_UNSET_TOKEN"))
		if r.code != 2 || !strings.Contains(r.log, "AGENTREADY_TEST_UNSET_TOKEN is not set") {
			t.Fatalf("exit %d\n%s", r.code, r.log)
		}
		r = runAction(t, a, root, temp, with(start(server), "identities", payload))
		if r.code != 2 {
			t.Fatalf("exit %d", r.code)
		}
		assertNotInjected(t, r)
	})
}
