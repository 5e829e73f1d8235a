package text

import (
	"cmp"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/report/internal/view"
)

// checks summarises how every check ended. An errored check is always
// named with its reason, since it says what the grade lacks; skipped checks
// are counted by reason, most common first, and named one by one only with
// Verbose (the JSON report and the document formats name each).
func (p *printer) checks(r *finding.Report) {
	if len(r.Checks) == 0 {
		return
	}
	results := append([]finding.CheckResult(nil), r.Checks...)
	sort.SliceStable(results, func(i, j int) bool { return results[i].ID < results[j].ID })

	p.heading("Checks")
	n := view.Summarize(r)
	p.wrapped(2, 2, fmt.Sprintf("%d run: %d passed, %d failed, %d skipped, %d errored",
		n.Total, n.Passed, n.Failed, n.Skipped, n.Errored))

	var listed []finding.CheckResult
	for _, c := range results {
		if p.opts.Verbose || c.Status == finding.StatusError {
			listed = append(listed, c)
		}
	}
	if !p.opts.Verbose && n.Skipped > 0 {
		p.skipReasons(results)
	}
	rows := make([][]string, len(listed))
	for i, c := range listed {
		detail := clean(c.Reason)
		if c.Status == finding.StatusFail {
			detail = view.FailedDetail(c)
		}
		rows[i] = []string{statusLabel(c.Status), clean(c.ID), detail}
	}
	if !p.grid(2, grid{rows: rows}) {
		// Too narrow for a reason beside the longest ID: each below its ID.
		for _, row := range rows {
			p.wrapped(2, 2, row[0]+"  "+row[1])
			if row[2] != "" {
				p.wrapped(4, 2, row[2])
			}
		}
	}
}

// maxSkipReasons is how many reasons for skipping are counted without -v:
// a scan of a plain web server skips most checks, for dozens of reasons.
const maxSkipReasons = 8

// skipReason is one reason checks were skipped for, and how many were.
type skipReason struct {
	reason string
	count  int
}

// skipReasons counts the skipped checks by reason: a scan without an
// OpenAPI document or an MCP endpoint skips dozens for one reason each.
func (p *printer) skipReasons(results []finding.CheckResult) {
	counts := map[string]int{}
	for _, c := range results {
		if c.Status == finding.StatusSkip {
			counts[view.NonEmpty(clean(c.Reason), "no reason given")]++
		}
	}
	reasons := make([]skipReason, 0, len(counts))
	for reason, n := range counts {
		reasons = append(reasons, skipReason{reason, n})
	}
	slices.SortFunc(reasons, func(a, b skipReason) int {
		return cmp.Or(cmp.Compare(b.count, a.count), strings.Compare(a.reason, b.reason))
	})
	p.wrapped(2, 2, "skipped, by reason (-v names each check):")
	shown := reasons[:min(len(reasons), maxSkipReasons)]
	rows := make([][]string, len(shown))
	for i, r := range shown {
		rows[i] = []string{fmt.Sprint(r.count), styleDim.Render(r.reason)}
	}
	p.grid(4, grid{rows: rows, right: map[int]bool{0: true}})
	if rest := reasons[len(shown):]; len(rest) > 0 {
		n := 0
		for _, r := range rest {
			n += r.count
		}
		p.wrapped(4, 2, fmt.Sprintf("… and %d more for %d other %s", n, len(rest), view.Plural(len(rest), "reason", "reasons")))
	}
}
