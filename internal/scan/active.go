package scan

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/active"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/probe"
)

// ActiveOptions enable active probes: state-changing requests, planned from
// the crawl, limited to what Allow names, sent only after Confirm agrees.
type ActiveOptions struct {
	Allow active.Rules
	// Confirm sees the exact requests before any is sent; an error sends
	// none and is returned from Run (the CLI asks on a TTY, or has --yes).
	// It is required: without it Run refuses to send anything.
	Confirm func([]active.Request) error
	// Confirmed names how the user agreed, for the report.
	Confirmed string
}

// runActive plans, confirms and sends the active probes, and appends each
// exchange to the recording of the identity it was sent as.
func runActive(ctx context.Context, sched *schedule, opts Options, shared http.Header, res *probe.Result, views []checks.IdentityView) (*finding.ActiveInfo, *checks.ActiveRun, error) {
	if opts.Active == nil {
		return nil, nil, nil
	}
	if opts.Active.Confirm == nil {
		return nil, nil, errors.New("active probes need a confirmation step; none was given, so nothing was sent")
	}
	plan := active.Plan(activeViews(opts, res, views), res.Spec, opts.Active.Allow, activeKinds(opts.Checks))
	info := &finding.ActiveInfo{Allow: opts.Active.Allow.Strings(), Confirmed: opts.Active.Confirmed, Sent: []finding.ActiveRequest{}}
	run := &checks.ActiveRun{Allow: info.Allow, Planned: len(plan)}
	if len(plan) == 0 {
		res.Notes = append(res.Notes, "active probes: no offered operation matched --active-allow; none sent")
		return info, run, nil
	}
	base := opts.Probe
	base.Headers = shared // crawlAs left the privileged identity's headers here
	configOf := func(r active.Request) (Identity, probe.Config) {
		id := identityNamed(opts.Identities, r.Identity)
		return id, asIdentity(base, id, base.Budget, base.MaxPages)
	}
	for i := range plan {
		_, cfg := configOf(plan[i])
		plan[i].Shown = probe.ActiveHeader(cfg, plan[i].PlannedRequest)
	}
	asked := time.Now()
	if err := opts.Active.Confirm(plan); err != nil {
		return nil, nil, err
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
		sent, unsent, notes := probe.SendActive(ctx, cfg, reqs)
		res.Notes = append(res.Notes, notes...)
		if unsent > 0 {
			res.Stats.Interrupted = true
			res.Notes = append(res.Notes, activeCutNote(ctx, sched, id.Name, unsent))
		}
		rec := recordingOf(res.Recording, views, id.Name)
		renumberAfter(res.Recording, views, sent)
		for _, x := range sent {
			x.Identity = id.Name
			rec.Exchanges = append(rec.Exchanges, x)
			info.Sent = append(info.Sent, sentRequest(x, whyOf(batch, x)))
		}
		res.Stats.Requests += len(sent)
		res.Stats.Probes += len(sent)
	}
	res.Notes = append(res.Notes, fmt.Sprintf("active probes: %d state-changing request(s) sent, as allowed by --active-allow (listed under active in the JSON report)", len(info.Sent)))
	return info, run, nil
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

// activeKinds plans only the probes whose check runs.
func activeKinds(cs []checks.Check) active.Kinds {
	var k active.Kinds
	for _, c := range cs {
		switch c.Meta().ID {
		case "leakage-hidden-operation-executed", "leakage-hidden-operation-refusal":
			k.Hidden = true
		case "affordance-stale-version-executed":
			k.Stale = true
		}
	}
	return k
}

func activeViews(opts Options, res *probe.Result, views []checks.IdentityView) []active.View {
	if len(views) == 0 {
		name := ""
		if len(opts.Identities) == 1 {
			name = opts.Identities[0].Name
		}
		return []active.View{{Name: name, Recording: res.Recording}}
	}
	out := make([]active.View, len(views))
	for i, v := range views {
		out[i] = active.View{Name: v.Name, Recording: v.Recording}
	}
	return out
}

// byIdentity splits the plan into runs of one identity, keeping its order.
func byIdentity(plan []active.Request) [][]active.Request {
	var out [][]active.Request
	for _, r := range plan {
		if n := len(out); n > 0 && out[n-1][0].Identity == r.Identity {
			out[n-1] = append(out[n-1], r)
			continue
		}
		out = append(out, []active.Request{r})
	}
	return out
}

func identityNamed(ids []Identity, name string) Identity {
	for _, id := range ids {
		if id.Name == name {
			return id
		}
	}
	return Identity{Name: name}
}

// recordingOf is the recording of the named identity: the main recording
// for the most privileged one or a single-identity scan.
func recordingOf(main *exchange.Recording, views []checks.IdentityView, name string) *exchange.Recording {
	for _, v := range views[:max(0, len(views)-1)] {
		if v.Name == name && v.Recording != nil {
			return v.Recording
		}
	}
	return main
}

func whyOf(batch []active.Request, x *exchange.Exchange) string {
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
