package activeplan

import (
	"net/http"
	"slices"
	"testing"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/internal/purpose"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
)

// answer is a stale-version probe of u, planned from base, answered status
// as mediaType.
func answer(id, u, base string, status int, mediaType string) *exchange.Exchange {
	x := get(id, u, status, "", `{}`)
	x.Purpose, x.BasedOn, x.Request.Method = purpose.ActiveStale, base, http.MethodPost
	x.Response.Header.Set("Content-Type", mediaType)
	return x
}

func TestAnsweredListsTheKindsAnsweredProbesInOrder(t *testing.T) {
	unanswered := answer("p2", "http://a/t/2/close", "http://a/t/2", 0, "")
	unanswered.Response = nil
	other := answer("p4", "http://a/t/4/close", "http://a/t/4", 204, "")
	other.Purpose = purpose.ActiveState
	rec := &exchange.Recording{Exchanges: []*exchange.Exchange{
		answer("p1", "http://a/t/1/close", "http://a/t/1", 204, ""), unanswered,
		get("c1", "http://a/t/1", 200, "", `{}`), answer("p3", "http://a/t/3/close", "http://a/t/3", 412, "application/problem+json"), other}}
	var ids []string
	for _, x := range Answered(rec, purpose.ActiveStale) {
		ids = append(ids, x.ID)
	}
	if !slices.Equal(ids, []string{"p1", "p3"}) {
		t.Errorf("Answered = %v, want p1 and p3: answered, of the kind, in the order sent", ids)
	}
	if Answered(nil, purpose.ActiveStale) != nil {
		t.Error("a scan without a recording has no probe")
	}
}

func TestOperationNamesTheMethodAndPathShape(t *testing.T) {
	if got := Operation(answer("p", "http://a/orders/42/cancel?x=1", "", 204, "")); got != "POST "+exchange.PathShape("/orders/42/cancel") {
		t.Errorf("Operation = %q", got)
	}
}

func TestPlannedFromIsTheCrawledResourceTheProbeActedOn(t *testing.T) {
	probe := answer("p", "http://a/t/1/close", "http://a/t/1", 204, "")
	notRead := get("c0", "http://a/t/1", 500, "", `{}`)
	read := get("c1", "http://a/t/1", 200, "", `{"state":"open"}`)
	otherPurpose := get("c2", "http://a/t/1", 200, "", `{}`)
	otherPurpose.Purpose = "other"
	rec := &exchange.Recording{Exchanges: []*exchange.Exchange{otherPurpose, notRead, read, probe}}
	if got := PlannedFrom(rec, probe); got != read {
		t.Errorf("PlannedFrom = %v, want the crawl's readable exchange of the probe's BasedOn", got)
	}
	probe.BasedOn = "http://a/t/9"
	if got := PlannedFrom(rec, probe); got != nil {
		t.Errorf("PlannedFrom = %v for a resource the crawl did not read", got)
	}
}

func TestOutcomeOf(t *testing.T) {
	for _, c := range []struct {
		status    int
		mediaType string
		want      Outcome
	}{
		{200, "application/json", Executed},
		{204, "", Executed},
		{409, "application/problem+json", Refused},
		{409, "application/problem+json; charset=utf-8", Refused},
		{412, "text/html", RefusedWithoutProblem},
		{400, "application/problem+json", OtherStatus},
		{303, "", OtherStatus},
		{500, "application/problem+json", OtherStatus},
	} {
		if got := OutcomeOf(answer("p", "http://a/t/1/close", "", c.status, c.mediaType), RefusesStale); got != c.want {
			t.Errorf("%d %s: %v, want %v", c.status, c.mediaType, got, c.want)
		}
	}
}

func TestJudgeWalksTheProbesOfAnActiveScan(t *testing.T) {
	m := checks.Meta{ID: "x-y"}
	executed := func(x *exchange.Exchange) *finding.Finding {
		if OutcomeOf(x, RefusesStale) != Executed {
			return nil
		}
		f := checks.New(m, Operation(x), "executed")
		return &f
	}
	probes := []*exchange.Exchange{answer("p1", "http://a/t/1/close", "", 204, ""), answer("p2", "http://a/t/2/close", "", 412, "application/problem+json")}
	active := &checks.Input{Active: &checks.ActiveRun{}}

	if _, err := Judge(&checks.Input{}, probes, "none", executed); err == nil {
		t.Error("a scan without --active is not assessed")
	} else if reason, ok := checks.IsSkip(err); !ok || reason == "none" {
		t.Errorf("without --active: %v, want NeedActive's skip", err)
	}
	if _, err := Judge(active, nil, "none", executed); err == nil {
		t.Error("an active scan without a probe of the kind skips")
	} else if reason, _ := checks.IsSkip(err); reason != "none" {
		t.Errorf("no probe: skip %q, want the check's own reason", reason)
	}
	got, err := Judge(active, probes, "none", executed)
	if err != nil || len(got) != 1 || got[0].Subject != Operation(probes[0]) {
		t.Errorf("Judge = %+v, %v: want one finding, of the executed probe", got, err)
	}
}
