package cli

import (
	"fmt"
	"io"
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
// printed elsewhere (with -v).
const (
	progressRedraw = 250 * time.Millisecond
	progressPeriod = 5 * time.Second
)

// clearLine returns to the start of the line and erases it.
const clearLine = "\r\x1b[K"

// progressLine tells, on stderr, what a running scan is doing: on a
// terminal one line redrawn in place, elsewhere a plain line per period.
// It never writes to stdout, where the reports go. A nil *progressLine
// shows nothing and takes every call.
type progressLine struct {
	w     io.Writer
	src   *probe.Progress
	tty   bool
	width int // of the terminal; the line is cut to fit, or it would wrap and never be erased
	now   func() time.Time
	began time.Time

	mu     sync.Mutex
	drawn  bool // a partial line is on the terminal
	paused bool

	ticks    <-chan time.Time
	stopTick func()
	done     chan struct{}
	exited   chan struct{}
	once     sync.Once
}

// startProgress shows the progress of src on e.stderr until stop: on a
// terminal unless quiet, elsewhere only when verbose. It returns nil when
// nothing is to be shown.
func startProgress(e *env, src *probe.Progress, quiet, verbose bool) *progressLine {
	tty := isTerminal(e.stderr)
	if quiet || (!tty && !verbose) {
		return nil
	}
	period := progressPeriod
	if tty {
		period = progressRedraw
	}
	t := time.NewTicker(period)
	return newProgressLine(e.stderr, src, tty, termWidth(e.stderr), time.Now, t.C, t.Stop)
}

func newProgressLine(w io.Writer, src *probe.Progress, tty bool, width int, now func() time.Time, ticks <-chan time.Time, stopTick func()) *progressLine {
	p := &progressLine{w: w, src: src, tty: tty, width: width, now: now, began: now(),
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

// text is the line: phase, pages, requests and time so far.
func (p *progressLine) text() string {
	s := p.src.Snapshot()
	phase := s.Phase
	if phase == "" {
		phase = "starting"
	}
	elapsed := p.now().Sub(p.began).Truncate(time.Second)
	return fmt.Sprintf("agentready: %s · %s · %s · %s", phase, count(s.Pages, "page"), count(s.Requests, "request"), elapsed)
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
		fmt.Fprintln(p.w, p.text())
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
