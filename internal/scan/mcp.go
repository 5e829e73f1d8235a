package scan

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/leakage"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/mcp"
	"github.com/agentready/agentready/internal/urlx"
	"github.com/agentready/agentready/probe"
	mcpprobe "github.com/agentready/agentready/probe/mcp"
)

// mcpBudget bounds the MCP part of a scan, which runs after the crawl (its
// endpoints are advertised in what the crawl found) and within the scan's
// budget too.
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
// that findings have evidence. When no endpoint speaks MCP, in.MCP stays nil
// and the mcp family is not assessed. Nothing is sent when no check reads
// the MCP face and no endpoint was named. With several identities, the
// catalog is then listed as each lower one too (see listAsIdentities). All of
// it ends when sched says requests must; what that cut is left out whole,
// never judged half-done. It returns notes for the report, and whether the
// budget cut anything.
func collectMCP(ctx context.Context, sched *schedule, opts Options, shared http.Header, in *checks.Input) (notes []string, cut bool) {
	perIdentity := len(in.Identities) > 1 && readsCatalogs(opts.Checks)
	if opts.MCPEndpoint == "" && !hasFamily(opts.Checks, checks.FamilyMCP) && !perIdentity {
		return nil, false
	}
	ctx, cancel := sched.untilSent(ctx)
	defer cancel()
	examined, err := examineMCP(ctx, opts, in)
	if err != nil {
		return []string{cutNote(ctx, sched, "the MCP endpoint was not examined", err)}, true
	}
	if !examined || !perIdentity {
		return nil, false
	}
	return listAsIdentities(ctx, sched, opts, shared, in)
}

// cutNote says why a step was cut: the scan's budget, the step's own bound
// (err), or the user's interruption.
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

// examineMCP fills in.MCP as the privileged identity, and reports whether
// the app has an MCP face. When ctx or mcpBudget ends first, it records
// nothing and returns an error: a catalog listed half-way would be judged
// as if the server had cut it.
func examineMCP(ctx context.Context, opts Options, in *checks.Input) (bool, error) {
	mctx, cancel := context.WithTimeout(ctx, mcpBudget)
	defer cancel()
	snap, docs, ok := inspectMCP(mctx, opts, in)
	if mctx.Err() != nil {
		return false, errMCPBound
	}
	if snap == nil {
		appendExchanges(in, docs)
		return false, nil
	}
	appendExchanges(in, append(docs, snap.Exchanges()...))
	if !ok {
		return false, nil
	}
	in.MCP = snap
	if n := len(in.Identities); n > 0 {
		in.Identities[n-1].MCP = snap
		for _, x := range snap.Exchanges() {
			x.Identity = in.Identities[n-1].Name
		}
	}
	return true, nil
}

// inspectMCP discovers the endpoints and examines them, recording nothing:
// the snapshot of the first endpoint (nil when it could not be examined),
// the discovery documents fetched, and whether the app has an MCP face.
func inspectMCP(ctx context.Context, opts Options, in *checks.Input) (*mcp.Snapshot, []*exchange.Exchange, bool) {
	target := opts.Probe.Start
	cfg := MCPConfig(opts.Probe, opts.Version)
	var crawled []*exchange.Exchange
	for x := range in.Recording.Crawled() {
		crawled = append(crawled, x)
	}
	eps, docs := mcpprobe.Discover(ctx, cfg, target, opts.MCPEndpoint, crawled)
	var snap *mcp.Snapshot
	for i, ep := range eps {
		epCfg := cfg
		if !onTargetOrigin(ep.URL, target) {
			// The user's headers are credentials for the target; an endpoint
			// named on another origin does not get them.
			epCfg.Headers = nil
		}
		epCfg.Headers = opts.Probe.Credentials.For(ep.URL, epCfg.Headers)
		if i == 0 {
			s, err := mcpprobe.Collect(ctx, epCfg, ep)
			if err != nil {
				// The CLI validates --mcp; a bad URL here came from a caller.
				return nil, docs, false
			}
			if len(opts.Identities) > 0 {
				s.Identity = opts.Identities[len(opts.Identities)-1].Name
			}
			snap = s
			continue
		}
		if v, err := mcpprobe.Verdict(ctx, epCfg, ep); err == nil {
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
func listAsIdentities(ctx context.Context, sched *schedule, opts Options, shared http.Header, in *checks.Input) (notes []string, cut bool) {
	ep := in.MCP.Endpoint
	lower := in.Identities[:len(in.Identities)-1]
	if !onTargetOrigin(ep.URL, opts.Probe.Start) {
		return []string{fmt.Sprintf("the MCP catalog was not listed as %s: %s is not on the target's origin, and identities' credentials go to that origin only", viewNames(lower), ep.URL)}, false
	}
	ids := opts.Identities
	for i := range lower {
		v := &lower[i]
		base := opts.Probe
		base.Headers = shared
		cfg := MCPConfig(asIdentity(base, ids[i], 0, 0), opts.Version)
		cfg.Headers = opts.Probe.Credentials.For(ep.URL, cfg.Headers)
		cfg.MaxPages, cfg.MaxRequests = mcpIdentityPages, mcpIdentityRequests
		ictx, cancel := context.WithTimeout(ctx, mcpIdentityBudget)
		s, err := mcpprobe.List(ictx, cfg, ep, v.Name)
		timedOut := ictx.Err() != nil
		cancel()
		if timedOut {
			err, cut = errIdentityBound, true
		}
		if err != nil {
			notes = append(notes, cutNote(ctx, sched, fmt.Sprintf("identity %q: the MCP catalog was not listed", v.Name), err))
			continue
		}
		if v.Recording == nil {
			v.Recording = &exchange.Recording{Target: in.Recording.Target}
		}
		xs := s.Exchanges()
		for _, x := range xs {
			x.Identity = v.Name
		}
		renumber(in, xs)
		v.Recording.Exchanges = append(v.Recording.Exchanges, xs...)
		v.MCP = s
		for _, note := range s.Notes {
			notes = append(notes, fmt.Sprintf("identity %q: MCP %s", v.Name, note))
		}
	}
	return append(notes, fmt.Sprintf("MCP catalog also listed as %s (tools/list only; at most %d requests and %s per identity)",
		viewNames(lower), mcpIdentityRequests, mcpIdentityBudget)), cut
}

// errIdentityBound is the listing as one identity running out of its time.
var errIdentityBound = fmt.Errorf("it took more than %s", mcpIdentityBudget)

// readsCatalogs reports whether a selected check compares MCP catalogs
// across identities.
func readsCatalogs(cs []checks.Check) bool {
	for _, c := range cs {
		switch c.(type) {
		case leakage.MCPToolRefused, leakage.MCPPrivilegedToolAnonymous:
			return true
		}
	}
	return false
}

func viewNames(vs []checks.IdentityView) string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = fmt.Sprintf("%q", v.Name)
	}
	return strings.Join(out, ", ")
}

// renumber gives xs the IDs that follow every exchange of the scan, the
// lower identities' included, so that evidence never names two exchanges
// with one ID.
func renumber(in *checks.Input, xs []*exchange.Exchange) {
	renumberAfter(in.Recording, in.Identities, xs)
}

// renumberAfter is renumber before the checks' Input exists.
func renumberAfter(main *exchange.Recording, views []checks.IdentityView, xs []*exchange.Exchange) {
	n := lastID(main)
	for _, v := range views {
		n = max(n, lastID(v.Recording))
	}
	for i, x := range xs {
		x.ID = fmt.Sprintf("x%04d", n+i+1)
	}
}

func lastID(rec *exchange.Recording) int {
	n := 0
	if rec == nil {
		return n
	}
	for _, x := range rec.Exchanges {
		var id int
		if _, err := fmt.Sscanf(x.ID, "x%d", &id); err == nil {
			n = max(n, id)
		}
	}
	return n
}

// MCPConfig derives the MCP client's configuration from the probe's, so that
// `agentready mcp` and a scan send the same requests.
func MCPConfig(p probe.Config, version string) mcpprobe.Config {
	if version == "" {
		version = "dev"
	}
	ua := p.UserAgent
	if ua == "" {
		ua = "agentready/" + version + " (+https://github.com/agentready/agentready)"
	}
	return mcpprobe.Config{
		Headers: p.Headers, Secrets: p.Secrets, Timeout: p.Timeout, MaxBody: p.MaxBody, UserAgent: ua,
		ClientName: "agentready", ClientVersion: version, Transport: p.Transport, Log: p.Log, Rate: p.Rate,
	}
}

// appendExchanges adds the MCP exchanges after the frozen recording,
// numbering on from the scan's last ID, and re-indexes.
func appendExchanges(in *checks.Input, xs []*exchange.Exchange) {
	renumber(in, xs)
	in.Recording.Exchanges = append(in.Recording.Exchanges, xs...)
	in.Index = exchange.NewIndex(in.Recording)
}

func hasFamily(cs []checks.Check, f checks.Family) bool {
	for _, c := range cs {
		if c.Meta().Family == f {
			return true
		}
	}
	return false
}

// onTargetOrigin reports whether the endpoint URL raw is on the target's
// origin, where the user's credentials may go.
func onTargetOrigin(raw string, target *url.URL) bool {
	u, err := url.Parse(raw)
	return err == nil && urlx.SameOrigin(u, target)
}

// mcpInfo is the report's MCP section: the privileged identity's snapshot,
// and the catalog each lower identity was listed.
func mcpInfo(in *checks.Input) *finding.MCPInfo {
	info := in.MCP.Info()
	if info == nil {
		return nil
	}
	for _, v := range in.Identities {
		if v.MCP != nil && v.MCP != in.MCP {
			info.Identities = append(info.Identities, v.MCP.IdentityInfo())
		}
	}
	return info
}
