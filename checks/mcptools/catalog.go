package mcptools

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/internal/mcpmap"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/mcp"
	"github.com/agentready/agentready/internal/sanitize"
)

// CatalogStable reports a tool catalog that changes between two listings.
type CatalogStable struct{}

func (CatalogStable) Meta() checks.Meta {
	return checks.Meta{
		ID: "mcp-catalog-stable", Family: checks.FamilyMCP,
		Since:    checks.FirstRelease,
		Title:    "tools/list returns the same tools on every call",
		Severity: finding.SeverityError,
		SpecRefs: []finding.SpecRef{
			mcpRef(mcp.Modern, "server/tools §Capabilities", "MUST", "server/tools"),
			mcpRef(mcp.Legacy, "server/tools §List Changed Notification", "SHOULD", "server/tools"),
		},
		Help: "In 2026-07-28 the tool set MAY change over time but MUST NOT vary per connection or as a\n" +
			"side effect of other requests; it MAY vary with the credentials presented. The scanner lists\n" +
			"the tools twice with the same credentials (for a modern server over two separate connections),\n" +
			"then once more after every other request of its examination (the other lists, the `ui://`\n" +
			"resources read), and compares each later listing with the first. A catalog that shifts under\n" +
			"an agent invalidates what the agent cached and planned with. For legacy servers the change is\n" +
			"a `warning`: 2025-11-25 lets the list change, announced by `notifications/tools/list_changed`\n" +
			"(see `mcp-list-changed-declared`).\n\n" +
			"**How to fix:** derive the catalog from a fixed declaration, not from request state.",
		Needs: checks.NeedsMCP,
	}
}

func (c CatalogStable) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	return judge(ctx, in, c.Meta(), runStable)
}

// CatalogOrder reports the same tools listed in another order.
type CatalogOrder struct{}

func (CatalogOrder) Meta() checks.Meta {
	return checks.Meta{
		ID: "mcp-catalog-order", Family: checks.FamilyMCP,
		Since:    checks.FirstRelease,
		Title:    "tools/list returns tools in a deterministic order",
		Severity: finding.SeverityWarning,
		SpecRefs: []finding.SpecRef{mcpRef(mcp.Modern, "server/tools §Listing Tools", "SHOULD", "server/tools")},
		Help: "2026-07-28 servers SHOULD list tools in a deterministic order. Hosts place the catalog at\n" +
			"the start of the model's context; a reordered catalog defeats prompt caching on every turn.\n\n" +
			"**How to fix:** sort the catalog (for example by name) instead of iterating a map.",
		Needs: checks.NeedsMCP,
	}
}

func (c CatalogOrder) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	return judge(ctx, in, c.Meta(), runOrder)
}

// ContextCost reports a large catalog that offers no search or discovery tool.
type ContextCost struct{}

func (ContextCost) Meta() checks.Meta {
	return checks.Meta{
		ID: "mcp-context-cost", Family: checks.FamilyMCP,
		Documents: checks.DocMCPTools,
		Since:     checks.FirstRelease,
		Title:     "A large catalog offers a search or discovery tool",
		Severity:  finding.SeverityWarning,
		SpecRefs: []finding.SpecRef{
			{Doc: "Kate et al., LongFuncEval (2025)", Level: "advice", URL: "https://arxiv.org/abs/2505.10570"},
			{Doc: "Bluchet and Dunglas, Hydra-to-MCP gateway pilot", Level: "advice", URL: "https://hal.science/hal-05630480"},
		},
		Help: "A host places the whole catalog (names, descriptions, input schemas) in the model's context\n" +
			"on every turn. LongFuncEval measured function-calling accuracy dropping by 7% to 85% as the\n" +
			"number of tools grows; a static catalog took 77% of the context in one pilot, against 2% for a\n" +
			"lazy one. The scanner counts the catalog's tokens with the o200k_base BPE (embedded; other\n" +
			"tokenizers differ by some percent) and reports per tool and in total. Over 40 tools or 15,000\n" +
			"tokens without a search or discovery tool is a `warning`; `limits: mcp-max-tools` and\n" +
			"`mcp-max-tokens` in the configuration change both bounds (a host with a larger context, or a\n" +
			"smaller model).\n\n" +
			"**How to fix:** offer a search tool that returns definitions on demand, split the server by\n" +
			"task, or trim schemas and descriptions.",
		Needs: checks.NeedsMCP,
	}
}

func (c ContextCost) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	return judge(ctx, in, c.Meta(), runContextCost)
}

func runStable(m checks.Meta, in *checks.Input, s *mcp.Snapshot) ([]finding.Finding, error) {
	changes, err := catalogChanges(in, s)
	if err != nil {
		return nil, err
	}
	var out []finding.Finding
	for _, c := range changes {
		// The second walk keeps the subject it always had, so that
		// baselines and ignores that name it still apply.
		subject := "tools"
		if c.later.Label == mcp.LabelAfterRequests {
			subject = "tools|after-requests"
		}
		f := checks.New(m, subject, fmt.Sprintf("tools/list (%s) returned %d tools, then (%s) %d: %s",
			c.first.Label, len(c.first.Tools), c.later.Label, len(c.later.Tools), c.diff), mcpmap.CallEvidence(c.first.Pages[0].Call), mcpmap.CallEvidence(c.later.Pages[0].Call))
		if s.Verdict.Era != mcp.EraModern {
			f.Severity = finding.SeverityWarning
		}
		out = append(out, f)
	}
	return out, nil
}

// catalogChange is a later walk of tools/list that differs from the first.
type catalogChange struct {
	first, later *mcp.Listing
	diff         string
}

// catalogComparison is what catalogChanges returns, kept for the checks
// that share it.
type catalogComparison struct {
	changes []catalogChange
	err     error
}

var catalogComparisonKey = checks.NewKey[catalogComparison]()

// catalogChanges compares every later complete walk (the second, and the
// one after the other requests) with the first. Three checks read the
// comparison of the scan's snapshot, which fingerprints every tool of every
// walk: it is made once for them.
func catalogChanges(in *checks.Input, s *mcp.Snapshot) ([]catalogChange, error) {
	if s != in.MCP {
		return compareCatalogs(s)
	}
	c := checks.Memo(in, catalogComparisonKey, func() catalogComparison {
		changes, err := compareCatalogs(s)
		return catalogComparison{changes, err}
	})
	return c.changes, c.err
}

func compareCatalogs(s *mcp.Snapshot) ([]catalogChange, error) {
	if len(s.Listings) < 2 || !s.Listings[0].Complete || !s.Listings[1].Complete {
		return nil, checks.Skip("tools/list could not be walked completely twice")
	}
	first := &s.Listings[0]
	var out []catalogChange
	for i := 1; i < len(s.Listings); i++ {
		later := &s.Listings[i]
		if !later.Complete {
			continue
		}
		if diff := catalogDiff(first.Tools, later.Tools); diff != "" {
			out = append(out, catalogChange{first, later, diff})
		}
	}
	return out, nil
}

// catalogDiff describes how two listings differ as sets: tools added,
// removed, or redefined under the same name. "" when the sets are equal.
func catalogDiff(a, b []mcp.Tool) string {
	fa, fb := fingerprints(a), fingerprints(b)
	var added, removed, changed []string
	for name, fp := range fa {
		switch other, ok := fb[name]; {
		case !ok:
			removed = append(removed, name)
		case other != fp:
			changed = append(changed, name)
		}
	}
	for name := range fb {
		if _, ok := fa[name]; !ok {
			added = append(added, name)
		}
	}
	var parts []string
	for _, p := range []struct {
		label string
		names []string
	}{{"added", added}, {"removed", removed}, {"redefined", changed}} {
		if len(p.names) > 0 {
			sort.Strings(p.names)
			parts = append(parts, p.label+" "+sanitize.Truncate(strings.Join(p.names, ", "), 160))
		}
	}
	if len(parts) == 0 && len(a) != len(b) {
		parts = append(parts, "the same names, listed a different number of times")
	}
	return strings.Join(parts, "; ")
}

func fingerprints(tools []mcp.Tool) map[string]string {
	out := make(map[string]string, len(tools))
	for i := range tools {
		out[tools[i].Name] = tools[i].Fingerprint()
	}
	return out
}

func names(tools []mcp.Tool) []string {
	out := make([]string, len(tools))
	for i := range tools {
		out[i] = tools[i].Name
	}
	return out
}

func runOrder(m checks.Meta, in *checks.Input, s *mcp.Snapshot) ([]finding.Finding, error) {
	if s.Verdict.Era != mcp.EraModern {
		return nil, checks.Skip("deterministic order is a 2026-07-28 rule and the server is legacy")
	}
	if len(s.Listings) < 2 || !s.Listings[0].Complete || !s.Listings[1].Complete {
		return nil, checks.Skip("tools/list could not be walked completely twice")
	}
	changes, err := catalogChanges(in, s)
	if err != nil {
		return nil, err
	}
	a, b := s.Listings[0], s.Listings[1]
	if slices.ContainsFunc(changes, func(c catalogChange) bool { return c.later == &s.Listings[1] }) {
		return nil, checks.Skip("the two listings differ as sets (see mcp-catalog-stable)")
	}
	na, nb := names(a.Tools), names(b.Tools)
	if slices.Equal(na, nb) {
		return nil, nil
	}
	return []finding.Finding{checks.New(m, "order", fmt.Sprintf("the same %d tools came back in a different order: %s, then %s",
		len(na), sanitize.Truncate(strings.Join(na, ", "), 120), sanitize.Truncate(strings.Join(nb, ", "), 120)),
		mcpmap.CallEvidence(a.Pages[0].Call), mcpmap.CallEvidence(b.Pages[0].Call))}, nil
}

// searchTool recognizes a tool that finds other tools or operations.
var searchTool = regexp.MustCompile(`(?i)search|discover|find|lookup|catalog`)

func runContextCost(m checks.Meta, in *checks.Input, s *mcp.Snapshot) ([]finding.Finding, error) {
	l, err := firstListing(s)
	if err != nil {
		return nil, err
	}
	c := s.Catalog
	in.Observe(m.ID, fmt.Sprintf("the catalog of %d tools costs %d tokens (%s)", len(c.Tools), c.Tokens, c.Tokenizer))
	costly := slices.Clone(c.Tools)
	slices.SortStableFunc(costly, func(a, b mcp.ToolSummary) int { return b.Tokens - a.Tokens })
	for _, t := range costly[:min(len(costly), 5)] {
		in.Observe(m.ID, fmt.Sprintf("one of the costliest tools: %s, %d tokens", sanitize.Truncate(t.Name, 80), t.Tokens))
	}
	lim := in.Catalog.Or()
	if len(c.Tools) <= lim.Tools && c.Tokens <= lim.Tokens {
		return nil, nil
	}
	for i := range l.Tools {
		if searchTool.MatchString(l.Tools[i].Name) {
			in.Observe(m.ID, fmt.Sprintf("large catalog, but %q looks like a search or discovery tool", l.Tools[i].Name))
			return nil, nil
		}
	}
	ev := mcpmap.ListingEvidence(l)
	ev.Actual = fmt.Sprintf("%d tools, %d tokens", len(c.Tools), c.Tokens)
	ev.Expected = fmt.Sprintf("at most %d tools and %d tokens, or a search tool", lim.Tools, lim.Tokens)
	return []finding.Finding{checks.New(m, "catalog", fmt.Sprintf("the catalog puts %d tools and %d tokens (%s) into every context, with no search or discovery tool",
		len(c.Tools), c.Tokens, c.Tokenizer), ev)}, nil
}
