package view

import (
	"fmt"
	"strconv"

	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
)

// TrialColumns head the trial's table of players, after the player's
// letter and interface.
var TrialColumns = []string{"tasks", "completed", "wrong state", "refused", "requests", "tokens read"}

// TrialPlayerRow is one player's figures, in TrialColumns order.
func TrialPlayerRow(p finding.TrialPlayer) []string {
	return []string{strconv.Itoa(p.Tasks), strconv.Itoa(p.Completed), strconv.Itoa(p.WrongState), strconv.Itoa(p.Refused), strconv.Itoa(p.Requests), strconv.Itoa(p.Tokens)}
}

// TrialCaption says how the trial was played: how the target was reset and
// how tokens were counted, or that it was planned only.
func TrialCaption(t *finding.Trials) string {
	if t.PlanOnly {
		return fmt.Sprintf("planned only (--trial-plan): %d tasks, nothing sent; between runs the target would be reset by %s", len(t.Tasks), exchange.ResetWords(t.Reset))
	}
	return fmt.Sprintf("%d tasks; between runs the target was reset by %s; tokens: %s", len(t.Tasks), exchange.ResetWords(t.Reset), NonEmpty(t.Tokenizer, "not counted"))
}

// TrialTaskLine is one task with each player's outcome: "cancelOrder on
// /orders/{id} pending → cancelled: A completed (mcp), B refused (http)",
// the arrow only where the API declares the state the operation leads to.
func TrialTaskLine(t finding.TrialTask) (what string, runs []string) {
	what = fmt.Sprintf("%s on %s %s", t.Operation, t.Kind, exchange.StateWords(t.State))
	if t.Target != "" {
		what += " → " + t.Target
	}
	for _, r := range t.Runs {
		line := fmt.Sprintf("%s %s (%s)", r.Player, r.Outcome, r.Via)
		if r.Created != "" {
			line += fmt.Sprintf(", created %s, %s", exchange.PathOf(r.Created), r.Cleanup)
		}
		runs = append(runs, line)
	}
	return what, runs
}

// TrialCleanup totals what the trial created and what became of it:
// "created 2, cleaned 1, left 1"; "" when it created nothing.
func TrialCleanup(t *finding.Trials) string {
	if t.Created == 0 {
		return ""
	}
	return fmt.Sprintf("created %d, cleaned %d, left %d", t.Created, t.Cleaned, t.Left)
}

// TrialLeftLines list what the trial created and left, for the user to
// remove: "http://api/items/4 (task 1, A): the allow-list does not name
// DELETE /items/{item_id}".
func TrialLeftLines(t *finding.Trials) []string {
	var out []string
	for _, l := range t.LeftBehind {
		out = append(out, fmt.Sprintf("%s (task %d, %s): %s", l.URL, l.Task, l.Player, l.Why))
	}
	return out
}
