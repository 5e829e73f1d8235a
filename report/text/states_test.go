package text

import (
	"strings"
	"testing"

	"github.com/agentready/agentready/internal/finding"
)

func statesReport() *finding.Report {
	return &finding.Report{States: []finding.StateMatrix{{
		Kind: "/orders/{id}", Member: "state", Resources: 5,
		States: []string{"pending", "paid", "shipped", "delivered", "cancelled"},
		Controls: []finding.StateControl{
			{Type: "link", Name: "cancel", OfferedIn: []string{"pending", "paid"}},
			{Type: "link", Name: "ship", OfferedIn: []string{"paid"}},
			{Type: "template", Name: "default (POST /orders/{id}/delivery)", OfferedIn: []string{"shipped"}},
		},
	}}}
}

func TestStatesTable(t *testing.T) {
	out := render(t, Options{Width: 100}, statesReport())
	want := []string{
		"States",
		"  /orders/{id} — 5 resources by \"state\"",
		strings.Repeat(" ", 51) + "pending  paid  shipped  delivered  cancelled",
		"    link cancel" + strings.Repeat(" ", 36) + "x        x     -        -          -",
		"    template default (POST /orders/{id}/delivery)  -        -     x        -          -",
	}
	for _, line := range want {
		if !strings.Contains(out, line+"\n") {
			t.Errorf("missing line %q in\n%s", line, out)
		}
	}
}

func TestStatesFallBackToListsWhenNarrow(t *testing.T) {
	out := render(t, Options{Width: 60}, statesReport())
	for _, line := range []string{"    link cancel: pending, paid", "    link ship: paid"} {
		if !strings.Contains(out, line+"\n") {
			t.Errorf("missing line %q in\n%s", line, out)
		}
	}
}

func TestStatesAreSanitized(t *testing.T) {
	r := statesReport()
	r.States[0].States[0] = "pend\x1b[31ming"
	r.States[0].Controls[0].Name = "can\ncel"
	out := render(t, Options{Width: 100}, r)
	if strings.Contains(out, "\x1b") || strings.Contains(out, "can\ncel") {
		t.Errorf("control characters reached the terminal:\n%q", out)
	}
}

func TestNoStatesNoSection(t *testing.T) {
	if out := render(t, Options{}, &finding.Report{}); strings.Contains(out, "States") {
		t.Errorf("empty report has a States section:\n%s", out)
	}
}

func TestInterfacesNotOfferedAlign(t *testing.T) {
	r := &finding.Report{Interfaces: &finding.Interfaces{Entries: []finding.InterfaceCost{
		{Interface: finding.InterfaceStatic, Reason: "no catalog"},
		{Interface: finding.InterfaceReferenced, Reason: "no references"},
		{Interface: finding.InterfaceDynamic, Reason: "no templates"},
	}}}
	var b strings.Builder
	if err := New(Options{Width: 100}).Write(&b, r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "B referenced  not offered: no references") {
		t.Errorf("output:\n%s", b.String())
	}
}
