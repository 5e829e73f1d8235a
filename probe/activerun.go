package probe

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
)

// ActiveOutcome is the one recorded value of a session's active probes:
// what the user allowed and how they agreed (from ActivePlan), what the plan
// called for, and what was sent. The checks and the report both read it, and
// a recording keeps it.
type ActiveOutcome struct {
	// Allow is the allow-list as the user wrote it.
	Allow []string
	// Confirmed names how the user agreed.
	Confirmed string
	// Planned counts the requests the recordings called for and the plan
	// allowed.
	Planned int
	// Sent lists each request sent, with the exchange that records it.
	Sent []finding.ActiveRequest
}

// sendActive plans, confirms and sends the active probes, and appends each
// exchange to the recording of the identity it was sent as.
func (s Session) sendActive(ctx context.Context, sched *schedule, out *Outcome) error {
	if s.Active == nil {
		return nil
	}
	if s.Active.Confirm == nil {
		return errors.New("active probes need a confirmation step; none was given, so nothing was sent")
	}
	plan := s.Active.Plan(activeViews(out), out.Spec)
	allow := s.Active.Allow
	if allow == nil {
		allow = []string{}
	}
	out.Active = &ActiveOutcome{Allow: allow, Confirmed: s.Active.Confirmed, Planned: len(plan), Sent: []finding.ActiveRequest{}}
	if len(plan) == 0 {
		out.Notes = append(out.Notes, "active probes: no offered operation matched --active-allow; none sent")
		return nil
	}
	configOf := func(r exchange.ActiveRequest) (Identity, Config) {
		id := s.identityNamed(r.Identity)
		return id, asIdentity(s.Config, id, s.Config.MaxPages)
	}
	for i := range plan {
		_, cfg := configOf(plan[i])
		plan[i].Shown = ActiveHeader(cfg, plan[i].PlannedRequest)
	}
	asked := time.Now()
	if err := s.Active.Confirm(plan); err != nil {
		return err
	}
	sched.pause(time.Since(asked))
	ctx, cancel := sched.untilSent(ctx)
	defer cancel()
	for _, batch := range byIdentity(plan) {
		id, cfg := configOf(batch[0])
		reqs := make([]exchange.PlannedRequest, len(batch))
		for i, r := range batch {
			reqs[i] = r.PlannedRequest
		}
		sent, unsent, notes := SendActive(ctx, cfg, reqs)
		out.Notes = append(out.Notes, notes...)
		if unsent > 0 {
			cutShort(&out.Stats, ctx, finding.CutActive)
			out.Notes = append(out.Notes, activeCutNote(ctx, sched, id.Name, unsent))
		}
		rec := out.recordingOf(id.Name)
		out.renumber(sent)
		for _, x := range sent {
			x.Identity = id.Name
			rec.Exchanges = append(rec.Exchanges, x)
			out.Active.Sent = append(out.Active.Sent, sentRequest(x, whyOf(batch, x)))
		}
		out.Stats.Requests += len(sent)
		out.Stats.Probes += len(sent)
	}
	sent := fmt.Sprintf("%d state-changing request(s)", len(out.Active.Sent))
	if reads := safeCount(out.Active.Sent); reads > 0 {
		sent = fmt.Sprintf("%d request(s) (%d state-changing, %d re-read(s))", len(out.Active.Sent), len(out.Active.Sent)-reads, reads)
	}
	out.Notes = append(out.Notes, fmt.Sprintf("active probes: %s sent, as allowed by --active-allow (listed under active in the JSON report)", sent))
	return nil
}

// safeCount counts the re-reads among the requests sent: the GETs flow
// probes send to see what they changed.
func safeCount(sent []finding.ActiveRequest) int {
	n := 0
	for _, s := range sent {
		if safeMethods[s.Method] {
			n++
		}
	}
	return n
}

// activeCutNote says why unsent active probes were not sent as the named
// identity.
func activeCutNote(ctx context.Context, sched *schedule, identity string, unsent int) string {
	what := fmt.Sprintf("active probes: %d not sent", unsent)
	if identity != "" {
		what = fmt.Sprintf("active probes as %q: %d not sent", identity, unsent)
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return sched.ranOut(what)
	}
	return what + ": the scan was interrupted"
}

// activeViews are the views the active probes are planned from: for a
// session as one caller, the one it was recorded as.
func activeViews(out *Outcome) []View {
	if len(out.Views) > 0 {
		return out.Views
	}
	return []View{{Caller: out.Caller, Recording: out.Recording}}
}

// byIdentity splits the plan into runs of one identity, keeping its order.
func byIdentity(plan []exchange.ActiveRequest) [][]exchange.ActiveRequest {
	var out [][]exchange.ActiveRequest
	for _, r := range plan {
		if n := len(out); n > 0 && out[n-1][0].Identity == r.Identity {
			out[n-1] = append(out[n-1], r)
			continue
		}
		out = append(out, []exchange.ActiveRequest{r})
	}
	return out
}

func (s Session) identityNamed(name string) Identity {
	for _, id := range s.Identities {
		if id.Name == name {
			return id
		}
	}
	return Identity{Caller: exchange.Caller{Name: name}}
}

func whyOf(batch []exchange.ActiveRequest, x *exchange.Exchange) string {
	for _, r := range batch {
		if r.Method == x.Request.Method && r.URL == x.Request.URL && r.Purpose == x.Purpose {
			return r.Why
		}
	}
	return ""
}

func sentRequest(x *exchange.Exchange, why string) finding.ActiveRequest {
	out := finding.ActiveRequest{ExchangeID: x.ID, Identity: x.Identity, Purpose: x.Purpose, Method: x.Request.Method, URL: x.Request.URL, Why: why}
	if x.Response != nil {
		out.Status = x.Response.Status
	}
	return out
}
