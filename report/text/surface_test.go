package text

import (
	"strings"
	"testing"

	"github.com/agentready/agentready/internal/finding"
)

func surfaceReport() *finding.Report {
	return &finding.Report{Surface: &finding.SurfaceMatrix{
		Projections: []finding.SurfaceProjection{
			{Name: "OpenAPI", Assessed: true}, {Name: "MCP tools", Reason: "no MCP endpoint was found or named"},
			{Name: "llms.txt", Assessed: true}, {Name: "hypermedia", Assessed: true, PerCaller: true},
		},
		Rows: []finding.SurfaceRow{
			{Operation: "POST /orders/{id}/payment", InOpenAPI: true, Names: [][]string{{"payOrder"}, nil, {"payOrders"}, nil}},
			{Operation: "POST /orders/{id}/refund", InOpenAPI: true, Names: [][]string{{"refundOrder"}, nil, {"refundOrder"}, nil}, NotForCaller: "needs admin"},
			{Operation: "POST /r", Names: [][]string{nil, nil, {"refund\x1b[31m"}, nil}},
		},
	}}
}

// TestSurfaceTableAndFallback: with -v, the whole matrix, as a table or
// one line per operation.
func TestSurfaceTableAndFallback(t *testing.T) {
	for _, width := range []int{100, 30} {
		var b strings.Builder
		if err := New(Options{Width: width, Verbose: true}).Write(&b, surfaceReport()); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		for _, want := range []string{"Surface", "MCP tools not compared: no MCP endpoint", "payOrders", "POST /r (not in OpenAPI)",
			"n/a", "POST /orders/{id}/refund: not assessed for this caller (needs admin)"} {
			if !strings.Contains(strings.Join(strings.Fields(out), " "), want) {
				t.Errorf("width %d: output lacks %q:\n%s", width, want, out)
			}
		}
		if strings.Contains(out, "\x1b[31m") {
			t.Errorf("width %d: control sequence from the report reached the terminal", width)
		}
	}
}

// TestSurfaceCounts: without -v, one line per projection counts the
// operations it names, with those not assessed for the caller apart, at a
// width that fits the counts beside the names and at one that does not.
func TestSurfaceCounts(t *testing.T) {
	for _, width := range []int{80, 24} {
		var b strings.Builder
		if err := New(Options{Width: width}).Write(&b, surfaceReport()); err != nil {
			t.Fatal(err)
		}
		out := strings.Join(strings.Fields(b.String()), " ")
		counts := []string{"OpenAPI: 2 of 3", "llms.txt: 3 of 3", "hypermedia: 0 of 3; 1 not assessed for this caller"}
		if width == 80 {
			counts = []string{"OpenAPI 2 of 3", "llms.txt 3 of 3", "hypermedia 0 of 3 1 not assessed for this caller"}
		}
		for _, want := range append(counts, "3 operations (1 outside OpenAPI); how many each projection names (-v: which)", "MCP tools not compared: no MCP endpoint") {
			if !strings.Contains(out, want) {
				t.Errorf("width %d: output lacks %q:\n%s", width, want, b.String())
			}
		}
		for _, detail := range []string{"payOrders", "needs admin", "POST /r"} {
			if strings.Contains(out, detail) {
				t.Errorf("width %d: without -v the section names %q:\n%s", width, detail, b.String())
			}
		}
	}
}

func TestNoSurfaceNoSection(t *testing.T) {
	var b strings.Builder
	if err := New(Options{Width: 80}).Write(&b, &finding.Report{}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "Surface") {
		t.Error("empty report printed a Surface section")
	}
}
