package scan_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/builtin"
	"github.com/agentready/agentready/fixtures/demo"
	"github.com/agentready/agentready/fixtures/methodlog"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/golden"
	"github.com/agentready/agentready/internal/scan"
	"github.com/agentready/agentready/probe"
	"github.com/agentready/agentready/report"
)

var fixedClock = func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }

func scanApp(t *testing.T, srv *httptest.Server) *finding.Report {
	t.Helper()
	return scanServer(t, srv, scan.Options{})
}

// runOn serves h and scans it with opts (see scanServer).
func runOn(t *testing.T, h http.Handler, opts scan.Options) (*finding.Report, error) {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return runServer(t, srv, opts)
}

// runServer scans srv with opts, filling in what every test scan shares
// (see runWith).
func runServer(t *testing.T, srv *httptest.Server, opts scan.Options) (*finding.Report, error) {
	t.Helper()
	reg, err := builtin.Registry()
	if err != nil {
		t.Fatal(err)
	}
	return runWith(reg, srv.URL, opts)
}

// runWith scans the server at base with opts, filling in what every test
// scan shares: the start URL, a one-minute budget unless set, every check
// of reg, the test version and the fixed clock.
func runWith(reg *checks.Registry, base string, opts scan.Options) (*finding.Report, error) {
	opts.Probe.Start, _ = url.Parse(base + "/")
	if opts.Probe.Budget == 0 {
		opts.Probe.Budget = time.Minute
	}
	opts.Checks, opts.Version, opts.Now = reg.All(), "test", fixedClock
	return scan.Run(context.Background(), opts)
}

// conformantDemo is a scan of the conformant demo that several tests read
// and none changes: scanning the demo again for each of them cost more than
// everything else they do.
type conformantDemo struct {
	rep      *finding.Report
	url      string   // the root the demo was served at, without its slash
	requests []string // what the demo was sent (methodlog)
}

// sharedConformant scans the conformant demo with opts once, on first use,
// for every test of the binary that asks.
func sharedConformant(opts scan.Options) func() (conformantDemo, error) {
	return sync.OnceValues(func() (conformantDemo, error) {
		reg, err := builtin.Registry()
		if err != nil {
			return conformantDemo{}, err
		}
		log, h := methodlog.Wrap(demo.New())
		srv := httptest.NewServer(h)
		defer srv.Close()
		rep, err := runWith(reg, srv.URL, opts)
		return conformantDemo{rep: rep, url: srv.URL, requests: log.Requests()}, err
	})
}

var (
	// conformantScanned is scanApp's scan of the demo.
	conformantScanned = sharedConformant(scan.Options{})
	// conformantDiscovered is scanDiscovering's.
	conformantDiscovered = sharedConformant(scan.Options{Probe: probe.Config{Spec: probe.SpecConfig{Discover: true}}})
)

// shared returns the scan scanned gives, failing t if it failed.
func shared(t *testing.T, scanned func() (conformantDemo, error)) conformantDemo {
	t.Helper()
	d, err := scanned()
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// scanServer is runServer for scans that must complete.
func scanServer(t *testing.T, srv *httptest.Server, opts scan.Options) *finding.Report {
	t.Helper()
	rep, err := runServer(t, srv, opts)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// scanDiscovering scans like a user would: the OpenAPI document is discovered.
func scanDiscovering(t *testing.T, srv *httptest.Server) *finding.Report {
	t.Helper()
	return scanServer(t, srv, scan.Options{Probe: probe.Config{Spec: probe.SpecConfig{Discover: true}}})
}

// mustScan is runOn for scans that must complete.
func mustScan(t *testing.T, h http.Handler, opts scan.Options) *finding.Report {
	t.Helper()
	rep, err := runOn(t, h, opts)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func TestDemoGradesAWithNoErrorOrWarning(t *testing.T) {
	t.Parallel()
	rep := shared(t, conformantScanned).rep
	if rep.Score.Grade != "A+" && rep.Score.Grade != "A" {
		t.Errorf("grade %s (%d), want A or better", rep.Score.Grade, rep.Score.Value)
	}
	for _, f := range rep.Findings {
		if f.Severity >= finding.SeverityWarning {
			t.Errorf("demo has %s %s: %s", f.Severity, f.CheckID, f.Message)
		}
	}
	for _, c := range rep.Checks {
		if c.Status == finding.StatusError {
			t.Errorf("check %s errored: %s", c.ID, c.Reason)
		}
	}
}

func TestScannerSendsOnlySafeMethods(t *testing.T) {
	t.Parallel()
	requests := shared(t, conformantScanned).requests
	for _, req := range requests {
		switch req[:strings.IndexByte(req, ' ')] {
		case "GET", "HEAD", "OPTIONS":
		default:
			// MCP is POST by nature: only the MCP endpoint may get it, and
			// TestScanSendsOnlyReadOnlyMCPMethods checks its JSON-RPC methods.
			if req != "POST /mcp" {
				t.Errorf("scanner sent %s", req)
			}
		}
	}
	if len(requests) == 0 {
		t.Fatal("no request recorded")
	}
}

func TestReportIsDeterministic(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(demo.New(demo.DefectNoVaryAccept))
	defer srv.Close()
	a, b := renderJSON(t, scanApp(t, srv), srv), renderJSON(t, scanApp(t, srv), srv)
	if !bytes.Equal(a, b) {
		t.Error("two scans of the same app differ")
	}
}

// renderJSON normalizes what legitimately varies between runs: the port and
// the timing.
func renderJSON(t *testing.T, rep *finding.Report, srv *httptest.Server) []byte {
	t.Helper()
	rep.Stats.DurationMS = 0
	r, err := report.New("json", report.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := r.Write(&buf, rep); err != nil {
		t.Fatal(err)
	}
	return golden.NormalizePorts(buf.Bytes())
}

func TestGoldenJSON(t *testing.T) {
	t.Parallel()
	for name, defects := range map[string][]demo.Defect{
		"demo":                nil,
		"demo-no-vary-accept": {demo.DefectNoVaryAccept},
	} {
		t.Run(name, func(t *testing.T) {
			srv := httptest.NewServer(demo.New(defects...))
			defer srv.Close()
			golden.Check(t, golden.Path(name, "report.json"), renderJSON(t, scanApp(t, srv), srv))
		})
	}
}
