package text

import (
	"fmt"

	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/report/internal/view"
)

// maxUnreached is how many unreached operations are listed without
// --verbose; a large document can declare hundreds.
const maxUnreached = 20

// unreached lists the document's GET operations the scan did not reach,
// each with its reason, so that a low coverage says what to supply.
func (p *printer) unreached(r *finding.Report) {
	ops := view.Unreached(r)
	if len(ops) == 0 {
		return
	}
	p.heading("GET operations not reached")
	for i, op := range ops {
		if i == maxUnreached && !p.opts.Verbose {
			p.wrapped(2, 4, fmt.Sprintf("… and %d more (-v lists them all; the JSON report has each one)", len(ops)-i))
			break
		}
		line := clean(op.Method) + " " + clean(op.Path) + "  " + styleDim.Render(clean(op.Reason))
		if op.Status != 0 {
			line += styleDim.Render(fmt.Sprintf(" (answered %d)", op.Status))
		}
		p.wrapped(2, 4, line)
	}
}
