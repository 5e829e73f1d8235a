//go:build linux

package cli

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentready/agentready/fixtures/demo"
)

// TestProgressOnARealTerminalEndsClean scans with stderr on a pseudo-
// terminal, interrupts the scan once the progress line shows (Ctrl-C), and
// reads what the terminal shows: the line never reaches stdout, and it is
// erased before the interruption is reported.
func TestProgressOnARealTerminalEndsClean(t *testing.T) {
	release := make(chan struct{})
	var once sync.Once
	app := demo.New()
	target := serveHandler(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			// Held until the test has seen the line: the crawl is under way.
			select {
			case <-release:
			case <-r.Context().Done():
				return
			}
		}
		app.ServeHTTP(w, r)
	}))
	defer once.Do(func() { close(release) })

	controller, tty := openPTY(t, 100)
	var mu sync.Mutex
	var shown bytes.Buffer
	seen := make(chan struct{})
	var seenOnce sync.Once
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, 4096)
		for {
			n, err := controller.Read(buf)
			mu.Lock()
			shown.Write(buf[:n])
			if strings.Contains(shown.String(), "agentready: crawling") {
				seenOnce.Do(func() { close(seen) })
			}
			mu.Unlock()
			if err != nil {
				return
			}
		}
	}()

	ctx, cancel := context.WithCancel(t.Context())
	var stdout bytes.Buffer
	code := make(chan int)
	go func() {
		code <- Run(ctx, []string{"scan", "--fail-on", "none", "--no-openapi-discovery", target},
			strings.NewReader(""), &stdout, tty, []string{"NO_COLOR=1"})
	}()
	select {
	case <-seen:
	case <-time.After(30 * time.Second):
		cancel()
		once.Do(func() { close(release) })
		<-code
		t.Fatal("no progress line on the terminal")
	}
	cancel()
	got := <-code
	once.Do(func() { close(release) })
	tty.Close()
	<-done

	if got != ExitIncomplete {
		t.Errorf("exit %d, want %d after Ctrl-C", got, ExitIncomplete)
	}
	if strings.Contains(stdout.String(), "agentready: ") && strings.Contains(stdout.String(), " requests · ") {
		t.Errorf("the progress line reached stdout:\n%s", stdout.String())
	}
	mu.Lock()
	out := shown.String()
	mu.Unlock()
	at := strings.Index(out, "agentready: interrupted")
	if at < 0 {
		t.Fatalf("the terminal never showed the interruption:\n%q", out)
	}
	if before := out[:at]; !strings.HasSuffix(before, clearLine) {
		t.Errorf("the progress line was not erased before the message:\n%q", before[max(0, len(before)-120):])
	}
	if rest := out[at:]; strings.Contains(rest, "\x1b[K") {
		t.Errorf("the line was drawn after the scan ended:\n%q", rest)
	}
}
