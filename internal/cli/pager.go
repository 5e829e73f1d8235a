package cli

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/term"
)

// defaultPager shows long output a screen at a time: -F quits at once when
// it fits one screen, -R keeps the report's colours, -X leaves what was
// shown on the terminal after quitting.
const defaultPager = "less -FRX"

// withPager adds --no-pager to every command.
func withPager(root *cobra.Command, e *env) {
	root.PersistentFlags().BoolVar(&e.noPager, "no-pager", false,
		"never show long output through a pager ($PAGER, else less -FRX); PAGER= (empty) does the same")
}

// pagerCommand is the command a document on w goes through, and the
// height it must exceed to be paged: none ("") unless w is a terminal, the
// run is not in CI, neither --no-pager nor an empty PAGER turned it off,
// and the terminal's height is known.
func (e *env) pagerCommand(w io.Writer) (command string, height int) {
	if e.noPager || inCI(e) {
		return "", 0
	}
	f, ok := underlying(w).(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return "", 0
	}
	command, set := e.vars["PAGER"]
	if !set {
		command = defaultPager
	}
	if strings.TrimSpace(command) == "" {
		return "", 0
	}
	_, height, err := term.GetSize(int(f.Fd()))
	if err != nil || height <= 0 {
		return "", 0
	}
	return command, height
}

// page writes a document in format on stdout, through the pager when it
// is longer than the terminal is high (see pagerCommand). A pager that
// cannot be started, or that the shell cannot find, leaves the document
// written as it would be without one.
func (e *env) page(format string, render func(io.Writer) error) error {
	command, height := e.pagerCommand(e.stdout)
	if command == "" {
		return e.writeAs(e.stdout, format, render)
	}
	// What goes to a terminal is scrubbed and needs no workflow filter
	// (see writeAs).
	var doc bytes.Buffer
	if err := e.write(&doc, render); err != nil {
		return err
	}
	if bytes.Count(doc.Bytes(), []byte("\n")) <= height {
		_, err := e.stdout.Write(doc.Bytes())
		return err
	}
	if e.runPager(command, doc.Bytes()) {
		return nil
	}
	_, err := e.stdout.Write(doc.Bytes())
	return err
}

// runPager shows doc through command, run by the shell as git runs its
// pager, on the terminal stdout is. It reports whether the pager showed
// it: false when it could not start, or when the shell did not find or
// could not run it (exit 126 or 127) and so read nothing.
func (e *env) runPager(command string, doc []byte) bool {
	cmd := exec.Command("sh", "-c", command)
	cmd.Stdin = bytes.NewReader(doc)
	cmd.Stdout = underlying(e.stdout)
	cmd.Stderr = underlying(e.stderr)
	err := cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exit.ExitCode() != 126 && exit.ExitCode() != 127
	}
	return err == nil
}
