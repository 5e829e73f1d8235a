package probe

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/mcp"
	"github.com/agentready/agentready/internal/spec"
)

// PhaseTrial is the phase of a scan that plays a trial.
const PhaseTrial = "trial"

// TrialSession plays a trial after the passive scan and the MCP
// examination: the plan comes from the checks, is shown to the user, and
// only then is sent, run by run, with the target reset between runs.
type TrialSession struct {
	// Plan plans the trial from what the identity the trial runs as was
	// shown (the most privileged one) and the MCP endpoint examined.
	Plan func(view View, doc *spec.Document, snap *mcp.Snapshot) *exchange.TrialPlan
	// PlanOnly shows the plan and sends none of it.
	PlanOnly bool
	// Confirm sees the plan before anything of it is sent; an error sends
	// nothing and is returned from RunSession. It is required unless
	// PlanOnly.
	Confirm func(*exchange.TrialPlan) error
	// Reset brings the target back to the state the scan saw, before each
	// run and, unless OnlyBeforeRuns, after the last; nil when the runs act
	// on distinct resources.
	Reset func(context.Context) error
	// OnlyBeforeRuns skips the reset after the last run: an app the
	// harness restarts is stopped once the scan ends, so restarting it
	// then would only delay the report.
	OnlyBeforeRuns bool
}

// playTrial plans, confirms and plays the trial, keeping every exchange on
// the run it belongs to (not in the recording: the checks of the passive
// scan judge what the app showed before anything changed).
func (s Session) playTrial(ctx context.Context, sched *schedule, out *Outcome) error {
	if s.Trial == nil {
		return nil
	}
	if s.Trial.Confirm == nil && !s.Trial.PlanOnly {
		return errors.New("a trial needs a confirmation step; none was given, so nothing was sent")
	}
	views := activeViews(out)
	top := views[len(views)-1]
	plan := s.Trial.Plan(top, out.Spec, out.MCP)
	if plan == nil {
		return nil
	}
	out.Trial = plan
	_, cfg := s.trialConfig(top.Name)
	for i := range plan.Runs {
		for j := range plan.Runs[i].Steps {
			st := &plan.Runs[i].Steps[j]
			st.Shown = ActiveHeader(cfg, st.PlannedRequest)
		}
	}
	if s.Trial.PlanOnly {
		plan.PlanOnly = true
		if s.Trial.Confirm != nil {
			_ = s.Trial.Confirm(plan)
		}
		out.Notes = append(out.Notes, fmt.Sprintf("trial: plan only; %d task(s) in %d run(s) planned, nothing of them sent", len(plan.Tasks), len(plan.Runs)))
		return nil
	}
	if len(plan.Runs) == 0 {
		// Nothing is shown for confirmation: the plan's notes, which say
		// why each task was left out, go to the report instead.
		out.Notes = append(out.Notes, plan.Notes...)
		out.Notes = append(out.Notes, "trial: no declared state-changing operation the allow-list names could be played; nothing sent")
		return nil
	}
	asked := time.Now()
	if err := s.Trial.Confirm(plan); err != nil {
		return err
	}
	sched.pause(time.Since(asked))
	s.Config.progress.SetPhase(ctx, PhaseTrial)
	ctx, cancel := sched.untilSent(ctx)
	defer cancel()
	var all []*exchange.Exchange
	played := 0
	for i := range plan.Runs {
		if ctx.Err() != nil {
			break
		}
		r := &plan.Runs[i]
		if s.Trial.Reset != nil {
			if err := s.Trial.Reset(ctx); err != nil {
				out.Notes = append(out.Notes, fmt.Sprintf("trial: the reset before run %d failed (%v); the rest were not played", i+1, err))
				break
			}
		}
		notes := s.playRun(ctx, r)
		out.Notes = append(out.Notes, notes...)
		all = append(all, r.Exchanges...)
		played++
	}
	if played < len(plan.Runs) && ctx.Err() != nil {
		cutShort(&out.Stats, ctx, finding.CutActive)
		out.Notes = append(out.Notes, fmt.Sprintf("trial: %d of %d runs not played: %v", len(plan.Runs)-played, len(plan.Runs), ctx.Err()))
	}
	if s.Trial.Reset != nil && !s.Trial.OnlyBeforeRuns && played > 0 {
		if err := s.Trial.Reset(context.WithoutCancel(ctx)); err != nil {
			out.Notes = append(out.Notes, fmt.Sprintf("trial: the reset after the last run failed: %v", err))
		}
	}
	out.renumber(all)
	plan.Sent = true
	out.Stats.Requests += len(all)
	out.Stats.Probes += len(all)
	out.Notes = append(out.Notes, fmt.Sprintf("trial: %d run(s) of %d task(s) played, %d request(s) sent (listed under trials in the JSON report)", played, len(plan.Tasks), len(all)))
	return nil
}

func (s Session) trialConfig(identity string) (Identity, Config) {
	id := s.identityNamed(identity)
	return id, asIdentity(s.Config, id, s.Config.MaxPages)
}

// playRun sends one run's steps in order: the attempt until one succeeds,
// the repeat only after one did, the reads always, and the cleanup only to
// the resource the successful attempt's answer says it created. Redirects are recorded,
// not followed, as for active probes.
func (s Session) playRun(ctx context.Context, r *exchange.TrialRun) (notes []string) {
	_, cfg := s.trialConfig(r.Identity)
	cfg = cfg.withDefaults()
	start := normalize(cfg.Start)
	c := newClient(cfg, start)
	c.maxHops = 0
	defer c.close()
	var succeeded *exchange.TrialStep
	var succeededX *exchange.Exchange
	var readTag string
	// created is the URL of what the attempt created, where the run
	// planned a cleanup and the answer names it on the item path the
	// cleanup was planned for; "" skips the cleanup and its read.
	created := ""
	// skipped is set when a repeat or stale step was not sent: the re-read
	// planned after it would show nothing new.
	skipped := false
	for i := range r.Steps {
		st := r.Steps[i]
		switch st.Role {
		case exchange.StepCall:
			if succeeded != nil {
				continue
			}
		case exchange.StepRepeat:
			if skipped = succeeded == nil; skipped {
				continue
			}
			st.PlannedRequest = succeeded.PlannedRequest
			st.Purpose = r.Steps[i].Purpose
		case exchange.StepStale:
			if skipped = succeeded == nil || readTag == ""; skipped {
				continue
			}
			st.Header = st.Header.Clone()
			st.Header.Set("If-Match", readTag)
		case exchange.StepReread:
			if skipped {
				skipped = false
				continue
			}
		case exchange.StepCleanup:
			created = ""
			if r.CreatedAt != "" {
				created = exchange.CreatedBy(succeededX, r.CreatedAt)
			}
			if created == "" {
				continue
			}
			st.URL = created
		case exchange.StepCleanupRead:
			if created == "" {
				continue
			}
			st.URL = created
		}
		if err := validatePlanned(st.PlannedRequest, start, true); err != nil {
			notes = append(notes, fmt.Sprintf("trial request %s %s (%s) not sent: %v", st.Method, st.URL, st.Purpose, err))
			continue
		}
		if ctx.Err() != nil {
			return notes
		}
		x, _ := c.send(ctx, st.Method, st.URL, plannedHeader(cfg, st.PlannedRequest), st.Body)
		x.Purpose, x.BasedOn, x.Identity = st.Purpose, st.BasedOn, r.Identity
		r.Exchanges = append(r.Exchanges, x)
		r.Roles = append(r.Roles, st.Role)
		if st.Role == exchange.StepRead && x.Response != nil {
			readTag = x.Response.Header.Get("ETag")
		}
		if st.Role == exchange.StepCall && mcp.Accomplished(x, st.Via) {
			succeeded, succeededX = &r.Steps[i], x
		}
	}
	return notes
}
