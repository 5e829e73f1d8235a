package text

import (
	"strings"

	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/report/internal/view"
)

// trials prints what a trial measured: one row per player, then one line
// per task with each player's outcome.
func (p *printer) trials(r *finding.Report) {
	t := r.Trials
	if t == nil {
		return
	}
	p.heading("Trials")
	p.wrapped(2, 4, clean(view.TrialCaption(t)))
	if !t.PlanOnly {
		header := append([]string{"player"}, view.TrialColumns...)
		var rows [][]string
		for _, pl := range t.Players {
			rows = append(rows, append([]string{pl.Player + " " + clean(pl.Interface)}, view.TrialPlayerRow(pl)...))
		}
		if !p.grid(4, grid{header: header, rows: rows, whole: true}) {
			for _, row := range rows {
				var cells []string
				for i, cell := range row[1:] {
					cells = append(cells, view.TrialColumns[i]+" "+cell)
				}
				p.wrapped(4, 4, row[0]+": "+strings.Join(cells, ", "))
			}
		}
	}
	for _, task := range t.Tasks {
		what, runs := view.TrialTaskLine(task)
		p.wrapped(2, 4, clean(what)+": "+clean(strings.Join(runs, "; ")))
	}
	if c := view.TrialCleanup(t); c != "" {
		p.wrapped(2, 4, "Resources the trial created: "+c)
		for _, l := range view.TrialLeftLines(t) {
			p.wrapped(4, 6, "left: "+clean(l))
		}
	}
}
