package har_test

import (
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/agentready/agentready/fixtures/activefix"
	"github.com/agentready/agentready/fixtures/agentsite"
	"github.com/agentready/agentready/fixtures/demo"
	"github.com/agentready/agentready/fixtures/expect/expecttest"
	"github.com/agentready/agentready/fixtures/hostile"
	"github.com/agentready/agentready/fixtures/large"
	"github.com/agentready/agentready/fixtures/mcpfix"
	"github.com/agentready/agentready/fixtures/reachfix"
	"github.com/agentready/agentready/fixtures/seedapp"
	"github.com/agentready/agentready/fixtures/unreached"
	"github.com/agentready/agentready/internal/longtest"
	"github.com/agentready/agentready/internal/scan"
	"github.com/agentready/agentready/internal/spec"
	"github.com/agentready/agentready/probe"
)

// replayCase is one fixture scan that a replay must judge to the same
// report.
type replayCase struct {
	name string
	app  func() http.Handler
	opts func(t *testing.T) scan.Options
	// always runs it under -short too: the cases that cover what the
	// others do not (identities, MCP, active probes, shared probes, a
	// document given, unread pages).
	always bool
}

// replayCases are every fixture scan: each case of the fixtures'
// expectations (every demo defect, the active, MCP-role and seeded apps),
// then the fixtures scanned by the scan's own end-to-end tests.
func replayCases() []replayCase {
	var out []replayCase
	// Under -short: the conformant demo, one defect, and the first case of
	// each other way of scanning (identities, MCP, active probes); below,
	// the site whose pages have Markdown twins (probes shared between
	// purposes), a document given, and unread pages.
	always := map[string]bool{"conformant": true, string(demo.DefectNoVaryAccept): true}
	seen := map[string]bool{}
	for _, c := range slices.Concat(demo.Cases(), activefix.Cases(), mcpfix.RoleCases(), seedapp.Cases()) {
		s := c.Scan
		how := s.String()
		first := (len(s.As) > 0 || len(s.Allow) > 0) && !seen[how]
		seen[how] = true
		out = append(out, replayCase{name: c.Name, app: c.App, opts: func(t *testing.T) scan.Options { return expecttest.Options(t, s) },
			always: always[c.Name] || first})
	}
	withSpec := func(t *testing.T) scan.Options {
		return scan.Options{Probe: probe.Config{Spec: probe.SpecConfig{Discover: true}}}
	}
	document := func(text string, cfg probe.SpecConfig, h http.Header) func(t *testing.T) scan.Options {
		return func(t *testing.T) scan.Options {
			doc, err := spec.Load([]byte(text), "openapi.yaml", "openapi.yaml")
			if err != nil {
				t.Fatal(err)
			}
			// As --openapi FILE loads it with --record (spec.LoadFileKeeping).
			doc.Raw = []byte(text)
			cfg.Document = doc
			return scan.Options{Probe: probe.Config{Spec: cfg, Headers: h}}
		}
	}
	plain := func(t *testing.T) scan.Options { return scan.Options{} }
	return append(out,
		replayCase{name: "agentsite", app: func() http.Handler { return agentsite.New(false) }, opts: withSpec, always: true},
		replayCase{name: "agentsite-wrong", app: func() http.Handler { return agentsite.New(true) }, opts: withSpec},
		replayCase{name: "hostile", app: hostile.New, opts: func(t *testing.T) scan.Options {
			return scan.Options{Probe: probe.Config{Budget: 20 * time.Second, Timeout: 2 * time.Second, MaxBody: 1 << 20}}
		}},
		replayCase{name: "reach-base-path", app: func() http.Handler { return reachfix.BasePath(false) }, opts: document(reachfix.BasePathSpec, probe.SpecConfig{}, nil), always: true},
		replayCase{name: "reach-base-path-mismatch", app: func() http.Handler { return reachfix.BasePath(true) }, opts: document(reachfix.BasePathSpec, probe.SpecConfig{Server: 2}, nil)},
		replayCase{name: "reach-explored", app: reachfix.Explore, opts: document(reachfix.ExploreSpec, probe.SpecConfig{}, http.Header{"X-Tenant": {"t"}})},
		replayCase{name: "reach-paginated", app: reachfix.Paginated, opts: plain},
		replayCase{name: "unreached-404", app: unreached.EveryPage404, opts: document(string(unreached.BasePathSpec), probe.SpecConfig{}, nil)},
		replayCase{name: "unreached-credentials-only", app: unreached.CredentialsOnly, opts: plain},
		replayCase{name: "unreached-html-start", app: unreached.HTMLStart, opts: plain},
		replayCase{name: "unreached-partly", app: unreached.Partly, opts: plain},
		replayCase{name: "large", app: func() http.Handler { return large.New(30) }, opts: plain, always: true},
		replayCase{name: "large-paginated", app: func() http.Handler { return large.Paginated(120) }, opts: plain},
		replayCase{name: "link-flood", app: hostile.LinkFlood, opts: plain},
	)
}

// TestReplayOfEveryFixtureScan records every fixture scan and replays it:
// the JSON reports are the same to the byte but for the scan's duration,
// which a replay measures anew. The whole sweep takes about 45 s of CPU,
// too long for the suite a developer runs on every change: it runs with
// AGENTREADY_LONG=1, as .ci/run sets it; otherwise one case of each kind.
func TestReplayOfEveryFixtureScan(t *testing.T) {
	long := longtest.Enabled()
	for _, c := range replayCases() {
		if !long && !c.always {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			opts := c.opts(t)
			live, doc := recorded(t, c.app(), opts)
			replay := replayed(t, doc, scan.Options{})
			live.Stats.DurationMS, replay.Stats.DurationMS = 0, 0
			sameReport(t, live, replay)
		})
	}
}
