package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/builtin"
	"github.com/agentready/agentready/fixtures/demo"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/report"
)

// completeValues lets the shells complete what the flags and arguments
// take: severities, formats, colour modes, drift gates, check IDs and the
// demo's defects, each with what it means where that helps; certificate
// and key files as files.
func completeValues(root *cobra.Command) {
	fixed := map[string][]string{
		"fail-on": {"error\tfail on errors", "warning\tfail on warnings and errors", "info\tfail on any finding", "none\tnever fail on findings"},
		"color":   {colorAuto + "\tcolour a terminal, as NO_COLOR and FORCE_COLOR say", colorAlways + "\tcolour wherever it goes", colorNever + "\tnever colour"},
		"fail-on-drift": {finding.DriftBreaking + "\tfail on breaking changes to the agent surface", finding.DriftAny + "\tfail on any change to it",
			finding.DriftNone + "\tnever fail on drift"},
		"fail-on-trial": {"error\tfail on trial findings at error", "warning\tfail on trial warnings and errors", "info\tfail on any trial finding", "none\tnever fail on trial findings"},
		"defect":        defectCompletions(),
		"family":        familyCompletions(),
	}
	var walk func(*cobra.Command)
	walk = func(c *cobra.Command) {
		c.Flags().VisitAll(func(f *pflag.Flag) {
			var values []string
			noSpace := false
			switch {
			case fixed[f.Name] != nil:
				values = fixed[f.Name]
			case f.Name == "format":
				values = formatsOf(f)
			case f.Name == "output" && strings.Contains(f.Usage, "FORMAT=PATH"):
				// The format, then the path, which the shell completes
				// as a file once the = is there.
				for _, name := range report.Formats() {
					values = append(values, name+"=")
				}
				noSpace = true
			case f.Name == "cacert" || f.Name == "cert" || f.Name == "key":
				_ = c.MarkFlagFilename(f.Name, "pem", "crt", "cer", "key")
				return
			default:
				return
			}
			directive := cobra.ShellCompDirectiveNoFileComp
			if noSpace {
				directive |= cobra.ShellCompDirectiveNoSpace
			}
			_ = c.RegisterFlagCompletionFunc(f.Name, func(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
				if noSpace && strings.Contains(toComplete, "=") {
					return nil, cobra.ShellCompDirectiveDefault
				}
				return withPrefix(values, toComplete), directive
			})
		})
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	if explain, _, err := root.Find([]string{"explain"}); err == nil && explain.Name() == "explain" {
		explain.ValidArgsFunction = func(_ *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
			if len(args) > 0 {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			return withPrefix(checkCompletions(), toComplete), cobra.ShellCompDirectiveNoFileComp
		}
	}
}

// withPrefix keeps the completions (value, then a tab and its meaning)
// whose value starts with what is typed: not every shell filters them.
func withPrefix(completions []string, typed string) []string {
	var out []string
	for _, c := range completions {
		if strings.HasPrefix(c, typed) {
			out = append(out, c)
		}
	}
	return out
}

// formatsOf is what a --format flag takes: the report formats where its
// description lists them, else text and json (checks, mcp).
func formatsOf(f *pflag.Flag) []string {
	if strings.Contains(f.Usage, strings.Join(report.Formats(), ", ")) {
		return report.Formats()
	}
	return []string{"text", "json"}
}

// checkCompletions are the built-in checks' IDs with their titles. The
// configuration's rules are left out: completing runs before the file
// would be read.
func checkCompletions() []string {
	var out []string
	for _, c := range builtin.All() {
		m := c.Meta()
		out = append(out, m.ID+"\t"+m.Title)
	}
	return out
}

// familyCompletions are the check families, each with how many built-in
// checks it holds.
func familyCompletions() []string {
	count := map[checks.Family]int{}
	for _, c := range builtin.All() {
		count[c.Meta().Family]++
	}
	var out []string
	for _, f := range checks.Families {
		n := fmt.Sprintf("%d checks", count[f])
		if count[f] == 0 {
			n = "the configuration's rules"
		}
		out = append(out, string(f)+"\t"+n)
	}
	return out
}

func defectCompletions() []string {
	var out []string
	for _, d := range demo.Defects() {
		out = append(out, string(d)+"\t"+d.Description())
	}
	return out
}
