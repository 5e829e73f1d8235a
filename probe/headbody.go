package probe

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/agentready/agentready/internal/exchange"
)

// A server must not send content in a response to HEAD (RFC 9110 §9.3.2).
// net/http's client cannot tell: it reads no body for HEAD, and bytes that
// follow on a kept-alive connection are "unsolicited", logged and dropped.
// HEAD requests therefore go over connections of their own, one request
// each, watched by headWatch, which reads what follows the response's
// header on HTTP/1.1. Over TLS the watch sees only ciphertext and stays
// idle; HTTP/2 frames a body and cannot send one unannounced.

// afterHeadGrace is how long a connection that answered HEAD is read from
// once the transport is done with it: a body written apart from the header
// arrives within it on any link the scan can judge.
const afterHeadGrace = 50 * time.Millisecond

// afterHeadWait bounds how long a HEAD's sender waits for its connection's
// verdict, beyond the grace.
const afterHeadWait = afterHeadGrace + 200*time.Millisecond

// maxWatchedHeader bounds the header bytes scanned for their end; a longer
// header is refused by the transport anyway.
const maxWatchedHeader = maxResponseHeaderBytes + 4096

// newHeadTransport is the transport HEAD requests take: base's settings,
// one request per connection, each connection watched.
func newHeadTransport(base *http.Transport) *http.Transport {
	t := base.Clone()
	t.DisableKeepAlives = true
	dial := base.DialContext
	if dial == nil {
		dial = (&net.Dialer{}).DialContext
	}
	t.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return &headWatch{Conn: c, closed: make(chan struct{})}, nil
	}
	return t
}

// headWatch is a connection that carries one HEAD request and keeps what
// the server sent after the response's header.
type headWatch struct {
	net.Conn

	mu sync.Mutex
	// head is set once the request written starts with "HEAD ".
	head bool
	// header holds the response bytes read until the end of the final
	// header (1xx interim responses skipped); done is set at that end.
	header []byte
	done   bool
	// after are the first bytes that followed, size their count.
	after []byte
	size  int64

	closeOnce sync.Once
	closed    chan struct{}
}

func (w *headWatch) Write(p []byte) (int, error) {
	w.mu.Lock()
	if !w.head && w.header == nil && bytes.HasPrefix(p, []byte("HEAD ")) {
		w.head = true
	}
	w.mu.Unlock()
	return w.Conn.Write(p)
}

func (w *headWatch) Read(p []byte) (int, error) {
	n, err := w.Conn.Read(p)
	w.observe(p[:n])
	return n, err
}

// observe follows the response bytes read: the header up to its end,
// then what follows it.
func (w *headWatch) observe(p []byte) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.head || len(p) == 0 {
		return
	}
	if w.done {
		w.keep(p)
		return
	}
	w.header = append(w.header, p...)
	for {
		end := bytes.Index(w.header, []byte("\r\n\r\n"))
		if end < 0 {
			if len(w.header) > maxWatchedHeader {
				w.head = false
			}
			return
		}
		block, rest := w.header[:end+4], w.header[end+4:]
		if interim(block) {
			w.header = append([]byte(nil), rest...)
			continue
		}
		w.done, w.header = true, nil
		w.keep(rest)
		return
	}
}

// interim reports a 1xx status line, which another response follows.
func interim(block []byte) bool {
	_, status, ok := bytes.Cut(block, []byte(" "))
	return ok && len(status) > 0 && status[0] == '1'
}

func (w *headWatch) keep(p []byte) {
	w.size += int64(len(p))
	if room := exchange.MaxAfterHead - len(w.after); room > 0 {
		w.after = append(w.after, p[:min(room, len(p))]...)
	}
}

// Close reads, for afterHeadGrace, what the server sends after a HEAD
// response whose header was read, then closes.
func (w *headWatch) Close() error {
	w.closeOnce.Do(func() {
		defer close(w.closed)
		w.mu.Lock()
		listen := w.head && w.done
		w.mu.Unlock()
		if !listen {
			return
		}
		_ = w.Conn.SetReadDeadline(time.Now().Add(afterHeadGrace))
		buf := make([]byte, exchange.MaxAfterHead)
		for {
			n, err := w.Conn.Read(buf)
			w.observe(buf[:n])
			if err != nil {
				return
			}
		}
	})
	return w.Conn.Close()
}

// afterHead is what the server sent after the HEAD response's header, at
// most exchange.MaxAfterHead bytes, and how many it sent; it waits for the
// transport to close the connection, at most afterHeadWait.
func (w *headWatch) afterHead() ([]byte, int64) {
	select {
	case <-w.closed:
	case <-time.After(afterHeadWait):
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return bytes.Clone(w.after), w.size
}
