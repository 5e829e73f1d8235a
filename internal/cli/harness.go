package cli

import (
	"context"
	"errors"
	"fmt"
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
	app *harness.App
	// unwatch ends cancelOnExit's watch, and cancel its context.
	unwatch chan struct{}
	cancel  context.CancelCauseFunc
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
	s.unwatch = make(chan struct{})
	go func() {
		select {
		case <-s.app.Done():
			s.cancel(fmt.Errorf("the app started with --start %s", s.app.HowExited()))
		case <-s.unwatch:
		}
	}()
	return ctx
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
	return &startedApp{app: app}, nil
}

// finish stops the app whatever the outcome, and when the run failed shows
// the app's last lines, which usually say why. Each line is prefixed, so
// that nothing the app printed can pass for a CI workflow command.
func (s *startedApp) finish(e *env, runErr error) error {
	if s == nil {
		return runErr
	}
	if s.unwatch != nil {
		// The app is stopped now on purpose.
		close(s.unwatch)
		s.cancel(nil)
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
