package text

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/report/internal/view"
)

// Bounds on the cells of the tool table, so that one long name or schema
// does not push every other row off the screen.
const (
	maxToolName   = 60
	maxToolSchema = 80
)

// WriteMCP renders what `agentready mcp` learnt of an MCP endpoint: the
// revision verdict and the steps it rests on, then the tool catalog with
// each tool's effective hints, schema summary, fingerprint and token count.
// Versions, reasons, tool names and schemas come from the endpoint, so each
// is made one bounded line before it is printed (sanitize.Line folds tabs
// too, which would open a column of their own): a tool name cannot start a
// line of its own, and a version cannot carry an escape sequence.
func WriteMCP(w io.Writer, info *finding.MCPInfo) error {
	era := info.Era
	if era == "" {
		era = "not determined"
	}
	fmt.Fprintf(w, "MCP endpoint  %s\n", clean(info.Endpoint))
	fmt.Fprintf(w, "Revision      %s", clean(era))
	if v := clean(info.Version); v != "" {
		fmt.Fprintf(w, " (%s)", v)
	}
	if info.FellBack {
		fmt.Fprint(w, ", after falling back to initialize")
	}
	fmt.Fprintln(w)
	if len(info.SupportedVersions) > 0 {
		fmt.Fprintf(w, "Supported     %s\n", clean(strings.Join(info.SupportedVersions, ", ")))
	}
	if refused := clean(info.Refused); refused != "" {
		fmt.Fprintf(w, "Refused       %s (no fallback)\n", refused)
	}
	fmt.Fprintf(w, "Reason        %s\n\nSteps\n", clean(info.Reason))
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, st := range info.Steps {
		status := "-"
		if st.Status != 0 {
			status = fmt.Sprintf("HTTP %d", st.Status)
		}
		code := ""
		if st.RPCCode != 0 {
			code = fmt.Sprint(st.RPCCode)
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s: %s\n", clean(st.Method), status, code, clean(st.Meaning), clean(st.Why))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if info.CatalogFingerprint != "" {
		fmt.Fprintf(w, "\nTools (%d, %d tokens by %s)\nCatalog fingerprint %s\n", len(info.Tools), info.Tokens, clean(info.Tokenizer), clean(info.CatalogFingerprint))
		tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		for _, t := range info.Tools {
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%d tokens\n", view.Line(t.Name, maxToolName), hintLabel(t),
				view.Line(t.Schema, maxToolSchema), clean(shortFingerprint(t.Fingerprint)), t.Tokens)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	for _, n := range info.Notes {
		fmt.Fprintf(w, "Note: %s\n", clean(n))
	}
	return nil
}

// hintLabel shows a tool's effective hints, the protocol's defaults
// applied: a tool that says nothing is taken to write.
func hintLabel(t finding.MCPTool) string {
	var parts []string
	if t.ReadOnly {
		parts = append(parts, "read-only")
	} else {
		if t.Destructive {
			parts = append(parts, "destructive")
		}
		if t.Idempotent {
			parts = append(parts, "idempotent")
		}
	}
	if t.OpenWorld {
		parts = append(parts, "open-world")
	}
	if len(parts) == 0 {
		return "[writes]"
	}
	return "[" + strings.Join(parts, " ") + "]"
}

// shortFingerprint keeps the algorithm and 16 hex digits of a fingerprint:
// enough to tell two tools apart at a glance; the JSON output has it whole.
func shortFingerprint(fp string) string {
	if len(fp) > len("sha256:")+16 {
		return fp[:len("sha256:")+16]
	}
	return fp
}
