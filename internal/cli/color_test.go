package cli

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentready/agentready/internal/golden"
)

func TestColorModes(t *testing.T) {
	for _, c := range []struct {
		name    string
		flags   colorFlags
		vars    map[string]string
		want    bool
		wantErr bool
	}{
		{name: "auto, not a terminal", flags: colorFlags{mode: colorAuto}},
		{name: "auto, FORCE_COLOR", flags: colorFlags{mode: colorAuto}, vars: map[string]string{"FORCE_COLOR": "1"}, want: true},
		{name: "auto, FORCE_COLOR=0", flags: colorFlags{mode: colorAuto}, vars: map[string]string{"FORCE_COLOR": "0"}},
		{name: "auto, CLICOLOR_FORCE", flags: colorFlags{mode: colorAuto}, vars: map[string]string{"CLICOLOR_FORCE": "1"}, want: true},
		{name: "auto, NO_COLOR beats FORCE_COLOR", flags: colorFlags{mode: colorAuto}, vars: map[string]string{"NO_COLOR": "1", "FORCE_COLOR": "1"}},
		{name: "always, NO_COLOR", flags: colorFlags{mode: colorAlways}, vars: map[string]string{"NO_COLOR": "1"}, want: true},
		{name: "never, FORCE_COLOR", flags: colorFlags{mode: colorNever}, vars: map[string]string{"FORCE_COLOR": "1"}},
		{name: "--no-color, FORCE_COLOR", flags: colorFlags{mode: colorAuto, noColor: true}, vars: map[string]string{"FORCE_COLOR": "1"}},
		{name: "--no-color --color never", flags: colorFlags{mode: colorNever, noColor: true}},
		{name: "--no-color --color always", flags: colorFlags{mode: colorAlways, noColor: true}, wantErr: true},
		{name: "unknown mode", flags: colorFlags{mode: "sometimes"}, wantErr: true},
	} {
		e := &env{vars: c.vars}
		if e.vars == nil {
			e.vars = map[string]string{}
		}
		got, err := c.flags.enabled(e, &bytes.Buffer{})
		if (err != nil) != c.wantErr || got != c.want {
			t.Errorf("%s: colour %v, error %v; want colour %v, error %v", c.name, got, err, c.want, c.wantErr)
		}
	}
}

// TestColorFlagColoursTheTextReport: --color always colours a report that
// is not written to a terminal, and --no-color, kept for the workflows
// that give it, leaves it plain even when FORCE_COLOR is set.
func TestColorFlagColoursTheTextReport(t *testing.T) {
	from := filepath.Join(golden.Root(), "testdata", "golden", "demo", "report.json")
	r := run(t, "report", "convert", "--from", from, "--format", "text", "--color", "always")
	if r.code != ExitOK || !strings.Contains(r.stdout, "\x1b[") {
		t.Errorf("--color always: exit %d, coloured %v: %s", r.code, strings.Contains(r.stdout, "\x1b["), r.stderr)
	}
	r = runEnv(t, []string{"FORCE_COLOR=1"}, "report", "convert", "--from", from, "--format", "text", "--no-color")
	if r.code != ExitOK || strings.Contains(r.stdout, "\x1b[") {
		t.Errorf("--no-color with FORCE_COLOR: exit %d, coloured %v: %s", r.code, strings.Contains(r.stdout, "\x1b["), r.stderr)
	}
	r = run(t, "report", "convert", "--from", from, "--color", "sometimes")
	if r.code != ExitUsage {
		t.Errorf("--color sometimes: exit %d, want %d", r.code, ExitUsage)
	}
}
