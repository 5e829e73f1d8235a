package text

import (
	"fmt"
	"strings"
	"testing"

	"github.com/agentready/agentready/internal/finding"
)

// The readiness line and at most five hotspots, most deductions first as
// the report orders them, with what the others add up to; an operation
// path from the document cannot reach the terminal as a control sequence.
func TestReadinessShowsFiveHotspots(t *testing.T) {
	rd := &finding.Readiness{Score: finding.Score{Value: 80, Grade: "B+"}, Deductions: 12, Deducted: 7, Operations: 9}
	for i := range 7 {
		rd.Hotspots = append(rd.Hotspots, finding.Hotspot{Operation: fmt.Sprintf("GET /r%d", i), Deductions: 7 - i,
			Checks: []string{"openapi-hal-errors-undeclared"}, Location: &finding.SourceLocation{File: "o.yaml", Line: 10 + i}})
	}
	rd.Hotspots[0].Operation = "GET /\x1b[31mred"
	var b strings.Builder
	if err := New(Options{Width: 80}).Write(&b, &finding.Report{Readiness: rd}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"Document readiness B+  (80/100)  12 deductions in 7 of 9 operations",
		"7  GET /", "(line 10): errors-undeclared", "3  GET /r4 (line 14)", "… and 2 more operations with deductions"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "GET /r5") || strings.Contains(out, "\x1b[31m") {
		t.Errorf("a sixth hotspot, or a control sequence, reached the terminal:\n%s", out)
	}
}
