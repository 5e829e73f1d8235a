package cli

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentready/agentready/probe"
)

// fakeTerminal is stderr as a test sees it: what was written, and a signal
// per write, so that a test waits for the line instead of sleeping.
type fakeTerminal struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	wrote chan struct{}
}

func newFakeTerminal() *fakeTerminal { return &fakeTerminal{wrote: make(chan struct{}, 100)} }

func (f *fakeTerminal) Write(b []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.buf.Write(b)
	f.wrote <- struct{}{}
	return len(b), nil
}

func (f *fakeTerminal) String() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.buf.String()
}

// fakeClock is a clock that moves only when told.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// progressHarness starts a line on a fake terminal, clock and ticker.
type progressHarness struct {
	t       *testing.T
	term    *fakeTerminal
	clock   *fakeClock
	ticks   chan time.Time
	stopped bool
	src     *probe.Progress
	line    *progressLine
}

func newProgressHarness(t *testing.T, tty bool, width int) *progressHarness {
	h := &progressHarness{t: t, term: newFakeTerminal(), clock: &fakeClock{now: time.Unix(1e9, 0)},
		ticks: make(chan time.Time), src: &probe.Progress{}}
	h.line = newProgressLine(h.term, h.src, tty, width, h.clock.Now, h.ticks, func() { h.stopped = true })
	return h
}

// tick fires the ticker and waits for the line it draws.
func (h *progressHarness) tick() {
	h.t.Helper()
	h.ticks <- time.Time{}
	select {
	case <-h.term.wrote:
	case <-time.After(5 * time.Second):
		h.t.Fatal("no line drawn on a tick")
	}
}

func TestProgressOnATerminalRedrawsOneLine(t *testing.T) {
	h := newProgressHarness(t, true, 100)
	h.tick()
	h.src.SetPhase(context.Background(), probe.PhaseCrawl)
	h.clock.advance(2500 * time.Millisecond)
	h.tick()
	h.line.stop()
	want := "\ragentready: starting · 0 pages · 0 requests · 0s\x1b[K" +
		"\ragentready: crawling · 0 pages · 0 requests · 2s\x1b[K" +
		clearLine
	if got := h.term.String(); got != want {
		t.Errorf("terminal got\n%q\nwant\n%q", got, want)
	}
	if !h.stopped {
		t.Error("the ticker was not stopped")
	}
	h.line.stop() // a second stop writes nothing
	if got := h.term.String(); got != want {
		t.Errorf("a second stop wrote %q", strings.TrimPrefix(got, want))
	}
}

func TestProgressLineIsCutToTheTerminal(t *testing.T) {
	h := newProgressHarness(t, true, 30)
	h.tick()
	h.line.stop()
	drawn := strings.TrimSuffix(strings.TrimPrefix(h.term.String(), "\r"), "\x1b[K"+clearLine)
	if n := len([]rune(drawn)); n > 29 {
		t.Errorf("line of %d columns on a terminal of 30 would wrap: %q", n, drawn)
	}
}

// TestProgressMakesRoomForLogLines: with -v on a terminal, each log line
// starts on a clean line and the progress line is drawn again below it.
func TestProgressMakesRoomForLogLines(t *testing.T) {
	h := newProgressHarness(t, true, 100)
	log := h.line.logTo(h.term)
	h.tick()
	if _, err := log.Write([]byte("GET http://x/: 200\n")); err != nil {
		t.Fatal(err)
	}
	h.line.stop()
	line := "\ragentready: starting · 0 pages · 0 requests · 0s\x1b[K"
	want := line + clearLine + "GET http://x/: 200\n" + line + clearLine
	if got := h.term.String(); got != want {
		t.Errorf("terminal got\n%q\nwant\n%q", got, want)
	}
}

func TestProgressPausesForAPrompt(t *testing.T) {
	h := newProgressHarness(t, true, 100)
	h.tick()
	h.line.pause()
	h.ticks <- time.Time{} // handled before stop returns, while paused: nothing drawn
	h.line.stop()
	line := "\ragentready: starting · 0 pages · 0 requests · 0s\x1b[K"
	if got, want := h.term.String(), line+clearLine; got != want {
		t.Errorf("terminal got\n%q\nwant\n%q", got, want)
	}

	h = newProgressHarness(t, true, 100)
	h.line.pause()
	h.line.resume()
	h.tick()
	h.line.stop()
	if got, want := h.term.String(), line+clearLine; got != want {
		t.Errorf("after resume, terminal got\n%q\nwant\n%q", got, want)
	}
}

// TestProgressElsewhereIsPlainLines: stderr that is not a terminal (a CI
// log) gets whole lines, no escape sequence, and nothing at the end.
func TestProgressElsewhereIsPlainLines(t *testing.T) {
	h := newProgressHarness(t, false, 100)
	h.src.SetPhase(context.Background(), probe.PhaseProbe)
	h.clock.advance(5 * time.Second)
	h.tick()
	h.clock.advance(5 * time.Second)
	h.tick()
	h.line.stop()
	want := "agentready: probing · 0 pages · 0 requests · 5s\nagentready: probing · 0 pages · 0 requests · 10s\n"
	if got := h.term.String(); got != want {
		t.Errorf("log got\n%q\nwant\n%q", got, want)
	}
	if w := h.line.logTo(h.term); w != h.term {
		t.Error("log lines are rewritten off a terminal")
	}
}

func TestProgressShownOnlyWhenWanted(t *testing.T) {
	e := &env{stderr: &bytes.Buffer{}, vars: map[string]string{}}
	for _, tt := range []struct {
		quiet, verbose, shown bool
	}{
		{false, false, false}, // not a terminal, no -v
		{false, true, true},
		{true, true, false},
	} {
		line := startProgress(e, &probe.Progress{}, tt.quiet, tt.verbose)
		if (line != nil) != tt.shown {
			t.Errorf("quiet %v, verbose %v: shown %v", tt.quiet, tt.verbose, line != nil)
		}
		line.stop()
	}
	var none *progressLine
	none.pause()
	none.resume()
	none.stop()
}
