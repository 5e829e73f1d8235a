package cli

import (
	"context"
	"fmt"
	"io"
	"os/exec"
	"sort"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/agentready/agentready/checks/builtin"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/sanitize"
	"github.com/agentready/agentready/internal/scan"
)

// trialFlags opt in to a trial: the tasks the API declares, played by three
// deterministic players. A trial changes state on the target, so it takes
// the safeguards of active probes: an allow-list (--active-allow or
// active.allow, with mcp: entries for tools), active.ci: true in CI, and
// the plan shown and confirmed before anything of it is sent.
type trialFlags struct {
	on, planOnly bool
	reset        string
	// restart restarts the target before each run when no --trial-reset
	// is given: scan --start restarts the app, demo resets itself in
	// process.
	restart func(context.Context) error
}

func (f *trialFlags) register(fs *pflag.FlagSet) {
	fs.BoolVar(&f.on, "trial", false, "also play a trial: the state-changing operations the API declares, through each interface it offers, by three deterministic players; shown and confirmed first (see docs/trials.md)")
	fs.BoolVar(&f.planOnly, "trial-plan", false, "print every request a trial would send, and send none of it")
	fs.StringVar(&f.reset, "trial-reset", "", "shell command that resets the target to the state the scan saw, run before each trial run and after the last; it wins over a restart (default: the app started with --start, or the demo, is restarted before each run; else each run acts on a resource of its own)")
}

// errTrialDeclined is returned when the user answers no at the prompt.
var errTrialDeclined = usageError("trial declined: nothing of it was sent; run without --trial for a scan without one")

// resetTimeout bounds one run of the --trial-reset command.
const resetTimeout = 2 * time.Minute

// options validates the flags against the configuration and the
// environment, and returns nil when no trial was asked for.
func (f *trialFlags) options(e *env, allow []string, yes bool) (*scan.TrialOptions, error) {
	if !f.on && !f.planOnly {
		if f.reset != "" {
			return nil, usageError("--trial-reset only applies with --trial or --trial-plan")
		}
		return nil, nil
	}
	file := e.configFile()
	entries := allow
	if len(entries) == 0 {
		entries = file.Active.Allow
	}
	if len(entries) == 0 {
		return nil, usageError("--trial needs an allow-list: --active-allow 'POST /orders/*/cancel', an operationId or 'mcp:cancelOrder' (mcp:* for every tool), or active.allow in %s", configName(e))
	}
	resetKind, reset := exchange.ResetDistinct, (func(context.Context) error)(nil)
	switch {
	case f.reset != "":
		// The user's command knows what the app keeps, which a restart
		// may not reset (a database, files).
		resetKind = exchange.ResetCommand
		reset = resetCommand(f.reset, e.stderr)
	case f.restart != nil:
		resetKind, reset = exchange.ResetRestart, f.restart
	}
	o := builtin.TrialOptions{Allow: entries, Reset: resetKind}
	if file.Trial.Tasks != nil {
		o.MaxTasks = *file.Trial.Tasks
	}
	if file.Trial.Writes != nil {
		o.MaxWrites = *file.Trial.Writes
	}
	planner, err := builtin.TrialPlanner(o)
	if err != nil {
		return nil, usageError("--active-allow %v", err)
	}
	// A restarted app is stopped (or the demo closed) once the scan ends:
	// nothing reads it after the last run.
	opts := &scan.TrialOptions{Plan: planner, PlanOnly: f.planOnly, Reset: reset, ResetOnlyBeforeRuns: resetKind == exchange.ResetRestart}
	if f.planOnly {
		opts.Confirm = func(plan *exchange.TrialPlan) error {
			printTrialPlan(e.stderr, plan)
			return nil
		}
		return opts, nil
	}
	if inCI(e) && !file.Active.CI {
		return nil, usageError("--trial refused: this looks like CI and %s does not set active.ci: true; a trial changes state on the target, so a pipeline plays one only when its configuration says so", configName(e))
	}
	prompt := !yes
	if prompt && (!isTerminal(e.stderr) || !readerIsTerminal(e.stdin)) {
		return nil, usageError("--trial asks for confirmation on a terminal; pass --yes to play it without asking")
	}
	opts.Confirm = func(plan *exchange.TrialPlan) error {
		printTrialPlan(e.stderr, plan)
		if !prompt {
			return nil
		}
		if err := confirm(e.stdin, e.stderr, plan.Writes()); err != nil {
			return errTrialDeclined
		}
		return nil
	}
	return opts, nil
}

// resetCommand runs the user's reset command with sh, its output on
// stderr; a failure stops the trial.
func resetCommand(command string, stderr io.Writer) func(context.Context) error {
	return func(ctx context.Context) error {
		ctx, cancel := context.WithTimeout(ctx, resetTimeout)
		defer cancel()
		cmd := exec.CommandContext(ctx, "sh", "-c", command)
		cmd.Stdout, cmd.Stderr = stderr, stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("--trial-reset %q: %w", command, err)
		}
		return nil
	}
}

// printTrialPlan shows every request the trial may send, run by run, with
// the headers as printPlan shows them.
func printTrialPlan(w io.Writer, plan *exchange.TrialPlan) {
	fmt.Fprintf(w, "Trial: %d task(s), %d run(s), at most %d state-changing request(s); between runs the target is reset by %s\n",
		len(plan.Tasks), len(plan.Runs), plan.Writes(), exchange.ResetWords(plan.Reset))
	for _, n := range plan.Notes {
		fmt.Fprintf(w, "  note: %s\n", sanitize.Line(n))
	}
	tasks := map[int]exchange.TrialTask{}
	for _, t := range plan.Tasks {
		tasks[t.ID] = t
	}
	for i, r := range plan.Runs {
		t := tasks[r.Task]
		who := r.Identity
		if who == "" {
			who = "the scan's caller"
		}
		fmt.Fprintf(w, "  run %d: task %d, %s on %s (%s), player %s, as %s\n", i+1, t.ID, sanitize.Line(t.Operation), sanitize.Line(t.Kind), sanitize.Line(exchange.StateWords(t.State)), r.Player, sanitize.Line(who))
		for _, s := range r.Steps {
			fmt.Fprintf(w, "     %s: %s %s  [%s]\n", s.Role, s.Method, sanitize.Line(s.URL), s.Purpose)
			if s.Role == exchange.StepRead || s.Role == exchange.StepReread {
				continue // a read sends what the passive scan sends; the writes are shown whole
			}
			names := make([]string, 0, len(s.Shown))
			for name := range s.Shown {
				names = append(names, name)
			}
			sort.Strings(names)
			for _, name := range names {
				fmt.Fprintf(w, "       %s: %s\n", sanitize.Line(name), sanitize.Line(strings.Join(s.Shown[name], ", ")))
			}
			if len(s.Body) > 0 {
				fmt.Fprintf(w, "       body: %s\n", sanitize.Line(string(s.Body)))
			}
		}
	}
}
