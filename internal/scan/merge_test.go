package scan

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/builtin"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/longtest"
)

func registry(t testing.TB) []checks.Check {
	t.Helper()
	reg, err := builtin.Registry()
	if err != nil {
		t.Fatal(err)
	}
	return reg.All()
}

// bigShards are the two shards of a scan, each with n findings of its own
// plus n it shares with the other, and n notes, observations, surfaces and
// operations, half of them shared: what a de-duplication that compares
// every item with every other would take n² steps over.
func bigShards(n int) []*finding.Report {
	var reps []*finding.Report
	for s := 1; s <= 2; s++ {
		r := &finding.Report{
			SchemaVersion: finding.SchemaVersion,
			Target:        "https://api.example/",
			Shard:         &finding.Shard{Index: s, Total: 2},
			Rules:         []finding.RuleInfo{{ID: "vary-accept"}},
			Checks:        []finding.CheckResult{{ID: "vary-accept", Status: finding.StatusFail}},
			Coverage:      &finding.Coverage{Operations: &finding.OperationCoverage{}},
		}
		for i := range n {
			shared := i%2 == 0
			key := fmt.Sprint(s, "-", i)
			if shared {
				key = fmt.Sprint(i)
			}
			r.Findings = append(r.Findings, finding.Finding{CheckID: "vary-accept", Severity: finding.SeverityWarning,
				Fingerprint: "own-" + fmt.Sprint(s, "-", i), Message: "m"})
			r.Notes = append(r.Notes, "note "+key)
			r.Checks[0].Observations = append(r.Checks[0].Observations, "observed "+key)
			r.Coverage.Surfaces = append(r.Coverage.Surfaces, "surface "+key)
			r.Coverage.Operations.Items = append(r.Coverage.Operations.Items, finding.OperationReach{Method: "GET", Path: "/" + key})
		}
		reps = append(reps, r)
	}
	return reps
}

// TestMergeIsLinear merges shards of 100,000 findings, notes, observations,
// surfaces and operations each. Merged by comparing each item with those
// already kept, the notes and observations took about 10¹⁰ comparisons
// (over three minutes); the sets make it one lookup per item, about a
// second. This test holds the counts; BenchmarkMerge shows the cost per
// item staying flat.
func TestMergeIsLinear(t *testing.T) {
	longtest.Skip(t, "merges two shards of 100,000 findings each, so that a quadratic merge shows as minutes")
	const n = 100_000
	out, err := Merge(context.Background(), bigShards(n), registry(t), false)
	if err != nil {
		t.Fatal(err)
	}
	// Half of each shard's notes are shared: 2n - n/2 distinct, plus the
	// merge's own note.
	distinct := 2*n - n/2
	if len(out.Findings) != 2*n || len(out.Notes) != distinct+1 || len(out.Checks[0].Observations) != distinct ||
		len(out.Coverage.Surfaces) != distinct || len(out.Coverage.Operations.Items) != distinct {
		t.Errorf("findings %d, notes %d, observations %d, surfaces %d, operations %d; want %d findings and %d of the others",
			len(out.Findings), len(out.Notes), len(out.Checks[0].Observations), len(out.Coverage.Surfaces), len(out.Coverage.Operations.Items), 2*n, distinct)
	}
}

// BenchmarkMerge shows the cost per item staying flat as the shards grow:
// go test ./internal/scan -bench Merge -benchmem -run ^$
func BenchmarkMerge(b *testing.B) {
	cs := registry(b)
	for _, n := range []int{1_000, 10_000, 100_000} {
		reps := bigShards(n)
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			for b.Loop() {
				if _, err := Merge(context.Background(), reps, cs, false); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(2*n), "ns/item")
		})
	}
}

func TestMergeHonoursACancelledContext(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Merge(ctx, bigShards(10), registry(t), false); !errors.Is(err, context.Canceled) {
		t.Errorf("merge with a cancelled context: %v, want context.Canceled", err)
	}
	// Cancelled midway: a check of the context inside the loops stops it.
	ctx, cancel = context.WithCancel(context.Background())
	m := &merger{ctx: ctx}
	reps := bigShards(1000)
	seen := 0
	got := m.uniqueFindings(reps, func(r *finding.Report) []finding.Finding {
		if seen++; seen == 2 {
			cancel()
		}
		return r.Findings
	})
	if got != nil || !errors.Is(m.err, context.Canceled) {
		t.Errorf("cancelled between shards: %d findings kept, error %v", len(got), m.err)
	}
}

// TestMergeTakesRulesFromTheRegistry: what a shard says of a built-in
// check's rule is dropped, and a house rule keeps its own help (which the
// reporters escape) with this build's documentation link.
func TestMergeTakesRulesFromTheRegistry(t *testing.T) {
	t.Parallel()
	planted := "![x](http://evil/i.png) [link](http://evil) @team"
	rep := &finding.Report{
		SchemaVersion: finding.SchemaVersion,
		Target:        "https://api.example/",
		Shard:         &finding.Shard{Index: 1, Total: 1},
		Rules: []finding.RuleInfo{
			{ID: "vary-accept", Family: "vary", Title: planted, Help: planted, DocsURL: "http://evil/docs",
				SpecRefs: []finding.SpecRef{{Doc: "RFC 1", URL: "http://evil/rfc"}}},
			{ID: "custom-no-x", Family: "vary", Title: "No x", Help: planted, DocsURL: "http://evil/docs",
				SpecRefs: []finding.SpecRef{{Doc: "house rule", Section: "rules.no-x", URL: "http://evil/rule"}}},
		},
		Checks: []finding.CheckResult{{ID: "vary-accept", Family: "custom", Status: finding.StatusPass}, {ID: "custom-no-x", Family: "custom", Status: finding.StatusPass}},
	}
	out, err := Merge(context.Background(), []*finding.Report{rep}, registry(t), false)
	if err != nil {
		t.Fatal(err)
	}
	var want finding.RuleInfo
	for _, c := range registry(t) {
		if c.Meta().ID == "vary-accept" {
			want = checks.RuleInfo(c.Meta())
		}
	}
	got := out.Rules[0]
	if got.Title != want.Title || got.Help != want.Help || got.DocsURL != want.DocsURL || strings.Contains(fmt.Sprint(got.SpecRefs), "evil") {
		t.Errorf("built-in rule taken from the shard: %+v", got)
	}
	if out.Checks[0].Family != "vary" {
		t.Errorf("a built-in check's family taken from the shard: %q", out.Checks[0].Family)
	}
	house := out.Rules[1]
	if house.Family != "custom" || house.DocsURL != checks.CustomDocs || strings.Contains(fmt.Sprint(house.SpecRefs), "evil") || house.Help != planted {
		t.Errorf("house rule: %+v", house)
	}
}

// TestJoinStatsAddresses: each shard looked its hosts up itself; the merged
// report names, for each host, every address any shard connected to, in
// shard order, once each.
func TestJoinStatsAddresses(t *testing.T) {
	t.Parallel()
	reps := []*finding.Report{
		{Stats: finding.Stats{Addresses: map[string][]string{"api.test": {"127.0.0.1", "::1"}}}},
		{Stats: finding.Stats{}},
		{Stats: finding.Stats{Addresses: map[string][]string{"api.test": {"::1", "127.0.0.2"}, "docs.test": {"127.0.0.3"}}}},
	}
	want := map[string][]string{"api.test": {"127.0.0.1", "::1", "127.0.0.2"}, "docs.test": {"127.0.0.3"}}
	if got := (&merger{ctx: context.Background()}).joinStats(reps).Addresses; !reflect.DeepEqual(got, want) {
		t.Errorf("addresses %v, want %v", got, want)
	}
	if got := (&merger{ctx: context.Background()}).joinStats(reps[1:2]).Addresses; got != nil {
		t.Errorf("no shard looked a name up: addresses %v, want none", got)
	}
}
