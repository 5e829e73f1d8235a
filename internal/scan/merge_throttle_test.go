package scan

import (
	"context"
	"strings"
	"testing"

	"github.com/agentready/agentready/internal/finding"
)

// TestJoinedThrottling: the shards' requests add up, the crawl's counts
// are the most throttled shard's, and a merged crawl throttled too much
// keeps its cause.
func TestJoinedThrottling(t *testing.T) {
	t.Parallel()
	shard := func(crawlThrottled int) *finding.Report {
		return &finding.Report{Coverage: &finding.Coverage{APIResources: 1,
			Throttling: &finding.Throttling{Requests: 10, Throttled: 4, StillThrottled: crawlThrottled, CrawlGETs: 6, CrawlThrottled: crawlThrottled}}}
	}
	m := &merger{ctx: context.Background()}
	c := m.joinCoverage([]*finding.Report{shard(2), shard(4), {Coverage: &finding.Coverage{APIResources: 1}}})
	want := finding.Throttling{Requests: 20, Throttled: 8, StillThrottled: 6, CrawlGETs: 6, CrawlThrottled: 4}
	if c.Throttling == nil || *c.Throttling != want {
		t.Fatalf("throttling %+v, want %+v", c.Throttling, want)
	}
	if !c.Throttled() || !strings.Contains(c.Cause, "(4 of 6)") {
		t.Errorf("throttled %v, cause %q", c.Throttled(), c.Cause)
	}
}
