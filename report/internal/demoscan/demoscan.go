// Package demoscan scans the demo app the way `agentready demo` does, with a
// fixed clock, for the reporters' end-to-end goldens and the browser test.
package demoscan

import (
	"context"
	"net/http/httptest"
	"net/url"
	"time"

	"github.com/agentready/agentready/checks/builtin"
	"github.com/agentready/agentready/fixtures/demo"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/scan"
	"github.com/agentready/agentready/probe"
)

// Clock is the fixed time of every scan made here.
var Clock = func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }

// Scan serves the demo with the given defects on a loopback port, scans it
// and stops it. The report's duration is zeroed, since it is the one thing
// a fixed clock does not fix; the port still varies and is for the caller to
// normalise in rendered output.
func Scan(defects ...demo.Defect) (*finding.Report, error) {
	srv := httptest.NewServer(demo.New(defects...))
	defer srv.Close()
	reg, err := builtin.Registry()
	if err != nil {
		return nil, err
	}
	start, err := url.Parse(srv.URL + "/")
	if err != nil {
		return nil, err
	}
	rep, err := scan.Run(context.Background(), scan.Options{
		Probe:   probe.Config{Start: start, Budget: time.Minute},
		Checks:  reg.All(),
		Version: "test",
		Now:     Clock,
	})
	if err != nil {
		return nil, err
	}
	rep.Stats.DurationMS = 0
	return rep, nil
}
