package probe

import (
	"context"

	"github.com/agentready/agentready/internal/exchange"
)

// FollowUp plans a second, last round of requests from what the first round
// of planned probes returned: links found inside discovery documents (an
// llms.txt, an API catalog, an agent card, a Markdown twin) can only be
// checked once those documents have been fetched. It sees the crawl, the
// samples and the first round's probes, redacted and not yet numbered. There
// is no third round, so the number of rounds is bounded by construction;
// each follow-up planner bounds its own request count.
type FollowUp func(crawled, samples, probes []*exchange.Exchange) []exchange.PlannedRequest

// followUps runs the follow-up round under the same validation as the
// first: safe methods, the target's origin only, de-duplicated, and nothing
// already sent in the first round is sent again.
func (s sender) followUps(ctx context.Context, crawled, samples, probes []*exchange.Exchange) round {
	if s.cfg.followUp == nil {
		return round{}
	}
	done := map[string]bool{}
	for _, x := range probes {
		for _, u := range x.Uses() {
			done[u.Purpose+"\x00"+x.Request.Method+"\x00"+x.Request.URL] = true
		}
	}
	var fresh []exchange.PlannedRequest
	for _, p := range s.cfg.followUp(crawled, samples, probes) {
		if !done[p.Purpose+"\x00"+p.Method+"\x00"+p.URL] {
			fresh = append(fresh, p)
		}
	}
	return s.planned(ctx, fresh)
}
