package scan_test

import (
	"slices"
	"testing"

	"github.com/agentready/agentready/fixtures/agentsite"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/scan"
	"github.com/agentready/agentready/probe"
)

// declarationChecks are the fired checks of the families that judge what a
// site declares.
func declarationChecks(rep *finding.Report) []string {
	var out []string
	for _, f := range rep.Findings {
		if (f.Family == "discovery" || f.Family == "surface") && !slices.Contains(out, f.CheckID) {
			out = append(out, f.CheckID)
		}
	}
	slices.Sort(out)
	return out
}

// TestSiteThatPassesPresenceScannersPassesUnlessItsDeclarationsAreWrong:
// a site that publishes everything the agent-readiness site scanners look
// for passes the discovery and surface families; the same site with three
// declarations wrong, which those scanners would still count as present,
// fails exactly the checks for them.
func TestSiteThatPassesPresenceScannersPassesUnlessItsDeclarationsAreWrong(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name  string
		wrong bool
		want  []string
	}{
		{"declared right", false, nil},
		{"declared wrong", true, []string{"discovery-sitemap-unreachable", "discovery-web-bot-auth-directory", "surface-unknown-operation"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rep := mustScan(t, agentsite.New(tt.wrong), scan.Options{Probe: probe.Config{Spec: probe.SpecConfig{Discover: true}}})
			if got := declarationChecks(rep); !slices.Equal(got, tt.want) {
				for _, f := range rep.Findings {
					t.Logf("%s %s: %s", f.Severity, f.CheckID, f.Message)
				}
				t.Errorf("fired %v, want %v", got, tt.want)
			}
			for _, c := range rep.Checks {
				if c.Family == "discovery" && c.Status == finding.StatusSkip && slices.Contains(presenceChecks, c.ID) {
					t.Errorf("%s was not assessed: %s", c.ID, c.Reason)
				}
			}
		})
	}
}

// presenceChecks judge what the scanners check the presence of; each must
// be assessed on this site, not skipped.
var presenceChecks = []string{
	"discovery-robots-syntax", "discovery-content-signal-syntax", "discovery-sitemap-format", "discovery-llms-title",
	"discovery-api-catalog-linkset", "discovery-agent-card-fields", "discovery-mcp-card-format", "discovery-skills-index",
	"discovery-web-bot-auth-directory", "discovery-protected-resource", "discovery-authorization-server",
	"discovery-x402-challenge", "discovery-markdown-twin",
}
