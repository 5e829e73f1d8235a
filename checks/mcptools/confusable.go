package mcptools

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/internal/mcpmap"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/mcp"
	"github.com/agentready/agentready/internal/sanitize"
	"github.com/agentready/agentready/internal/textdist"
)

// Two names this close read as one to a model choosing between them; below
// minConfusableName runes, short verbs (get, set, add) differ by two edits
// and mean different things.
const (
	maxConfusableEdits = 2
	minConfusableName  = 6
	// maxConfusableGroups bounds the findings on a hostile catalog.
	maxConfusableGroups = 20
)

// ToolConfusable reports groups of tools a model cannot tell apart by name or
// description.
type ToolConfusable struct{}

func (ToolConfusable) Meta() checks.Meta {
	return checks.Meta{
		ID: "mcp-tool-confusable", Family: checks.FamilyMCP,
		Documents: checks.DocMCPTools,
		Since:     checks.FirstRelease,
		Title:     "Sibling tools are told apart by name and description",
		Severity:  finding.SeverityWarning,
		SpecRefs: []finding.SpecRef{
			mcpRef(mcp.Modern, "server/tools §Tool Names (names SHOULD be unique)", "SHOULD", "server/tools"),
			{Doc: "Hasan et al., MCP Tool Descriptions Are Smelly! (2026)", Level: "advice", URL: "https://arxiv.org/abs/2602.14878"},
		},
		Help: "A model picks a tool by its name and description. Two tools whose names are within two edits of\n" +
			"each other (`refund_only_not_shipped` and `refund_only_not_shiped`, `getOrder` and `get_order`), or\n" +
			"that carry the same description, are one button to the model: it calls either, and a typo in\n" +
			"its output calls the other. The scanner groups such siblings (names of at least 6 characters,\n" +
			"compared with a bounded edit distance; descriptions compared after folding case and spaces)\n" +
			"and reports each group once.\n\n" +
			"**How to fix:** merge the tools, or rename and describe them so that the difference is the first\n" +
			"thing the model reads (`refundUnshippedOrder` and `refundDeliveredOrder`).",
		Needs: checks.NeedsMCP,
	}
}

func (c ToolConfusable) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	return judge(ctx, in, c.Meta(), runConfusable)
}

func runConfusable(m checks.Meta, _ *checks.Input, s *mcp.Snapshot) ([]finding.Finding, error) {
	l, err := firstListing(s)
	if err != nil {
		return nil, err
	}
	tools := l.Tools
	nameGroups := groups(len(tools), func(i, j int) bool { return namesConfusable(tools[i].Name, tools[j].Name) })
	descGroups := groups(len(tools), func(i, j int) bool {
		// A name listed twice is mcp-tool-name's duplicate.
		a, b := foldDescription(tools[i].Description), foldDescription(tools[j].Description)
		return a != "" && a == b && tools[i].Name != tools[j].Name
	})
	var out []finding.Finding
	for _, g := range nameGroups {
		out = append(out, checks.New(m, "names/"+tools[g[0]].Name, fmt.Sprintf("%d tools have names within %d edits of each other: %s",
			len(g), maxConfusableEdits, groupNames(tools, g)), mcpmap.ToolEvidence(l, &tools[g[0]], "name"), mcpmap.ToolEvidence(l, &tools[g[1]], "name")))
	}
	for _, g := range descGroups {
		out = append(out, checks.New(m, "descriptions/"+tools[g[0]].Name, fmt.Sprintf("%d tools carry the same description (%q): %s",
			len(g), sanitize.Truncate(tools[g[0]].Description, 80), groupNames(tools, g)),
			mcpmap.ToolEvidence(l, &tools[g[0]], "description"), mcpmap.ToolEvidence(l, &tools[g[1]], "description")))
	}
	if len(out) > maxConfusableGroups {
		out = out[:maxConfusableGroups]
	}
	return out, nil
}

func namesConfusable(a, b string) bool {
	if a == b || min(utf8.RuneCountInString(a), utf8.RuneCountInString(b)) < minConfusableName {
		// Equal names are mcp-tool-name's duplicates.
		return false
	}
	return textdist.Distance(a, b, maxConfusableEdits) <= maxConfusableEdits
}

func foldDescription(s string) string { return strings.Join(strings.Fields(strings.ToLower(s)), " ") }

// groups returns the connected components of size two or more of the
// relation related over 0..n-1, each sorted, in the order of their first
// member.
func groups(n int, related func(i, j int) bool) [][]int {
	parent := make([]int, n)
	for i := range parent {
		parent[i] = i
	}
	find := func(i int) int {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	for i := range n {
		for j := i + 1; j < n; j++ {
			if find(i) != find(j) && related(i, j) {
				parent[find(j)] = find(i)
			}
		}
	}
	byRoot := map[int][]int{}
	var roots []int
	for i := range n {
		r := find(i)
		if len(byRoot[r]) == 0 {
			roots = append(roots, r)
		}
		byRoot[r] = append(byRoot[r], i)
	}
	var out [][]int
	for _, r := range roots {
		if g := byRoot[r]; len(g) > 1 {
			slices.Sort(g)
			out = append(out, g)
		}
	}
	return out
}

func groupNames(tools []mcp.Tool, g []int) string {
	names := make([]string, len(g))
	for i, k := range g {
		names[i] = tools[k].Name
	}
	return sanitize.Truncate(strings.Join(names, ", "), 200)
}
