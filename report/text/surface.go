package text

import (
	"strings"

	"charm.land/lipgloss/v2"

	"github.com/agentready/agentready/internal/finding"
)

// surface prints the operation × projection matrix: a table when it fits
// the width, else one wrapped line per operation. Projections that were not
// assessed are listed with their reason instead of as empty columns, and
// operations the scanned caller may not call are listed with theirs under
// the table, their per-caller cells reading notForCaller instead of "—".
func (p *printer) surface(r *finding.Report) {
	m := r.Surface
	if m == nil || len(m.Rows) == 0 {
		return
	}
	p.heading("Surface")
	var cols []int
	for i, proj := range m.Projections {
		if proj.Assessed {
			cols = append(cols, i)
			continue
		}
		p.wrapped(2, 4, styleDim.Render(clean(proj.Name)+" not compared: "+clean(proj.Reason)))
	}
	if rows, ok := p.surfaceTable(m, cols); ok {
		for _, row := range rows {
			p.raw(2, row)
		}
	} else {
		for _, row := range m.Rows {
			var parts []string
			for _, c := range cols {
				parts = append(parts, clean(m.Projections[c].Name)+": "+cell(m, row, c))
			}
			p.wrapped(2, 4, surfaceLabel(row)+" — "+strings.Join(parts, "; "))
		}
	}
	for _, row := range m.Rows {
		if row.NotForCaller != "" {
			p.wrapped(2, 4, styleDim.Render(surfaceLabel(row)+": "+notForCaller+" ("+clean(row.NotForCaller)+")"))
		}
	}
}

// notForCaller stands in a per-caller cell for an operation the scanned
// caller may not call: its absence there is expected, not a gap.
const notForCaller = "not assessed for this caller"

func surfaceLabel(row finding.SurfaceRow) string {
	if row.InOpenAPI {
		return clean(row.Operation)
	}
	return clean(row.Operation) + " (not in OpenAPI)"
}

// cell is the names a projection uses for the row, or "—" for none.
func cell(m *finding.SurfaceMatrix, row finding.SurfaceRow, col int) string {
	if m.NotAssessedForCaller(row, col) {
		return "n/a"
	}
	if col >= len(row.Names) || len(row.Names[col]) == 0 {
		return "—"
	}
	return cleanJoin(row.Names[col])
}

func (p *printer) surfaceTable(m *finding.SurfaceMatrix, cols []int) ([]string, bool) {
	labelWidth := len("operation")
	for _, row := range m.Rows {
		labelWidth = max(labelWidth, lipgloss.Width(surfaceLabel(row)))
	}
	widths := make([]int, len(cols))
	total := 2 + labelWidth + columnGap
	for i, c := range cols {
		widths[i] = lipgloss.Width(clean(m.Projections[c].Name))
		for _, row := range m.Rows {
			widths[i] = max(widths[i], lipgloss.Width(cell(m, row, c)))
		}
		total += widths[i] + columnGap
	}
	if total > p.opts.Width {
		return nil, false
	}
	header := pad("operation", labelWidth+columnGap)
	for i, c := range cols {
		header += pad(clean(m.Projections[c].Name), widths[i]+columnGap)
	}
	rows := []string{strings.TrimRight(styleDim.Render(header), " ")}
	for _, row := range m.Rows {
		line := pad(surfaceLabel(row), labelWidth+columnGap)
		for i, c := range cols {
			line += pad(cell(m, row, c), widths[i]+columnGap)
		}
		rows = append(rows, strings.TrimRight(line, " "))
	}
	return rows, true
}
