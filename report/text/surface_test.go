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

func TestSurfaceTableAndFallback(t *testing.T) {
	for _, width := range []int{100, 30} {
		var b strings.Builder
		if err := New(Options{Width: width}).Write(&b, surfaceReport()); err != nil {
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

func TestNoSurfaceNoSection(t *testing.T) {
	var b strings.Builder
	if err := New(Options{Width: 80}).Write(&b, &finding.Report{}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "Surface") {
		t.Error("empty report printed a Surface section")
	}
}
