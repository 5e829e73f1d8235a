package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/internal/config"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/report/text"
)

func newChecksCmd(e *env) *cobra.Command {
	var format string
	var families []string
	cmd := &cobra.Command{
		Use:   "checks",
		Short: "List every check: ID, family, severity, title",
		Example: `  agentready checks
  agentready checks --family vary --family problem-json
  agentready checks --format json`,
		Args:        cobra.NoArgs,
		Annotations: map[string]string{usesConfig: "true"},
		RunE: func(cmd *cobra.Command, _ []string) error {
			reg, err := e.registry()
			if err != nil {
				return err
			}
			rules, err := rulesOf(reg, families)
			if err != nil {
				return err
			}
			switch format {
			case "text":
				return e.page("text", func(w io.Writer) error { return terminalText(e, fitWidth(e)).WriteRules(w, rules) })
			case "json":
				enc := json.NewEncoder(e.stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(rules)
			}
			return usageError("unknown --format %q for checks (want text or json)", format)
		},
	}
	cmd.Flags().StringVar(&format, "format", "text", "output format: text or json")
	cmd.Flags().StringArrayVar(&families, "family", nil, "list only the checks of this family (repeatable)")
	return cmd
}

// rulesOf is the metadata of the registry's checks, in its order, of the
// families named, or of all when none is; a family no check belongs to is
// a usage error, with the nearest name.
func rulesOf(reg *checks.Registry, families []string) ([]finding.RuleInfo, error) {
	known := checks.FamilyNames()
	for _, f := range families {
		if slices.Contains(known, f) {
			continue
		}
		hint := ""
		if s := config.Suggest(f, known); s != "" {
			hint = fmt.Sprintf("; did you mean %q?", s)
		}
		return nil, usageError("--family: unknown family %q%s (want one of %s)", f, hint, strings.Join(known, ", "))
	}
	rules := []finding.RuleInfo{}
	for _, c := range reg.All() {
		m := c.Meta()
		if len(families) == 0 || slices.Contains(families, string(m.Family)) {
			rules = append(rules, checks.RuleInfo(m))
		}
	}
	return rules, nil
}

// fitWidth is the width checks and explain fit: the terminal's when stdout
// is one, else helpColumns, the width help is written for.
func fitWidth(e *env) int {
	if isTerminal(e.stdout) {
		return termWidth(e.stdout)
	}
	return helpColumns
}

// terminalText is the terminal reporter for what a command prints on
// stdout, in colour when stdout is a terminal and NO_COLOR is not set.
func terminalText(e *env, width int) *text.Reporter {
	return text.New(text.Options{Color: e.get("NO_COLOR") == "" && isTerminal(e.stdout), Width: width})
}

func newExplainCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:         "explain ID",
		Short:       "Explain one check: why it matters, its clause, how to fix it",
		Example:     "  agentready explain vary-accept",
		Args:        cobra.ExactArgs(1),
		Annotations: map[string]string{usesConfig: "true"},
		RunE: func(cmd *cobra.Command, args []string) error {
			reg, err := e.registry()
			if err != nil {
				return err
			}
			rule, preface, err := explain(reg, args[0])
			if err != nil {
				return err
			}
			// Prose reads best at most helpColumns wide, however wide the
			// terminal.
			return e.page("text", func(w io.Writer) error {
				return terminalText(e, min(fitWidth(e), helpColumns)).WriteRule(w, rule, preface)
			})
		},
	}
}

// explain finds the check id names: by its ID, or by a former one, which
// leads to the check as renamed, and a preface that says so.
func explain(reg *checks.Registry, id string) (rule finding.RuleInfo, preface string, err error) {
	if c, ok := reg.Get(id); ok {
		return checks.RuleInfo(c.Meta()), "", nil
	}
	if c, ok := reg.Renamed(id); ok {
		m := c.Meta()
		return checks.RuleInfo(m), fmt.Sprintf("%s was renamed %s; overrides, ignores and baselines that name %s apply to it.", id, m.ID, id), nil
	}
	hint := ""
	if s := reg.Suggest(id); s != "" {
		hint = fmt.Sprintf("; did you mean %q?", s)
	}
	return finding.RuleInfo{}, "", usageError("unknown check %q%s (see 'agentready checks')", id, hint)
}
