package text

import (
	"fmt"
	"strings"

	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/report/internal/view"
)

// shownHotspots is how many hotspot operations the terminal lists; the
// JSON report keeps up to finding.MaxHotspots.
const shownHotspots = 5

// readiness prints the document's own readiness grade beside the report's,
// and the operations with the most deductions, which are where to start.
func (p *printer) readiness(r *finding.Report) {
	rd := r.Readiness
	if rd == nil {
		return
	}
	p.blank()
	p.wrapped(2, 4, fmt.Sprintf("Document readiness %s  (%d/100)  %d %s in %d of %d %s",
		gradeLabel(clean(rd.Score.Grade)), rd.Score.Value, rd.Deductions, view.Plural(rd.Deductions, "deduction", "deductions"),
		rd.Deducted, rd.Operations, view.Plural(rd.Operations, "operation", "operations")))
	if len(rd.Hotspots) == 0 {
		return
	}
	p.wrapped(2, 4, "Hotspots (most deductions first):")
	width := 0
	for _, h := range rd.Hotspots[:min(len(rd.Hotspots), shownHotspots)] {
		width = max(width, len(fmt.Sprint(h.Deductions)))
	}
	for _, h := range rd.Hotspots[:min(len(rd.Hotspots), shownHotspots)] {
		ids := make([]string, len(h.Checks))
		for i, id := range h.Checks {
			ids[i] = strings.TrimPrefix(clean(id), "openapi-hal-")
		}
		// The file is the report's document: its line is enough.
		at := ""
		if h.Location != nil {
			at = fmt.Sprintf(" (line %d)", h.Location.Line)
		}
		p.wrapped(4, width+2, fmt.Sprintf("%*d  %s%s: %s", width, h.Deductions, clean(h.Operation), at, strings.Join(ids, ", ")))
	}
	if more := rd.Deducted - min(len(rd.Hotspots), shownHotspots); more > 0 {
		p.wrapped(4, 4, fmt.Sprintf("… and %d more %s with deductions", more, view.Plural(more, "operation", "operations")))
	}
}
