package text

import (
	"fmt"
	"slices"
	"strings"

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
		if p.stateTable(m) {
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

// stateTable prints the matrix, or reports that it does not fit.
func (p *printer) stateTable(m finding.StateMatrix) bool {
	header := []string{""}
	for _, s := range m.States {
		header = append(header, clean(s))
	}
	rows := make([][]string, len(m.Controls))
	for i, c := range m.Controls {
		rows[i] = []string{clean(c.Type) + " " + clean(c.Name)}
		for _, s := range m.States {
			mark := markAbsent
			if slices.Contains(c.OfferedIn, s) {
				mark = styleGood.Render(markOffered)
			}
			rows[i] = append(rows[i], mark)
		}
	}
	return p.grid(4, grid{header: header, rows: rows, whole: true})
}

func cleanJoin(ss []string) string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = clean(s)
	}
	return strings.Join(out, ", ")
}
