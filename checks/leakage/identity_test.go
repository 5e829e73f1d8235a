package leakage_test

import (
	"slices"
	"testing"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/internal/purpose"
	"github.com/agentready/agentready/checks/leakage"
	"github.com/agentready/agentready/internal/exchange"
)

func TestMissingSibling(t *testing.T) {
	for in, want := range map[string]string{
		"http://a.test/orders/1?x=1": "http://a.test/orders/" + leakage.MissingSegment,
		"http://a.test/orders/":      "http://a.test/" + leakage.MissingSegment,
		"http://a.test/":             "",
	} {
		got, ok := leakage.MissingSibling(in)
		if got != want || ok != (want != "") {
			t.Errorf("MissingSibling(%q) = %q %v, want %q", in, got, ok, want)
		}
	}
}

// identityPlanner is the family's part that plans for a lower identity.
func identityPlanner(t *testing.T) checks.IdentityProber {
	t.Helper()
	for _, p := range checks.PartsOf(leakage.All()) {
		if ip, ok := p.(checks.IdentityProber); ok {
			return ip
		}
	}
	t.Fatal("the leakage family brings no identity planner")
	return nil
}

// TestPlanAsIdentity: a lower identity fetches what the privileged one read
// and it did not, a missing sibling of each, and the targets it was offered;
// never what it crawled itself, and only what the privileged one read with
// a 200.
func TestPlanAsIdentity(t *testing.T) {
	privileged := &exchange.Recording{Exchanges: []*exchange.Exchange{
		get("/").Status(200).Build(),
		get("/orders/1").Status(200).Build(),
		get("/orders/2").Status(200).Build(),
		get("/admin").Status(403).Build(),
	}}
	crawled := []*exchange.Exchange{
		json200("/orders/1", `{"affordances":[{"operation":"payOrder","target":"/orders/1/pay"}]}`).Build(),
	}
	var got []string
	for _, p := range identityPlanner(t).PlanAsIdentity(&checks.IdentityPlanInput{Crawled: crawled, Privileged: privileged, Pages: 1}) {
		got = append(got, p.Purpose+" "+exchange.PathOf(p.URL))
	}
	want := []string{
		leakage.PurposeTarget + " /orders/1/pay",
		leakage.PurposeMissingSibling + " /orders/" + leakage.MissingSegment,
		purpose.CrossFetch + " /orders/2",
	}
	if !slices.Equal(got, want) {
		t.Errorf("planned %q, want %q", got, want)
	}
}
