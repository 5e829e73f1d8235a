// Package docs renders docs/checks.md from the checks' metadata, so the
// documentation cannot drift from the code: a test fails when it is stale,
// and .ci/regenerate rewrites it.
package docs

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/agentready/agentready/checks"
)

// ChecksMarkdown renders the reference of every check, grouped by family,
// with one stable anchor per check ID.
func ChecksMarkdown(reg *checks.Registry) []byte {
	var b bytes.Buffer
	b.WriteString("# Checks\n\n")
	b.WriteString("<!-- Generated from the checks' metadata by `.ci/regenerate`; do not edit. -->\n\n")
	b.WriteString("Every check has a stable ID that never changes once released. Severity follows the clause:\n")
	b.WriteString("MUST and MUST NOT give `error`, SHOULD gives `warning`, and agent-readiness advice that no\n")
	b.WriteString("standard requires gives `info`. `agentready explain ID` prints the same text.\n\n")
	byFamily := map[checks.Family][]checks.Meta{}
	for _, c := range reg.All() {
		m := c.Meta()
		byFamily[m.Family] = append(byFamily[m.Family], m)
	}
	b.WriteString("| ID | Family | Severity | Title |\n| --- | --- | --- | --- |\n")
	for _, f := range checks.Families {
		for _, m := range byFamily[f] {
			fmt.Fprintf(&b, "| [`%s`](#%s) | %s | %s | %s |\n", m.ID, m.ID, m.Family, m.Severity, m.Title)
		}
	}
	for _, f := range checks.Families {
		if len(byFamily[f]) == 0 {
			continue
		}
		fmt.Fprintf(&b, "\n## Family `%s`\n", f)
		for _, m := range byFamily[f] {
			writeCheck(&b, m)
		}
	}
	return b.Bytes()
}

func writeCheck(b *bytes.Buffer, m checks.Meta) {
	fmt.Fprintf(b, "\n<a id=\"%s\"></a>\n### `%s`\n\n", m.ID, m.ID)
	fmt.Fprintf(b, "**%s** · severity `%s`", m.Title, m.Severity)
	if m.Security {
		b.WriteString(" · security")
	}
	b.WriteString("\n\nClauses:\n")
	for _, r := range m.SpecRefs {
		level := ""
		if r.Level != "" {
			level = " (" + r.Level + ")"
		}
		fmt.Fprintf(b, "- [%s](%s)%s\n", r, r.URL, level)
	}
	fmt.Fprintf(b, "\n%s\n", strings.TrimSpace(m.Help))
}
