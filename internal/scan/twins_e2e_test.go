package scan_test

import (
	"testing"

	"github.com/agentready/agentready/fixtures/seedapp"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/scan"
)

// TestPreferenceIsJudgedOnMarkdownTwins: the negotiation probe that asks an
// HTML page for Markdown is the discovery family's twin request too; sent
// once, it must still count for both, or every preference check skips.
func TestPreferenceIsJudgedOnMarkdownTwins(t *testing.T) {
	t.Parallel()
	rep := mustScan(t, seedapp.TwinSite{}, scan.Options{})
	for _, id := range []string{"negotiation-preferred-type", "negotiation-q-zero", "negotiation-specificity", "discovery-markdown-twin",
		"negotiation-tie-break", "negotiation-mixed-wildcards", "negotiation-malformed-range"} {
		c := checkResult(rep, id)
		if c == nil || c.Status != finding.StatusPass {
			t.Errorf("%s = %+v, want a pass", id, c)
		}
	}
	for _, f := range rep.Findings {
		if f.Family == "negotiation" {
			t.Errorf("a conformant router has %s: %s", f.CheckID, f.Message)
		}
	}
}

func checkResult(rep *finding.Report, id string) *finding.CheckResult {
	for i := range rep.Checks {
		if rep.Checks[i].ID == id {
			return &rep.Checks[i]
		}
	}
	return nil
}

// TestMarkdownNamedAnywhereLosesTheTie: a router that serves Markdown
// whenever Accept names it gives Markdown to "text/html, text/markdown",
// although it serves HTML by default and the client listed HTML first.
func TestMarkdownNamedAnywhereLosesTheTie(t *testing.T) {
	t.Parallel()
	rep := mustScan(t, seedapp.TwinSite{MarkdownIfNamed: true}, scan.Options{})
	var msgs []string
	for _, f := range rep.Findings {
		if f.CheckID == "negotiation-tie-break" {
			msgs = append(msgs, f.Message)
		}
	}
	want := `Accept "text/html, text/markdown" was answered with text/markdown, the type listed last at the same weight; without Accept the server serves text/html`
	if len(msgs) != 2 || msgs[0] != want {
		t.Errorf("tie-break findings = %q, want one per page, the first %q", msgs, want)
	}
}
