package scan

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/exchange"
	"github.com/agentready/agentready/mcp"
	"github.com/agentready/agentready/probe"
	mcpprobe "github.com/agentready/agentready/probe/mcp"
)

// mcpBudget bounds the MCP part of a scan, which runs after the crawl: its
// endpoints are advertised in what the crawl found.
const mcpBudget = time.Minute

// collectMCP finds the app's MCP endpoints, examines the first and decides
// the revision of the others, and adds every exchange to the recording so
// that findings have evidence. When no endpoint speaks MCP, in.MCP stays nil
// and the mcp family is not assessed. Nothing is sent when no mcp check is
// selected and no endpoint was named.
func collectMCP(ctx context.Context, opts Options, in *checks.Input) {
	if opts.MCPEndpoint == "" && !hasFamily(opts.Checks, checks.FamilyMCP) {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, mcpBudget)
	defer cancel()
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
		if !sameOrigin(ep.URL, target) {
			// The user's headers are credentials for the target; an endpoint
			// named on another origin does not get them.
			epCfg.Headers = nil
		}
		if i == 0 {
			s, err := mcpprobe.Collect(ctx, epCfg, ep)
			if err != nil {
				// The CLI validates --mcp; a bad URL here came from a caller.
				appendExchanges(in, docs)
				return
			}
			snap = s
			continue
		}
		if v, err := mcpprobe.Verdict(ctx, epCfg, ep); err == nil {
			snap.Others = append(snap.Others, v)
		}
	}
	appendExchanges(in, append(docs, snap.Exchanges()...))
	if snap.Verdict.Era == mcp.EraNone && snap.Endpoint.Conventional() && len(snap.Others) == 0 {
		// Nothing answers MCP at the conventional path: the app has no MCP face.
		return
	}
	in.MCP = snap
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
		Headers: p.Headers, Timeout: p.Timeout, MaxBody: p.MaxBody, UserAgent: ua,
		ClientName: "agentready", ClientVersion: version, Transport: p.Transport, Log: p.Log,
	}
}

// appendExchanges adds the MCP exchanges after the frozen recording,
// numbering on from its last ID, and re-indexes.
func appendExchanges(in *checks.Input, xs []*exchange.Exchange) {
	n := len(in.Recording.Exchanges)
	for i, x := range xs {
		x.ID = fmt.Sprintf("x%04d", n+i+1)
		in.Recording.Exchanges = append(in.Recording.Exchanges, x)
	}
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

func sameOrigin(raw string, target *url.URL) bool {
	u, err := url.Parse(raw)
	return err == nil && strings.EqualFold(u.Scheme, target.Scheme) && strings.EqualFold(u.Host, target.Host)
}
