package affordance_test

import (
	"strings"
	"testing"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/affordance"
	"github.com/agentready/agentready/checks/checkstest"
	"github.com/agentready/agentready/checks/internal/activeplan"
	"github.com/agentready/agentready/checks/internal/purpose"
)

func TestStaleVersionExecuted(t *testing.T) {
	tests := []struct {
		status int
		fires  bool
		fact   bool
	}{
		{200, true, false}, {204, true, false}, {303, false, true},
		{412, false, false}, {409, false, false},
		{403, false, true}, {422, false, true},
	}
	for _, tt := range tests {
		x := checkstest.Exchange(purpose.ActiveStale, "POST", "http://api.test/orders/1/cancellation").
			ReqHeader("If-Match", activeplan.StaleETag).Status(tt.status).Header("Content-Type", "application/problem+json").Body(`{}`)
		in := checkstest.Input("http://api.test/", nil, x.Build())
		in.Active = &checks.ActiveRun{Allow: []string{"POST /orders/*/cancellation"}, Planned: 1}
		fs, skip := checkstest.Run(t, affordance.StaleVersion{}, in)
		if skip != "" {
			t.Fatalf("%d: skipped: %s", tt.status, skip)
		}
		if got := len(fs) > 0; got != tt.fires {
			t.Errorf("%d: fired %v, want %v", tt.status, got, tt.fires)
		}
		if got := len(in.Observations("affordance-stale-version-executed")) > 0; got != tt.fact {
			t.Errorf("%d: observation %v, want %v", tt.status, got, tt.fact)
		}
	}
}

func TestStaleVersionSkips(t *testing.T) {
	in := checkstest.Input("http://api.test/", nil)
	if _, skip := checkstest.Run(t, affordance.StaleVersion{}, in); !strings.HasPrefix(skip, "not assessed") {
		t.Errorf("without --active: skip %q", skip)
	}
	in.Active = &checks.ActiveRun{Allow: []string{"x"}}
	if _, skip := checkstest.Run(t, affordance.StaleVersion{}, in); !strings.HasPrefix(skip, "no operation named") {
		t.Errorf("nothing planned: skip %q", skip)
	}
}
