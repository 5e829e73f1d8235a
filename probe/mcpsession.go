package probe

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/mcp"
	"github.com/agentready/agentready/internal/urlx"
	"github.com/agentready/agentready/probe/mcpclient"
)

// MCPPlan says what a session examines of the app's MCP face.
type MCPPlan struct {
	// Named is the endpoint the user named (--mcp); when empty, the
	// endpoint is discovered on the target's origin.
	Named string
	// PerIdentity lists the catalog as each less privileged identity too.
	PerIdentity bool
}

// mcpBudget bounds the MCP part of a session, which runs after the crawl
// (its endpoints are advertised in what the crawl found) and within the
// session's budget too.
const mcpBudget = time.Minute

// Bounds of the catalog listed as each less privileged identity: the
// revision decision and one tools/list walk fit in them with room to spare.
const (
	mcpIdentityBudget   = 15 * time.Second
	mcpIdentityRequests = 8
	mcpIdentityPages    = 4
)

// collectMCP finds the app's MCP endpoints, examines the first and decides
// the revision of the others, and adds every exchange to the recording so
// that findings have evidence. When no endpoint speaks MCP, out.MCP stays
// nil. With PerIdentity, the catalog is then listed as each lower identity
// too (see listAsIdentities). All of it ends when sched says requests must;
// what that cut is left out whole, never judged half-done, and the outcome
// says so (cutShort).
func (s Session) collectMCP(ctx context.Context, sched *schedule, out *Outcome) {
	if s.MCP == nil {
		return
	}
	s.Config.progress.SetPhase(ctx, PhaseMCP)
	ctx, cancel := sched.untilSent(ctx)
	defer cancel()
	examined, err := s.examineMCP(ctx, out)
	if err != nil {
		out.Notes = append(out.Notes, cutNote(ctx, sched, "the MCP endpoint was not examined", err))
		cutShort(&out.Stats, ctx, finding.CutMCP)
		return
	}
	if examined && s.MCP.PerIdentity && len(out.Views) > 1 {
		s.listAsIdentities(ctx, sched, out)
	}
}

// cutNote says why a step was cut: the session's budget, the step's own
// bound (err), or the user's interruption.
func cutNote(ctx context.Context, sched *schedule, what string, err error) string {
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return sched.ranOut(what)
	case ctx.Err() != nil:
		return what + ": the scan was interrupted"
	}
	return fmt.Sprintf("%s: %v", what, err)
}

// errMCPBound is the MCP examination running out of its own time.
var errMCPBound = fmt.Errorf("it took more than %s", mcpBudget)

// examineMCP sets out.MCP as the privileged identity, and reports whether
// the app has an MCP face. When ctx or mcpBudget ends first, it records
// nothing and returns an error: a catalog listed half-way would be judged
// as if the server had cut it.
func (s Session) examineMCP(ctx context.Context, out *Outcome) (bool, error) {
	mctx, cancel := context.WithTimeout(ctx, mcpBudget)
	defer cancel()
	snap, docs, ok := s.inspectMCP(mctx, out)
	if mctx.Err() != nil {
		return false, errMCPBound
	}
	if snap != nil {
		docs = append(docs, snap.Exchanges()...)
	}
	out.renumber(docs)
	out.Recording.Exchanges = append(out.Recording.Exchanges, docs...)
	out.Stats.Requests += len(docs)
	if !ok {
		return false, nil
	}
	out.MCP = snap
	if n := len(out.Views); n > 0 {
		out.Views[n-1].MCP = snap
		for _, x := range snap.Exchanges() {
			x.Identity = out.Views[n-1].Name
		}
	}
	return true, nil
}

// inspectMCP discovers the endpoints and examines them, recording nothing:
// the snapshot of the first endpoint (nil when it could not be examined),
// the discovery documents fetched, and whether the app has an MCP face.
func (s Session) inspectMCP(ctx context.Context, out *Outcome) (*mcp.Snapshot, []*exchange.Exchange, bool) {
	target := s.Config.Start
	cfg := MCPConfig(s.privileged(), s.Config.Version)
	var crawled []*exchange.Exchange
	for x := range out.Recording.Crawled() {
		crawled = append(crawled, x)
	}
	eps, docs := mcpclient.Discover(ctx, cfg, target, s.MCP.Named, crawled)
	var snap *mcp.Snapshot
	for i, ep := range eps {
		epCfg := cfg
		if !onTargetOrigin(ep.URL, target) {
			// The user's headers are credentials for the target; an endpoint
			// named on another origin does not get them.
			epCfg.Headers = nil
		}
		epCfg.Headers = s.Config.Credentials.For(ep.URL, epCfg.Headers)
		if i == 0 {
			sn, err := mcpclient.Collect(ctx, epCfg, ep)
			if err != nil {
				// The CLI validates --mcp; a bad URL here came from a caller.
				return nil, docs, false
			}
			if n := len(s.Identities); n > 0 {
				sn.Identity = s.Identities[n-1].Name
			}
			snap = sn
			continue
		}
		if v, err := mcpclient.Verdict(ctx, epCfg, ep); err == nil {
			snap.Others = append(snap.Others, v)
		}
	}
	if snap == nil {
		return nil, docs, false
	}
	// Nothing answering MCP at the conventional path means the app has no
	// MCP face.
	face := snap.Verdict.Era != mcp.EraNone || !snap.Endpoint.Conventional() || len(snap.Others) > 0
	return snap, docs, face
}

// listAsIdentities lists the catalog of the endpoint examined as each less
// privileged identity, with that identity's headers over the shared ones,
// within mcpIdentityRequests requests and mcpIdentityBudget each. Only the
// read-only client is used, so only its allow-listed methods are sent. The
// exchanges join the identity's recording; a refusal is recorded like any
// answer, for the leakage family to state.
func (s Session) listAsIdentities(ctx context.Context, sched *schedule, out *Outcome) {
	ep := out.MCP.Endpoint
	lower := out.Views[:len(out.Views)-1]
	if !onTargetOrigin(ep.URL, s.Config.Start) {
		out.Notes = append(out.Notes, fmt.Sprintf("the MCP catalog was not listed as %s: %s is not on the target's origin, and identities' credentials go to that origin only", viewNames(lower), ep.URL))
		return
	}
	for i := range lower {
		v := &lower[i]
		cfg := MCPConfig(asIdentity(s.Config, s.Identities[i], 0), s.Config.Version)
		cfg.Headers = s.Config.Credentials.For(ep.URL, cfg.Headers)
		cfg.MaxPages, cfg.MaxRequests = mcpIdentityPages, mcpIdentityRequests
		ictx, cancel := context.WithTimeout(ctx, mcpIdentityBudget)
		snap, err := mcpclient.List(ictx, cfg, ep, v.Name)
		if ictx.Err() != nil {
			err = errIdentityBound
			cutShort(&out.Stats, ictx, finding.CutMCP)
		}
		cancel()
		if err != nil {
			out.Notes = append(out.Notes, cutNote(ctx, sched, fmt.Sprintf("identity %q: the MCP catalog was not listed", v.Name), err))
			continue
		}
		if v.Recording == nil {
			v.Recording = &exchange.Recording{Target: out.Recording.Target}
		}
		xs := snap.Exchanges()
		for _, x := range xs {
			x.Identity = v.Name
		}
		out.renumber(xs)
		v.Recording.Exchanges = append(v.Recording.Exchanges, xs...)
		out.Stats.Requests += len(xs)
		v.MCP = snap
		for _, note := range snap.Notes {
			out.Notes = append(out.Notes, fmt.Sprintf("identity %q: MCP %s", v.Name, note))
		}
	}
	out.Notes = append(out.Notes, fmt.Sprintf("MCP catalog also listed as %s (tools/list only; at most %d requests and %s per identity)",
		viewNames(lower), mcpIdentityRequests, mcpIdentityBudget))
}

// errIdentityBound is the listing as one identity running out of its time.
var errIdentityBound = fmt.Errorf("it took more than %s", mcpIdentityBudget)

func viewNames(vs []View) string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = fmt.Sprintf("%q", v.Name)
	}
	return strings.Join(out, ", ")
}

// MCPConfig derives the MCP client's configuration from the probe's, so that
// `agentready mcp` and a scan send the same requests, through the same
// resolver: a configuration without one (`agentready mcp`) gets its own.
func MCPConfig(p Config, version string) mcpclient.Config {
	if version == "" {
		version = "dev"
	}
	if p.Resolver == nil {
		p.Resolver = NewResolver(nil)
	}
	ua := p.UserAgent
	if ua == "" {
		ua = "agentready/" + version + " (+https://github.com/agentready/agentready)"
	}
	return mcpclient.Config{
		Headers: p.Headers, Secrets: p.Secrets, Timeout: p.Timeout, MaxBody: p.MaxBody, UserAgent: ua,
		ClientName: "agentready", ClientVersion: version, Transport: p.Transport, Log: p.Log, Rate: p.Rate,
		DialContext: p.Resolver.DialContext, TLS: p.TLS,
	}
}

// onTargetOrigin reports whether the endpoint URL raw is on the target's
// origin, where the user's credentials may go.
func onTargetOrigin(raw string, target *url.URL) bool {
	u, err := url.Parse(raw)
	return err == nil && urlx.SameOrigin(u, target)
}

// MCPInfo is the report's MCP section: the privileged identity's snapshot,
// and the catalog each lower identity was listed.
func (o *Outcome) MCPInfo() *finding.MCPInfo {
	info := o.MCP.Info()
	if info == nil {
		return nil
	}
	for _, v := range o.Views {
		if v.MCP != nil && v.MCP != o.MCP {
			info.Identities = append(info.Identities, v.MCP.IdentityInfo())
		}
	}
	return info
}
