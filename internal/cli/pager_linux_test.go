package cli

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// onTerminal runs the CLI with stdout on a pseudo-terminal of the given
// height and returns what the terminal showed.
func onTerminal(t *testing.T, rows uint16, environ []string, args ...string) (shown string, code int) {
	t.Helper()
	controller, tty := openPTYSized(t, 80, rows)
	var b bytes.Buffer
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		io.Copy(&b, controller) // ends with EIO once the terminal side is closed
	}()
	var errb strings.Builder
	code = Run(t.Context(), args, strings.NewReader(""), tty, &errb, environ)
	tty.Close()
	wg.Wait()
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	return b.String(), code
}

// TestLongOutputGoesThroughThePager drives the pager decision with a fake
// pager that keeps what it is given: long output on a terminal goes to it;
// short output, --no-pager, an empty PAGER and CI do not; a pager the shell
// cannot find leaves the output on the terminal.
func TestLongOutputGoesThroughThePager(t *testing.T) {
	dir := t.TempDir()
	paged := filepath.Join(dir, "paged")
	fake := "cat > " + paged
	for _, tt := range []struct {
		name    string
		rows    uint16
		environ []string
		args    []string
		paged   bool
	}{
		{"longer than the terminal", 10, []string{"PAGER=" + fake}, nil, true},
		{"shorter than the terminal", 200, []string{"PAGER=" + fake}, nil, false},
		{"--no-pager", 10, []string{"PAGER=" + fake}, []string{"--no-pager"}, false},
		{"AGENTREADY_NO_PAGER", 10, []string{"PAGER=" + fake, "AGENTREADY_NO_PAGER=true"}, nil, false},
		{"PAGER empty", 10, []string{"PAGER="}, nil, false},
		{"in CI", 10, []string{"PAGER=" + fake, "CI=true"}, nil, false},
		{"a pager not found", 10, []string{"PAGER=" + filepath.Join(dir, "no-such-pager")}, nil, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			os.Remove(paged)
			shown, _ := onTerminal(t, tt.rows, append([]string{"NO_COLOR=1"}, tt.environ...), append([]string{"explain", "vary-accept"}, tt.args...)...)
			got, err := os.ReadFile(paged)
			if tt.paged {
				if err != nil || !strings.Contains(string(got), "vary-accept — Responses that depend on Accept") {
					t.Fatalf("the pager was not given the explanation: %v\n%s", err, got)
				}
				if strings.Contains(shown, "vary-accept") {
					t.Errorf("the explanation reached the terminal besides the pager:\n%s", shown)
				}
				return
			}
			if err == nil {
				t.Errorf("the pager ran:\n%s", got)
			}
			if !strings.Contains(shown, "vary-accept — Responses that depend on Accept") {
				t.Errorf("the terminal did not show the explanation:\n%s", shown)
			}
		})
	}
}

// TestNoPagerOffATerminal: output to a pipe or a file is never paged.
func TestNoPagerOffATerminal(t *testing.T) {
	paged := filepath.Join(t.TempDir(), "paged")
	var out, errb bytes.Buffer
	if code := Run(t.Context(), []string{"checks"}, strings.NewReader(""), &out, &errb, []string{"PAGER=cat > " + paged}); code != ExitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if _, err := os.Stat(paged); err == nil || !strings.Contains(out.String(), "vary-accept") {
		t.Errorf("output off a terminal went to the pager, or not to stdout:\n%s", out.String())
	}
}
