package text

import (
	"fmt"
	"strings"

	"charm.land/lipgloss/v2"

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
		view.NonEmpty(clean(s.Catalog), "none"), view.NonEmpty(clean(s.Tokenizer), "not counted"), s.Resources, view.Plural(s.Resources, "resource", "resources")))
	// Each header breaks after its first word or slash, so that the table
	// fits 80 columns.
	header := []string{"interface"}
	for _, h := range finding.InterfaceColumns {
		h = strings.Replace(h, " ", "\n", 1)
		header = append(header, strings.Replace(h, "/", "/\n", 1))
	}
	var rows, notOffered [][]string
	nameWidth := len(header[0])
	for _, c := range s.Entries {
		name := finding.InterfaceLetter(c.Interface) + " " + clean(c.Interface)
		nameWidth = max(nameWidth, lipgloss.Width(name))
		if !c.Offered {
			notOffered = append(notOffered, []string{name, clean(finding.InterfaceRow(c)[0])})
			continue
		}
		rows = append(rows, append([]string{name}, finding.InterfaceRow(c)...))
	}
	for _, row := range rows {
		row[0] = pad(row[0], nameWidth) // aligned with the lines below
	}
	if len(rows) > 0 && !p.grid(4, grid{header: header, rows: rows, whole: true}) {
		for _, row := range rows {
			var cells []string
			for i, cell := range row[1:] {
				cells = append(cells, finding.InterfaceColumns[i]+" "+cell)
			}
			p.wrapped(4, 4, strings.TrimRight(row[0], " ")+": "+strings.Join(cells, ", "))
		}
	}
	// An interface not offered says why under the table, the reason where
	// the figures would be.
	for _, row := range notOffered {
		p.wrapped(4, nameWidth+columnGap, pad(row[0], nameWidth+columnGap)+row[1])
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
