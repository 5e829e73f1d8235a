package text

import (
	"fmt"
	"strings"

	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/report/internal/view"
)

// interfaces prints what each interface costs an agent: one row per
// interface, then one line per resource kind and state.
func (p *printer) interfaces(r *finding.Report) {
	s := r.Interfaces
	if s == nil {
		return
	}
	p.heading("Interfaces")
	p.wrapped(2, 4, fmt.Sprintf("catalog: %s; tokens: %s; medians over %d %s with an operation to choose",
		cmp(clean(s.Catalog), "none"), cmp(clean(s.Tokenizer), "not counted"), s.Resources, view.Plural(s.Resources, "resource", "resources")))
	rows := [][]string{append([]string{"interface"}, finding.InterfaceColumns...)}
	for _, c := range s.Entries {
		rows = append(rows, append([]string{finding.InterfaceLetter(c.Interface) + " " + c.Interface}, finding.InterfaceRow(c)...))
	}
	widths := make([]int, len(rows[0]))
	for _, row := range rows {
		// A row saying "not offered" has two cells; its last is not aligned.
		for i, cell := range row[:len(row)-1] {
			widths[i] = max(widths[i], len([]rune(cell)))
		}
	}
	for _, row := range rows {
		var b strings.Builder
		for i, cell := range row {
			if i < len(row)-1 {
				cell += strings.Repeat(" ", widths[i]-len([]rune(cell))+2)
			}
			b.WriteString(cell)
		}
		p.wrapped(4, 4, strings.TrimRight(b.String(), " "))
	}
	for _, k := range s.Kinds {
		var parts []string
		for _, c := range k.Entries {
			parts = append(parts, finding.InterfaceLetter(c.Interface)+" "+finding.KindSummary(c))
		}
		state := ""
		if k.State != "" {
			state = " " + clean(k.State)
		}
		p.wrapped(2, 4, fmt.Sprintf("%s%s (%d): %s", clean(k.Kind), state, k.Resources, strings.Join(parts, "; ")))
	}
}

// cmp is s, or the fallback when s is empty.
func cmp(s, fallback string) string {
	if s == "" {
		return fallback
	}
	return s
}
