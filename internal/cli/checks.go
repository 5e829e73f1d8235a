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
	var static bool
	cmd := &cobra.Command{
		Use:   "checks",
		Short: "List every check: ID, family, severity, title",
		Long: `checks lists every check by family, and says how many of each family
agentready lint runs on documents alone; the others need a live scan.
--static lists only those lint runs.`,
		Example: `  agentready checks
  agentready checks --family vary --family problem-json
  agentready checks --static
  agentready checks --format json`,
		Args:        cobra.NoArgs,
		Annotations: map[string]string{usesConfig: "true"},
		RunE: func(cmd *cobra.Command, _ []string) error {
			reg, err := e.registry()
			if err != nil {
				return err
			}
			cs, err := checksOf(reg, families)
			if err != nil {
				return err
			}
			if static {
				cs = checks.StaticOnly(cs)
			}
			switch format {
			case "text":
				return listChecksText(e, cs)
			case "json":
				return listChecksJSON(e, cs)
			}
			return usageError("unknown --format %q for checks (want text or json)", format)
		},
	}
	cmd.Flags().StringVar(&format, "format", "text", "output format: text or json")
	cmd.Flags().StringArrayVar(&families, "family", nil, "list only the checks of this family (repeatable)")
	cmd.Flags().BoolVar(&static, "static", false, "list only the checks agentready lint runs on documents alone")
	return cmd
}

// checksOf is the registry's checks, in its order, of the families named,
// or all when none is; a family no check belongs to is a usage error, with
// the nearest name.
func checksOf(reg *checks.Registry, families []string) ([]checks.Check, error) {
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
	if len(families) == 0 {
		return reg.All(), nil
	}
	var cs []checks.Check
	for _, c := range reg.All() {
		if slices.Contains(families, string(c.Meta().Family)) {
			cs = append(cs, c)
		}
	}
	return cs, nil
}

// listChecksText lists the checks by family, fitted to the terminal, or to
// 80 columns elsewhere.
func listChecksText(e *env, cs []checks.Check) error {
	var rules []finding.RuleInfo
	for _, c := range cs {
		rules = append(rules, checks.RuleInfo(c.Meta()))
	}
	return e.page("text", func(w io.Writer) error { return terminalText(e, fitWidth(e)).WriteRules(w, rules) })
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

// listedRule is a check as `agentready checks --format json` lists it: as
// a report's rules do, and with the documents lint judges it on.
type listedRule struct {
	finding.RuleInfo
	// Documents are absent for a check that needs a live scan.
	Documents []string `json:"documents,omitempty"`
}

func listChecksJSON(e *env, cs []checks.Check) error {
	rules := []listedRule{}
	for _, c := range cs {
		r := checks.RuleInfo(c.Meta())
		rules = append(rules, listedRule{RuleInfo: r, Documents: r.Documents})
	}
	enc := json.NewEncoder(e.stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(rules)
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
