package cli

import (
	"bytes"
	"fmt"
	"io"
	"log"
	"slices"
	"sync"

	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/sanitize"
	"github.com/agentready/agentready/probe"
)

// What the libraries log is taken from the process's standard logger, which
// slog's default handler writes through too. net/http logs there on its
// own: "Unsolicited response received on idle HTTP channel starting with
// ...", quoting the bytes a server sent after a response, which may be
// another caller's data; an in-process server (the demo) logs its errors
// there too. Left alone, those lines reach stderr with -q and land in a CI
// log. They are printed only where the -v log goes, bounded, scrubbed of
// every credential and sanitized like any text from the scanned app.

// Bounds of what the libraries log: the bytes kept of one line, and the
// lines printed in one run.
const (
	maxLibraryLineBytes = 1 << 10
	maxLibraryLines     = 100
)

// libraryLogs is the standard logger's output while any run lasts.
var libraryLogs = &libraryLogRouter{}

// libraryLogRouter hands each line of the standard logger to the runs in
// progress. The logger is one per process while Run may run several times
// at once in it (tests): the logger is taken while any run is registered,
// given back as it was when the last one ends, and a line goes to every run
// that prints one.
type libraryLogRouter struct {
	mu     sync.Mutex
	runs   []*libraryLog
	out    io.Writer
	flags  int
	prefix string
}

// register takes the standard logger, if no run has it yet, for a new run,
// whose lines are dropped until it says where they go (libraryLog.printTo).
func (r *libraryLogRouter) register() *libraryLog {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.runs) == 0 {
		r.out, r.flags, r.prefix = log.Writer(), log.Flags(), log.Prefix()
		log.SetOutput(r)
		// The line is printed under agentready's own prefix, without the
		// time, like every other line on stderr.
		log.SetFlags(0)
		log.SetPrefix("")
	}
	l := &libraryLog{}
	r.runs = append(r.runs, l)
	return l
}

// unregister ends the run of l, and gives the logger back after the last.
func (r *libraryLogRouter) unregister(l *libraryLog) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.runs = slices.DeleteFunc(r.runs, func(run *libraryLog) bool { return run == l })
	if len(r.runs) == 0 {
		log.SetOutput(r.out)
		log.SetFlags(r.flags)
		log.SetPrefix(r.prefix)
		r.out = nil
	}
}

// Write takes one line of the standard logger, which writes each message
// whole.
func (r *libraryLogRouter) Write(p []byte) (int, error) {
	r.mu.Lock()
	runs := slices.Clone(r.runs)
	r.mu.Unlock()
	for _, l := range runs {
		l.write(p)
	}
	return len(p), nil
}

// libraryLog is what one run prints of what the libraries log: nothing
// until printTo, then each line, bounded and made safe.
type libraryLog struct {
	mu      sync.Mutex
	to      io.Writer
	secrets *exchange.Secrets
	issued  *probe.SecretBook
	lines   int
}

// printTo prints the lines logged from now on to w, the -v log, scrubbed of
// secrets and of the credentials issued during the run.
func (l *libraryLog) printTo(w io.Writer, secrets *exchange.Secrets, issued *probe.SecretBook) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.to, l.secrets, l.issued = w, secrets, issued
}

func (l *libraryLog) write(p []byte) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.to == nil || l.lines > maxLibraryLines {
		return
	}
	l.lines++
	if l.lines > maxLibraryLines {
		fmt.Fprintf(l.to, "agentready: library log: more than %d lines; the others are not printed\n", maxLibraryLines)
		return
	}
	p = bytes.TrimRight(p, "\n")
	cut := len(p) > maxLibraryLineBytes
	if cut {
		p = p[:maxLibraryLineBytes]
	}
	// Scrubbed before it is sanitized, so that the search sees the text as
	// logged; a cut line loses a tail that may begin a secret.
	line := sanitize.Line(string(scrub(p, cut, l.secrets, l.issued)))
	if cut {
		line += "…"
	}
	fmt.Fprintf(l.to, "agentready: library log: %s\n", line)
}
