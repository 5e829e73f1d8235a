package scan

import (
	"fmt"
	"sync"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/pipeline"
)

// A scan split into shards (--shard i/n) divides its work by the path shape
// of what each request and finding is about, hashed (exchange.ShapeShard):
//
//   - the crawl walks the same frontier in every shard, since a shard's own
//     shapes may be linked from pages of other shapes alone; the page limit
//     counts the shard's own pages (see probe.Config.Shard);
//   - a check that judges resources sends the probes it plans on the shard's
//     own shapes alone (the shape of the resource a probe is based on), and
//     reports the findings about them;
//   - a check that judges the site as a whole (checks.SiteWide: robots.txt,
//     discovery documents, MCP, the surface snapshot) runs in shard 1 alone
//     and is skipped elsewhere;
//   - the statistics count the pages and shapes the shard judged, while the
//     coverage is what its crawl reached, which is the scan's: a shard that
//     owns no API resource of an API that has some is not a scan that
//     reached nothing.
//
// Every finding is so reported by exactly one shard, which saw what one
// scan sees about it; 'agentready report merge' joins the shards.

// shardChecks splits the checks by how their planned requests are sent in
// the shard: whole are sent as planned, owned only where the shard owns the
// shape they are based on. A whole scan sends everything as planned; a shard
// other than the first sends nothing the site-wide checks plan.
func shardChecks(cs []checks.Check, sh finding.Shard) (whole, owned []checks.Check) {
	if !sh.Split() {
		return cs, nil
	}
	for _, c := range cs {
		switch {
		case !checks.SiteWide(c.Meta()):
			owned = append(owned, c)
		case sh.SiteWide():
			whole = append(whole, c)
		}
	}
	return whole, owned
}

// resourcePlans remembers what the checks that judge resources planned,
// before the shard kept its own: a request shard 1 sent for a site-wide
// check, about a shape another shard owns, is shard 1's to report on only
// when no such check asked for it too (the owner of the shape then sent it
// as well, and reports on it).
type resourcePlans struct {
	mu     sync.Mutex
	wanted map[string]bool // "METHOD URL"
}

func (r *resourcePlans) note(ps []exchange.PlannedRequest) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.wanted == nil {
		r.wanted = map[string]bool{}
	}
	for _, p := range ps {
		r.wanted[p.Method+" "+p.URL] = true
	}
}

func (r *resourcePlans) asked(method, u string) bool {
	if r == nil {
		return false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.wanted[method+" "+u]
}

// ownedRequests keeps the planned requests based on a shape the shard owns,
// noting first what was planned.
func (r *resourcePlans) ownedRequests(sh finding.Shard, ps []exchange.PlannedRequest) []exchange.PlannedRequest {
	r.note(ps)
	return ownedRequests(sh, ps)
}

// ownedRequests keeps the planned requests based on a shape the shard owns.
func ownedRequests(sh finding.Shard, ps []exchange.PlannedRequest) []exchange.PlannedRequest {
	out := ps[:0:0]
	for _, p := range ps {
		if ownsURL(sh, anchor(p.BasedOn, p.URL)) {
			out = append(out, p)
		}
	}
	return out
}

// anchor is the URL a request is about: the resource it is based on, or
// itself. A probe of /orders/7?page=999 is about /orders/7, and is sent by
// the shard that judges /orders/{id}.
func anchor(basedOn, u string) string {
	if basedOn != "" {
		return basedOn
	}
	return u
}

func ownsURL(sh finding.Shard, u string) bool {
	return !sh.Split() || exchange.URLShard(u, sh.Total) == sh.Index
}

// shardFilter is what the pipeline's shard stage needs: which findings the
// shard reports, and which checks it leaves to shard 1. Nil for a whole
// scan.
func shardFilter(sh finding.Shard, cs []checks.Check, rec *exchange.Recording, plans *resourcePlans) *pipeline.ShardFilter {
	if !sh.Split() {
		return nil
	}
	site := map[string]bool{}
	for _, c := range cs {
		if checks.SiteWide(c.Meta()) {
			site[c.Meta().ID] = true
		}
	}
	byID := map[string]*exchange.Exchange{}
	for _, x := range rec.Exchanges {
		byID[x.ID] = x
	}
	return &pipeline.ShardFilter{
		Shard: sh,
		Owns: func(f finding.Finding) bool {
			if site[f.CheckID] {
				return sh.SiteWide()
			}
			if x := evidenceExchange(f, byID); x != nil && sh.SiteWide() && sentForTheSite(sh, x, plans) {
				return true
			}
			return ownsURL(sh, findingAnchor(f, byID))
		},
		Elsewhere: func(checkID string) string {
			if site[checkID] && !sh.SiteWide() {
				return fmt.Sprintf("judges the site as a whole: shard 1/%d runs it", sh.Total)
			}
			return ""
		},
	}
}

// findingAnchor is the URL a finding is about: that of the exchange its
// first evidence quotes, as anchor reads it, or the evidence's URL.
func findingAnchor(f finding.Finding, byID map[string]*exchange.Exchange) string {
	if x := evidenceExchange(f, byID); x != nil && x.Purpose != exchange.PurposeCrawl {
		return anchor(x.BasedOn, x.Request.URL)
	}
	if len(f.Evidence) == 0 {
		return ""
	}
	return f.Evidence[0].URL
}

// evidenceExchange is the exchange a finding's first evidence quotes, or nil.
func evidenceExchange(f finding.Finding, byID map[string]*exchange.Exchange) *exchange.Exchange {
	if len(f.Evidence) == 0 {
		return nil
	}
	return byID[f.Evidence[0].ExchangeID]
}

// sentForTheSite reports a probe the shard sent for a site-wide check alone:
// about a shape it does not own, so no check judging resources sent it
// here, and planned by none of them, so no other shard sent it. A check
// judging resources that reads it (the agent card's skills against the
// document) is reported by this shard, the only one that has it.
func sentForTheSite(sh finding.Shard, x *exchange.Exchange, plans *resourcePlans) bool {
	return x.Purpose != exchange.PurposeCrawl && !ownsURL(sh, anchor(x.BasedOn, x.Request.URL)) && !plans.asked(x.Request.Method, x.Request.URL)
}

// ownedStats keeps the pages and sampled shapes of the shard's own shapes:
// summed over the shards they give one scan's.
func ownedStats(sh finding.Shard, st finding.Stats, rec *exchange.Recording) finding.Stats {
	if !sh.Split() {
		return st
	}
	st.Pages = 0
	for _, x := range rec.Exchanges {
		if x.Purpose == exchange.PurposeCrawl && ownsURL(sh, x.Request.URL) {
			st.Pages++
		}
	}
	var sampling []finding.ShapeSample
	for _, s := range st.Sampling {
		if exchange.ShapeShard(s.Shape, sh.Total) == sh.Index {
			sampling = append(sampling, s)
		}
	}
	st.Sampling = sampling
	return st
}

// PartialBasis says, with the grade's basis, that a shard's grade is not
// the scan's: it judged some path shapes alone.
func PartialBasis(sh finding.Shard, basis string) string {
	return fmt.Sprintf("shard %s, partial: merge every shard's report (agentready report merge) for the scan's grade; %s", sh, basis)
}
