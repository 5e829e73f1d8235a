package cli

import (
	"bytes"
	"cmp"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/agentready/agentready/internal/sanitize"
	"github.com/agentready/agentready/probe"
)

// The progress line is written here rather than with a progress-bar
// library (schollz/progressbar and vbauerster/mpb are the usual ones): both
// draw a bar against a known total on a wall-clock timer of their own,
// while a crawl learns its size as it goes, the line shares stderr with the
// -v log lines, it must print plain periodic lines when stderr is not a
// terminal, and its tests drive it with a fake clock and ticker.

// How often the line is redrawn on a terminal, and how often a plain line is
// printed elsewhere (a CI log).
const (
	progressRedraw = 250 * time.Millisecond
	progressPeriod = 10 * time.Second
)

// slowRequest is how long a request must have been in flight for the line
// to name it: the one a scan that seems stuck waits on.
const slowRequest = time.Second

// maxShownPath bounds the path of that request on the line.
const maxShownPath = 60

// clearLine returns to the start of the line and erases it.
const clearLine = "\r\x1b[K"

// progressLine tells, on stderr, what a running scan is doing: on a
// terminal one line redrawn in place, elsewhere a timestamped line per
// period. It never writes to stdout, where the reports go. A nil
// *progressLine shows nothing and takes every call.
type progressLine struct {
	w      io.Writer
	src    *probe.Progress
	limits progressLimits
	tty    bool
	width  int // of the terminal; the line is cut to fit, or it would wrap and never be erased
	now    func() time.Time
	began  time.Time

	mu     sync.Mutex
	drawn  bool // a partial line is on the terminal
	paused bool

	ticks    <-chan time.Time
	stopTick func()
	done     chan struct{}
	exited   chan struct{}
	once     sync.Once
}

// progressLimits are the scan's bounds the line measures it against.
type progressLimits struct {
	maxPages int
	budget   time.Duration
}

// startProgress shows the progress of src on e.stderr until stop, unless
// quiet. It returns nil when nothing is to be shown.
func startProgress(e *env, src *probe.Progress, limits progressLimits, quiet bool) *progressLine {
	if quiet {
		return nil
	}
	tty := isTerminal(e.stderr)
	period := progressPeriod
	if tty {
		period = progressRedraw
	}
	t := time.NewTicker(period)
	return newProgressLine(e.stderr, src, limits, tty, termWidth(e.stderr), time.Now, t.C, t.Stop)
}

func newProgressLine(w io.Writer, src *probe.Progress, limits progressLimits, tty bool, width int, now func() time.Time, ticks <-chan time.Time, stopTick func()) *progressLine {
	p := &progressLine{w: w, src: src, limits: limits, tty: tty, width: width, now: now, began: now(),
		ticks: ticks, stopTick: stopTick, done: make(chan struct{}), exited: make(chan struct{})}
	go p.loop()
	return p
}

func (p *progressLine) loop() {
	defer close(p.exited)
	for {
		select {
		case <-p.done:
			return
		case <-p.ticks:
			p.mu.Lock()
			p.draw()
			p.mu.Unlock()
		}
	}
}

// text is the line: the phase, the pages against --max-pages, the
// requests, the time so far and the budget left, and the request in flight
// longest when it is slow.
func (p *progressLine) text() string {
	s := p.src.Snapshot()
	now := p.now()
	elapsed := now.Sub(p.began)
	pages := count(s.Pages, "page")
	if p.limits.maxPages > 0 {
		pages = fmt.Sprintf("%d/%d pages", s.Pages, p.limits.maxPages)
	}
	clock := elapsed.Truncate(time.Second).String()
	if b := p.limits.budget; b > 0 {
		if left := (b - elapsed).Truncate(time.Second); left > 0 {
			clock += ", " + left.String() + " of the budget left"
		} else {
			clock += ", the budget spent"
		}
	}
	parts := []string{cmp.Or(s.Phase, "starting"), pages, count(s.Requests, "request"), clock}
	if o := s.Oldest; !o.Since.IsZero() && now.Sub(o.Since) >= slowRequest {
		parts = append(parts, fmt.Sprintf("waiting %s on %s %s", now.Sub(o.Since).Truncate(time.Second),
			sanitize.Line(o.Method), sanitize.Truncate(sanitize.Line(o.Path), maxShownPath)))
	}
	return "agentready: " + strings.Join(parts, " · ")
}

func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// draw writes the line; p.mu is held.
func (p *progressLine) draw() {
	if p.paused {
		return
	}
	if !p.tty {
		fmt.Fprintln(p.w, stamp(p.now())+p.text())
		return
	}
	fmt.Fprint(p.w, "\r"+sanitize.Truncate(p.text(), max(p.width-1, 20))+"\x1b[K")
	p.drawn = true
}

// erase removes a partial line; p.mu is held.
func (p *progressLine) erase() {
	if p.drawn {
		fmt.Fprint(p.w, clearLine)
		p.drawn = false
	}
}

// stop ends the line and erases it, so that what follows on stderr (an
// error, the gate) starts on a clean line. Safe to call more than once.
func (p *progressLine) stop() {
	if p == nil {
		return
	}
	p.once.Do(func() {
		close(p.done)
		<-p.exited
		p.stopTick()
		p.mu.Lock()
		defer p.mu.Unlock()
		p.erase()
	})
}

// pause erases the line and draws nothing until resume, for a prompt.
func (p *progressLine) pause() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.erase()
	p.paused = true
}

func (p *progressLine) resume() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.paused = false
}

// logTo returns where -v log lines go: w itself, or, under a line on a
// terminal, a writer that erases the line, writes the log line and draws
// the line again below it.
func (p *progressLine) logTo(w io.Writer) io.Writer {
	if p == nil || !p.tty {
		return w
	}
	return progressLog{p: p, w: w}
}

type progressLog struct {
	p *progressLine
	w io.Writer
}

func (l progressLog) Write(b []byte) (int, error) {
	l.p.mu.Lock()
	defer l.p.mu.Unlock()
	l.p.erase()
	n, err := l.w.Write(b)
	if err != nil {
		return n, err
	}
	select {
	case <-l.p.done:
	default:
		l.p.draw()
	}
	return n, err
}

// stamp is the time a line of stderr begins with off a terminal, and on
// every -v log line.
func stamp(t time.Time) string { return t.Format(time.TimeOnly) + " " }

// stampedLog writes each line it is given after the time it is written
// at, for the -v log: a slow answer shows in the times between lines.
type stampedLog struct {
	w   io.Writer
	now func() time.Time

	mu      sync.Mutex
	midLine bool // the last write ended within a line
}

func newStampedLog(w io.Writer, now func() time.Time) *stampedLog {
	return &stampedLog{w: w, now: now}
}

func (l *stampedLog) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := len(b)
	var out bytes.Buffer
	prefix := stamp(l.now())
	for len(b) > 0 {
		if !l.midLine {
			out.WriteString(prefix)
		}
		line, rest, found := bytes.Cut(b, []byte("\n"))
		out.Write(line)
		if found {
			out.WriteByte('\n')
		}
		l.midLine = !found
		b = rest
	}
	if _, err := l.w.Write(out.Bytes()); err != nil {
		return 0, err
	}
	return n, nil
}

// Unwrap is the writer behind, for isTerminal.
func (l *stampedLog) Unwrap() io.Writer { return l.w }
