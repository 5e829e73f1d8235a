package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/spf13/pflag"

	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/harness"
)

// harnessFlags start the app before the scan (scan --start).
type harnessFlags struct {
	command      string
	ready        string
	readyTimeout time.Duration
	log          string
	env          []string
	grace        time.Duration
	// running is the app start started, for restartApp.
	running *startedApp
}

func (h *harnessFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&h.command, "start", "", "start the app with this shell command before scanning, and stop it (its whole process group) afterwards")
	fs.StringVar(&h.ready, "ready", "", "with --start: an http(s) URL that must answer 2xx, or a pattern of a line the app prints (default: the target URL)")
	fs.DurationVar(&h.readyTimeout, "ready-timeout", harness.DefaultReadyTimeout, "with --start: how long to wait for --ready")
	fs.StringVar(&h.log, "start-log", "", "with --start: file for the app's output (default: a new file in the temporary directory)")
	fs.StringArrayVar(&h.env, "start-env", nil, "with --start: NAME=VALUE added to the app's environment (repeatable)")
	fs.DurationVar(&h.grace, "stop-grace", harness.DefaultGrace, "with --start: how long the app has to exit after SIGTERM before SIGKILL")
	registerTrustConfig(fs)
}

// runningApps are the apps started with --start and not yet stopped: Main
// kills them when a second signal makes it return without waiting for the
// scan, which would have stopped them.
var runningApps = struct {
	sync.Mutex
	apps map[*harness.App]bool
}{apps: map[*harness.App]bool{}}

// killRunningApps kills the process group of every app not yet stopped.
func killRunningApps() error {
	runningApps.Lock()
	defer runningApps.Unlock()
	var errs []error
	for app := range runningApps.apps {
		errs = append(errs, app.Kill())
	}
	return errors.Join(errs...)
}

// startedApp is the app of this run, or nil without --start.
type startedApp struct {
	// app is the running app: the one started, then the one each restart
	// started; nil once a restart failed.
	app *harness.App
	// unwatch ends the watch of app (see watch), and cancel cancels the
	// scan's context.
	unwatch chan struct{}
	cancel  context.CancelCauseFunc
	stderr  io.Writer
}

// cancelOnExit is ctx, cancelled when the app exits before finish: what a
// scan of an app that is gone reaches says nothing of the app, so the scan
// stops there and its report says why ("the app started with --start
// exited with status 1 during the crawl").
func (s *startedApp) cancelOnExit(ctx context.Context) context.Context {
	if s == nil {
		return ctx
	}
	ctx, s.cancel = context.WithCancelCause(ctx)
	s.watch()
	return ctx
}

// watch cancels the scan when the running app exits, until unwatched.
func (s *startedApp) watch() {
	app, unwatch := s.app, make(chan struct{})
	s.unwatch = unwatch
	go func() {
		select {
		case <-app.Done():
			s.cancel(fmt.Errorf("the app started with --start %s", app.HowExited()))
		case <-unwatch:
		}
	}()
}

// stopWatching ends the watch before the app is stopped on purpose.
func (s *startedApp) stopWatching() {
	if s.unwatch != nil {
		close(s.unwatch)
		s.unwatch = nil
	}
}

// errAppNotBack is why the scan stopped when a restart failed.
var errAppNotBack = errors.New("the app started with --start did not come back when restarted")

// restart stops the app and starts its command again, with the same
// environment, and waits for it as --ready and --ready-timeout say: a
// trial's reset between runs, for an app that keeps its state in memory.
// An app that does not come back stops the scan there (exit 3), its report
// holding the runs played: nothing more can be sent to it.
func (s *startedApp) restart(ctx context.Context) error {
	s.stopWatching()
	old := s.app
	app, err := old.Restart(ctx)
	runningApps.Lock()
	delete(runningApps.apps, old)
	if app != nil {
		runningApps.apps[app] = true
	}
	runningApps.Unlock()
	s.app = app
	if err != nil {
		if ctx.Err() != nil {
			// Interrupted, or out of budget: not the app's doing.
			return err
		}
		fmt.Fprintf(s.stderr, "agentready: --start: restart between trial runs: %v\n", err)
		s.cancel(errAppNotBack)
		return fmt.Errorf("%w; its output is in %s", errAppNotBack, old.LogPath())
	}
	s.watch()
	return nil
}

// check finds every usage error of the flags, so that none is found once
// the app is running.
func (h *harnessFlags) check() error {
	if h.readyTimeout <= 0 || h.grace <= 0 {
		return usageError("--ready-timeout and --stop-grace must be positive")
	}
	if h.command == "" {
		switch {
		case h.ready != "":
			return usageError("--ready needs --start")
		case h.log != "":
			return usageError("--start-log needs --start")
		case len(h.env) > 0:
			return usageError("--start-env needs --start")
		}
		return nil
	}
	for _, kv := range h.env {
		if name, _, ok := strings.Cut(kv, "="); !ok || name == "" {
			return usageError("--start-env %q: want NAME=VALUE", kv)
		}
	}
	if h.ready != "" {
		if err := harness.CheckReady(h.ready); err != nil {
			return usageError("%v", err)
		}
	}
	if h.log != "" {
		if err := checkWritable(h.log); err != nil {
			return usageError("--start-log %s: %v", h.log, err)
		}
	}
	return nil
}

// start starts the app when --start is given and waits until it is ready.
// The flags have passed check.
func (h *harnessFlags) start(ctx context.Context, e *env, target string) (*startedApp, error) {
	if h.command == "" {
		return nil, nil
	}
	ready := h.ready
	if ready == "" {
		ready = target
	}
	app, err := harness.Start(ctx, harness.Options{
		Command: h.command, Env: h.env, Ready: ready, ReadyTimeout: h.readyTimeout,
		Grace: h.grace, LogPath: h.log,
	})
	if err != nil {
		return nil, &ExitError{Code: ExitIncomplete, Err: fmt.Errorf("--start: %w", err)}
	}
	runningApps.Lock()
	runningApps.apps[app] = true
	runningApps.Unlock()
	e.app = &finding.AppInfo{Command: h.command, Ready: ready, Log: app.LogPath()}
	fmt.Fprintf(e.stderr, "agentready: started the app (process group %d); its output goes to %s\n", app.Pgid(), app.LogPath())
	h.running = &startedApp{app: app, stderr: e.stderr}
	return h.running, nil
}

// restartApp is a trial's reset with --start: it restarts the app start
// started (see startedApp.restart).
func (h *harnessFlags) restartApp(ctx context.Context) error {
	if h.running == nil || h.running.app == nil {
		return errors.New("no app started with --start is running")
	}
	return h.running.restart(ctx)
}

// finish stops the app whatever the outcome, and when the run failed shows
// the app's last lines, which usually say why. Each line is prefixed, so
// that nothing the app printed can pass for a CI workflow command.
func (s *startedApp) finish(e *env, runErr error) error {
	if s == nil {
		return runErr
	}
	// The app is stopped now on purpose.
	s.stopWatching()
	if s.cancel != nil {
		s.cancel(nil)
	}
	if s.app == nil {
		// A restart failed: the app it started was stopped then.
		return runErr
	}
	stopErr := s.app.Stop()
	runningApps.Lock()
	delete(runningApps.apps, s.app)
	runningApps.Unlock()
	if runErr != nil {
		if lines := s.app.Tail(); len(lines) > 0 {
			fmt.Fprintf(e.stderr, "agentready: last %d line(s) of the app's output (%s):\n", len(lines), s.app.LogPath())
			for _, l := range lines {
				fmt.Fprintf(e.stderr, "  | %s\n", l)
			}
		}
	}
	if stopErr != nil {
		fmt.Fprintln(e.stderr, "agentready:", stopErr)
		if runErr == nil {
			return &ExitError{Code: ExitIncomplete, Err: errors.New("the app could not be stopped")}
		}
	}
	return runErr
}

// attachApp names the started app and its log in the report.
func attachApp(rep *finding.Report, e *env) {
	if e.app == nil {
		return
	}
	rep.App = e.app
	rep.Notes = append(rep.Notes, fmt.Sprintf("the app was started by agentready (%s); its output is in %s", e.app.Command, e.app.Log))
}
