package builtin_test

import (
	"slices"
	"testing"

	"github.com/agentready/agentready/checks/builtin"
)

// The CLI reaches the active probes' planning only through ActiveAllowList:
// it keeps the entries as written, for the report, and refuses one that is
// neither a method and path nor an operationId.
func TestActiveAllowList(t *testing.T) {
	entries := []string{"POST /orders/*/cancel", "cancelOrder"}
	p, err := builtin.ActiveAllowList(entries)
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Strings(); !slices.Equal(got, entries) {
		t.Errorf("Strings() = %q, want %q", got, entries)
	}
	if _, err := builtin.ActiveAllowList([]string{"POST orders"}); err == nil {
		t.Error("an entry whose path does not start with / was accepted")
	}
}

// TestEveryCheckSaysSinceWhen: a built-in check names the release it first
// appeared in, which the registry has checked is a version.
func TestEveryCheckSaysSinceWhen(t *testing.T) {
	if _, err := builtin.Registry(); err != nil {
		t.Fatal(err)
	}
	var without []string
	for _, c := range builtin.All() {
		if c.Meta().Since == "" {
			without = append(without, c.Meta().ID)
		}
	}
	if len(without) > 0 {
		t.Errorf("%d checks without Since, among them %v", len(without), without[:min(5, len(without))])
	}
}
