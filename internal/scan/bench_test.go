package scan_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"runtime"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentready/agentready/checks/builtin"
	"github.com/agentready/agentready/fixtures/large"
	"github.com/agentready/agentready/internal/scan"
	"github.com/agentready/agentready/probe"
)

// BenchmarkScan runs the whole pipeline (crawl, probes, every check, grading)
// over 10,000 resources on loopback and reports throughput and the peak heap,
// sampled while the scan runs.
func BenchmarkScan(b *testing.B) {
	for _, pages := range []int{20, 100} {
		b.Run(strconv.Itoa(large.Resources(pages))+"-resources", func(b *testing.B) {
			benchScan(b, pages)
		})
	}
}

// BenchmarkScanPaginated scans the paginated API that .ci/bench/crawl.sh
// serves, of AGENTREADY_BENCH_RESOURCES resources (default 10,000), for CPU
// and allocation profiles of the scan in process
// (-cpuprofile, -memprofile).
func BenchmarkScanPaginated(b *testing.B) {
	n := 10000
	if v, err := strconv.Atoi(os.Getenv("AGENTREADY_BENCH_RESOURCES")); err == nil && v > 0 {
		n = v
	}
	benchScanOf(b, large.Paginated(n), large.PaginatedResources(n))
}

func benchScan(b *testing.B, pages int) {
	benchScanOf(b, large.New(pages), large.Resources(pages))
}

func benchScanOf(b *testing.B, h http.Handler, want int) {
	srv := httptest.NewServer(h)
	defer srv.Close()
	start, _ := url.Parse(srv.URL + "/")
	reg, err := builtin.Registry()
	if err != nil {
		b.Fatal(err)
	}
	var requests int
	var peak atomic.Uint64
	stop := sampleHeap(&peak)
	defer stop()
	for b.Loop() {
		rep, err := scan.Run(context.Background(), scan.Options{
			Probe: probe.Config{Start: start, MaxPages: want + 10, MaxDepth: 5, Concurrency: 8, Budget: 10 * time.Minute,
				MaxQueryVariants: want, MaxLinksPerPage: want},
			Checks: reg.All(),
		})
		if err != nil {
			b.Fatal(err)
		}
		if rep.Stats.Pages != want {
			b.Fatalf("pages = %d, want %d", rep.Stats.Pages, want)
		}
		requests += rep.Stats.Requests
	}
	secs := b.Elapsed().Seconds()
	b.ReportMetric(float64(want*b.N)/secs, "resources/s")
	b.ReportMetric(float64(requests)/secs, "requests/s")
	b.ReportMetric(float64(peak.Load())/(1<<20), "peak-heap-MiB")
}

func sampleHeap(peak *atomic.Uint64) (stop func()) {
	done := make(chan struct{})
	go func() {
		var ms runtime.MemStats
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > peak.Load() {
				peak.Store(ms.HeapInuse)
			}
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return func() { close(done) }
}
