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
	return newLimitedProgressHarness(t, tty, width, progressLimits{})
}

// newLimitedProgressHarness is newProgressHarness for a scan of the given
// bounds. Its clock is in UTC, so that the times it prints are the same
// wherever the test runs.
func newLimitedProgressHarness(t *testing.T, tty bool, width int, limits progressLimits) *progressHarness {
	h := &progressHarness{t: t, term: newFakeTerminal(), clock: &fakeClock{now: time.Unix(1e9, 0).UTC()},
		ticks: make(chan time.Time), src: &probe.Progress{}}
	h.line = newProgressLine(h.term, h.src, limits, tty, width, h.clock.Now, h.ticks, func() { h.stopped = true })
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
// log) gets whole lines, each after its time, no escape sequence, and
// nothing at the end.
func TestProgressElsewhereIsPlainLines(t *testing.T) {
	h := newProgressHarness(t, false, 100)
	h.src.SetPhase(context.Background(), probe.PhaseProbe)
	h.clock.advance(10 * time.Second)
	h.tick()
	h.clock.advance(10 * time.Second)
	h.tick()
	h.line.stop()
	want := "01:46:50 agentready: probing · 0 pages · 0 requests · 10s\n01:47:00 agentready: probing · 0 pages · 0 requests · 20s\n"
	if got := h.term.String(); got != want {
		t.Errorf("log got\n%q\nwant\n%q", got, want)
	}
	if w := h.line.logTo(h.term); w != h.term {
		t.Error("log lines are rewritten off a terminal")
	}
}

// TestProgressMeasuresAgainstTheLimits: the line counts the pages against
// --max-pages, says how much of the budget is left, and names the request
// the scan has waited on for a second or more.
func TestProgressMeasuresAgainstTheLimits(t *testing.T) {
	h := newLimitedProgressHarness(t, true, 200, progressLimits{maxPages: 200, budget: 2 * time.Minute})
	h.src.SetPhase(context.Background(), probe.PhaseCrawl)
	sent := h.clock.Now()
	end := h.src.Begin("GET", "/orders/7\x1b[2J", sent)
	fast := h.src.Begin("HEAD", "/fast", sent.Add(27500*time.Millisecond))
	h.clock.advance(28 * time.Second)
	h.tick()
	fast()
	end()
	h.tick()
	h.clock.advance(2 * time.Minute)
	h.tick()
	h.line.stop()
	want := "\ragentready: crawling · 0/200 pages · 0 requests · 28s, 1m32s of the budget left · waiting 28s on GET /orders/7\x1b[K" +
		"\ragentready: crawling · 0/200 pages · 0 requests · 28s, 1m32s of the budget left\x1b[K" +
		"\ragentready: crawling · 0/200 pages · 0 requests · 2m28s, the budget spent\x1b[K" + clearLine
	if got := h.term.String(); got != want {
		t.Errorf("terminal got\n%q\nwant\n%q", got, want)
	}
}

// TestVerboseLogLinesCarryTheirTime: each line of the -v log starts with
// the time it was written at, however the writes split it.
func TestVerboseLogLinesCarryTheirTime(t *testing.T) {
	var b bytes.Buffer
	clock := &fakeClock{now: time.Date(2026, 3, 1, 12, 0, 3, 0, time.UTC)}
	log := newStampedLog(&b, clock.Now)
	for _, w := range []string{"GET http://x/: 200 in 4ms\nGET http://x/a: ", "404 in 12ms\n"} {
		if n, err := log.Write([]byte(w)); n != len(w) || err != nil {
			t.Fatalf("Write(%q) = %d, %v", w, n, err)
		}
		clock.advance(time.Second)
	}
	if got, want := b.String(), "12:00:03 GET http://x/: 200 in 4ms\n12:00:03 GET http://x/a: 404 in 12ms\n"; got != want {
		t.Errorf("log got\n%q\nwant\n%q", got, want)
	}
}

// TestProgressShownUnlessQuiet: on a terminal or not, the progress shows
// unless -q silences it.
func TestProgressShownUnlessQuiet(t *testing.T) {
	e := &env{stderr: &bytes.Buffer{}, vars: map[string]string{}}
	for _, quiet := range []bool{false, true} {
		line := startProgress(e, &probe.Progress{}, progressLimits{}, quiet)
		if (line != nil) == quiet {
			t.Errorf("quiet %v: shown %v", quiet, line != nil)
		}
		line.stop()
	}
	var none *progressLine
	none.pause()
	none.resume()
	none.stop()
}
