// Package harness starts the app under test, waits until it is ready, and
// stops it again, whatever happens in between. The app runs in its own
// process group, so that `go run`, `npm start` and shell wrappers are
// stopped together with the server they spawn: SIGTERM to the whole group,
// then SIGKILL after a grace period.
//
// Everything the app prints goes to a log file, line by line; the last
// lines are kept for the error message, since a crash at start-up is
// almost always explained there.
package harness

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/agentready/agentready/internal/sanitize"
)

// Defaults for the zero values of Options.
const (
	DefaultReadyTimeout = 60 * time.Second
	DefaultGrace        = 5 * time.Second
	// TailLines is how many of the app's last lines an error shows.
	TailLines = 20
	// maxLine bounds one logged line kept in memory; the log file gets it all.
	maxLine = 4096
	// pollInterval is how often a readiness URL is tried.
	pollInterval = 100 * time.Millisecond
)

// Options describe the app to start.
type Options struct {
	// Command is run by /bin/sh -c, in Dir (default: the working directory).
	Command string
	Dir     string
	// Env is added to the scanner's own environment, overriding it.
	Env []string
	// Ready is an http(s) URL that must answer 2xx, or a regular expression
	// matched against each line the app prints (stdout and stderr).
	Ready        string
	ReadyTimeout time.Duration
	// Grace is how long the app has to exit after SIGTERM.
	Grace time.Duration
	// LogPath is the file the app's output goes to; "" creates one in the
	// temporary directory.
	LogPath string
	// appendLog keeps what LogPath holds: a restarted app writes after
	// the output of the one it replaces.
	appendLog bool
}

// App is a started app.
type App struct {
	opts    Options // as started, for Restart
	cmd     *exec.Cmd
	pgid    int
	logPath string
	log     *lineLog
	exited  chan struct{}
	waitErr error
	grace   time.Duration

	stopOnce sync.Once
	stopErr  error
}

// ErrNotReady wraps every failure to reach readiness; its message ends with
// the app's last lines.
var ErrNotReady = errors.New("the app did not become ready")

// Start starts the app and waits for readiness. On any failure the app has
// already been stopped and the error carries the tail of its log. ctx bounds
// the wait; cancelling it later does not stop the app: call Stop.
func Start(ctx context.Context, o Options) (*App, error) {
	if !supported {
		return nil, errUnsupported
	}
	if strings.TrimSpace(o.Command) == "" {
		return nil, errors.New("no command to start")
	}
	ready, err := parseReady(o.Ready)
	if err != nil {
		return nil, err
	}
	if o.ReadyTimeout <= 0 {
		o.ReadyTimeout = DefaultReadyTimeout
	}
	if o.Grace <= 0 {
		o.Grace = DefaultGrace
	}
	logFile, err := openLog(o.LogPath, o.appendLog)
	if err != nil {
		return nil, err
	}
	a := &App{opts: o, logPath: logFile.Name(), grace: o.Grace, exited: make(chan struct{})}
	a.log = newLineLog(logFile, ready.pattern)
	a.cmd = command(o, a.log)
	if err := a.cmd.Start(); err != nil {
		a.log.close()
		return nil, fmt.Errorf("start %q: %w", o.Command, err)
	}
	a.pgid = a.cmd.Process.Pid
	go func() {
		a.waitErr = a.cmd.Wait()
		a.log.close()
		close(a.exited)
	}()
	if err := a.waitReady(ctx, ready, o.ReadyTimeout); err != nil {
		stopErr := a.Stop()
		return nil, errors.Join(fmt.Errorf("%w: %w%s", ErrNotReady, err, a.tailMessage()), stopErr)
	}
	return a, nil
}

// Restart stops the app, starts its command again with the same options
// (environment, readiness condition and timeout, grace), its output
// appended to the same log, and waits for readiness as Start does. It
// returns the new App, which replaces a; on any failure the new process
// has already been stopped, and the error carries the tail of its output.
func (a *App) Restart(ctx context.Context) (*App, error) {
	if err := a.Stop(); err != nil {
		return nil, err
	}
	o := a.opts
	o.LogPath, o.appendLog = a.logPath, true
	return Start(ctx, o)
}

// LogPath is the file the app's output is written to.
func (a *App) LogPath() string { return a.logPath }

// Pgid is the app's process group.
func (a *App) Pgid() int { return a.pgid }

// Tail returns the app's last lines, sanitized for a terminal.
func (a *App) Tail() []string { return a.log.tail() }

// Exited reports whether the app's main process has exited.
func (a *App) Exited() bool {
	select {
	case <-a.exited:
		return true
	default:
		return false
	}
}

// Done is closed once the app's main process has exited.
func (a *App) Done() <-chan struct{} { return a.exited }

// HowExited says how the app's main process ended ("exited with status 1",
// "was ended by signal: killed"), or "" while it runs.
func (a *App) HowExited() string {
	if !a.Exited() {
		return ""
	}
	state := a.cmd.ProcessState
	switch {
	case state == nil:
		return fmt.Sprintf("exited (%v)", a.waitErr)
	case state.ExitCode() >= 0:
		return fmt.Sprintf("exited with status %d", state.ExitCode())
	}
	return "was ended by " + state.String()
}

func (a *App) tailMessage() string {
	lines := a.Tail()
	if len(lines) == 0 {
		return fmt.Sprintf("\n(the app printed nothing; log: %s)", a.logPath)
	}
	return fmt.Sprintf("\nlast %d line(s) of %s:\n  %s", len(lines), a.logPath, strings.Join(lines, "\n  "))
}

// Stop stops the whole process group: SIGTERM, then SIGKILL when the group
// is not gone after the grace period. It is safe to call more than once and
// returns only once no process of the group is left.
func (a *App) Stop() error {
	a.stopOnce.Do(func() { a.stopErr = stopGroup(a.pgid, a.grace, a.exited) })
	<-a.exited
	return a.stopErr
}

// Kill sends SIGKILL to the whole process group at once, without the grace
// Stop gives, and returns once no process of it is left (or after the
// grace, with an error). It may be called while Stop waits.
func (a *App) Kill() error { return killGroup(a.pgid, a.grace, a.exited) }

// ready is a parsed readiness condition.
type ready struct {
	url     string
	pattern *regexp.Regexp
}

// CheckReady reports whether s is a readiness condition Start accepts, so
// that a mistyped one is refused before anything is started.
func CheckReady(s string) error {
	_, err := parseReady(s)
	return err
}

// urlLike matches a value that starts with a URL scheme: it is meant as a
// URL, never as a pattern, even when the scheme is not one Start polls.
var urlLike = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*://`)

func parseReady(s string) (ready, error) {
	switch {
	case s == "":
		return ready{}, errors.New("no readiness condition: give --ready a URL (http://127.0.0.1:8080/health) or a pattern of the app's output")
	case urlLike.MatchString(s):
		u, err := url.Parse(s)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return ready{}, fmt.Errorf("--ready %q: want an absolute http or https URL", s)
		}
		return ready{url: s}, nil
	}
	re, err := regexp.Compile(s)
	if err != nil {
		return ready{}, fmt.Errorf("--ready %q is neither an http(s) URL nor a valid pattern: %v", s, err)
	}
	return ready{pattern: re}, nil
}

func (a *App) waitReady(ctx context.Context, r ready, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var polled <-chan error
	if r.url != "" {
		polled = pollURL(ctx, r.url)
	}
	select {
	case <-a.log.matched:
		return nil
	case err := <-polled:
		return err
	case <-a.exited:
		return fmt.Errorf("it exited first (%v)", a.waitErr)
	case <-ctx.Done():
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return fmt.Errorf("not ready after %s (waiting for %s)", timeout, describeReady(r))
		}
		return ctx.Err()
	}
}

func describeReady(r ready) string {
	if r.url != "" {
		return "a 2xx from " + r.url
	}
	return "a line matching " + r.pattern.String()
}

// pollURL reports nil on the first 2xx; it never reports an error itself:
// the caller's timeout decides when to give up.
func pollURL(ctx context.Context, u string) <-chan error {
	done := make(chan error, 1)
	client := &http.Client{Timeout: 2 * time.Second}
	go func() {
		t := time.NewTicker(pollInterval)
		defer t.Stop()
		for {
			req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
			if err != nil {
				done <- err
				return
			}
			if resp, err := client.Do(req); err == nil {
				io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
				resp.Body.Close()
				if resp.StatusCode >= 200 && resp.StatusCode < 300 {
					done <- nil
					return
				}
			}
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	}()
	return done
}

func openLog(p string, keep bool) (*os.File, error) {
	switch {
	case p == "":
		return os.CreateTemp("", "agentready-app-*.log")
	case keep:
		return os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o666)
	}
	return os.Create(p)
}

// lineLog writes the app's output to the log file, keeps the last lines and
// signals the first line matching the readiness pattern.
type lineLog struct {
	file    *os.File
	pattern *regexp.Regexp
	matched chan struct{}

	mu      sync.Mutex
	partial []byte
	lines   []string
	once    sync.Once
	closed  bool
}

func newLineLog(f *os.File, pattern *regexp.Regexp) *lineLog {
	return &lineLog{file: f, pattern: pattern, matched: make(chan struct{})}
}

// Write is called by os/exec's copying goroutines, for stdout and stderr.
func (l *lineLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return len(p), nil
	}
	l.file.Write(p)
	l.partial = append(l.partial, p...)
	for {
		i := strings.IndexByte(string(l.partial), '\n')
		if i < 0 {
			break
		}
		l.addLine(string(l.partial[:i]))
		l.partial = l.partial[i+1:]
	}
	if len(l.partial) > maxLine {
		// A line this long is not a readiness line; keep its start.
		l.addLine(string(l.partial[:maxLine]))
		l.partial = l.partial[:0]
	}
	return len(p), nil
}

func (l *lineLog) addLine(s string) {
	s = strings.TrimRight(s, "\r")
	if len(s) > maxLine {
		s = s[:maxLine]
	}
	if l.pattern != nil && l.pattern.MatchString(s) {
		l.once.Do(func() { close(l.matched) })
	}
	l.lines = append(l.lines, s)
	if len(l.lines) > TailLines {
		l.lines = l.lines[len(l.lines)-TailLines:]
	}
}

func (l *lineLog) tail() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]string, 0, len(l.lines)+1)
	all := l.lines
	if len(l.partial) > 0 {
		all = append(append([]string(nil), all...), string(l.partial))
	}
	for _, s := range all {
		// The app's output is as untrusted as its responses.
		out = append(out, sanitize.Line(s))
	}
	return out
}

func (l *lineLog) close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.closed {
		l.closed = true
		l.file.Close()
	}
}

var _ io.Writer = (*lineLog)(nil)
