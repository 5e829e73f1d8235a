package cli

import (
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/agentready/agentready/checks"
)

func newChecksCmd(e *env) *cobra.Command {
	var format string
	cmd := &cobra.Command{
		Use:   "checks",
		Short: "List every check: ID, family, severity, title",
		Example: `  agentready checks
  agentready checks --format json`,
		Args:        cobra.NoArgs,
		Annotations: map[string]string{usesConfig: "true"},
		RunE: func(cmd *cobra.Command, _ []string) error {
			reg, err := e.registry()
			if err != nil {
				return err
			}
			switch format {
			case "text":
				return listChecksText(e, reg)
			case "json":
				return listChecksJSON(e, reg)
			}
			return usageError("unknown --format %q for checks (want text or json)", format)
		},
	}
	cmd.Flags().StringVar(&format, "format", "text", "output format: text or json")
	return cmd
}

func listChecksText(e *env, reg *checks.Registry) error {
	tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tFAMILY\tSEVERITY\tTITLE")
	for _, c := range reg.All() {
		m := c.Meta()
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", m.ID, m.Family, m.Severity, m.Title)
	}
	return tw.Flush()
}

func listChecksJSON(e *env, reg *checks.Registry) error {
	var rules []any
	for _, c := range reg.All() {
		rules = append(rules, checks.RuleInfo(c.Meta()))
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
			text, err := explain(reg, args[0])
			if err != nil {
				return err
			}
			_, err = fmt.Fprint(e.stdout, text)
			return err
		},
	}
}

// explain is the explanation of the check id names: its ID, or a former
// one, which leads to the check as renamed and says so.
func explain(reg *checks.Registry, id string) (string, error) {
	if c, ok := reg.Get(id); ok {
		return explainText(c.Meta()), nil
	}
	if c, ok := reg.Renamed(id); ok {
		m := c.Meta()
		return fmt.Sprintf("%s was renamed %s; overrides, ignores and baselines that name %s apply to it.\n\n", id, m.ID, id) + explainText(m), nil
	}
	hint := ""
	if s := reg.Suggest(id); s != "" {
		hint = fmt.Sprintf("; did you mean %q?", s)
	}
	return "", usageError("unknown check %q%s (see 'agentready checks')", id, hint)
}

func explainText(m checks.Meta) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s — %s\n\n", m.ID, m.Title)
	fmt.Fprintf(&b, "Family:   %s\nSeverity: %s\n", m.Family, m.Severity)
	if m.Security {
		b.WriteString("Security: yes\n")
	}
	b.WriteString("Clauses:\n")
	for _, r := range m.SpecRefs {
		level := ""
		if r.Level != "" {
			level = " (" + r.Level + ")"
		}
		fmt.Fprintf(&b, "  - %s%s  %s\n", r, level, r.URL)
	}
	fmt.Fprintf(&b, "\n%s\n\nDocs: %s\n", strings.TrimSpace(m.Help), m.DocsURL())
	return b.String()
}
