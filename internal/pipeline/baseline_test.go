package pipeline_test

import (
	"bytes"
	"context"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentready/agentready/checks/builtin"
	"github.com/agentready/agentready/fixtures/demo"
	"github.com/agentready/agentready/internal/config"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/pipeline"
	"github.com/agentready/agentready/internal/scan"
	"github.com/agentready/agentready/probe"
)

func scanDemo(t *testing.T, p *pipeline.Policy, defects ...demo.Defect) *finding.Report {
	t.Helper()
	rep, err := runDemo(p, defects...)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func runDemo(p *pipeline.Policy, defects ...demo.Defect) (*finding.Report, error) {
	srv := httptest.NewServer(demo.New(defects...))
	defer srv.Close()
	reg, err := builtin.Registry()
	if err != nil {
		return nil, err
	}
	start, _ := url.Parse(srv.URL + "/")
	return scan.Run(context.Background(), scan.Options{
		Probe: probe.Config{Start: start, Budget: time.Minute}, Checks: reg.All(), Version: "test", Policy: p,
	})
}

// noVaryAccept is the scan most tests here take their baseline from, made
// once for them all: they only read it.
var noVaryAccept = sync.OnceValues(func() (*finding.Report, error) { return runDemo(nil, demo.DefectNoVaryAccept) })

// noVaryAcceptBaseline is the baseline written from noVaryAccept.
func noVaryAcceptBaseline(t *testing.T) *pipeline.Baseline {
	t.Helper()
	rep, err := noVaryAccept()
	if err != nil {
		t.Fatal(err)
	}
	return written(t, rep)
}

// written round-trips a scan through Write and Read, as a committed
// baseline file would be.
func written(t *testing.T, rep *finding.Report) *pipeline.Baseline {
	t.Helper()
	var buf bytes.Buffer
	if err := pipeline.WriteBaseline(&buf, rep); err != nil {
		t.Fatal(err)
	}
	b, err := pipeline.ReadBaseline(&buf)
	if err != nil {
		t.Fatal(err)
	}
	b.Path = "agentready-baseline.json"
	return b
}

func states(rep *finding.Report) map[string]int {
	out := map[string]int{}
	for _, f := range rep.Findings {
		out[f.BaselineState]++
	}
	return out
}

func TestExistingFindingsAreMarkedAndNothingIsNew(t *testing.T) {
	base := noVaryAcceptBaseline(t)
	rep := scanDemo(t, &pipeline.Policy{Baseline: base}, demo.DefectNoVaryAccept)
	if len(rep.Findings) == 0 {
		t.Fatal("fixture has no findings")
	}
	if s := states(rep); s[finding.BaselineNew] != 0 || s[finding.BaselineExisting] != len(rep.Findings) {
		t.Fatalf("states %v", s)
	}
	if b := rep.Baseline; b.New != 0 || b.Existing != len(rep.Findings) || len(b.Fixed) != 0 || b.Stale {
		t.Fatalf("summary %+v", b)
	}
}

func TestNewFindingsAreNewAndOldOnesExisting(t *testing.T) {
	base := noVaryAcceptBaseline(t)
	rep := scanDemo(t, &pipeline.Policy{Baseline: base}, demo.DefectNoVaryAccept, demo.Defect405WithoutAllow)
	for _, f := range rep.Findings {
		want := finding.BaselineNew
		if f.CheckID == "vary-accept" {
			want = finding.BaselineExisting
		}
		if f.BaselineState != want {
			t.Errorf("%s %s: %s, want %s", f.CheckID, f.PrimaryURL(), f.BaselineState, want)
		}
	}
	if rep.Baseline.New == 0 || rep.Baseline.Existing == 0 {
		t.Fatalf("summary %+v", rep.Baseline)
	}
}

func TestFixedFindingsMakeTheBaselineStale(t *testing.T) {
	base := noVaryAcceptBaseline(t)
	rep := scanDemo(t, &pipeline.Policy{Baseline: base})
	b := rep.Baseline
	if len(b.Fixed) != len(base.Entries) || !b.Stale || b.New != 0 || len(b.Unverified) != 0 {
		t.Fatalf("summary %+v, baseline has %d entries", b, len(base.Entries))
	}
	for _, e := range b.Fixed {
		if e.CheckID != "vary-accept" || e.Fingerprint == "" {
			t.Errorf("fixed entry %+v", e)
		}
	}
	if !slices.ContainsFunc(rep.Notes, func(n string) bool { return strings.Contains(n, "rewrite it with 'agentready baseline write'") }) {
		t.Errorf("no stale notice in %q", rep.Notes)
	}
}

func TestEntriesOfChecksThatDidNotRunAreUnverifiedNotFixed(t *testing.T) {
	base := noVaryAcceptBaseline(t)
	rep := scanDemo(t, &pipeline.Policy{Baseline: base, Families: map[string]bool{"vary": false}})
	if b := rep.Baseline; len(b.Fixed) != 0 || b.Stale || len(b.Unverified) != len(base.Entries) {
		t.Fatalf("summary %+v", b)
	}
}

func TestIgnoredFindingsAreNeitherNewNorFixed(t *testing.T) {
	base := noVaryAcceptBaseline(t)
	ignore := []config.Ignore{{Check: "vary-accept", Reason: "accepted"}}
	rep := scanDemo(t, &pipeline.Policy{Baseline: base, Ignores: ignore}, demo.DefectNoVaryAccept)
	if b := rep.Baseline; len(b.Fixed) != 0 || b.Stale || b.New != 0 {
		t.Fatalf("summary %+v", b)
	}
}

func TestWriteIsTrimmedSortedAndStable(t *testing.T) {
	rep := scanDemo(t, nil, demo.DefectNoVaryAccept, demo.Defect405WithoutAllow)
	var a, b bytes.Buffer
	if err := pipeline.WriteBaseline(&a, rep); err != nil {
		t.Fatal(err)
	}
	// The same app on another port and at another time gives the same
	// fingerprints, so the same entries.
	again := scanDemo(t, nil, demo.DefectNoVaryAccept, demo.Defect405WithoutAllow)
	if err := pipeline.WriteBaseline(&b, again); err != nil {
		t.Fatal(err)
	}
	x, _ := pipeline.ReadBaseline(bytes.NewReader(a.Bytes()))
	y, _ := pipeline.ReadBaseline(bytes.NewReader(b.Bytes()))
	fps := func(b *pipeline.Baseline) []string {
		var out []string
		for _, e := range b.Entries {
			out = append(out, e.Fingerprint)
		}
		return out
	}
	if !slices.Equal(fps(x), fps(y)) {
		t.Fatal("two scans of the same app give different baselines")
	}
	for _, banned := range []string{"startedAt", "durationMs", "responseHeaders", "excerpt"} {
		if strings.Contains(a.String(), banned) {
			t.Errorf("baseline carries %s", banned)
		}
	}
	if len(x.Entries) == 0 || len(x.Entries) > len(rep.Findings) {
		t.Fatalf("%d entries for %d findings", len(x.Entries), len(rep.Findings))
	}
}

func TestReadRejectsWhatIsNotAReport(t *testing.T) {
	for _, in := range []string{"", "[]", `{"findings":[]}`, `{"schemaVersion":99,"findings":[]}`, `{"schemaVersion":1,"findings":[{"checkId":"x"}]}`} {
		if _, err := pipeline.ReadBaseline(strings.NewReader(in)); err == nil {
			t.Errorf("%q accepted", in)
		}
	}
	if _, err := pipeline.ReadBaseline(strings.NewReader(`{"schemaVersion":1,"findings":[]}`)); err != nil {
		t.Errorf("an empty report is a valid (empty) baseline: %v", err)
	}
}
