package cli

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/agentready/agentready/internal/finding"
)

// completions runs cobra's hidden __complete command as a shell's script
// does and returns the values offered (without their meanings) and the
// directive line.
func completions(t *testing.T, args ...string) (values []string, directive string) {
	t.Helper()
	r := run(t, append([]string{"__complete"}, args...)...)
	if r.code != ExitOK {
		t.Fatalf("__complete %v: exit %d: %s", args, r.code, r.stderr)
	}
	for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		if strings.HasPrefix(line, ":") {
			directive = line
			continue
		}
		value, _, _ := strings.Cut(line, "\t")
		values = append(values, value)
	}
	return values, directive
}

func TestCompletion(t *testing.T) {
	for _, c := range []struct {
		args []string
		want []string
		not  []string
	}{
		{args: []string{"scan", "--fail-on", ""}, want: []string{"error", "warning", "info", "none"}},
		{args: []string{"scan", "--format", ""}, want: []string{"text", "json", "sarif", "markdown", "html", "junit"}},
		{args: []string{"scan", "--format", "j"}, want: []string{"json", "junit"}, not: []string{"text"}},
		{args: []string{"report", "convert", "--format", ""}, want: []string{"html", "sarif"}},
		{args: []string{"mcp", "--format", ""}, want: []string{"text", "json"}, not: []string{"sarif"}},
		{args: []string{"scan", "-o", ""}, want: []string{"json=", "sarif="}},
		{args: []string{"demo", "--color", ""}, want: []string{"auto", "always", "never"}},
		{args: []string{"scan", "--fail-on-drift", ""}, want: []string{"breaking", "any", "none"}},
		{args: []string{"demo", "--defect", "no-vary"}, want: []string{"no-vary-accept", "no-vary-prefer"}, not: []string{"flaky-order"}},
		{args: []string{"explain", "vary-"}, want: []string{"vary-accept", "vary-prefer"}, not: []string{"negotiation-wildcard"}},
		{args: []string{"checks", "--family", ""}, want: []string{"negotiation", "vary", "problem-json", "drift", "custom"}},
		{args: []string{"checks", "--family", "hal"}, want: []string{"hal", "hal-forms"}, not: []string{"vary", "openapi-hal"}},
	} {
		got, directive := completions(t, c.args...)
		for _, w := range c.want {
			if !slices.Contains(got, w) {
				t.Errorf("%v: %v lacks %q", c.args, got, w)
			}
		}
		for _, n := range c.not {
			if slices.Contains(got, n) {
				t.Errorf("%v: %v offers %q", c.args, got, n)
			}
		}
		if directive == "" {
			t.Errorf("%v: no directive", c.args)
		}
	}
	// Once the format is typed, the path is a file: the shell's own
	// completion takes over.
	if got, directive := completions(t, "scan", "-o", "json="); len(got) != 0 || directive != ":0" {
		t.Errorf("-o json=: %v %s, want the shell's file completion (:0)", got, directive)
	}
}

// TestChecksFamily: --family lists the checks of the families named, in
// text and JSON; a family that does not exist is a usage error naming the
// nearest one.
func TestChecksFamily(t *testing.T) {
	r := run(t, "checks", "--family", "vary", "--family", "surface", "--format", "json")
	if r.code != ExitOK {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var rules []finding.RuleInfo
	if err := json.Unmarshal([]byte(r.stdout), &rules); err != nil {
		t.Fatal(err)
	}
	families := map[string]int{}
	for _, rule := range rules {
		families[rule.Family]++
	}
	if len(families) != 2 || families["vary"] != 2 || families["surface"] == 0 {
		t.Errorf("--family vary --family surface listed %v", families)
	}
	text := run(t, "checks", "--family", "vary")
	if text.code != ExitOK || !strings.Contains(text.stdout, "vary-accept") || strings.Contains(text.stdout, "negotiation-") {
		t.Errorf("text: exit %d, want vary's checks alone:\n%s", text.code, text.stdout)
	}
	bad := run(t, "checks", "--family", "vray")
	if bad.code != ExitUsage || !strings.Contains(bad.stderr, `did you mean "vary"`) {
		t.Errorf("--family vray: exit %d: %s", bad.code, bad.stderr)
	}
}
