package cli

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/agentready/agentready/internal/exchange"
)

// trailingBytesServer is a hand-written HTTP/1.1 server that answers each
// GET with its response followed by bytes no request asked for: an echo of
// the caller's X-Custom-Token and another caller's private data. net/http
// logs such bytes through the standard logger when it finds them on an idle
// connection. It counts the GETs so answered. (After a HEAD response the
// probe reads such bytes itself, as negotiation-head-body's evidence.)
func trailingBytesServer(t *testing.T) (string, *atomic.Int64) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	var trailed atomic.Int64
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go serveTrailing(conn, &trailed)
		}
	}()
	return "http://" + ln.Addr().String() + "/", &trailed
}

func serveTrailing(conn net.Conn, trailed *atomic.Int64) {
	defer conn.Close()
	br := bufio.NewReader(conn)
	for {
		req, err := http.ReadRequest(br)
		if err != nil {
			return
		}
		io.Copy(io.Discard, req.Body)
		const body = `{"name":"trailing"}`
		switch req.Method {
		case http.MethodGet:
			fmt.Fprintf(conn, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s"+
				"X-Custom-Token: %s; another caller's %s", len(body), body, req.Header.Get("X-Custom-Token"), privateMarker)
			trailed.Add(1)
			return
		case http.MethodHead:
			fmt.Fprint(conn, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 0\r\n\r\n")
		default:
			fmt.Fprint(conn, "HTTP/1.1 204 No Content\r\n\r\n")
		}
	}
}

// The trailing bytes' markers: a credential the scan sends, which must
// show scrubbed, and data that is nobody's credential, which shows only
// with -v.
const (
	trailingSecret = "trailing-secret-8080"
	privateMarker  = "private-record-4711"
)

// TestLibraryLogOnlyWithVerbose: what net/http logs of a server's stray
// bytes is never printed by default nor with -q, and never escapes to the
// process's own standard logger; with -v it is printed, sanitized and with
// the credential scrubbed.
func TestLibraryLogOnlyWithVerbose(t *testing.T) {
	var leaked bytes.Buffer
	defer log.SetOutput(log.Writer())
	log.SetOutput(&leaked)
	for _, tt := range []struct {
		name    string
		flags   []string
		printed bool
	}{
		{"quiet", []string{"-q"}, false},
		{"default", nil, false},
		{"verbose", []string{"-v"}, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			target, trailed := trailingBytesServer(t)
			// The rate leaves each connection idle for a moment after its
			// response, time for net/http to find the stray bytes before
			// another request could take the connection.
			args := append([]string{"scan", target, "--fail-on", "none", "--concurrency", "1", "--rate", "100",
				"--max-pages", "1", "--format", "json", "-H", "X-Custom-Token: " + trailingSecret}, tt.flags...)
			r := run(t, args...)
			if r.code != ExitOK {
				t.Fatalf("code %d: %s", r.code, r.stderr)
			}
			if trailed.Load() == 0 {
				t.Fatal("no GET got trailing bytes: the test would not see what is logged of them")
			}
			if leaked.Len() > 0 {
				t.Errorf("the process's standard logger got %q", leaked.String())
			}
			if strings.Contains(r.stderr, trailingSecret) {
				t.Errorf("stderr holds the credential: %s", r.stderr)
			}
			if tt.name == "quiet" && r.stderr != "" {
				t.Errorf("stderr under -q: %q", r.stderr)
			}
			line := strings.Contains(r.stderr, "Unsolicited response") && strings.Contains(r.stderr, privateMarker)
			if line != tt.printed {
				t.Errorf("library log line printed %v, want %v: %q", line, tt.printed, r.stderr)
			}
			if tt.printed && !strings.Contains(r.stderr, "agentready: library log: ") || tt.printed && !strings.Contains(r.stderr, "X-Custom-Token: REDACTED") {
				t.Errorf("the line is not printed under agentready's prefix with the credential scrubbed: %q", r.stderr)
			}
		})
	}
}

// TestLibraryLogIsBounded: a line is cut to maxLibraryLineBytes, and a
// credential the cut splits does not show in part; past maxLibraryLines,
// one line says the others are dropped.
func TestLibraryLogIsBounded(t *testing.T) {
	var out bytes.Buffer
	l := &libraryLog{}
	secrets := exchange.NewSecrets(http.Header{"X-Custom-Token": {trailingSecret}})
	l.printTo(&out, secrets, nil)
	split := "\x1b[31m" + strings.Repeat("a", maxLibraryLineBytes-len("\x1b[31m")-10) + trailingSecret
	l.write([]byte(split + "\n"))
	first, _, _ := strings.Cut(out.String(), "\n")
	if strings.Contains(first, trailingSecret[:10]) || !strings.HasSuffix(first, exchange.Redacted+"…") || strings.Contains(first, "\x1b") {
		t.Errorf("cut line %q: want it cut, the secret's head scrubbed, no escape", first[len(first)-40:])
	}
	for range 2 * maxLibraryLines {
		l.write([]byte("another line\n"))
	}
	if n := strings.Count(out.String(), "\n"); n != maxLibraryLines+1 {
		t.Errorf("%d lines printed, want %d and the one that says the others are dropped", n, maxLibraryLines+1)
	}
	if !strings.Contains(out.String(), "the others are not printed") {
		t.Error("no line says the others are dropped")
	}
}
