package probe

import (
	"bufio"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/agentready/agentready/internal/exchange"
)

// rawServer answers every GET with a small JSON document and every HEAD
// with the same header followed by afterHead, written in the same write or,
// when late, a little later: what net/http's server never does.
func rawServer(t *testing.T, afterHead string, late bool) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go serveRaw(c, afterHead, late)
		}
	}()
	return "http://" + ln.Addr().String() + "/"
}

func serveRaw(c net.Conn, afterHead string, late bool) {
	defer c.Close()
	r := bufio.NewReader(c)
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return
		}
		for {
			h, err := r.ReadString('\n')
			if err != nil {
				return
			}
			if h == "\r\n" {
				break
			}
		}
		const body = `{"id":1}`
		header := "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 8\r\n\r\n"
		if !strings.HasPrefix(line, "HEAD ") {
			_, _ = c.Write([]byte(header + body))
			continue
		}
		if late {
			_, _ = c.Write([]byte(header))
			time.Sleep(10 * time.Millisecond)
			_, _ = c.Write([]byte(afterHead))
		} else {
			_, _ = c.Write([]byte(header + afterHead))
		}
		time.Sleep(20 * time.Millisecond)
		return
	}
}

func headOf(t *testing.T, start string) *exchange.Exchange {
	t.Helper()
	res := run(t, Config{Start: mustParse(t, start)}, func(crawled, samples []*exchange.Exchange) []exchange.PlannedRequest {
		return []exchange.PlannedRequest{{Purpose: "test/head", Method: http.MethodHead, URL: start, BasedOn: start}}
	})
	for _, x := range res.Recording.Exchanges {
		if x.Purpose == "test/head" && x.Response != nil {
			return x
		}
	}
	t.Fatal("no HEAD exchange")
	return nil
}

func TestBytesAfterAHeadResponseAreRecorded(t *testing.T) {
	long := strings.Repeat("x", 4*exchange.MaxAfterHead)
	for _, tc := range []struct {
		name, after string
		late        bool
		want        string
		size        int64
	}{
		{"in the header's write", `{"id":1}`, false, `{"id":1}`, 8},
		{"written apart", `{"id":1}`, true, `{"id":1}`, 8},
		{"bounded", long, false, long[:exchange.MaxAfterHead], int64(len(long))},
		{"nothing after", "", false, "", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x := headOf(t, rawServer(t, tc.after, tc.late))
			var got []byte
			var size int64
			if x.AfterHead != nil {
				got, size = x.AfterHead.Bytes, x.AfterHead.Size
			}
			if string(got) != tc.want || size != tc.size {
				t.Errorf("after HEAD %q (%d bytes), want %q (%d)", got, size, tc.want, tc.size)
			}
		})
	}
}
