package stateful_test

import (
	"strings"
	"testing"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/checkstest"
	"github.com/agentready/agentready/checks/internal/activeplan"
	"github.com/agentready/agentready/checks/internal/purpose"
	"github.com/agentready/agentready/checks/stateful"
	"github.com/agentready/agentready/internal/exchange"
)

// answered is an active exchange of purpose, answered status with a JSON
// body (problem+json for an error).
func answered(purpose, method, path string, status int, body string) *exchange.Exchange {
	mt := "application/json"
	if status >= 400 {
		mt = "application/problem+json"
	}
	return checkstest.Exchange(purpose, method, base+path).BasedOn(base+"/checkouts/2").Status(status).Header("Content-Type", mt).Body(body).Build()
}

// reread is the GET of /checkouts/2 after the probe of after.
func reread(purpose, after, body string) *exchange.Exchange {
	return checkstest.Exchange(purpose, "GET", base+"/checkouts/2").BasedOn(base+after).Status(200).Header("Content-Type", "application/json").Body(body).Build()
}

func runActive(t *testing.T, c checks.Check, xs ...*exchange.Exchange) (n int, skip string, observed []string, messages []string) {
	t.Helper()
	crawl := doc("/checkouts/2", seedConfirm)
	in := checkstest.Input(base+"/", nil, append([]*exchange.Exchange{crawl}, xs...)...)
	in.Active = &checks.ActiveRun{Allow: []string{"advance_action"}, Planned: len(xs)}
	fs, skip := checkstest.Run(t, c, in)
	for _, f := range fs {
		messages = append(messages, f.Message)
	}
	return len(fs), skip, in.Observations(c.Meta().ID), messages
}

func TestOffListAccepted(t *testing.T) {
	tests := []struct {
		status   int
		mt       string
		fires    bool
		observed bool
	}{
		{200, "application/json", true, false},
		{204, "", true, false},
		{409, "application/problem+json", false, false},
		{422, "application/problem+json", false, false},
		{409, "text/plain", false, true},
		{403, "application/problem+json", false, true},
		{500, "application/problem+json", false, true},
	}
	for _, tt := range tests {
		x := checkstest.Exchange(purpose.ActiveOffList, "POST", base+"/checkouts/1/confirmation").BasedOn(base+"/checkouts/1").
			Status(tt.status).Header("Content-Type", tt.mt).Body(`{}`).Build()
		n, skip, observed, msgs := runActive(t, stateful.OffListAccepted{}, doc("/checkouts/1", seedItems), x)
		if skip != "" {
			t.Fatalf("%d: skipped %s", tt.status, skip)
		}
		if (n > 0) != tt.fires || (len(observed) > 0) != tt.observed {
			t.Errorf("%d %s: %d findings, observations %v; want fires %v, observed %v", tt.status, tt.mt, n, observed, tt.fires, tt.observed)
		}
		if tt.fires && !strings.Contains(msgs[0], "/checkouts/1 does not list it") {
			t.Errorf("%d: message %q", tt.status, msgs[0])
		}
	}
}

func TestPatchOutsideApplied(t *testing.T) {
	const probe = "/checkouts/2/patch"
	patch := `{"patch":{"address_id":"` + activeplan.PatchSentinel + `"},"version":4}`
	applied := `{"node":"CONFIRM_ORDER","summary":{"address":"` + activeplan.PatchSentinel + `"}}`
	ignored := `{"node":"CONFIRM_ORDER","summary":{"address":"Office"}}`
	tests := []struct {
		name     string
		status   int
		reread   string
		fires    bool
		observed bool
	}{
		{"applied", 200, applied, true, false},
		{"ignored", 200, ignored, false, true},
		{"refused", 422, applied, false, false}, // a refusal is judged by its status; the re-read is not read
		{"refused 400", 400, ignored, false, false},
		{"redirected", 303, ignored, false, true},
		{"not read again", 200, "", false, true},
	}
	for _, tt := range tests {
		x := answered(purpose.ActivePatchOutside, "POST", probe, tt.status, `{}`)
		x.Request.Body = patch
		xs := []*exchange.Exchange{x}
		if tt.reread != "" {
			xs = append(xs, reread(purpose.ActivePatchReread, probe, tt.reread))
		}
		n, skip, observed, msgs := runActive(t, stateful.PatchOutsideApplied{}, xs...)
		if skip != "" {
			t.Fatalf("%s: skipped %s", tt.name, skip)
		}
		if (n > 0) != tt.fires || (len(observed) > 0) != tt.observed {
			t.Errorf("%s: %d findings, observations %v; want fires %v, observed %v", tt.name, n, observed, tt.fires, tt.observed)
		}
		if tt.fires && !strings.Contains(msgs[0], "set address_id") {
			t.Errorf("%s: message %q names no field", tt.name, msgs[0])
		}
	}
}

func TestReplaySecondEffect(t *testing.T) {
	const probe = "/checkouts/2/confirmation"
	before := `{"node":"PAYMENT_SUBMITTED","external_id":"payment-2","version":5,"servedAt":"10:00"}`
	sameLater := `{"node":"PAYMENT_SUBMITTED","external_id":"payment-2","version":5,"servedAt":"10:01"}`
	charged := `{"node":"PAYMENT_SUBMITTED","external_id":"payment-2-2","version":6}`
	tests := []struct {
		name           string
		first, second  int
		secondBody     string
		between, after string
		fires, observe bool
	}{
		{"replayed", 200, 200, `{"v":5}`, sameLater, sameLater, false, false},
		{"charged twice", 200, 200, `{"v":6}`, sameLater, charged, true, false},
		{"charged twice, answered 409", 200, 409, `{}`, before, charged, true, false},
		{"refused the second time, nothing changed", 200, 409, `{}`, before, sameLater, false, true},
		{"another body, nothing changed", 200, 200, `{"v":6}`, before, sameLater, false, true},
		{"first refused", 409, 409, `{}`, before, charged, false, true},
		// A node that changes on its own says nothing about the replay.
		{"unstable node", 200, 200, `{"v":6}`, `{"node":"PAYMENT_SUBMITTED","external_id":"payment-2","version":5,"views":8}`, charged, false, true},
	}
	for _, tt := range tests {
		xs := []*exchange.Exchange{
			answered(purpose.ActiveReplay, "POST", probe, tt.first, `{"v":5}`),
			reread(purpose.ActiveReplayReread, probe, before), reread(purpose.ActiveReplayReread, probe, tt.between),
			answered(purpose.ActiveReplay, "POST", probe, tt.second, tt.secondBody), reread(purpose.ActiveReplayReread, probe, tt.after),
		}
		n, skip, observed, msgs := runActive(t, stateful.ReplaySecondEffect{}, xs...)
		if skip != "" {
			t.Fatalf("%s: skipped %s", tt.name, skip)
		}
		if (n > 0) != tt.fires || (len(observed) > 0) != tt.observe {
			t.Errorf("%s: %d findings, observations %v; want fires %v, observed %v", tt.name, n, observed, tt.fires, tt.observe)
		}
		if tt.fires && !strings.Contains(msgs[0], "(at /external_id)") {
			t.Errorf("%s: message %q does not point at the change", tt.name, msgs[0])
		}
	}
	// A replay cut short is not judged.
	n, _, observed, _ := runActive(t, stateful.ReplaySecondEffect{},
		answered(purpose.ActiveReplay, "POST", probe, 200, `{}`), reread(purpose.ActiveReplayReread, probe, before))
	if n != 0 || len(observed) == 0 {
		t.Errorf("a replay sent once: %d findings, observations %v", n, observed)
	}
}

func TestFlowChecksSkip(t *testing.T) {
	for _, c := range []checks.Check{stateful.OffListAccepted{}, stateful.PatchOutsideApplied{}, stateful.ReplaySecondEffect{}} {
		in := checkstest.Input(base+"/", nil, doc("/checkouts/2", seedConfirm))
		if _, skip := checkstest.Run(t, c, in); !strings.HasPrefix(skip, "not assessed") {
			t.Errorf("%s without --active: skip %q", c.Meta().ID, skip)
		}
		in.Active = &checks.ActiveRun{Allow: []string{"advance_action"}}
		if _, skip := checkstest.Run(t, c, in); !strings.HasPrefix(skip, "no ") {
			t.Errorf("%s with nothing planned: skip %q", c.Meta().ID, skip)
		}
	}
}
