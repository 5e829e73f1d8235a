// Package mcptools is the mcp family: which revisions the app's MCP
// endpoint speaks, whether its tool definitions are usable, whether its
// catalog is stable and affordable, and whether its tools match the
// operations of the OpenAPI document. The checks judge the snapshot that
// probe/mcpclient took (checks.Input.MCP); they do no I/O.
package mcptools

import (
	"context"
	"fmt"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/mcp"
	"github.com/agentready/agentready/internal/sanitize"
)

// All returns the family's checks.
func All() []checks.Check {
	return []checks.Check{
		RevisionUndetermined{}, LegacyOnly{}, RevisionDrift{}, ResultFields{}, UnknownMethod{}, LegacySession{},
		ToolInputSchema{}, ToolOutputSchema{}, ToolName{}, ToolMCPHeader{}, ToolHintConflict{}, ToolDescription{}, ToolClientCompat{},
		ToolDescriptionPreconditions{}, ToolDescriptionErrors{}, ToolDescriptionLimits{}, ToolDescriptionExamples{}, ToolDescriptionLength{},
		HiddenInstructions{}, ToolConfusable{}, OriginValidated{}, AuthDiscovery{},
		CatalogStable{}, CatalogOrder{}, ContextCost{}, ListChangedDeclared{}, CapabilitiesConsistent{},
		ParityUnknownProperty{}, ParityMissingParameter{}, ParityType{}, ParityRequired{}, ParityReadOnlyUnsafe{},
		ParityGetNotReadOnly{}, ParityDeleteNotDestructive{}, ParityIdempotent{}, ParityDescription{}, ParityOutputSchema{},
		ParityUnmappedTool{}, ParityMissingTool{},
	}
}

// snapshotRule is one check's judgement of the snapshot of the MCP
// endpoint. Every check of the family declares checks.NeedsMCP, and its Run
// hands its rule to judge or judgeAnyVerdict, which give the family's one
// set of skip reasons.
type snapshotRule func(m checks.Meta, in *checks.Input, s *mcp.Snapshot) ([]finding.Finding, error)

// judge is the findings of check m by rule, once the endpoint answered and
// its revision is known.
func judge(ctx context.Context, in *checks.Input, m checks.Meta, rule snapshotRule) ([]finding.Finding, error) {
	return judgeSnapshot(ctx, in, m, false, rule)
}

// judgeAnyVerdict is judge for a check that also has something to say when
// the revision was not determined: why not, what the other endpoints speak,
// where the metadata of a 401 is.
func judgeAnyVerdict(ctx context.Context, in *checks.Input, m checks.Meta, rule snapshotRule) ([]finding.Finding, error) {
	return judgeSnapshot(ctx, in, m, true, rule)
}

func judgeSnapshot(ctx context.Context, in *checks.Input, m checks.Meta, anyVerdict bool, rule snapshotRule) ([]finding.Finding, error) {
	s, err := snapshot(in, anyVerdict)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return rule(m, in, s)
}

// snapshot returns the MCP snapshot, or the skip reason that makes the
// family "not assessed".
func snapshot(in *checks.Input, anyVerdict bool) (*mcp.Snapshot, error) {
	s := in.MCP
	switch {
	case s == nil:
		return nil, checks.Skip("no MCP endpoint was given (--mcp) or found on the target (Link or HAL relation naming MCP, llms.txt, agent card, /mcp)")
	case s.Verdict.Era == mcp.EraNone:
		return nil, checks.Skip(fmt.Sprintf("%s (%s) did not answer as an MCP endpoint: %s", s.Endpoint.URL, s.Endpoint.Source, s.Verdict.Reason))
	case s.Verdict.Refused != "" && s.Endpoint.Conventional():
		return nil, checks.Skip(fmt.Sprintf("nothing advertises an MCP endpoint, and the conventional path %s refused the probe: %s", s.Endpoint.URL, s.Verdict.Refused))
	case s.Verdict.Refused != "" && !anyVerdict:
		return nil, checks.Skip(fmt.Sprintf("the revision of %s was not determined (%s), so nothing was listed", s.Endpoint.URL, s.Verdict.Refused))
	}
	return s, nil
}

// firstListing returns the first tools/list walk, or a skip when it failed
// before any page.
func firstListing(s *mcp.Snapshot) (*mcp.Listing, error) {
	if len(s.Listings) == 0 || len(s.Listings[0].Pages) == 0 {
		reason := "tools/list was not answered"
		if len(s.Listings) > 0 && s.Listings[0].Problem != "" {
			reason = "tools/list failed: " + s.Listings[0].Problem
		}
		return nil, checks.Skip(reason)
	}
	return &s.Listings[0], nil
}

// toolLabel names a tool in messages, even one without a usable name.
func toolLabel(t *mcp.Tool) string {
	if !t.NameValid || t.Name == "" {
		return fmt.Sprintf("tool #%d of page %d", t.Index+1, t.Page+1)
	}
	return fmt.Sprintf("tool %q", sanitize.Truncate(t.Name, 80))
}

func mcpRef(rev, section, level, path string) finding.SpecRef {
	return finding.SpecRef{
		Doc: "MCP " + rev, Section: section, Level: level,
		URL: "https://modelcontextprotocol.io/specification/" + rev + "/" + path,
	}
}
