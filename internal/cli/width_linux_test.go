//go:build linux

package cli

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// openPTY opens a pseudo-terminal of the given width, 40 rows high, and
// returns its two ends: what the program writes to the terminal side can be
// read from the controller side.
func openPTY(t *testing.T, cols uint16) (controller, terminal *os.File) {
	t.Helper()
	return openPTYSized(t, cols, 40)
}

// openPTYSized is openPTY of the given height.
func openPTYSized(t *testing.T, cols, rows uint16) (controller, terminal *os.File) {
	t.Helper()
	controller, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	t.Cleanup(func() { controller.Close() })
	fd := int(controller.Fd())
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	terminal, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { terminal.Close() })
	if err := unix.IoctlSetWinsize(int(terminal.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Col: cols, Row: rows}); err != nil {
		t.Fatal(err)
	}
	return controller, terminal
}

func TestTermWidth(t *testing.T) {
	_, tty := openPTY(t, 72)
	if got := termWidth(tty); got != 72 {
		t.Errorf("terminal of 72 columns: width %d", got)
	}
	_, narrow := openPTY(t, 30)
	if got := termWidth(narrow); got != 30 {
		t.Errorf("terminal of 30 columns: width %d (the text reporter keeps its own minimum)", got)
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	if got := termWidth(w); got != 100 {
		t.Errorf("pipe: width %d, want 100", got)
	}
	if got := termWidth(&bytes.Buffer{}); got != 100 {
		t.Errorf("buffer: width %d, want 100", got)
	}
}

// TestTextWrapsToTheTerminal runs report convert with stdout on a real
// pseudo-terminal of 72 columns and reads what the terminal shows.
func TestTextWrapsToTheTerminal(t *testing.T) {
	from := savedReport(t)
	controller, tty := openPTY(t, 72)
	var shown bytes.Buffer
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		io.Copy(&shown, controller) // ends with EIO once the terminal side is closed
	}()
	var errb strings.Builder
	code := Run(t.Context(), []string{"report", "convert", "--from", from, "--format", "text", "--no-color", "--no-pager"},
		strings.NewReader(""), tty, &errb, []string{"NO_COLOR=1"})
	tty.Close()
	wg.Wait()
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	assertWidth(t, shown.String(), 72)
	if !strings.Contains(shown.String(), "vary-accept") {
		t.Errorf("terminal showed:\n%s", shown.String())
	}
}
