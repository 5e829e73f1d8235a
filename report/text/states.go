package text

import (
	"fmt"
	"strings"

	"charm.land/lipgloss/v2"

	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/report/internal/view"
)

// Marks of the state matrix: plain ASCII, so that the table survives any
// terminal and a copy into an issue.
const (
	markOffered = "x"
	markAbsent  = "-"
)

// states prints, per resource kind, which controls were offered in which
// observed state. It is a table when it fits the width and one line per
// control otherwise.
func (p *printer) states(r *finding.Report) {
	if len(r.States) == 0 {
		return
	}
	p.heading("States")
	for _, m := range r.States {
		p.wrapped(2, 4, fmt.Sprintf("%s — %d %s by %q",
			clean(m.Kind), m.Resources, view.Plural(m.Resources, "resource", "resources"), clean(m.Member)))
		if len(m.Controls) == 0 {
			p.wrapped(4, 2, styleDim.Render("no controls offered in "+cleanJoin(m.States)))
			continue
		}
		if rows, ok := p.stateTable(m); ok {
			for _, row := range rows {
				p.raw(4, row)
			}
			continue
		}
		for _, c := range m.Controls {
			offered := "none of the observed states"
			if len(c.OfferedIn) > 0 {
				offered = cleanJoin(c.OfferedIn)
			}
			p.wrapped(4, 4, clean(c.Type)+" "+clean(c.Name)+": "+offered)
		}
	}
}

// stateTable renders the matrix, or reports that it does not fit.
func (p *printer) stateTable(m finding.StateMatrix) ([]string, bool) {
	labels := make([]string, len(m.Controls))
	labelWidth := 0
	for i, c := range m.Controls {
		labels[i] = clean(c.Type) + " " + clean(c.Name)
		labelWidth = max(labelWidth, lipgloss.Width(labels[i]))
	}
	labelWidth += columnGap
	states := make([]string, len(m.States))
	widths := make([]int, len(m.States))
	total := 4 + labelWidth
	for i, s := range m.States {
		states[i] = clean(s)
		widths[i] = max(lipgloss.Width(states[i]), 1) + columnGap
		total += widths[i]
	}
	if total > p.opts.Width {
		return nil, false
	}
	header := pad("", labelWidth)
	for i, s := range states {
		header += pad(s, widths[i])
	}
	rows := []string{styleHeading.Render(strings.TrimRight(header, " "))}
	for i, c := range m.Controls {
		offered := map[string]bool{}
		for _, s := range c.OfferedIn {
			offered[s] = true
		}
		row := pad(labels[i], labelWidth)
		for j, s := range m.States {
			mark := markAbsent
			if offered[s] {
				mark = styleGood.Render(markOffered)
			}
			row += pad(mark, widths[j])
		}
		rows = append(rows, strings.TrimRight(row, " "))
	}
	return rows, true
}

func cleanJoin(ss []string) string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = clean(s)
	}
	return strings.Join(out, ", ")
}
