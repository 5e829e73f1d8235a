package har_test

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/har"
	"github.com/agentready/agentready/internal/scan"
	"github.com/agentready/agentready/probe"
)

// largeRecording writes a HAR of n crawled pages whose JSON bodies are
// size bytes each, then one page of largest bytes, and returns its path.
func largeRecording(t testing.TB, n, size, largest int) string {
	t.Helper()
	target, _ := url.Parse("http://127.0.0.1:8080/")
	rec := &exchange.Recording{Target: target.String()}
	body := func(size, i int) []byte {
		// A JSON body, with the quotes a JSON string escapes.
		line := fmt.Sprintf(`{"id":%d,"name":"item %d","_links":{"self":{"href":"/items/%d"}}}`+"\n", i, i, i)
		return []byte(strings.Repeat(line, size/len(line)+1)[:size])
	}
	page := func(i, size int) *exchange.Exchange {
		u := fmt.Sprintf("http://127.0.0.1:8080/items/%d", i)
		return &exchange.Exchange{ID: fmt.Sprintf("x%d", i), Purpose: exchange.PurposeCrawl, Source: exchange.SourceStart,
			Request:  exchange.Request{Method: "GET", URL: u, Header: http.Header{"Accept": {"application/json"}}},
			Response: &exchange.Response{Status: 200, Proto: "HTTP/1.1", Header: http.Header{"Content-Type": {"application/hal+json"}}, Body: body(size, i), BodySize: int64(size)},
			Started:  time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC).UnixNano(), Duration: time.Millisecond}
	}
	for i := range n {
		rec.Exchanges = append(rec.Exchanges, page(i, size))
	}
	rec.Exchanges = append(rec.Exchanges, page(n, largest))
	path := filepath.Join(t.TempDir(), "large.har")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	if err := har.Write(w, &scan.Recording{Target: target, Outcome: &probe.Outcome{Result: probe.Result{Recording: rec}}}, har.Options{Version: "test"}); err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// heapOfRead reads the HAR at path and returns the peak of the heap while
// it read, and the heap it kept, each above the heap before it began.
// The peak is sampled, so it may miss the very top by a little.
func heapOfRead(t testing.TB, path string) (peak, kept uint64, arch *har.Archive) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	// Twice: what the first frees may hold more until the second.
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapAlloc
	var top atomic.Uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapAlloc > top.Load() {
				top.Store(ms.HeapAlloc)
			}
			select {
			case <-done:
				return
			case <-time.After(time.Millisecond):
			}
		}
	}()
	arch, err = har.Read(f, har.DefaultMaxSize)
	close(done)
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	runtime.ReadMemStats(&ms)
	return top.Load() - base, ms.HeapAlloc - base, arch
}

// BenchmarkReadLargeRecording reads a HAR of 200 MiB in 3,200 entries, the
// largest body 4 MiB, and reports the peak heap while reading and the
// heap the recording keeps, in MiB.
func BenchmarkReadLargeRecording(b *testing.B) {
	path := largeRecording(b, 3200, 64<<10, 4<<20)
	st, _ := os.Stat(path)
	b.ResetTimer()
	for range b.N {
		peak, kept, arch := heapOfRead(b, path)
		b.ReportMetric(float64(st.Size())/(1<<20), "file-MiB")
		b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
		b.ReportMetric(float64(kept)/(1<<20), "kept-heap-MiB")
		runtime.KeepAlive(arch)
	}
}

// TestReadStreamsTheEntries reads a recording of 16 MiB with the
// collector at 10%, so that the heap follows what is held: the reader
// holds the exchanges and the entry it decodes, not the document, and its
// peak is under half the file above what it keeps.
func TestReadStreamsTheEntries(t *testing.T) {
	path := largeRecording(t, 250, 64<<10, 256<<10)
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	defer debug.SetGCPercent(debug.SetGCPercent(10))
	peak, kept, arch := heapOfRead(t, path)
	if n := len(arch.Recording.Outcome.Recording.Exchanges); n != 251 {
		t.Fatalf("%d exchanges read, want 251", n)
	}
	t.Logf("a %d-byte recording: peak %d bytes above the %d kept", st.Size(), peak-kept, kept)
	if peak-kept > uint64(st.Size())/2 {
		t.Errorf("reading a %d-byte recording peaked at %d bytes above the %d it keeps: the document was held whole", st.Size(), peak-kept, kept)
	}
}

// TestReadRefusesAStreamOverTheCap: a stream whose size is not known
// beforehand is cut at the cap, and refused with a *TooLargeError.
func TestReadRefusesAStreamOverTheCap(t *testing.T) {
	_, doc := recordedDemo(t)
	var tooLarge *har.TooLargeError
	if _, err := har.Read(bytes.NewReader(doc), int64(len(doc))-1); !errors.As(err, &tooLarge) {
		t.Errorf("a recording a byte over the cap: %v, want a *TooLargeError", err)
	}
	if _, err := har.Read(bytes.NewReader(doc), int64(len(doc))); err != nil {
		t.Errorf("a recording of exactly the cap: %v", err)
	}
}
