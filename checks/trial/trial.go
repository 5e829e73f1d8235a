// Package trial judges what a trial (--trial) observed against what the API
// declared: a tool marked read-only that changed state, an operation
// declared idempotent whose second identical call changed state again, an
// action a resource offered that was then refused, a next_actions step
// accepted with no effect, an affordance accepted again once its version
// moved. It also fills the report's Trials section: seed 000's table,
// measured, where a run succeeds when the resource reaches the state the
// operation declares. What a tool says
// about itself and what it does are separate facts (seed 002); the second
// only shows up when something runs.
package trial

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"slices"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/internal/hypermedia"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/mcp"
)

// All returns the family's checks.
func All() []checks.Check {
	return []checks.Check{ReadOnlyChangedState{}, DestructiveNotDeclared{}, IdempotentChangedAgain{}, OfferedActionRefused{}, ToolErrorAsProtocolError{},
		NextActionNoEffect{}, StaleVersionAccepted{}}
}

var (
	annotationsRef = finding.SpecRef{Doc: "MCP " + mcp.Modern, Section: "schema ToolAnnotations (readOnlyHint, idempotentHint, destructiveHint)",
		Level: "definition", URL: "https://modelcontextprotocol.io/specification/" + mcp.Modern + "/schema#toolannotations"}
	toolErrorsRef = finding.SpecRef{Doc: "MCP " + mcp.Modern, Section: "server/tools: Error Handling (tool execution errors in the result, isError: true)",
		Level: "SHOULD", URL: "https://modelcontextprotocol.io/specification/" + mcp.Modern + "/server/tools#error-handling"}
	idempotentRef = finding.SpecRef{Doc: "RFC 9110", Section: "9.2.2 Idempotent Methods", Level: "definition", URL: "https://www.rfc-editor.org/rfc/rfc9110#section-9.2.2"}
	// declaredRef is the guidance that a tool's declarations and its
	// effects must agree, which only a trial can check.
	declaredRef = finding.SpecRef{Doc: "agent-readiness guidance", Section: "What a tool says about itself and what it does", Level: "SHOULD",
		URL: "https://github.com/agentready/agentready/blob/main/docs/trials.md#declared-versus-observed"}
	// offeredRef is the guidance that what a resource offers applies now.
	offeredRef = finding.SpecRef{Doc: "agent-readiness guidance", Section: "Stable Verbs, Dynamic Affordances", Level: "SHOULD",
		URL: "https://github.com/agentready/agentready/blob/main/docs/hypermedia.md#hybrid-affordances"}
	statefulRef = finding.SpecRef{Doc: "agent-readiness guidance", Section: "Stateful business actions for agents", Level: "SHOULD",
		URL: "https://github.com/agentready/agentready/blob/main/docs/hypermedia.md#stateful-actions"}
)

// parts is embedded by every check: the Trials section.
type parts struct{}

// Parts implements checks.Part owners: the section comes with the family.
func (parts) Parts() []checks.Part { return []checks.Part{section{}} }

// section fills the report's Trials section.
type section struct{}

// Annotate implements checks.Annotator.
func (section) Annotate(in *checks.Input, rep *finding.Report) {
	if in.Trial == nil {
		return
	}
	rep.Trials = analysisOf(in).report
}

// run is what one player's run did, read from its exchanges.
type run struct {
	plan               *exchange.TrialRun
	task               exchange.TrialTask
	via                string
	read, call, reread *exchange.Exchange
	// repeat is the identical second call of an operation declared
	// idempotent, stale the affordance's request sent again once its
	// version had moved; each has the re-read that followed it.
	repeat, rereadRepeat *exchange.Exchange
	stale, rereadStale   *exchange.Exchange
	// cleanup is the DELETE of what the attempt created, cleanupRead the
	// read of it that followed.
	cleanup, cleanupRead *exchange.Exchange
	calls, refused       int
	accomplished         bool
	// changed: the re-read differs from the read; reached: it shows the
	// task's declared target state.
	changed, reached bool
	changedAgain     bool
	tokens           int
	exchanges        []*exchange.Exchange
}

type analysis struct {
	runs   []*run
	report *finding.Trials
}

var analysisKey = checks.NewKey[*analysis]()

func analysisOf(in *checks.Input) *analysis {
	return checks.Memo(in, analysisKey, func() *analysis { return analyze(in.Trial, catalogTokens(in)) })
}

// catalogTokens is what player A reads before it acts: the static catalog
// (the MCP tools, else the OpenAPI operations), counted as the interfaces
// section counts it; 0 when the scan saw neither.
func catalogTokens(in *checks.Input) int {
	for _, e := range hypermedia.InterfaceCosts(in, in.MCP).Entries {
		if e.Interface == finding.InterfaceStatic && e.UpfrontTokens != nil {
			return *e.UpfrontTokens
		}
	}
	return 0
}

// interfaceOf names the interface each player plays by, as the interfaces
// section names it.
var interfaceOf = map[string]string{
	exchange.PlayerCatalog:    finding.InterfaceStatic,
	exchange.PlayerReferences: finding.InterfaceReferenced,
	exchange.PlayerTemplates:  finding.InterfaceDynamic,
}

func analyze(plan *exchange.TrialPlan, catalog int) *analysis {
	a := &analysis{report: &finding.Trials{Reset: plan.Reset, PlanOnly: plan.PlanOnly, Players: []finding.TrialPlayer{}, Tasks: []finding.TrialTask{}}}
	tokenizer := ""
	count := func(x *exchange.Exchange) int {
		if x == nil || x.Response == nil || len(x.Response.Body) == 0 {
			return 0
		}
		n, how := mcp.CountTokens(string(x.Response.Body))
		tokenizer = how
		return n
	}
	tasks := map[int]*finding.TrialTask{}
	for _, t := range plan.Tasks {
		a.report.Tasks = append(a.report.Tasks, finding.TrialTask{ID: t.ID, Kind: t.Kind, State: t.State, Operation: t.Operation, Target: t.Target, Runs: []finding.TrialRunInfo{}})
	}
	for i := range a.report.Tasks {
		tasks[a.report.Tasks[i].ID] = &a.report.Tasks[i]
	}
	players := map[string]*finding.TrialPlayer{}
	for _, p := range []string{exchange.PlayerCatalog, exchange.PlayerReferences, exchange.PlayerTemplates} {
		a.report.Players = append(a.report.Players, finding.TrialPlayer{Player: p, Interface: interfaceOf[p]})
	}
	for i := range a.report.Players {
		players[a.report.Players[i].Player] = &a.report.Players[i]
	}
	for i := range plan.Runs {
		pr := &plan.Runs[i]
		p := players[pr.Player]
		if p == nil || len(pr.Roles) != len(pr.Exchanges) {
			continue // not a run the probe plays: a recording edited by hand
		}
		r := &run{plan: pr, via: viaOf(pr)}
		for _, t := range plan.Tasks {
			if t.ID == pr.Task {
				r.task = t
			}
		}
		read(r)
		info := finding.TrialRunInfo{Player: pr.Player, Via: r.via, Resource: pr.Resource, Outcome: "planned"}
		if plan.Sent {
			if pr.Player == exchange.PlayerCatalog {
				r.tokens = catalog
			} else {
				r.tokens = count(r.read)
			}
			requests := 0
			for i, x := range r.exchanges {
				if !exchange.IsHousekeeping(pr.Roles[i]) {
					requests++
					if x != r.read && x.Request.Method != http.MethodGet {
						r.tokens += count(x)
					}
				}
				sent := finding.TrialRequest{ExchangeID: x.ID, Step: pr.Roles[i], Method: x.Request.Method, URL: x.Request.URL}
				if x.Response != nil {
					sent.Status = x.Response.Status
				}
				info.Sent = append(info.Sent, sent)
			}
			info.Requests, info.Refused, info.Tokens = requests, r.refused, r.tokens
			a.cleanup(r, &info)
			info.Outcome = outcome(r)
			a.runs = append(a.runs, r)
			p.Tasks++
			p.Requests += info.Requests
			p.Refused += info.Refused
			p.Tokens += info.Tokens
			switch info.Outcome {
			case outcomeCompleted:
				p.Completed++
			case outcomeWrongState:
				p.WrongState++
			}
		}
		if t := tasks[pr.Task]; t != nil {
			if t.Resource == "" {
				t.Resource = pr.Resource
			}
			t.Runs = append(t.Runs, info)
		}
	}
	a.report.Tokenizer = tokenizer
	return a
}

// cleanup says what became of the resource the run's attempt created,
// when it created one, and counts it in the section's totals.
func (a *analysis) cleanup(r *run, info *finding.TrialRunInfo) {
	if !r.accomplished || r.via != exchange.ViaHTTP {
		return
	}
	created := exchange.CreatedBy(r.call, r.plan.CreatedAt)
	if created == "" && r.plan.CreatedAt != "" {
		// A Location or self link off the item path the document declares
		// is still a resource created, which the plan had no DELETE for.
		created = exchange.CreatedBy(r.call, "")
	}
	if created == "" {
		return
	}
	info.Created = created
	a.report.Created++
	why := cleanupFailure(r)
	if why == "" {
		info.Cleanup = cleanupCleaned
		a.report.Cleaned++
		return
	}
	info.Cleanup, info.CleanupNote = cleanupLeft, why
	a.report.Left++
	a.report.LeftBehind = append(a.report.LeftBehind, finding.TrialLeftBehind{URL: created, Task: r.plan.Task, Player: r.plan.Player, Why: why})
}

// What became of a resource a run created.
const (
	cleanupCleaned = "cleaned"
	cleanupLeft    = "left"
)

// cleanupFailure says why the created resource was left, "" when the
// cleanup was accepted and a read then found it gone (404 or 410).
func cleanupFailure(r *run) string {
	planned := slices.ContainsFunc(r.plan.Steps, func(s exchange.TrialStep) bool { return s.Role == exchange.StepCleanup })
	switch {
	case !planned && r.plan.NoCleanup != "":
		return r.plan.NoCleanup
	case !planned:
		return "the document declares no DELETE on it"
	case r.cleanup == nil:
		return "it is not on the item path the cleanup was planned for"
	case r.cleanup.Response == nil:
		return "the DELETE got no answer"
	case r.cleanup.Response.Status/100 != 2:
		return fmt.Sprintf("the DELETE was refused with %d", r.cleanup.Response.Status)
	case r.cleanupRead == nil || r.cleanupRead.Response == nil:
		return "the DELETE was accepted, and the read that followed got no answer"
	case r.cleanupRead.Response.Status != http.StatusNotFound && r.cleanupRead.Response.Status != http.StatusGone:
		return fmt.Sprintf("the DELETE was accepted, and the resource still answers %d", r.cleanupRead.Response.Status)
	}
	return ""
}

func viaOf(r *exchange.TrialRun) string {
	for _, s := range r.Steps {
		if s.Role == exchange.StepCall {
			return s.Via
		}
	}
	return exchange.ViaHTTP
}

// read sorts the run's exchanges by the role of their step: each re-read
// belongs to the request sent before it.
func read(r *run) {
	pr := r.plan
	r.exchanges = pr.Exchanges
	after := exchange.StepCall
	for i, x := range pr.Exchanges {
		switch role := pr.Roles[i]; role {
		case exchange.StepRead:
			r.read = x
		case exchange.StepCall:
			r.calls++
			r.call = x
			if mcp.Accomplished(x, r.via) {
				r.accomplished = true
			} else {
				r.refused++
			}
		case exchange.StepRepeat:
			r.repeat, after = x, role
		case exchange.StepStale:
			r.stale, after = x, role
		case exchange.StepCleanup:
			r.cleanup = x
		case exchange.StepCleanupRead:
			r.cleanupRead = x
		case exchange.StepReread:
			switch after {
			case exchange.StepRepeat:
				r.rereadRepeat = x
			case exchange.StepStale:
				r.rereadStale = x
			default:
				r.reread = x
			}
		}
	}
	r.changed = r.accomplished && reads{r.read, r.reread}.changed()
	if r.read == nil && r.reread == nil {
		// A tool that acts on no resource the scan saw has nothing to
		// read back: its result alone says whether it did the task.
		r.changed = r.accomplished
	}
	r.reached = r.accomplished && r.task.Target != "" && reads{r.read, r.reread}.shows(r.task.Target)
	r.changedAgain = r.repeat != nil && mcp.Accomplished(r.repeat, r.via) && reads{r.reread, r.rereadRepeat}.changed()
}

// The outcomes of a run.
const (
	outcomeCompleted = "completed"
	// outcomeWrongState: accepted, and the resource changed, but not to
	// the state the operation declares.
	outcomeWrongState = "wrong state"
	outcomeNoChange   = "no change"
	outcomeRefused    = "refused"
)

// outcome is what the run achieved: the declared target state where the
// API declares one, else an observable change.
func outcome(r *run) string {
	switch {
	case !r.accomplished && r.calls > 0:
		return outcomeRefused
	case !r.accomplished:
		return "not played"
	case r.reached, r.task.Target == "" && r.changed:
		return outcomeCompleted
	case r.changed:
		return outcomeWrongState
	}
	return outcomeNoChange
}

// reads are two reads of one resource, before and after a request: the one
// comparison every check of the family makes.
type reads struct{ before, after *exchange.Exchange }

// answered reports both reads answered.
func (p reads) answered() bool {
	return p.before != nil && p.after != nil && p.before.Response != nil && p.after.Response != nil
}

// changed reports an observable change: the state (or status) or version
// member, or, when the resource has neither, its body.
func (p reads) changed() bool {
	if !p.answered() {
		return false
	}
	bv, av := p.before.Response.ReadHAL(), p.after.Response.ReadHAL()
	if bv.Err != nil || av.Err != nil || bv.Doc.Root == nil || av.Doc.Root == nil {
		return !bytes.Equal(p.before.Response.Body, p.after.Response.Body)
	}
	b, a := bv.Doc.Root, av.Doc.Root
	compared := false
	for _, key := range []string{"state", "status", "version"} {
		bm, am := b.Get(key), a.Get(key)
		if bm == nil && am == nil {
			continue
		}
		compared = true
		if (bm == nil) != (am == nil) || fmt.Sprint(bm.Any()) != fmt.Sprint(am.Any()) {
			return true
		}
	}
	if compared {
		return false
	}
	return !bytes.Equal(p.before.Response.Body, p.after.Response.Body)
}

// shows reports the second read answered 2xx with the state (or status)
// member target.
func (p reads) shows(target string) bool {
	if !p.answered() || p.after.Response.Status/100 != 2 {
		return false
	}
	v := p.after.Response.ReadHAL()
	if v.Err != nil || v.Doc.Root == nil {
		return false
	}
	_, st := hypermedia.StateOf(v.Doc.Root)
	return st == target
}

// removed reports a resource read with a 2xx and then gone: 404 Not Found
// or 410 Gone.
func (p reads) removed() bool {
	if !p.answered() {
		return false
	}
	st := p.after.Response.Status
	return p.before.Response.Status/100 == 2 && (st == http.StatusNotFound || st == http.StatusGone)
}

// evidence is the run's exchanges, each as the finding's evidence.
func evidence(xs ...*exchange.Exchange) []finding.Evidence {
	var out []finding.Evidence
	for _, x := range xs {
		if x != nil {
			out = append(out, checks.Evidence(x, []string{"Content-Type", "Mcp-Name"}, []string{"Content-Type", "ETag"}))
		}
	}
	return out
}

// judge runs fn over the played runs; a scan without a played trial is not
// assessed.
func judge(in *checks.Input, fn func(r *run) *finding.Finding) ([]finding.Finding, error) {
	if in.Trial == nil {
		return nil, checks.Skip("not assessed: this check judges a trial, which changes state on the target; run with --trial and an allow-list naming the operations")
	}
	if !in.Trial.Sent {
		return nil, checks.Skip("not assessed: the trial was planned (--trial-plan) and not played")
	}
	var out []finding.Finding
	for _, r := range analysisOf(in).runs {
		if f := fn(r); f != nil {
			out = append(out, *f)
		}
	}
	return out, nil
}

func isTrue(b *bool) bool { return b != nil && *b }

// isFalse is a hint declared false, not one left out: an absent
// destructiveHint defaults to true, which promises nothing.
func isFalse(b *bool) bool { return b != nil && !*b }

// ReadOnlyChangedState reports a tool marked readOnlyHint: true whose call
// changed the resource.
type ReadOnlyChangedState struct{ parts }

func (ReadOnlyChangedState) Meta() checks.Meta {
	return checks.Meta{
		ID: "trial-read-only-changed-state", Since: checks.FirstRelease, Family: checks.FamilyTrial,
		Title: "A tool marked read-only leaves the resource as it was", Severity: finding.SeverityError, Security: true,
		SpecRefs: []finding.SpecRef{annotationsRef, declaredRef},
		Help: "Hosts run tools marked `readOnlyHint: true` without asking the user. A trial called the tool and read\n" +
			"the resource again: it had changed. The hint promised what the tool does not keep.\n\n" +
			"**How to fix:** set `readOnlyHint: false` on every tool that writes, or make the tool only read.",
	}
}

func (c ReadOnlyChangedState) Run(_ context.Context, in *checks.Input) ([]finding.Finding, error) {
	return judge(in, func(r *run) *finding.Finding {
		if r.via != exchange.ViaMCP || !isTrue(r.task.ReadOnly) || !r.changed {
			return nil
		}
		f := checks.New(c.Meta(), r.plan.Resource, fmt.Sprintf("the %s tool says readOnlyHint: true, and calling it changed %s (player %s)",
			r.task.Operation, exchange.PathOf(r.plan.Resource), r.plan.Player), evidence(r.read, r.call, r.reread)...)
		return &f
	})
}

// DestructiveNotDeclared reports a tool marked destructiveHint: false whose
// call removed the resource: read before the call, gone (404 or 410)
// after it.
type DestructiveNotDeclared struct{ parts }

func (DestructiveNotDeclared) Meta() checks.Meta {
	return checks.Meta{
		ID: "trial-destructive-not-declared", Since: checks.FirstRelease, Family: checks.FamilyTrial,
		Title: "A tool that removes what it acts on is not marked non-destructive", Severity: finding.SeverityError, Security: true,
		SpecRefs: []finding.SpecRef{annotationsRef, declaredRef},
		Help: "`destructiveHint: false` tells a host that the tool only adds to its environment, so hosts that ask the\n" +
			"user before a destructive call let it run unconfirmed. A trial read the resource, called the tool, and\n" +
			"read it again: it was gone (404 or 410). The hint promised what the tool does not keep.\n\n" +
			"**How to fix:** set `destructiveHint: true` (or leave it out: it defaults to true) on every tool that\n" +
			"deletes or overwrites, or make the tool keep the resource.",
	}
}

func (c DestructiveNotDeclared) Run(_ context.Context, in *checks.Input) ([]finding.Finding, error) {
	return judge(in, func(r *run) *finding.Finding {
		if r.via != exchange.ViaMCP || !isFalse(r.task.Destructive) || isTrue(r.task.ReadOnly) || !r.accomplished || !(reads{r.read, r.reread}).removed() {
			return nil
		}
		f := checks.New(c.Meta(), r.plan.Resource, fmt.Sprintf("the %s tool says destructiveHint: false, and after calling it %s answers %d (player %s)",
			r.task.Operation, exchange.PathOf(r.plan.Resource), r.reread.Response.Status, r.plan.Player), evidence(r.read, r.call, r.reread)...)
		return &f
	})
}

// IdempotentChangedAgain reports an operation declared idempotent whose
// second identical call changed the resource again.
type IdempotentChangedAgain struct{ parts }

func (IdempotentChangedAgain) Meta() checks.Meta {
	return checks.Meta{
		ID: "trial-idempotent-changed-again", Since: checks.FirstRelease, Family: checks.FamilyTrial,
		Title: "A second identical call of an idempotent operation changes nothing more", Severity: finding.SeverityWarning,
		SpecRefs: []finding.SpecRef{annotationsRef, idempotentRef, declaredRef},
		Help: "An agent retries a call marked idempotent (`idempotentHint: true`, or a PUT or DELETE) after a timeout,\n" +
			"trusting that a repeat has no further effect. A trial repeated the call that had succeeded, identical,\n" +
			"and the resource changed again.\n\n" +
			"**How to fix:** make the repeat a no-op (key the effect on the request, or compare with the current state),\n" +
			"or stop declaring the operation idempotent.",
	}
}

func (c IdempotentChangedAgain) Run(_ context.Context, in *checks.Input) ([]finding.Finding, error) {
	return judge(in, func(r *run) *finding.Finding {
		if !r.changedAgain {
			return nil
		}
		f := checks.New(c.Meta(), r.plan.Resource, fmt.Sprintf("%s is declared idempotent, and its second identical call changed %s again (player %s, via %s)",
			r.task.Operation, exchange.PathOf(r.plan.Resource), r.plan.Player, r.via), evidence(r.call, r.reread, r.repeat, r.rereadRepeat)...)
		return &f
	})
}

// OfferedActionRefused reports an action a resource offered (an
// affordance, a next_actions entry resolved to one, a HAL-FORMS template)
// whose request, built as the control describes, was refused.
type OfferedActionRefused struct{ parts }

func (OfferedActionRefused) Meta() checks.Meta {
	return checks.Meta{
		ID: "trial-offered-action-refused", Since: checks.FirstRelease, Family: checks.FamilyTrial,
		Title: "An action a resource offers is accepted when taken as offered", Severity: finding.SeverityWarning,
		SpecRefs: []finding.SpecRef{offeredRef, statefulRef},
		Help: "A resource that offers an action (an affordance, a `next_actions` entry, a HAL-FORMS template) tells an\n" +
			"agent it applies now. A trial read the resource, took the action exactly as offered, and was refused:\n" +
			"the agent followed the API and failed, and has nothing better to follow.\n\n" +
			"**How to fix:** offer an action only in the states where it is accepted, with the fields it requires.",
	}
}

func (c OfferedActionRefused) Run(_ context.Context, in *checks.Input) ([]finding.Finding, error) {
	return judge(in, func(r *run) *finding.Finding {
		if r.plan.Player == exchange.PlayerCatalog || r.call == nil || r.accomplished || r.call.Response == nil || r.call.Response.Status < 400 || r.call.Response.Status > 499 {
			return nil
		}
		how := "its affordance"
		if r.plan.Player == exchange.PlayerTemplates {
			how = "its HAL-FORMS template"
		}
		f := checks.New(c.Meta(), r.plan.Resource, fmt.Sprintf("%s offered %s by %s, and the request it describes was refused with %d (player %s)",
			exchange.PathOf(r.plan.Resource), r.task.Operation, how, r.call.Response.Status, r.plan.Player), evidence(r.read, r.call)...)
		return &f
	})
}

// ToolErrorAsProtocolError reports a tools/call of a listed tool, with the
// arguments its schema requires, that failed with a JSON-RPC error instead
// of a result marked isError: the model never sees why.
type ToolErrorAsProtocolError struct{ parts }

func (ToolErrorAsProtocolError) Meta() checks.Meta {
	return checks.Meta{
		ID: "trial-tool-error-as-protocol-error", Since: checks.FirstRelease, Family: checks.FamilyTrial,
		Title: "A tool that fails says why in its result, not as a protocol error", Severity: finding.SeverityWarning,
		SpecRefs: []finding.SpecRef{toolErrorsRef, declaredRef},
		Help: "MCP reports a tool's execution and input-validation failures inside the result (`isError: true`), where\n" +
			"the model reads them and can correct itself; a JSON-RPC error goes to the host, and the model learns only\n" +
			"that the call failed. A trial called a listed tool with the arguments its schema requires and got a\n" +
			"JSON-RPC error.\n\n" +
			"**How to fix:** return a `CallToolResult` with `isError: true` and the reason as text content; keep\n" +
			"JSON-RPC errors for unknown tools and malformed requests.",
	}
}

// protocolFailures are the JSON-RPC errors about the request itself, which
// a protocol error rightly reports.
var protocolFailures = map[int]bool{-32700: true, -32600: true, -32601: true}

func (c ToolErrorAsProtocolError) Run(_ context.Context, in *checks.Input) ([]finding.Finding, error) {
	return judge(in, func(r *run) *finding.Finding {
		if r.via != exchange.ViaMCP || r.call == nil || r.call.Response == nil {
			return nil
		}
		m, err := mcp.ParseResponse(r.call.Response.Header.Get("Content-Type"), r.call.Response.Body, 1)
		if err != nil || m == nil || m.Error == nil || protocolFailures[m.Error.Code] {
			return nil
		}
		f := checks.New(c.Meta(), r.plan.Resource, fmt.Sprintf("the %s tool failed on %s with JSON-RPC error %d instead of a result marked isError (player %s)",
			r.task.Operation, exchange.PathOf(r.plan.Resource), m.Error.Code, r.plan.Player), evidence(r.read, r.call)...)
		return &f
	})
}
