package affordance_test

import (
	"strings"
	"testing"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/affordance"
	"github.com/agentready/agentready/checks/checkstest"
	"github.com/agentready/agentready/checks/internal/purpose"
	"github.com/agentready/agentready/internal/exchange"
)

const transitionID = "affordance-state-transition-executed"

func TestStateTransitionExecuted(t *testing.T) {
	tests := []struct {
		status    int
		mediaType string
		fires     bool
		fact      bool
	}{
		{200, "application/hal+json", true, false}, {204, "", true, false},
		{409, "application/problem+json", false, false}, {422, "application/problem+json", false, false},
		{403, "application/problem+json", false, false}, {404, "application/problem+json", false, false},
		// Refused, in a form the check does not grade.
		{409, "text/html", false, true}, {400, "application/problem+json", false, true},
		{303, "", false, true}, {500, "application/problem+json", false, true},
	}
	for _, tt := range tests {
		crawled := checkstest.Exchange(exchange.PurposeCrawl, "GET", "http://api.test/orders/3").Status(200).
			Header("Content-Type", "application/hal+json").Body(`{"id":3,"state":"shipped"}`).Build()
		probe := checkstest.Exchange(purpose.ActiveState, "POST", "http://api.test/orders/3/cancellation").BasedOn(crawled.Request.URL).
			Status(tt.status).Header("Content-Type", tt.mediaType).Body(`{}`).Build()
		in := checkstest.Input("http://api.test/", nil, crawled, probe)
		in.Active = &checks.ActiveRun{Allow: []string{"POST /orders/*/cancellation"}, Planned: 1}
		fs, skip := checkstest.Run(t, affordance.TransitionExecuted{}, in)
		if skip != "" {
			t.Fatalf("%d: skipped: %s", tt.status, skip)
		}
		if got := len(fs) > 0; got != tt.fires {
			t.Errorf("%d %s: fired %v, want %v", tt.status, tt.mediaType, got, tt.fires)
		}
		if got := len(in.Observations(transitionID)) > 0; got != tt.fact {
			t.Errorf("%d %s: observation %v, want %v", tt.status, tt.mediaType, got, tt.fact)
		}
		if tt.fires {
			f := fs[0]
			if !strings.Contains(f.Message, `/orders/3 was "shipped"`) || len(f.Evidence) != 2 ||
				f.Evidence[1].URL != crawled.Request.URL || f.Evidence[1].JSONPointer != "/state" {
				t.Errorf("%d: finding %q with evidence %+v, want the probe and the crawled state", tt.status, f.Message, f.Evidence)
			}
		}
	}
}

func TestStateTransitionSkips(t *testing.T) {
	in := checkstest.Input("http://api.test/", nil)
	if _, skip := checkstest.Run(t, affordance.TransitionExecuted{}, in); !strings.HasPrefix(skip, "not assessed") {
		t.Errorf("without --active: skip %q", skip)
	}
	in.Active = &checks.ActiveRun{Allow: []string{"x"}}
	if _, skip := checkstest.Run(t, affordance.TransitionExecuted{}, in); !strings.HasPrefix(skip, "no operation named") {
		t.Errorf("nothing planned: skip %q", skip)
	}
}
