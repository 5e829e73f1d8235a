package text

import (
	"fmt"
	"strings"

	"github.com/agentready/agentready/internal/finding"
)

// surface prints the operation × projection matrix. Without Verbose it is
// one line per projection, counting the operations it names, since the
// matrix of an API of any size fills screens (the JSON and HTML reports
// hold it whole); with Verbose, a table when it fits the width, else one
// wrapped line per operation. Projections that were not assessed are
// listed with their reason instead of as empty columns, and operations the
// scanned caller may not call are listed with theirs, their per-caller
// cells reading notForCaller instead of "—".
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
	if !p.opts.Verbose {
		p.surfaceCounts(m, cols)
		return
	}
	if !p.surfaceTable(m, cols) {
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

// surfaceCounts prints, for each assessed projection, how many of the
// matrix's operations it names, and how many it could not be judged on
// because the scanned caller may not call them.
func (p *printer) surfaceCounts(m *finding.SurfaceMatrix, cols []int) {
	outside := 0
	for _, row := range m.Rows {
		if !row.InOpenAPI {
			outside++
		}
	}
	lead := fmt.Sprintf("%d operations", len(m.Rows))
	if outside > 0 {
		lead += fmt.Sprintf(" (%d outside OpenAPI)", outside)
	}
	p.wrapped(2, 4, lead+"; how many each projection names (-v: which)")
	rows := make([][]string, 0, len(cols))
	for _, c := range cols {
		named, notAssessed := 0, 0
		for _, row := range m.Rows {
			switch {
			case m.NotAssessedForCaller(row, c):
				notAssessed++
			case c < len(row.Names) && len(row.Names[c]) > 0:
				named++
			}
		}
		detail := ""
		if notAssessed > 0 {
			detail = fmt.Sprintf("%d %s", notAssessed, notForCaller)
		}
		rows = append(rows, []string{clean(m.Projections[c].Name), fmt.Sprintf("%d of %d", named, len(m.Rows)), detail})
	}
	if !p.grid(4, grid{rows: rows}) {
		for _, row := range rows {
			p.wrapped(4, 4, strings.TrimSuffix(row[0]+": "+row[1]+"; "+row[2], "; "))
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

// surfaceTable prints the matrix, or reports that it does not fit.
func (p *printer) surfaceTable(m *finding.SurfaceMatrix, cols []int) bool {
	header := []string{"operation"}
	for _, c := range cols {
		header = append(header, clean(m.Projections[c].Name))
	}
	rows := make([][]string, len(m.Rows))
	for i, row := range m.Rows {
		rows[i] = []string{surfaceLabel(row)}
		for _, c := range cols {
			rows[i] = append(rows[i], cell(m, row, c))
		}
	}
	return p.grid(2, grid{header: header, rows: rows, whole: true})
}
