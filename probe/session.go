package probe

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/mcp"
	"github.com/agentready/agentready/internal/spec"
)

// View is what one identity was shown: its own crawl and the requests sent
// as it, and the MCP catalog listed as it, if any. Its Caller is the
// identity's, as Describe made it.
type View struct {
	exchange.Caller
	Recording *exchange.Recording
	MCP       *mcp.Snapshot
}

// Session is everything one scan sends, in order: the crawl and the planned
// probes as each identity, the active probes, then the MCP examination and
// the catalog listed as each identity. Config.Budget bounds the whole
// session, shared among these phases (see schedule).
type Session struct {
	// Config is the target and the bounds; its Headers are sent as every
	// identity.
	Config Config
	// Identities are the callers to run as, least privileged first, as
	// Describe made them; with none, the session runs once with
	// Config.Headers alone.
	Identities []Identity
	// Plan plans the probes of the most privileged identity.
	Plan Planner
	// PlanAsIdentity plans, for each less privileged identity, what it
	// fetches besides its own crawl, from what the most privileged one read
	// and its share of the page limit; nil plans nothing.
	PlanAsIdentity func(privileged *exchange.Recording, pages int) Planner
	// MCP, when set, examines the app's MCP endpoint.
	MCP *MCPPlan
	// Active, when set, sends the active probes.
	Active *ActivePlan
	// Trial, when set, plays a trial after everything else (trial.go).
	Trial *TrialSession

	// What the scan adds to the user's Config for its checks; Config
	// itself is the user's, as the CLI built it, and RunSession never hands
	// a field of it a second meaning.

	// FollowUp, when set, plans one more round of requests after the
	// planned probes of the most privileged identity, from what they
	// returned; see FollowUp.
	FollowUp FollowUp
	// OnSpec, when set, is called once with the OpenAPI document before any
	// probe is planned, so that planning can use it.
	OnSpec func(*spec.Document)
	// KeepSpecText keeps the text of a fetched document in its Raw, for a
	// recording that must load it again offline.
	KeepSpecText bool
	// ReadEveryPage lifts Config.BodiesPerShape, for checks that judge each
	// page, or compare the same pages across identities. Bodies over 16 KiB
	// stay bounded (keepLargeBodies).
	ReadEveryPage bool
	// Shard, when split, makes Config.MaxPages bound the pages of the
	// shard's own path shapes: pages of other shapes are still fetched,
	// since links to its own shapes may be on them alone, but bounded apart
	// (see crawler.overBudget).
	Shard finding.Shard
	// Secrets are more credentials to scrub from every recording, never
	// sent, besides Config.Secrets: the headers the scan sends as its other
	// identities, which a server may echo to this one (a shared cache, a
	// debug page).
	Secrets http.Header
	// Progress, when set, counts the pages and requests as they happen and
	// names the phase the session is in, for a progress line and for what
	// an interruption stopped; see Progress.
	Progress *Progress
}

// additions is cfg with what the session adds to it, for the runs.
func (s Session) additions(cfg Config) Config {
	cfg.followUp, cfg.shard, cfg.readEveryPage, cfg.progress = s.FollowUp, s.Shard, s.ReadEveryPage, s.Progress
	cfg.Spec.onLoad, cfg.Spec.keepRaw = s.OnSpec, s.KeepSpecText
	if len(s.Secrets) > 0 {
		secrets := cfg.Secrets.Clone()
		if secrets == nil {
			secrets = http.Header{}
		}
		for name, vs := range s.Secrets {
			secrets[name] = append(secrets[name], vs...)
		}
		cfg.Secrets = secrets
	}
	return cfg
}

// Outcome is the whole recording of a session, frozen: every exchange
// numbered once, no two with one ID.
type Outcome struct {
	// Result is the most privileged identity's recording, every other
	// family's evidence; its Stats and Notes cover the whole session.
	Result
	// Views are the identities' recordings, least privileged first, when
	// the session ran as two or more; the last is Result.Recording.
	Views []View
	// Caller is who Result.Recording was recorded as: the most privileged
	// identity, or, in a session as none, an unnamed caller that sends
	// Config.Headers alone.
	Caller exchange.Caller
	// MCP is the MCP endpoint examined, or nil when none speaks MCP.
	MCP *mcp.Snapshot
	// Active is what the active probes planned and sent, or nil when they
	// were not enabled.
	Active *ActiveOutcome
	// Trial is the trial's plan with what each run sent, or nil when no
	// trial was asked for.
	Trial *exchange.TrialPlan
}

// RunSession runs the session. Like Run, it returns an error only when the
// scan could not complete; a partial session (budget, Ctrl-C) still gives
// an outcome.
func RunSession(ctx context.Context, s Session) (*Outcome, error) {
	sched := newSchedule(s.Config.Budget)
	s.Config = s.additions(s.Config)
	if s.Config.Resolver == nil {
		s.Config.Resolver = NewResolver(nil)
	}
	sources, err := s.grantTokens(ctx)
	defer func() {
		for _, ts := range sources {
			ts.close()
		}
	}()
	if err != nil && errors.Is(ctx.Err(), context.Canceled) {
		// Stopped while a token endpoint was answering: nothing was sent to
		// the target, and the report says the scan was interrupted.
		return &Outcome{Result: Result{
			Recording: &exchange.Recording{Target: normalize(s.Config.Start).String()},
			Stats:     finding.Stats{Interrupted: true},
			Notes:     []string{"scan interrupted while getting the identities' access tokens, before the crawl"},
		}, Caller: s.judged()}, nil
	}
	if err != nil {
		return nil, err
	}
	probeCtx, cancelProbes := sched.untilProbed(ctx)
	out, err := s.crawlAs(probeCtx, sched.probing())
	cancelProbes()
	if err != nil {
		return nil, err
	}
	s = s.withCurrentTokens(ctx)
	if err := s.sendActive(ctx, sched, out); err != nil {
		return nil, err
	}
	s.collectMCP(ctx, sched, out)
	if err := s.playTrial(ctx, sched, out); err != nil {
		return nil, err
	}
	for _, ts := range sources {
		out.Notes = appendNotes(out.Notes, ts.note())
	}
	out.Stats.Addresses = s.Config.Resolver.Addresses()
	return out, nil
}

// grantTokens gets each OAuth identity its first access token, before
// anything is sent to the target: an identity the scan cannot run as ends
// the session (ErrTokenEndpoint). The identities then carry the token as
// their Authorization, and a token source renews it (see client.withBearer).
func (s *Session) grantTokens(ctx context.Context) ([]*tokenSource, error) {
	var sources []*tokenSource
	ids := append([]Identity(nil), s.Identities...)
	for i, id := range ids {
		if id.OAuth == nil {
			continue
		}
		if err := id.OAuth.Validate(s.Config.Start); err != nil {
			return sources, fmt.Errorf("%w for identity %q: %v", ErrTokenEndpoint, id.Name, err)
		}
		if s.Config.Issued == nil {
			s.Config.Issued = &SecretBook{}
		}
		ts := newTokenSource(id.Name, *id.OAuth, s.Config, s.Config.Issued)
		sources = append(sources, ts)
		tok, err := ts.token(ctx)
		if err != nil {
			return sources, err
		}
		ids[i].Header, ids[i].source = withAuthorization(id.Header, tok), ts
	}
	s.Identities = ids
	return sources, nil
}

// withCurrentTokens is s with each OAuth identity's current token in its
// headers, for the steps after the crawl whose clients take headers as they
// are (the MCP client), and every credential issued so far among the
// secrets they scrub.
func (s Session) withCurrentTokens(ctx context.Context) Session {
	if s.Config.Issued == nil {
		return s
	}
	ids := append([]Identity(nil), s.Identities...)
	for i, id := range ids {
		if id.source != nil {
			if tok, err := id.source.token(ctx); err == nil {
				ids[i].Header = withAuthorization(id.Header, tok)
			}
		}
	}
	s.Identities = ids
	secrets := s.Config.Secrets.Clone()
	if secrets == nil {
		secrets = http.Header{}
	}
	for _, h := range s.Config.Issued.Headers() {
		for name, vs := range h {
			secrets[name] = append(secrets[name], vs...)
		}
	}
	s.Config.Secrets = secrets
	return s
}

// crawlAs runs the probe once per identity. With fewer than two identities
// it is the single-identity scan of old (one identity only adds its headers).
// With several, the most privileged identity (the last) gets the full scan
// whose recording every family except leakage judges, so nothing is reported
// twice; each lower identity crawls the same frontier and fetches what
// PlanAsIdentity plans. The probing time (ctx ends with it) and the page
// limit are split evenly: each identity's run gets a context that ends with
// its share, and a note says so.
func (s Session) crawlAs(ctx context.Context, probing time.Duration) (*Outcome, error) {
	ids := s.Identities
	if len(ids) == 0 {
		res, err := runWithin(ctx, s.Config, s.Plan)
		if err != nil {
			return nil, err
		}
		return &Outcome{Result: *res, Caller: s.judged()}, nil
	}
	base := s.Config
	n := len(ids)
	share := probing / time.Duration(n)
	pages := max(1, base.withDefaults().MaxPages/n)
	primary := ids[n-1]
	res, err := runFor(ctx, share, asIdentity(base, primary, pages), s.Plan)
	if err != nil {
		return nil, err
	}
	out := &Outcome{Result: *res, Caller: s.judged()}
	if n == 1 {
		return out, nil
	}
	label(out.Recording, primary.Name)
	out.Views = make([]View, n)
	out.Views[n-1] = View{Caller: primary.Caller, Recording: out.Recording}
	next := len(out.Recording.Exchanges)
	for i, id := range ids[:n-1] {
		lower := asIdentity(base, id, pages)
		lower.followUp, lower.Spec = nil, SpecConfig{NoSeed: true}
		var plan Planner
		if s.PlanAsIdentity != nil {
			plan = s.PlanAsIdentity(out.Recording, pages)
		}
		if ctx.Err() != nil {
			// Cancelled or out of time: Run would send nothing, and its
			// notes would say the crawl was cut after 0 pages.
			out.Notes = append(out.Notes, fmt.Sprintf("identity %q: not crawled: the scan ended first", id.Name))
			out.Views[i] = View{Caller: id.Caller, Recording: &exchange.Recording{Target: out.Recording.Target}}
			cutShort(&out.Stats, ctx, finding.CutCrawl)
			continue
		}
		lres, lerr := runFor(ctx, share, lower, plan)
		if lerr != nil {
			out.Notes = append(out.Notes, fmt.Sprintf("identity %q: crawl failed: %v", id.Name, lerr))
			out.Views[i] = View{Caller: id.Caller, Recording: &exchange.Recording{Target: out.Recording.Target}}
			continue
		}
		label(lres.Recording, id.Name)
		for _, x := range lres.Recording.Exchanges {
			next++
			x.ID = fmt.Sprintf("x%04d", next)
		}
		out.Stats.Requests += lres.Stats.Requests
		out.Throttling = sumThrottling(out.Throttling, lres.Throttling)
		out.Stats.Interrupted = out.Stats.Interrupted || lres.Stats.Interrupted
		for _, phase := range lres.Stats.BudgetCut {
			out.Stats.CutBy(phase)
		}
		for _, note := range lres.Notes {
			out.Notes = append(out.Notes, fmt.Sprintf("identity %q: %s", id.Name, note))
		}
		out.Views[i] = View{Caller: id.Caller, Recording: lres.Recording}
	}
	out.Notes = append(out.Notes, fmt.Sprintf(
		"scanned as %d identities (%s, least privileged first); each got %s of the budget to crawl and probe, and %d pages; families other than leakage judge %q",
		n, names(ids), share, pages, primary.Name))
	return out, nil
}

// runFor runs cfg within share of ctx's time, measured from now: one
// identity's turn.
func runFor(ctx context.Context, share time.Duration, cfg Config, plan Planner) (*Result, error) {
	ctx, cancel := context.WithTimeout(ctx, share)
	defer cancel()
	return runWithin(ctx, cfg, plan)
}

// privileged is the configuration of the most privileged identity, whose
// view every family but leakage judges.
func (s Session) privileged() Config {
	if n := len(s.Identities); n > 0 {
		return asIdentity(s.Config, s.Identities[n-1], s.Config.MaxPages)
	}
	return s.Config
}

// judged is the caller whose recording every family but leakage judges
// (Outcome.Caller).
func (s Session) judged() exchange.Caller {
	if n := len(s.Identities); n > 0 {
		return s.Identities[n-1].Caller
	}
	return unnamedCaller(s.Config.Headers)
}

func label(rec *exchange.Recording, name string) {
	for _, x := range rec.Exchanges {
		x.Identity = name
	}
}

func names(ids []Identity) string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = id.Name
	}
	return strings.Join(out, ", ")
}

// recordingOf is the recording of the named identity: the main recording
// for the most privileged one or a single-identity session.
func (o *Outcome) recordingOf(name string) *exchange.Recording {
	for _, v := range o.Views[:max(0, len(o.Views)-1)] {
		if v.Name == name && v.Recording != nil {
			return v.Recording
		}
	}
	return o.Recording
}

// renumber gives xs the IDs that follow every exchange of the session, the
// lower identities' included, so that evidence never names two exchanges
// with one ID.
func (o *Outcome) renumber(xs []*exchange.Exchange) {
	n := lastID(o.Recording)
	for _, v := range o.Views {
		n = max(n, lastID(v.Recording))
	}
	for i, x := range xs {
		x.ID = fmt.Sprintf("x%04d", n+i+1)
	}
}

func lastID(rec *exchange.Recording) int {
	n := 0
	if rec == nil {
		return n
	}
	for _, x := range rec.Exchanges {
		var id int
		if _, err := fmt.Sscanf(x.ID, "x%d", &id); err == nil {
			n = max(n, id)
		}
	}
	return n
}

// EchoNotes says when the server echoed credentials the session sent, which
// the recording shows as REDACTED: a report reader would otherwise wonder
// where that word in a body came from.
func (o *Outcome) EchoNotes() []string {
	recs := []*exchange.Recording{o.Recording}
	for _, v := range o.Views {
		if v.Recording != o.Recording {
			recs = append(recs, v.Recording)
		}
	}
	n, first := 0, ""
	for _, rec := range recs {
		if rec == nil {
			continue
		}
		for _, x := range rec.Exchanges {
			if x.Response == nil || x.Response.Redactions == 0 {
				continue
			}
			if n++; first == "" {
				first = x.Request.Method + " " + exchange.PathOf(x.Request.URL)
			}
		}
	}
	if n == 0 {
		return nil
	}
	return []string{fmt.Sprintf("the server echoed credentials the scan sent in %d response(s), first to %s; they are replaced with %s in the recording and every report",
		n, first, exchange.Redacted)}
}

// ActivePlan enables the active probes: state-changing requests, sent only
// after Confirm agrees.
type ActivePlan struct {
	// Plan lists the requests from what each identity was shown, least
	// privileged first (one view for a session as one caller), and the
	// OpenAPI document.
	Plan func(views []View, doc *spec.Document) []exchange.ActiveRequest
	// Confirm sees the exact requests, Shown filled in, before any is sent;
	// an error sends none and ends the session with it. It is required.
	Confirm func([]exchange.ActiveRequest) error
	// Allow is the user's allow-list as written, and Confirmed how they
	// agreed: the consent the outcome records (ActiveOutcome).
	Allow     []string
	Confirmed string
}
