// Package cli is the command tree. It parses flags, calls the scan and the
// reporters, and maps outcomes to exit codes; it holds no scanning logic.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/sanitize"
	"github.com/agentready/agentready/probe"
)

// Exit codes, documented in the README and in `agentready --help`.
const (
	ExitOK         = 0 // the scan completed and the gate passed
	ExitGateFailed = 1 // the scan completed and the gate failed
	ExitUsage      = 2 // usage or configuration error
	ExitIncomplete = 3 // the scan could not complete
)

// ExitError carries an exit code up to Main, the only place that exits.
type ExitError struct {
	Code int
	Err  error
}

func (e *ExitError) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("exit %d", e.Code)
	}
	return e.Err.Error()
}

func (e *ExitError) Unwrap() error { return e.Err }

func usageError(format string, a ...any) error {
	return &ExitError{Code: ExitUsage, Err: fmt.Errorf(format, a...)}
}

// env is the process environment as given to Main, so tests need not touch
// the real one.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	vars           map[string]string
	// config is the validated configuration (config.go); app is the app
	// started with --start (harness.go). Both are nil until set.
	config *loadedConfig
	app    *finding.AppInfo
	// secrets are scrubbed from what is printed once a command knows them;
	// see scrubbing.
	secrets *exchange.Secrets
	// issued collects the credentials a scan is issued while it runs (OAuth
	// access tokens), scrubbed like secrets from then on.
	issued *probe.SecretBook
	// libraryLog is what the libraries log during the run: dropped unless
	// the command logs verbosely (see logVerbosely).
	libraryLog *libraryLog
	// noPager is --no-pager (see page).
	noPager bool
}

func (e *env) get(name string) string { return e.vars[name] }

// logVerbosely makes w the -v log of the command, which the libraries' log
// lines join (see libraryLog), and returns it. The secrets are known by
// then: every command scrubs before it sends.
func (e *env) logVerbosely(w io.Writer) io.Writer {
	e.libraryLog.printTo(w, e.secrets, e.issued)
	return w
}

// Main runs the CLI and returns the exit code. The first SIGINT or SIGTERM
// stops the scan, whose partial report is then written; a second one
// returns at once, without waiting for it, once the app started with
// --start, if any, is killed.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer, environ []string) int {
	ctx, again, stop := onSignals(context.Background())
	defer stop()
	done := make(chan int, 1)
	go func() { done <- Run(ctx, args, stdin, stdout, stderr, environ) }()
	select {
	case code := <-done:
		return code
	case <-again:
		fmt.Fprintln(stderr, "agentready: interrupted twice; exiting without waiting for the report")
		if err := killRunningApps(); err != nil {
			fmt.Fprintln(stderr, "agentready:", err)
		}
		return ExitIncomplete
	}
}

// signalNames are the signals that stop a scan, as reports name them.
var signalNames = map[os.Signal]string{os.Interrupt: "SIGINT", syscall.SIGTERM: "SIGTERM"}

// onSignals is parent cancelled by the first SIGINT or SIGTERM, with
// "interrupted by SIGINT" as its cause (context.Cause), and again, closed
// by the second.
func onSignals(parent context.Context) (ctx context.Context, again <-chan struct{}, stop func()) {
	ctx, cancel := context.WithCancelCause(parent)
	signals := make(chan os.Signal, 2)
	signal.Notify(signals, os.Interrupt, syscall.SIGTERM)
	twice := make(chan struct{})
	quit := make(chan struct{})
	go func() {
		for n := 0; ; n++ {
			select {
			case sig := <-signals:
				if n > 0 {
					close(twice)
					return
				}
				cancel(fmt.Errorf("interrupted by %s", signalNames[sig]))
			case <-quit:
				return
			}
		}
	}()
	return ctx, twice, func() {
		signal.Stop(signals)
		close(quit)
		cancel(nil)
	}
}

// Run is Main with a caller-supplied context, for in-process tests.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, environ []string) int {
	// Progress, logs and errors on stderr quote the scanned app; none of it
	// may pass for a CI workflow command.
	safeStderr := sanitize.NewWorkflowFilter(stderr)
	defer safeStderr.Flush()
	stderr = safeStderr
	e := &env{stdin: stdin, stdout: stdout, stderr: stderr, vars: map[string]string{}}
	// Every command that sends a request runs within this: what net/http
	// logs of a server's bytes never reaches stderr unasked.
	e.libraryLog = libraryLogs.register()
	defer libraryLogs.unregister(e.libraryLog)
	for _, kv := range environ {
		if k, v, ok := strings.Cut(kv, "="); ok {
			e.vars[k] = v
		}
	}
	root := newRoot(e)
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return ExitOK
	}
	var ee *ExitError
	if errors.As(err, &ee) {
		if ee.Err != nil {
			fmt.Fprintln(e.stderr, "agentready:", ee.Err)
		}
		return ee.Code
	}
	// Anything cobra itself rejects (unknown flag or command, bad arity) is a
	// usage error.
	fmt.Fprintln(e.stderr, "agentready:", err)
	fmt.Fprintln(e.stderr, "Run 'agentready --help' for usage.")
	return ExitUsage
}

func newRoot(e *env) *cobra.Command {
	root := &cobra.Command{
		Use:   "agentready",
		Short: "Tell whether a web API is ready for AI agents, with evidence for every verdict",
		Long: `agentready crawls a live API with safe requests (GET, HEAD and OPTIONS, and
read-only MCP methods), runs checks on what agents depend on, and prints a
graded report. State-changing active probes and trials are sent only with
--active or --trial, to what --active-allow names, after they are shown and
confirmed.

Exit codes:
  0  the scan completed and the gate passed
  1  the scan completed and the gate failed (see --fail-on)
  2  usage or configuration error (active probes or a trial refused or
     declined included)
  3  the scan could not complete (target unreachable, interrupted, or
     nothing could be checked)`,
		Example: `  agentready demo
  agentready scan https://staging.example.com/
  agentready lint openapi.yaml
  agentready explain vary-accept`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.AddCommand(newScanCmd(e), newDemoCmd(e), newChecksCmd(e), newExplainCmd(e), newVersionCmd(e))
	root.AddCommand(newMCPCmd(e))
	root.AddCommand(newLintCmd(e))
	root.AddCommand(newReportCmd(e))
	root.AddCommand(newBaselineCmd(e), newInitCmd(e), newConfigCmd(e))
	root.AddCommand(newManCmd(e))
	root.SetFlagErrorFunc(suggestFlag)
	withVersionFlag(root)
	withConfig(root, e)
	withPager(root, e)
	completeTree(root, e)
	completeValues(root)
	return root
}
