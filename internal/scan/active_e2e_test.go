package scan_test

import (
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/agentready/agentready/checks/builtin"
	"github.com/agentready/agentready/fixtures/activefix"
	"github.com/agentready/agentready/fixtures/demo"
	"github.com/agentready/agentready/fixtures/expect/expecttest"
	"github.com/agentready/agentready/fixtures/methodlog"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/scan"
	"github.com/agentready/agentready/probe"
)

var activeChecks = []string{"affordance-stale-version-executed", "leakage-hidden-operation-executed", "leakage-hidden-operation-refusal"}

// fixUsers are activefix's callers: anonymous, and the user offered closes.
var fixUsers = []probe.Identity{
	{Caller: exchange.Caller{Name: "anonymous"}},
	{Caller: exchange.Caller{Name: "user"}, Header: http.Header{"Authorization": {activefix.UserAuth}}},
}

func scanActive(t *testing.T, h http.Handler, act *scan.ActiveOptions) *finding.Report {
	t.Helper()
	return scanActiveAs(t, h, fixUsers, act)
}

// scanActiveAs scans as ids with active probes (nil: none), the OpenAPI
// document discovered as the CLI does.
func scanActiveAs(t *testing.T, h http.Handler, ids []probe.Identity, act *scan.ActiveOptions) *finding.Report {
	t.Helper()
	return mustScan(t, h, scan.Options{Probe: probe.Config{Spec: probe.SpecConfig{Discover: true}}, Identities: probe.Describe(ids, nil), Active: act})
}

func allowClose(t *testing.T) *scan.ActiveOptions { return expecttest.Allow(t, "POST /things/*/close") }

// TestActiveProbesAreAssessedOnEveryMode: on each of activefix's modes,
// both probes were sent and every active check judged them, so that what
// fires or stays silent there (its expectations) is a verdict.
func TestActiveProbesAreAssessedOnEveryMode(t *testing.T) {
	t.Parallel()
	for _, c := range activefix.Cases() {
		rep := mustScan(t, c.App(), expecttest.Options(t, c.Scan))
		for _, id := range activeChecks {
			if st := checkStatus(rep, id); st.Status == finding.StatusSkip {
				t.Errorf("%s: %s skipped: %s", c.Name, id, st.Reason)
			}
		}
		if rep.Active == nil || len(rep.Active.Sent) != 2 {
			t.Fatalf("%s: active section %+v, want two requests sent", c.Name, rep.Active)
		}
	}
}

// Without --active only safe methods reach the app; with it, exactly the
// planned requests the allow-list names, and nothing else unsafe.
func TestActiveModeSendsExactlyTheAllowedRequests(t *testing.T) {
	t.Parallel()
	log, h := methodlog.Wrap(activefix.New(activefix.Conformant))
	rep := scanActive(t, h, nil)
	if got := expecttest.UnsafeRequests(log, rep); len(got) != 0 {
		t.Errorf("without --active the scan sent %v", got)
	}
	if rep.Active != nil {
		t.Errorf("report has an active section without --active: %+v", rep.Active)
	}
	for _, id := range activeChecks {
		if st := checkStatus(rep, id); st.Status != finding.StatusSkip || !strings.HasPrefix(st.Reason, "not assessed") {
			t.Errorf("%s: %s %q, want not assessed", id, st.Status, st.Reason)
		}
	}

	log, h = methodlog.Wrap(activefix.New(activefix.Conformant))
	var planned []exchange.ActiveRequest
	opts := allowClose(t)
	opts.Confirm = func(p []exchange.ActiveRequest) error { planned = p; return nil }
	rep = scanActive(t, h, opts)
	want := []string{"POST /things/2/close", "POST /things/1/close"}
	if got := expecttest.UnsafeRequests(log, rep); !slices.Equal(got, want) {
		t.Errorf("with --active the scan sent %v, want %v", got, want)
	}
	if len(planned) != 2 || planned[0].Purpose != "active/stale-version" || planned[0].Identity != "user" ||
		planned[1].Purpose != "active/hidden-operation" || planned[1].Identity != "anonymous" {
		t.Errorf("plan shown for confirmation: %+v", planned)
	}
	for i, s := range rep.Active.Sent {
		if s.Method != planned[i].Method || s.URL != planned[i].URL || s.Identity != planned[i].Identity || s.Status == 0 {
			t.Errorf("sent[%d] = %+v, planned %+v", i, s, planned[i])
		}
	}
}

func TestActiveRequestsOutsideTheAllowListAreNotSent(t *testing.T) {
	t.Parallel()
	log, h := methodlog.Wrap(activefix.New(activefix.HiddenAccepted))
	rules, _ := builtin.ActiveAllowList([]string{"POST /other/*"})
	rep := scanActive(t, h, &scan.ActiveOptions{Allow: rules, Confirm: func([]exchange.ActiveRequest) error { return nil }})
	if got := expecttest.UnsafeRequests(log, rep); len(got) != 0 {
		t.Errorf("sent %v though the allow-list names nothing offered", got)
	}
	if rep.Active == nil || len(rep.Active.Sent) != 0 {
		t.Errorf("active section %+v, want none sent", rep.Active)
	}
}

func TestDeclinedActiveProbesSendNothing(t *testing.T) {
	t.Parallel()
	log, h := methodlog.Wrap(activefix.New(activefix.Conformant))
	declined := errors.New("declined")
	opts := allowClose(t)
	opts.Confirm = func([]exchange.ActiveRequest) error { return declined }
	if _, err := runOn(t, h, scan.Options{Identities: probe.Describe(fixUsers, nil), Active: opts}); !errors.Is(err, declined) {
		t.Errorf("err %v, want the confirmation's", err)
	}
	if got := expecttest.UnsafeRequests(log, nil); len(got) != 0 {
		t.Errorf("sent %v after the user declined", got)
	}
}

// The conformant demo re-checks on execution: the same probes, a user
// replaying the refund only an admin was offered, a transition sent to
// orders whose state does not offer it, and a refund sent to an order whose
// next_actions do not list it, are refused.
func TestConformantDemoRefusesEveryActiveProbe(t *testing.T) {
	tests := []struct {
		name   string
		ids    []probe.Identity
		allow  []string
		suffix string
		sent   int
	}{
		// Both callers are offered cancel: no hidden probe applies; the
		// shipped, delivered and cancelled orders get a transition probe.
		{"cancel as anonymous and user", anonAndUser(userAuth), []string{"POST /orders/*/cancellation"}, "/cancellation", 4},
		{"refund as user and admin", []probe.Identity{
			{Caller: exchange.Caller{Name: "user", Roles: []string{"user"}}, Header: http.Header{"Authorization": {userAuth}}},
			{Caller: exchange.Caller{Name: "admin", Roles: []string{"admin"}}, Header: http.Header{"Authorization": {"Bearer " + demo.AdminToken}}},
		}, []string{"refundOrder"}, "/refund", 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			log, h := methodlog.Wrap(demo.New())
			rep := scanActiveAs(t, h, tt.ids, expecttest.Allow(t, tt.allow...))
			for _, f := range rep.Findings {
				if f.Severity >= finding.SeverityWarning {
					t.Errorf("%s %s: %s", f.Severity, f.CheckID, f.Message)
				}
			}
			for _, id := range activeChecks {
				st := checkStatus(rep, id)
				hidden := strings.HasPrefix(id, "leakage-hidden-")
				if st.Status == finding.StatusSkip && (!hidden || tt.suffix == "/refund") {
					t.Errorf("%s skipped: %s", id, st.Reason)
				}
			}
			if st := checkStatus(rep, "affordance-state-transition-executed"); st.Status != finding.StatusPass {
				t.Errorf("affordance-state-transition-executed %s: %s", st.Status, st.Reason)
			}
			if rep.Active == nil || len(rep.Active.Sent) != tt.sent {
				t.Fatalf("active section %+v, want %d probes", rep.Active, tt.sent)
			}
			for _, s := range rep.Active.Sent {
				if s.Status != http.StatusNotFound && s.Status != http.StatusPreconditionFailed && s.Status != http.StatusConflict {
					t.Errorf("%s %s as %s answered %d, want 404, 409 or 412", s.Method, s.URL, s.Identity, s.Status)
				}
			}
			for _, r := range expecttest.SentAsListed(t, log, rep) {
				if !strings.HasSuffix(r, tt.suffix) {
					t.Errorf("sent %s, outside the allow-list", r)
				}
			}
		})
	}
}

// A shipped order cancelled by the state-transition probe: without
// --active, even with the allow-list's identities, nothing unsafe reaches
// the app and the check is not assessed; with it, exactly the listed probes
// do, and the shipped order's is the one judged executed.
func TestStateTransitionProbeNeedsActive(t *testing.T) {
	t.Parallel()
	const id = "affordance-state-transition-executed"
	log, h := methodlog.Wrap(demo.New(demo.DefectActiveCancelShipped))
	rep := scanActiveAs(t, h, anonAndUser(userAuth), nil)
	if got := expecttest.UnsafeRequests(log, rep); len(got) != 0 {
		t.Errorf("without --active the scan sent %v", got)
	}
	if st := checkStatus(rep, id); st.Status != finding.StatusSkip || !strings.HasPrefix(st.Reason, "not assessed") {
		t.Errorf("without --active %s is %s %q, want not assessed", id, st.Status, st.Reason)
	}

	log, h = methodlog.Wrap(demo.New(demo.DefectActiveCancelShipped))
	rep = scanActiveAs(t, h, anonAndUser(userAuth), expecttest.Allow(t, "POST /orders/*/cancellation"))
	expecttest.SentAsListed(t, log, rep)
	var fired []string
	for _, f := range rep.Findings {
		if f.CheckID == id {
			fired = append(fired, f.Evidence[0].Method+" "+exchange.PathOf(f.Evidence[0].URL))
		}
	}
	if want := []string{"POST /orders/3/cancellation"}; !slices.Equal(fired, want) {
		t.Errorf("%s fired on %v, want %v", id, fired, want)
	}
}

var flowChecks = []string{"stateful-off-list-accepted", "stateful-patch-outside-applied", "stateful-replay-second-effect"}

// The checkout's flow probes: without --active only safe methods reach the
// demo, and the three checks are not assessed; with the steps allowed, the
// app receives exactly the state-changing requests the plan showed, in its
// order, the re-reads among the GETs, and the conformant checkout refuses,
// ignores or replays each one as the flow says.
func TestFlowProbesNeedActive(t *testing.T) {
	t.Parallel()
	allow := []string{"POST /checkouts/*/patch", "confirm_action", "recover_action"}
	log, h := methodlog.Wrap(demo.New())
	rep := scanActiveAs(t, h, anonAndUser(userAuth), nil)
	if got := expecttest.UnsafeRequests(log, rep); len(got) != 0 {
		t.Errorf("without --active the scan sent %v", got)
	}
	for _, id := range flowChecks {
		if st := checkStatus(rep, id); st.Status != finding.StatusSkip || !strings.HasPrefix(st.Reason, "not assessed") {
			t.Errorf("without --active %s is %s %q, want not assessed", id, st.Status, st.Reason)
		}
	}

	log, h = methodlog.Wrap(demo.New())
	var planned []exchange.ActiveRequest
	opts := expecttest.Allow(t, allow...)
	opts.Confirm = func(p []exchange.ActiveRequest) error { planned = p; return nil }
	rep = scanActiveAs(t, h, anonAndUser(userAuth), opts)
	for _, id := range flowChecks {
		if st := checkStatus(rep, id); st.Status != finding.StatusPass {
			t.Errorf("%s %s: %s", id, st.Status, st.Reason)
		}
	}
	var plannedUnsafe []string
	for _, p := range planned {
		if p.Method != http.MethodGet {
			plannedUnsafe = append(plannedUnsafe, p.Method+" "+exchange.PathOf(p.URL))
		}
	}
	want := []string{"POST /checkouts/2/patch", "POST /checkouts/4/recovery", "POST /checkouts/4/recovery",
		"POST /checkouts/1/confirmation", "POST /checkouts/3/patch", "POST /checkouts/5/recovery"}
	if !slices.Equal(plannedUnsafe, want) {
		t.Errorf("planned %v, want %v", plannedUnsafe, want)
	}
	if got := expecttest.UnsafeRequests(log, rep); !slices.Equal(got, want) {
		t.Errorf("the app received %v, want the plan's %v", got, want)
	}
	if len(rep.Active.Sent) != len(planned) {
		t.Fatalf("sent %d, planned %d", len(rep.Active.Sent), len(planned))
	}
	for i, s := range rep.Active.Sent {
		if s.Method != planned[i].Method || s.URL != planned[i].URL || s.Purpose != planned[i].Purpose {
			t.Errorf("sent[%d] = %s %s [%s], planned %s %s [%s]", i, s.Method, s.URL, s.Purpose, planned[i].Method, planned[i].URL, planned[i].Purpose)
		}
	}
}
