package markdown

import (
	"fmt"
	"strings"

	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/report/internal/view"
)

// trials writes what a trial measured as a table of players, the tasks
// folded below it.
func (d *doc) trials(r *finding.Report) {
	t := r.Trials
	if t == nil || d.cut {
		return
	}
	d.add(fmt.Sprintf("### Trials\n\n%s.\n\n", text(view.TrialCaption(t), 300)))
	if !t.PlanOnly {
		d.add("| Player | " + strings.Join(view.TrialColumns, " | ") + " |\n| --- |" + strings.Repeat(" ---: |", len(view.TrialColumns)) + "\n")
		for _, p := range t.Players {
			d.add(fmt.Sprintf("| %s %s | %s |\n", text(p.Player, 10), text(p.Interface, 20), strings.Join(view.TrialPlayerRow(p), " | ")))
		}
		d.add("\n")
	}
	if c := view.TrialCleanup(t); c != "" {
		d.add("Resources the trial created: " + text(c, 100) + ".\n\n")
		for _, l := range view.TrialLeftLines(t) {
			if !d.add("- left: " + text(l, maxField) + "\n") {
				break
			}
		}
		d.add("\n")
	}
	if len(t.Tasks) == 0 {
		return
	}
	d.add("<details><summary>Per task</summary>\n\n| Task | Runs |\n| --- | --- |\n")
	for _, task := range t.Tasks {
		what, runs := view.TrialTaskLine(task)
		if !d.add("| " + text(what, maxField) + " | " + text(strings.Join(runs, "; "), maxField) + " |\n") {
			break
		}
	}
	d.must("\n</details>\n\n")
}
