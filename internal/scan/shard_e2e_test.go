package scan_test

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/builtin"
	"github.com/agentready/agentready/checks/problemjson"
	"github.com/agentready/agentready/fixtures/demo"
	"github.com/agentready/agentready/fixtures/expect/expecttest"
	"github.com/agentready/agentready/fixtures/methodlog"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/scan"
	"github.com/agentready/agentready/probe"
)

// shardedDemo has defects in several families, on several path shapes and
// on the site as a whole (robots.txt, llms.txt), and one that a check judging
// resources finds in a document shard 1 alone fetches (the agent card), so
// that a split that lost
// or doubled a finding shows.
var shardedDemo = []demo.Defect{
	demo.DefectIgnoresQValues, demo.DefectNoVaryAccept, demo.DefectHeadContentLength, demo.DefectOptionsNoAllow,
	demo.DefectRelUnlisted, demo.DefectCurieUndeclared, demo.DefectRobotsSyntax, demo.DefectLLMsNoTitleDeadLinks,
	demo.DefectAgentCardUnknownSkillOp, demo.DefectOptionsCORSOnly,
}

func fingerprints(fs []finding.Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Fingerprint+" "+f.CheckID+" "+f.PrimaryMethod()+" "+f.PrimaryURL())
	}
	slices.Sort(out)
	return out
}

func TestMergedShardsFindWhatOneScanFinds(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(demo.New(shardedDemo...))
	t.Cleanup(srv.Close)
	opts := scan.Options{Probe: probe.Config{Spec: probe.SpecConfig{Discover: true}}}
	whole := scanServer(t, srv, opts)
	if len(expecttest.Fired(whole)) < 6 {
		t.Fatalf("the unsharded scan fired %v: too few families to test a split", expecttest.Fired(whole))
	}
	for _, n := range []int{2, 3} {
		t.Run(fmt.Sprintf("%d shards", n), func(t *testing.T) {
			var reps []*finding.Report
			owners := map[string]int{}
			for i := 1; i <= n; i++ {
				mine := map[string]bool{}
				o := opts
				o.Shard = finding.Shard{Index: i, Total: n}
				rep := scanServer(t, srv, o)
				if rep.Shard == nil || *rep.Shard != o.Shard {
					t.Fatalf("shard %d/%d: report records shard %v", i, n, rep.Shard)
				}
				for _, f := range rep.Findings {
					if prev, ok := owners[f.Fingerprint]; ok && !mine[f.Fingerprint] {
						t.Errorf("%s %s reported by shards %d and %d", f.CheckID, f.PrimaryURL(), prev, i)
					}
					owners[f.Fingerprint], mine[f.Fingerprint] = i, true
				}
				reps = append(reps, rep)
			}
			if len(uniqueInts(owners)) < 2 {
				t.Errorf("every finding came from one shard %v: the split divided nothing", uniqueInts(owners))
			}
			merged, err := scan.Merge(context.Background(), reps, allChecks(t), false)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := fingerprints(merged.Findings), fingerprints(whole.Findings); !slices.Equal(got, want) {
				t.Errorf("merged findings differ from the unsharded scan's\n got %q\nwant %q", got, want)
			}
			if merged.Score.Grade != whole.Score.Grade || merged.Score.Value != whole.Score.Value {
				t.Errorf("merged grade %s %d (%s), unsharded %s %d (%s)", merged.Score.Grade, merged.Score.Value, merged.Score.Basis,
					whole.Score.Grade, whole.Score.Value, whole.Score.Basis)
			}
			for i, fam := range whole.Score.Families {
				if got := merged.Score.Families[i]; got.State != fam.State || got.Value != fam.Value || got.Failed != fam.Failed || got.Passed != fam.Passed {
					t.Errorf("family %s: merged %+v, unsharded %+v", fam.Family, got, fam)
				}
			}
			if merged.Stats.Pages != whole.Stats.Pages || merged.Coverage.APIResources != whole.Coverage.APIResources {
				t.Errorf("merged %d pages, %d API resources; unsharded %d, %d", merged.Stats.Pages, merged.Coverage.APIResources,
					whole.Stats.Pages, whole.Coverage.APIResources)
			}
			if merged.Shard != nil {
				t.Errorf("a merge of every shard is whole, got shard %v", merged.Shard)
			}
		})
	}
}

func uniqueInts(m map[string]int) []int {
	return slices.Compact(slices.Sorted(maps.Values(m)))
}

func TestShardScanIsStableAcrossRuns(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(demo.New(shardedDemo...))
	t.Cleanup(srv.Close)
	opts := scan.Options{Probe: probe.Config{Spec: probe.SpecConfig{Discover: true}}, Shard: finding.Shard{Index: 2, Total: 2}}
	first, again := scanServer(t, srv, opts), scanServer(t, srv, opts)
	if got, want := fingerprints(again.Findings), fingerprints(first.Findings); !slices.Equal(got, want) {
		t.Errorf("shard 2/2 found\n%q\nthen\n%q", want, got)
	}
	if len(first.Findings) == 0 {
		t.Error("shard 2/2 found nothing: the fixture does not exercise it")
	}
	shapes := func(r *finding.Report) (out []string) {
		for _, s := range r.Stats.Sampling {
			out = append(out, s.Shape)
		}
		return out
	}
	if !slices.Equal(shapes(first), shapes(again)) {
		t.Errorf("shard 2/2 sampled %v, then %v", shapes(first), shapes(again))
	}
}

func TestOtherShardsSkipSiteWideChecks(t *testing.T) {
	t.Parallel()
	log, h := methodlog.Wrap(demo.New(shardedDemo...))
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	sh := finding.Shard{Index: 2, Total: 2}
	rep := scanServer(t, srv, scan.Options{Shard: sh})
	probes := 0
	for _, req := range log.Requests() {
		method, path, _ := strings.Cut(req, " ")
		if method != http.MethodGet {
			probes++
		}
		switch {
		case slices.Contains([]string{"/robots.txt", "/llms.txt", "/mcp", "/.well-known/api-catalog"}, path):
			t.Errorf("shard 2/2 sent %s, which shard 1 sends", req)
		// A missing resource's HEAD goes with its GET, to the shard of the
		// sample it derives from, not of its own made-up path.
		case method != http.MethodGet && exchange.URLShard(path, 2) != 2 && !strings.Contains(path, problemjson.MissingID):
			t.Errorf("shard 2/2 sent %s, a probe of a shape shard 1 owns", req)
		}
	}
	if probes == 0 {
		t.Error("shard 2/2 sent no HEAD or OPTIONS probe: the fixture does not exercise it")
	}
	siteWide := map[string]bool{}
	for _, c := range allChecks(t) {
		siteWide[c.Meta().ID] = checks.SiteWide(c.Meta())
	}
	for _, r := range rep.Checks {
		if siteWide[r.ID] && r.Status != finding.StatusSkip {
			t.Errorf("%s: %s in shard 2/2, want skipped (shard 1 judges the site)", r.ID, r.Status)
		}
		if r.Family == "discovery" && !siteWide[r.ID] && r.Status == finding.StatusSkip {
			t.Errorf("%s: skipped in shard 2/2, which owns pages it judges", r.ID)
		}
	}
	for _, f := range rep.Findings {
		if siteWide[f.CheckID] && (f.Family == "discovery" || f.Family == "mcp") {
			t.Errorf("shard 2/2 reports %s on %s", f.CheckID, f.PrimaryURL())
		}
	}
	if rep.MCP != nil {
		t.Errorf("shard 2/2 examined the MCP endpoint %+v", rep.MCP)
	}
	if !strings.Contains(rep.Score.Basis, "shard 2/2, partial") {
		t.Errorf("grade basis %q does not say the shard is partial", rep.Score.Basis)
	}
}

func allChecks(t *testing.T) []checks.Check {
	t.Helper()
	reg, err := builtin.Registry()
	if err != nil {
		t.Fatal(err)
	}
	return reg.All()
}
