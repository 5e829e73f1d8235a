package har_test

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"github.com/agentready/agentready/checks/builtin"
	"github.com/agentready/agentready/fixtures/demo"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/golden"
	"github.com/agentready/agentready/internal/har"
	"github.com/agentready/agentready/internal/scan"
	"github.com/agentready/agentready/probe"
	"github.com/agentready/agentready/report"
)

var fixedClock = func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }

// noNetwork fails the test on any request: a replay must send nothing.
type noNetwork struct{ t *testing.T }

func (n noNetwork) RoundTrip(r *http.Request) (*http.Response, error) {
	n.t.Errorf("the replay sent %s %s", r.Method, r.URL)
	return nil, errors.New("no network in a replay")
}

// recorded scans h with opts as the CLI does with --record, and returns the
// report and the HAR written from it. The server is gone when it returns.
func recorded(t *testing.T, h http.Handler, opts scan.Options) (*finding.Report, []byte) {
	t.Helper()
	srv := httptest.NewServer(h)
	defer srv.Close()
	reg, err := builtin.Registry()
	if err != nil {
		t.Fatal(err)
	}
	opts.Probe.Start, _ = url.Parse(srv.URL + "/")
	if opts.Probe.Budget == 0 {
		opts.Probe.Budget = time.Minute
	}
	opts.Checks, opts.Version, opts.Now = reg.All(), "test", fixedClock
	var rec *scan.Recording
	opts.Record = func(r *scan.Recording) { rec = r }
	rep, err := scan.Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := har.Write(&buf, rec, har.Options{Version: "test", Secrets: scan.Scrubber(opts)}); err != nil {
		t.Fatal(err)
	}
	return rep, buf.Bytes()
}

// replayed judges the HAR again, with the network refused.
func replayed(t *testing.T, doc []byte, opts scan.Options) *finding.Report {
	t.Helper()
	arch, err := har.Read(bytes.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	reg, err := builtin.Registry()
	if err != nil {
		t.Fatal(err)
	}
	opts.Checks, opts.Version, opts.Now = reg.All(), "test", fixedClock
	opts.Replay = arch.Recording
	opts.Probe.Transport = noNetwork{t}
	saved := http.DefaultTransport
	http.DefaultTransport = noNetwork{t}
	defer func() { http.DefaultTransport = saved }()
	rep, err := scan.Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func renderJSON(t *testing.T, rep *finding.Report) []byte {
	t.Helper()
	r, err := report.New("json", report.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := r.Write(&buf, rep); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// sameReport fails when the replay's JSON report differs from the scan's in
// any byte.
func sameReport(t *testing.T, live, replay *finding.Report) {
	t.Helper()
	a, b := renderJSON(t, live), renderJSON(t, replay)
	if !bytes.Equal(a, b) {
		t.Errorf("the replay's report differs from the scan's:\n%s", firstDiff(a, b))
	}
}

func firstDiff(a, b []byte) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	lo := max(0, i-300)
	return "scan:   ..." + string(a[lo:min(len(a), i+200)]) + "\nreplay: ..." + string(b[lo:min(len(b), i+200)])
}

var _ = golden.Path
var _ = probe.Config{}

func TestReplayDemo(t *testing.T) {
	live, doc := recorded(t, demo.New(), scan.Options{})
	sameReport(t, live, replayed(t, doc, scan.Options{}))
}
