package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// TestEveryCommandHasAManPage: `agentready man DIR` writes a page for
// every command a user meets, naming each of its flags, and none for the
// hidden man command itself.
func TestEveryCommandHasAManPage(t *testing.T) {
	dir := t.TempDir()
	r := run(t, "man", dir)
	if r.code != ExitOK {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	pages := 0
	for _, c := range allCommands() {
		page := filepath.Join(dir, strings.ReplaceAll(c.CommandPath(), " ", "-")+".1")
		b, err := os.ReadFile(page)
		if c.Hidden {
			if err == nil {
				t.Errorf("%s is hidden but has a man page", c.CommandPath())
			}
			continue
		}
		if err != nil {
			t.Errorf("%s has no man page: %v", c.CommandPath(), err)
			continue
		}
		pages++
		text := string(b)
		if !strings.HasPrefix(text, ".TH ") || !strings.Contains(text, "\n.SH NAME\n") {
			t.Errorf("%s: not a man page:\n%.200s", page, text)
		}
		c.Flags().VisitAll(func(f *pflag.Flag) {
			if !f.Hidden && !strings.Contains(text, `\fB\-\-`+roff(f.Name)+`\fP`) {
				t.Errorf("%s does not describe --%s", page, f.Name)
			}
		})
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != pages || pages < 20 {
		t.Errorf("%d files for %d commands", len(entries), pages)
	}
}

func TestRoffEscapesRequests(t *testing.T) {
	for in, want := range map[string]string{
		`.agentready.yaml is read`: `\&.agentready.yaml is read`,
		`'quoted' first`:           `\&'quoted' first`,
		`a\b --flag`:               `a\eb \-\-flag`,
	} {
		if got := roffLine(in); got != want {
			t.Errorf("roffLine(%q) = %q, want %q", in, got, want)
		}
	}
}
