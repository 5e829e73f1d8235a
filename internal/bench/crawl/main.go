// Command crawl measures a whole scan against a floor: it serves the
// paginated HAL API of fixtures/large on 127.0.0.1 and, at each size and in
// each round, runs a minimal crawler (a worker pool, one keep-alive client,
// every body parsed as JSON, every `_links` href followed) and then each
// agentready binary against the same server, each as its own process. It
// prints, per binary, the medians over the rounds of requests/s of both,
// their ratio (with its range), peak RSS and CPU per resource (from the
// child's rusage). .ci/bench/crawl.sh builds and runs it.
//
//	crawl -agentready ./before,./after -sizes 1000,10000 -rounds 3
//	crawl -crawler URL      (the minimal crawler alone, as the child process)
//	crawl -serve 10000      (only serve the API, and print its URL)
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/agentready/agentready/fixtures/large"
)

func main() {
	bin := flag.String("agentready", "", "the agentready binaries to measure, comma-separated (before,after)")
	sizes := flag.String("sizes", "1000,10000,50000", "comma-separated numbers of resources")
	concurrency := flag.Int("concurrency", 8, "requests in flight, for the scan and the crawler")
	rounds := flag.Int("rounds", 3, "paired runs per size, of which the medians are printed")
	crawler := flag.String("crawler", "", "run only the minimal crawler against this URL and print its request count")
	serveOnly := flag.Int("serve", 0, "only serve an API of this many resources, and print its URL")
	flag.Parse()
	var err error
	switch {
	case *serveOnly > 0:
		err = serve(*serveOnly)
	case *crawler != "":
		err = runCrawler(*crawler, *concurrency)
	default:
		err = compare(*bin, *sizes, *concurrency, *rounds)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "crawl:", err)
		os.Exit(1)
	}
}

func serve(n int) error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	fmt.Printf("http://%s/\n", ln.Addr())
	return http.Serve(ln, large.Paginated(n))
}

// A run is what one child process did.
type run struct {
	requests int
	wall     time.Duration
	cpu      time.Duration
	peakRSS  int64 // bytes
}

func (r run) perSecond() float64 { return float64(r.requests) / r.wall.Seconds() }

func compare(bins, sizes string, concurrency, rounds int) error {
	if bins == "" {
		return errors.New("-agentready is required")
	}
	if rounds < 1 {
		return errors.New("-rounds must be at least 1")
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	binaries := strings.Split(bins, ",")
	fmt.Printf("medians of %d rounds; each round runs the minimal crawler, then each binary, on the same server; the ratio's range in brackets\n", rounds)
	fmt.Printf("%-9s %-9s %-14s %10s %10s %17s %9s %10s %12s %13s\n",
		"size", "resources", "binary", "scan rq/s", "crawl rq/s", "ratio", "scan wall", "scan RSS", "scan CPU/res", "crawl CPU/res")
	for _, field := range strings.Split(sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(field))
		if err != nil || n <= 0 {
			return fmt.Errorf("size %q: want a positive number", field)
		}
		if err := compareAt(binaries, self, n, concurrency, rounds); err != nil {
			return fmt.Errorf("size %d: %w", n, err)
		}
	}
	return nil
}

// A pair is one scan and the crawl of the same round.
type pair struct{ scan, crawl run }

func (p pair) ratio() float64 { return p.scan.perSecond() / p.crawl.perSecond() }

func compareAt(bins []string, self string, n, concurrency, rounds int) error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: large.Paginated(n), ReadHeaderTimeout: time.Minute}
	go srv.Serve(ln) //nolint:errcheck // closed below
	defer srv.Close()
	target := "http://" + ln.Addr().String() + "/"
	resources := large.PaginatedResources(n)
	pairs := make([][]pair, len(bins))
	for range rounds {
		crawl, err := runCrawl(self, target, concurrency)
		if err != nil {
			return err
		}
		for i, bin := range bins {
			scan, err := runScan(bin, target, resources, concurrency)
			if err != nil {
				return err
			}
			pairs[i] = append(pairs[i], pair{scan: scan, crawl: crawl})
		}
	}
	for i, bin := range bins {
		printPairs(n, resources, filepath.Base(bin), pairs[i])
	}
	return nil
}

func printPairs(n, resources int, name string, pairs []pair) {
	med := func(f func(pair) float64) float64 {
		vs := make([]float64, len(pairs))
		for i, p := range pairs {
			vs[i] = f(p)
		}
		slices.Sort(vs)
		return vs[len(vs)/2]
	}
	perResource := func(cpu float64) string {
		return fmt.Sprintf("%.0f µs", cpu/1e3/float64(resources))
	}
	ratios := make([]float64, len(pairs))
	for i, p := range pairs {
		ratios[i] = p.ratio()
	}
	fmt.Printf("%-9d %-9d %-14s %10.0f %10.0f %5.2f [%.2f-%.2f] %8.2fs %6.0f MiB %12s %13s\n",
		n, resources, name, med(func(p pair) float64 { return p.scan.perSecond() }), med(func(p pair) float64 { return p.crawl.perSecond() }),
		med(pair.ratio), slices.Min(ratios), slices.Max(ratios),
		med(func(p pair) float64 { return p.scan.wall.Seconds() }), med(func(p pair) float64 { return float64(p.scan.peakRSS) / (1 << 20) }),
		perResource(med(func(p pair) float64 { return float64(p.scan.cpu) })),
		perResource(med(func(p pair) float64 { return float64(p.crawl.cpu) })))
}

// runScan scans target with the binary, every resource within its limits.
func runScan(bin, target string, resources, concurrency int) (run, error) {
	limit := strconv.Itoa(resources + 100)
	scan, err := child(bin, "scan", target, "--format", "json", "--fail-on", "none",
		"--concurrency", strconv.Itoa(concurrency), "--budget", "60m", "--max-pages", limit,
		"--max-query-variants", limit, "--max-links-per-page", limit)
	if err != nil {
		return run{}, fmt.Errorf("scan: %w", err)
	}
	var rep struct {
		Stats struct{ Pages, Requests int }
	}
	if err := json.Unmarshal([]byte(scan.stdout), &rep); err != nil {
		return run{}, fmt.Errorf("scan report: %w", err)
	}
	if rep.Stats.Pages < resources {
		return run{}, fmt.Errorf("the scan crawled %d pages of %d", rep.Stats.Pages, resources)
	}
	scan.requests = rep.Stats.Requests
	return scan.run, nil
}

// runCrawl runs the minimal crawler against target, as its own process.
func runCrawl(self, target string, concurrency int) (run, error) {
	crawl, err := child(self, "-crawler", target, "-concurrency", strconv.Itoa(concurrency))
	if err != nil {
		return run{}, fmt.Errorf("crawler: %w", err)
	}
	crawl.requests, err = strconv.Atoi(strings.TrimSpace(crawl.stdout))
	if err != nil {
		return run{}, fmt.Errorf("crawler printed %q", crawl.stdout)
	}
	return crawl.run, nil
}

type childRun struct {
	run
	stdout string
}

// child runs a command to completion and reports its wall time and, from
// its rusage, CPU time and peak resident memory.
func child(name string, args ...string) (childRun, error) {
	cmd := exec.Command(name, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	if err != nil {
		return childRun{}, fmt.Errorf("%w: %s", err, stderr.String())
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		return childRun{}, errors.New("no rusage on this platform")
	}
	cpu := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	return childRun{run: run{wall: wall, cpu: cpu, peakRSS: ru.Maxrss * 1024}, stdout: stdout.String()}, nil
}

// runCrawler is the floor: what any crawler of this API must do, and no
// more. It prints the number of requests it sent.
func runCrawler(start string, workers int) error {
	base, err := url.Parse(start)
	if err != nil {
		return err
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: workers}}
	c := &crawler{client: client, base: base, seen: map[string]bool{start: true}}
	c.pending.Add(1)
	c.queue = make(chan string, 1<<20)
	c.queue <- start
	go func() { c.pending.Wait(); close(c.queue) }()
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for u := range c.queue {
				c.fetch(u)
				c.pending.Done()
			}
		})
	}
	wg.Wait()
	fmt.Println(c.requests)
	return nil
}

type crawler struct {
	client   *http.Client
	base     *url.URL
	queue    chan string
	pending  sync.WaitGroup
	mu       sync.Mutex
	seen     map[string]bool
	requests int
}

func (c *crawler) fetch(u string) {
	req, err := http.NewRequest(http.MethodGet, u, nil)
	if err != nil {
		return
	}
	req.Header.Set("Accept", "application/hal+json, application/json")
	resp, err := c.client.Do(req)
	c.mu.Lock()
	c.requests++
	c.mu.Unlock()
	if err != nil {
		return
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return
	}
	var doc any
	if json.Unmarshal(body, &doc) != nil {
		return
	}
	for _, href := range hrefs(doc) {
		ref, err := c.base.Parse(href)
		if err != nil || ref.Host != c.base.Host {
			continue
		}
		next := ref.String()
		c.mu.Lock()
		fresh := !c.seen[next]
		c.seen[next] = true
		c.mu.Unlock()
		if fresh {
			c.pending.Add(1)
			c.queue <- next
		}
	}
}

// hrefs lists the hrefs of a HAL document's top-level `_links`.
func hrefs(doc any) []string {
	obj, _ := doc.(map[string]any)
	links, _ := obj["_links"].(map[string]any)
	var out []string
	for _, v := range links {
		switch l := v.(type) {
		case map[string]any:
			if h, ok := l["href"].(string); ok {
				out = append(out, h)
			}
		case []any:
			for _, e := range l {
				if m, ok := e.(map[string]any); ok {
					if h, ok := m["href"].(string); ok {
						out = append(out, h)
					}
				}
			}
		}
	}
	return out
}
