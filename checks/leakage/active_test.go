package leakage_test

import (
	"strings"
	"testing"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/checkstest"
	"github.com/agentready/agentready/checks/internal/purpose"
	"github.com/agentready/agentready/checks/leakage"
)

func hiddenProbe(status int, contentType string) *checkstest.Builder {
	return checkstest.Exchange(purpose.ActiveHidden, "POST", base+"/orders/6/cancellation").
		Status(status).Header("Content-Type", contentType).Body(`{}`)
}

func TestHiddenOperationChecks(t *testing.T) {
	tests := []struct {
		name              string
		status            int
		contentType       string
		executed, refusal bool
	}{
		{"executed", 200, "application/hal+json", true, false},
		{"accepted for later", 202, "application/json", true, false},
		{"redirected to sign in", 302, "text/html", false, false},
		{"rate limited", 429, "application/problem+json", false, false},
		{"unavailable", 503, "text/html", false, false},
		{"404 problem", 404, "application/problem+json", false, false},
		{"403 problem", 403, "application/problem+json", false, false},
		{"409 problem", 409, "application/problem+json", false, false},
		{"404 html", 404, "text/html", false, true},
		{"422 validated first", 422, "application/problem+json", false, true},
		{"500", 500, "application/problem+json", false, true},
	}
	for _, tt := range tests {
		in := input(view{name: "anonymous", xs: []*checkstest.Builder{hiddenProbe(tt.status, tt.contentType)}},
			view{name: "user", auth: true})
		in.Active = &checks.ActiveRun{Allow: []string{"POST /orders/*/cancellation"}, Planned: 1}
		for _, c := range []struct {
			check checks.Check
			want  bool
		}{{leakage.HiddenExecuted{}, tt.executed}, {leakage.HiddenRefusal{}, tt.refusal}} {
			fs, skip := run(t, c.check, in)
			if skip != "" {
				t.Errorf("%s: %s skipped: %s", tt.name, c.check.Meta().ID, skip)
			}
			if got := len(fs) > 0; got != c.want {
				t.Errorf("%s: %s fired %v, want %v (%v)", tt.name, c.check.Meta().ID, got, c.want, fs)
			}
			for _, f := range fs {
				if !strings.Contains(f.Message, `as "anonymous"`) || f.Evidence[0].Method != "POST" {
					t.Errorf("%s: message %q / evidence %+v", tt.name, f.Message, f.Evidence[0])
				}
			}
		}
	}
}

func TestHiddenOperationChecksSkip(t *testing.T) {
	probe := view{name: "anonymous", xs: []*checkstest.Builder{hiddenProbe(200, "application/json")}}
	tests := []struct {
		name   string
		in     *checks.Input
		active bool
		want   string
	}{
		{"not active", input(probe, view{name: "user", auth: true}), false, "not assessed: this is an active probe"},
		{"one identity", input(probe), true, "not assessed: active hidden-operation probes need two"},
		{"nothing planned", input(view{name: "anonymous"}, view{name: "user", auth: true}), true, "no operation named by --active-allow"},
	}
	for _, tt := range tests {
		if tt.active {
			tt.in.Active = &checks.ActiveRun{Allow: []string{"x"}}
		}
		for _, c := range []checks.Check{leakage.HiddenExecuted{}, leakage.HiddenRefusal{}} {
			if _, skip := run(t, c, tt.in); !strings.HasPrefix(skip, tt.want) {
				t.Errorf("%s: %s skip %q, want %q", tt.name, c.Meta().ID, skip, tt.want)
			}
		}
	}
}
