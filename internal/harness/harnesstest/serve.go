//go:build unix

package harnesstest

import (
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/agentready/agentready/fixtures/demo"
)

// Serve serves the demo API for tests that need it in another process: the
// harness tests start it as a real child, the way users start their own
// apps. It prints "listening on URL" once it accepts connections, and
// returns only when it cannot serve.
//
//	-addr 127.0.0.1:0 [-defect NAME]... [-ignore-term] [-spawn] [-silent] [-mark-after N]
//
// -ignore-term makes it survive SIGTERM (to prove the SIGKILL that follows);
// -spawn starts a long-lived child in the same process group (to prove the
// whole group is stopped); -silent never prints the readiness line;
// -mark-after N prints "served N requests" once it has, so that a test can
// act while a scan is under way without guessing at timing.
func Serve(args []string) int {
	fs := flag.NewFlagSet("testserver", flag.ContinueOnError)
	addr := fs.String("addr", "127.0.0.1:0", "address to listen on")
	ignoreTerm := fs.Bool("ignore-term", false, "ignore SIGTERM")
	spawn := fs.Bool("spawn", false, "start a long-lived child process in the same process group")
	silent := fs.Bool("silent", false, "never print the readiness line")
	markAfter := fs.Int64("mark-after", 0, "print a line once this many requests were served")
	var ds defects
	fs.Var(&ds, "defect", "break the demo on purpose (repeatable)")
	if err := fs.Parse(args); err != nil {
		return 2
	}

	// The process group, for tests that prove it is gone afterwards.
	fmt.Printf("pgid %d\n", syscall.Getpgrp())
	if *ignoreTerm {
		signal.Ignore(syscall.SIGTERM)
	}
	if *spawn {
		child := exec.Command("sleep", "300")
		if err := child.Start(); err != nil {
			fmt.Fprintln(os.Stderr, "spawn:", err)
			return 1
		}
		fmt.Printf("spawned child %d\n", child.Process.Pid)
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "listen:", err)
		return 1
	}
	if !*silent {
		fmt.Printf("listening on http://%s/\n", ln.Addr())
	}
	srv := &http.Server{Handler: marked(demo.New(ds...), *markAfter), ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintln(os.Stderr, srv.Serve(ln))
	return 1
}

type defects []demo.Defect

func (d *defects) String() string { return fmt.Sprint(*d) }

func (d *defects) Set(s string) error {
	def, err := demo.ParseDefect(s)
	if err != nil {
		return err
	}
	*d = append(*d, def)
	return nil
}

// marked prints "served N requests" after the n-th request.
func marked(h http.Handler, n int64) http.Handler {
	if n <= 0 {
		return h
	}
	var served atomic.Int64
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(w, r)
		if served.Add(1) == n {
			fmt.Printf("served %d requests\n", n)
		}
	})
}
