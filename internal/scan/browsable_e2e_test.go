package scan_test

import (
	"slices"
	"testing"

	"github.com/agentready/agentready/fixtures/browsable"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/scan"
)

// TestBrowsableAPIIsNegotiated: on an API that renders JSON and, on the same
// URLs, HTML, the representations are learned by asking for each type, so
// negotiation's preference checks and vary-accept judge the resources
// rather than skip them as having one media type.
func TestBrowsableAPIIsNegotiated(t *testing.T) {
	t.Parallel()
	rep := mustScan(t, browsable.New(browsable.Conformant), scan.Options{})
	for _, id := range []string{"negotiation-q-zero", "negotiation-preferred-type", "negotiation-tie-break", "negotiation-malformed-range", "vary-accept"} {
		i := slices.IndexFunc(rep.Checks, func(c finding.CheckResult) bool { return c.ID == id })
		if i < 0 {
			t.Fatalf("%s did not run", id)
		}
		if c := rep.Checks[i]; c.Status != finding.StatusPass {
			t.Errorf("%s: %s (%s), want it judged and passed", id, c.Status, c.Reason)
		}
	}
}

// TestRootThatRefusesTheCrawlsAcceptIsCrawledFrom: a root that answers 404
// to the crawl's Accept and 200 to */* is the start of the crawl all the
// same, so the order it links to is reached and sampled.
func TestRootThatRefusesTheCrawlsAcceptIsCrawledFrom(t *testing.T) {
	t.Parallel()
	rep, err := runOn(t, browsable.New(browsable.RootNeedsDefault), scan.Options{})
	if err != nil {
		t.Fatalf("the scan failed: %v", err)
	}
	if rep.Stats.Pages < 2 {
		t.Errorf("crawled %d pages, want the root and the order it links to", rep.Stats.Pages)
	}
	if !slices.ContainsFunc(rep.Findings, func(f finding.Finding) bool {
		return f.CheckID == "negotiation-wildcard" && slices.ContainsFunc(f.Evidence, func(ev finding.Evidence) bool { return ev.Status == 404 })
	}) {
		t.Errorf("no negotiation-wildcard finding shows the 404: %+v", rep.Findings)
	}
}
