// Package trialplan plans a trial: the tasks an API declares (each
// state-changing operation offered on each kind of resource in each state
// the scan saw) and, for each, the requests of three deterministic players:
// A from the static catalog, B following the resource's references, C
// following its HAL-FORMS templates. Planning is pure: it reads the
// recording, and the probe plays the plan only after the user saw it.
// docs/trials.md describes the players and the measures.
package trialplan

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/agentready/agentready/checks/internal/activeplan"
	"github.com/agentready/agentready/checks/internal/hypermedia"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/jsonorder"
	"github.com/agentready/agentready/internal/mcp"
	"github.com/agentready/agentready/internal/spec"
)

// Default bounds of one trial.
const (
	DefaultMaxTasks  = 20
	DefaultMaxWrites = 120
)

// Purpose tags of the trial's requests, per player and step.
const purposePrefix = "trial/"

// Purpose is the purpose of a step of a player's run: "trial/B/call".
func Purpose(player, role string) string { return purposePrefix + player + "/" + role }

// Input is what a trial is planned from.
type Input struct {
	// Recording is what the identity the trial runs as was shown.
	Recording *exchange.Recording
	Identity  string
	Spec      *spec.Document
	// MCP is the examined endpoint, nil when none speaks MCP.
	MCP   *mcp.Snapshot
	Rules activeplan.Rules
	// MaxTasks and MaxWrites bound the trial; 0 takes the default.
	MaxTasks, MaxWrites int
	// Reset says how the target is reset between runs (exchange.Reset*).
	Reset string
}

// resource is one crawled resource with a state and what it offered.
type resource struct {
	// member names the state: "state", else "status" (hypermedia.StateOf).
	url, kind, member, state string
	offers                   []hypermedia.Offer
	nextActions              []string
	// nextTargets are the URLs next_actions entries link, by the
	// operation they name.
	nextTargets map[string]string
}

// task is a planned task with the resources it may act on.
type task struct {
	exchange.TrialTask
	resources []string
	// reference and template are the controls B and C follow, taken from
	// the first resource; zero when the interface does not offer the task.
	reference, template *hypermedia.Offer
	referenced          bool // named by next_actions or an affordance
	// member is the resource's state member, whose declared value after
	// the operation is the task's Target.
	member string
	// op is the OpenAPI operation of a task the document alone declares
	// (catalogTasks), which only player A plays; nil for the others.
	op *spec.Operation
	// flow marks a step of a next_actions flow: an operation next_actions
	// alone names, with no affordance or template to take it by (flowRuns);
	// entryTarget is the URL its entry links, "" when none.
	flow        bool
	entryTarget string
	// tool is the MCP tool of a task on no resource (toolTasks), which only
	// player A plays; nil for the others.
	tool *mcp.Tool
}

// Plan lists the tasks and the runs of the three players, bounded by
// MaxTasks and MaxWrites, only through what the allow-list names (an HTTP
// rule or operationId for HTTP calls, an mcp: rule for tools/call).
func Plan(in Input) *exchange.TrialPlan {
	maxTasks, maxWrites := orDefault(in.MaxTasks, DefaultMaxTasks), orDefault(in.MaxWrites, DefaultMaxWrites)
	plan := &exchange.TrialPlan{Reset: in.Reset, Tasks: []exchange.TrialTask{}, Runs: []exchange.TrialRun{}}
	if in.Recording == nil {
		return plan
	}
	tools := toolsOf(in.MCP)
	var idx *spec.Index
	if in.Spec != nil {
		idx = in.Spec.Index()
	}
	crawled := resourcesOf(in.Recording, in.Spec)
	tasks := tasksOf(crawled, idx)
	nodes := activeplan.FlowNodes(in.Recording, in.Spec)
	if idx != nil {
		tasks = append(tasks, catalogTasks(readsOf(in.Recording, idx), in.Spec, controlled(crawled))...)
	}
	tasks = append(tasks, toolTasks(in.MCP, tools, in.Spec, namedByResources(tasks, crawled, idx))...)
	if len(tasks) > maxTasks {
		plan.Notes = append(plan.Notes, fmt.Sprintf("trial: %d tasks found, the first %d played (trial.tasks)", len(tasks), maxTasks))
		tasks = tasks[:maxTasks]
	}
	writes := 0
	res := &resources{distinct: in.Reset == exchange.ResetDistinct, runs: map[string]int{}}
	toolsNotAllowed := 0
	for i := range tasks {
		t := &tasks[i]
		t.ID = len(plan.Tasks) + 1
		t.Target = declaredTarget(operationOf(t, in.Spec, idx), t.member)
		if tool, ok := tools[t.Operation]; ok && tool.Annotations != nil {
			t.ReadOnly, t.Idempotent, t.Destructive = tool.Annotations.ReadOnlyHint, tool.Annotations.IdempotentHint, tool.Annotations.DestructiveHint
		}
		if t.op != nil {
			if tool := toolOf(t.op, tools); tool != nil && tool.Annotations != nil {
				t.ReadOnly, t.Idempotent, t.Destructive = tool.Annotations.ReadOnlyHint, tool.Annotations.IdempotentHint, tool.Annotations.DestructiveHint
			}
		}
		var runs []exchange.TrialRun
		var why string
		switch {
		case t.tool != nil:
			var r exchange.TrialRun
			r, why = toolRun(in, t)
			if why == notAllowed {
				toolsNotAllowed++
				continue
			}
			if why != "" {
				plan.Notes = append(plan.Notes, fmt.Sprintf("trial: the %s tool, which acts on no resource the scan saw, is not played: %s", t.Operation, why))
				continue
			}
			runs = append(runs, r)
		case t.op != nil:
			var r exchange.TrialRun
			if r, why = declaredRun(in, t, tools, idx, res); why == "" {
				runs = append(runs, r)
			}
		case t.flow:
			runs, why = flowRuns(in, t, tools, idx, nodes, res)
		default:
			runs = runsOf(in, t, tools, idx, res)
		}
		if why != "" {
			plan.Notes = append(plan.Notes, fmt.Sprintf("trial: %s on %s (%s) is not played: %s", t.Operation, t.Kind, exchange.StateWords(t.State), why))
			continue
		}
		if len(runs) == 0 {
			plan.Notes = append(plan.Notes, fmt.Sprintf("trial: %s on %s (%s) is not played: the allow-list names none of its interfaces", t.Operation, t.Kind, exchange.StateWords(t.State)))
			continue
		}
		n := 0
		for i := range runs {
			planCleanup(in, &runs[i], idx)
			n += writesOf(runs[i])
		}
		if writes+n > maxWrites {
			plan.Notes = append(plan.Notes, fmt.Sprintf("trial: stopped before %s on %s (%s): it would pass %d writes (trial.writes)", t.Operation, t.Kind, exchange.StateWords(t.State), maxWrites))
			break
		}
		writes += n
		for _, r := range runs {
			if t.tool == nil { // a tool task's run reads no resource: nothing of it to share
				res.claim(r.Resource)
			}
		}
		plan.Tasks = append(plan.Tasks, t.TrialTask)
		plan.Runs = append(plan.Runs, runs...)
	}
	if toolsNotAllowed > 0 {
		plan.Notes = append(plan.Notes, fmt.Sprintf("trial: %d tool(s) that act on no resource the scan saw are not played: the allow-list names none of them", toolsNotAllowed))
	}
	if res.shared > 0 {
		plan.Notes = append(plan.Notes, fmt.Sprintf("trial: %d run(s) act on a resource a run of another task acts on too: the scan saw fewer resources of their kind and state than tasks, and without a reset their outcomes may depend on each other", res.shared))
	}
	return plan
}

// resources chooses the resource each run acts on. With a reset between
// runs, every run acts on its task's first resource, in URL order. Without
// one (distinct), a run takes, among its task's resources that no other run
// of the task acts on, the one the fewest runs of earlier tasks act on
// (the first in URL order on a tie): tasks on one kind then act on
// resources of their own wherever the scan saw enough of them, and a
// deletion in one task does not take another's resource away.
type resources struct {
	distinct bool
	// runs counts the runs planned on each resource URL, by the tasks kept.
	runs map[string]int
	// shared counts the runs planned on a resource that a run of an
	// earlier task acts on too.
	shared int
}

// pick is the resource of a task's next run, given the resources its
// earlier runs act on; false when, without a reset, none is left.
func (rs *resources) pick(t *task, taken []string) (string, bool) {
	if !rs.distinct {
		return t.resources[0], true
	}
	best, found := "", false
	for _, u := range t.resources {
		if slices.Contains(taken, u) {
			continue
		}
		if !found || rs.runs[u] < rs.runs[best] {
			best, found = u, true
		}
	}
	return best, found
}

// claim records a run of a task the plan keeps on resource u.
func (rs *resources) claim(u string) {
	if rs.distinct && rs.runs[u] > 0 {
		rs.shared++
	}
	rs.runs[u]++
}

func orDefault(n, d int) int {
	if n > 0 {
		return n
	}
	return d
}

func writesOf(r exchange.TrialRun) int {
	n := 0
	for _, s := range r.Steps {
		if exchange.IsTrialWrite(s.Role) {
			n++
		}
	}
	return n
}

// toolsOf indexes the tools of the first listing by name; a legacy
// endpoint's tools are left out, since a tools/call there needs a session
// the trial does not open.
func toolsOf(snap *mcp.Snapshot) map[string]*mcp.Tool {
	out := map[string]*mcp.Tool{}
	if snap == nil || snap.Verdict.Era != mcp.EraModern || len(snap.Listings) == 0 {
		return out
	}
	for i := range snap.Listings[0].Tools {
		t := &snap.Listings[0].Tools[i]
		if t.NameValid && out[t.Name] == nil {
			out[t.Name] = t
		}
	}
	return out
}

// resourcesOf gathers, per crawled URL with a state (its state member, else
// status), what every successful JSON read of it offered: references,
// templates and next_actions.
func resourcesOf(rec *exchange.Recording, doc *spec.Document) []*resource {
	byURL := map[string]*resource{}
	var order []string
	for _, x := range rec.Exchanges {
		if !hypermedia.Offering(x) || strings.HasPrefix(x.Purpose, purposePrefix) {
			continue
		}
		v := x.Response.ReadHAL()
		if v.Err != nil || v.Doc.Root == nil {
			continue
		}
		root := v.Doc.Root
		member, st := hypermedia.StateOf(root)
		if st == "" {
			continue
		}
		r := byURL[x.Request.URL]
		if r == nil {
			r = &resource{url: x.Request.URL, kind: exchange.PathShape(exchange.PathOf(x.Request.URL)), member: member, state: st}
			byURL[x.Request.URL] = r
			order = append(order, x.Request.URL)
		}
		for _, o := range topLevelOffers(x, root) {
			method, _ := o.Resolve(doc)
			if method == "" || safe(method) {
				continue
			}
			o.Method = method
			r.offers = append(r.offers, o)
		}
		for _, a := range hypermedia.Objects(root.Get("next_actions")) {
			name := activeplan.EntryName(a)
			if name == "" || slices.Contains(r.nextActions, name) {
				continue
			}
			r.nextActions = append(r.nextActions, name)
			if u, ok := entryTarget(x.Request.URL, a); ok {
				if r.nextTargets == nil {
					r.nextTargets = map[string]string{}
				}
				r.nextTargets[name] = u
			}
		}
	}
	slices.Sort(order)
	out := make([]*resource, 0, len(order))
	for _, u := range order {
		out = append(out, byURL[u])
	}
	return out
}

// topLevelOffers are the controls of the resource itself, not of the
// resources it embeds: a task acts on the resource the player reads.
func topLevelOffers(x *exchange.Exchange, root *jsonorder.Value) []hypermedia.Offer {
	var out []hypermedia.Offer
	for _, o := range hypermedia.OffersOf(x, root) {
		if strings.HasPrefix(o.Pointer, "/_templates/") || strings.HasPrefix(o.Pointer, "/affordances/") {
			out = append(out, o)
		}
	}
	return out
}

func safe(m string) bool {
	return m == http.MethodGet || m == http.MethodHead || m == http.MethodOptions
}

// operationName names what a control invokes: the affordance's operation,
// else the operationId of the OpenAPI operation it matches, else the
// template key.
func operationName(o hypermedia.Offer, idx *spec.Index) string {
	if strings.HasPrefix(o.Pointer, "/affordances/") {
		return o.Name
	}
	if idx != nil {
		if op := idx.Match(o.Method, o.Target); op != nil && op.OperationID != "" {
			return op.OperationID
		}
	}
	return o.Name
}

// tasksOf makes a task of each operation offered on a kind in a state by
// an affordance or a template, in order of kind, state (as first seen) and
// operation as first offered, then of each operation that next_actions
// alone names there: a step of a stateful flow (flowRuns), in the same
// order.
func tasksOf(resources []*resource, idx *spec.Index) []task {
	byKey := map[string]*task{}
	var keys []string
	for _, r := range resources {
		add := func(name string) *task {
			key := r.kind + "\x00" + r.state + "\x00" + name
			t := byKey[key]
			if t == nil {
				t = &task{TrialTask: exchange.TrialTask{Kind: r.kind, State: r.state, Operation: name}, member: r.member}
				byKey[key] = t
				keys = append(keys, key)
			}
			if !slices.Contains(t.resources, r.url) {
				t.resources = append(t.resources, r.url)
			}
			return t
		}
		// A template that requests what an affordance of the resource
		// names is the same operation, when no OpenAPI document names it.
		named := map[[2]string]string{}
		for _, o := range r.offers {
			if strings.HasPrefix(o.Pointer, "/affordances/") {
				named[[2]string{o.Method, o.Target}] = o.Name
			}
		}
		for i := range r.offers {
			o := &r.offers[i]
			name := operationName(*o, idx)
			if n, ok := named[[2]string{o.Method, o.Target}]; ok && name == o.Name {
				name = n
			}
			t := add(name)
			first := t.resources[0] == r.url
			switch {
			case strings.HasPrefix(o.Pointer, "/affordances/"):
				t.referenced = true
				if first && t.reference == nil {
					t.reference = o
				}
			case first && t.template == nil:
				t.template = o
			}
		}
		for _, name := range r.nextActions {
			t := add(name)
			t.referenced, t.NextAction = true, true
			if t.resources[0] == r.url && t.entryTarget == "" {
				t.entryTarget = r.nextTargets[name]
			}
		}
	}
	var tasks, flows []task
	for _, k := range keys {
		t := byKey[k]
		if t.reference == nil && t.template == nil {
			t.flow = true
			flows = append(flows, *t)
			continue
		}
		tasks = append(tasks, *t)
	}
	return append(tasks, flows...)
}

// controlled lists the kinds of resource that offer state-changing
// controls (affordances, templates, next_actions): on those the API says
// which operations apply in which state, and the catalog adds no task.
func controlled(resources []*resource) map[string]bool {
	out := map[string]bool{}
	for _, r := range resources {
		if len(r.offers) > 0 || len(r.nextActions) > 0 {
			out[r.kind] = true
		}
	}
	return out
}

// runsOf plans each player's run of the task that the allow-list permits,
// each on the resource res picks for it.
func runsOf(in Input, t *task, tools map[string]*mcp.Tool, idx *spec.Index, res *resources) []exchange.TrialRun {
	var out []exchange.TrialRun
	var taken []string
	take := func() (string, bool) {
		u, ok := res.pick(t, taken)
		if ok {
			taken = append(taken, u)
		}
		return u, ok
	}
	// A: the catalog's entry of that name, the MCP tool when the catalog
	// is MCP, else the OpenAPI operation.
	if u, ok := res.pick(t, taken); ok {
		if call, ok := catalogCall(in, t, tools, u); ok {
			taken = append(taken, u)
			out = append(out, run(in, t, exchange.PlayerCatalog, u, "application/json", call, idempotentVia(t, call)))
		}
	}
	if t.reference != nil && in.Rules.Allows(t.reference.Method, t.reference.Target, nil) {
		if u, ok := take(); ok {
			call := httpCall(*t.reference, t.resources[0], u, idx)
			r := run(in, t, exchange.PlayerReferences, u, "application/hal+json, application/json;q=0.9", call, idempotentVia(t, call))
			if _, ok := t.reference.Control["validForVersion"]; ok {
				r.Steps = append(r.Steps, staleSteps(r, call)...)
			}
			out = append(out, r)
		}
	}
	if t.template != nil && in.Rules.Allows(t.template.Method, t.template.Target, nil) {
		if u, ok := take(); ok {
			call := httpCall(*t.template, t.resources[0], u, idx)
			out = append(out, run(in, t, exchange.PlayerTemplates, u, "application/prs.hal-forms+json, application/hal+json;q=0.9", call, idempotentVia(t, call)))
		}
	}
	return out
}

// idempotentVia reports an attempt declared idempotent through the
// interface it is sent by: the tool's idempotentHint, or PUT and DELETE
// over HTTP (RFC 9110, 9.2.2).
func idempotentVia(t *task, call exchange.TrialStep) bool {
	if call.Via == exchange.ViaMCP {
		return t.Idempotent != nil && *t.Idempotent
	}
	return call.Method == http.MethodPut || call.Method == http.MethodDelete
}

// run is one player's steps: a read of the resource (what B and C navigate
// by; A's is its baseline, not counted as read), the attempt, a re-read,
// and for an operation declared idempotent the attempt again and a
// re-read.
func run(in Input, t *task, player, resourceURL, accept string, call exchange.TrialStep, idempotent bool) exchange.TrialRun {
	call.Purpose, call.Role = Purpose(player, exchange.StepCall), exchange.StepCall
	steps := []exchange.TrialStep{readStep(player, exchange.StepRead, resourceURL, accept), call, reread(player, resourceURL)}
	if idempotent {
		again := call
		again.Role, again.Purpose = exchange.StepRepeat, Purpose(player, exchange.StepRepeat)
		steps = append(steps, again, reread(player, resourceURL))
	}
	return exchange.TrialRun{Task: t.ID, Player: player, Resource: resourceURL, Identity: in.Identity, Steps: steps}
}

// readStep is a GET of the resource: the read a player navigates by, with
// the Accept of its interface, or a re-read as JSON.
func readStep(player, role, resourceURL, accept string) exchange.TrialStep {
	h := http.Header{}
	h.Set("Accept", accept)
	return exchange.TrialStep{Role: role, Via: exchange.ViaHTTP,
		PlannedRequest: exchange.PlannedRequest{Purpose: Purpose(player, role), Method: http.MethodGet, URL: resourceURL, Header: h}}
}

func reread(player, resourceURL string) exchange.TrialStep {
	return readStep(player, exchange.StepReread, resourceURL, "application/json")
}

// staleSteps send an affordance bound to a version (validForVersion) once
// more after it succeeded: the same request, conditional on the entity tag
// of the read it was offered on, which the success made stale, then a
// re-read. The probe fills the tag in from the read it got.
func staleSteps(r exchange.TrialRun, call exchange.TrialStep) []exchange.TrialStep {
	stale := call
	stale.Role, stale.Purpose = exchange.StepStale, Purpose(r.Player, exchange.StepStale)
	stale.Header = call.Header.Clone()
	stale.Header.Set("If-Match", exchange.StaleETag)
	return []exchange.TrialStep{stale, reread(r.Player, r.Resource)}
}

// catalogCall is player A's attempt: a tools/call of the tool the task
// names when the catalog is MCP and the allow-list names the tool, else the
// OpenAPI operation of that operationId, its path filled from the resource.
func catalogCall(in Input, t *task, tools map[string]*mcp.Tool, resourceURL string) (exchange.TrialStep, bool) {
	var idx *spec.Index
	if in.Spec != nil {
		idx = in.Spec.Index()
	}
	var op *spec.Operation
	if in.Spec != nil {
		for _, o := range in.Spec.Operations {
			if o.OperationID == t.Operation {
				op = o
				break
			}
		}
	}
	if tool, ok := tools[t.Operation]; ok {
		if !in.Rules.AllowsTool(tool.Name) {
			return exchange.TrialStep{}, false
		}
		return toolCall(in.MCP.Endpoint.URL, tool, argumentsFor(tool, op, resourceURL, idx)), true
	}
	if op == nil || len(tools) > 0 {
		return exchange.TrialStep{}, false
	}
	target, ok := expand(op.PathTemplate, resourceURL, idx)
	if !ok || !in.Rules.Allows(op.Method, target, op) {
		return exchange.TrialStep{}, false
	}
	body, ct := activeplan.Body(map[string]any{"properties": schemaProperties(requestSchema(op))}, true)
	h := http.Header{}
	h.Set("Content-Type", ct)
	h.Set("Accept", "application/json, application/problem+json;q=0.9")
	return exchange.TrialStep{Via: exchange.ViaHTTP, PlannedRequest: exchange.PlannedRequest{Method: op.Method, URL: target, Header: h, Body: body, BasedOn: resourceURL}}, true
}

// retarget moves a control's request, read on one resource, to another of
// the same kind and state (distinct resources per run): the control's
// target names the first resource's path.
func retarget(call exchange.TrialStep, from, to string) exchange.TrialStep {
	if from == to {
		return call
	}
	fp, tp := exchange.PathOf(from), exchange.PathOf(to)
	call.URL = strings.Replace(call.URL, fp, tp, 1)
	call.BasedOn = to
	return call
}

func lastSegment(p string) string {
	return p[strings.LastIndex(p, "/")+1:]
}

// httpCall is the request behind a control B or C follows, with the body
// its properties or bound arguments describe, completed by the required
// members of the operation's request schema.
func httpCall(o hypermedia.Offer, from, to string, idx *spec.Index) exchange.TrialStep {
	control := map[string]any{}
	for k, v := range o.Control {
		control[k] = v
	}
	if idx != nil {
		if op := idx.Match(o.Method, o.Target); op != nil {
			props, _ := control["properties"].([]any)
			known := map[string]bool{}
			for _, p := range props {
				if m, ok := p.(map[string]any); ok {
					known[fmt.Sprint(m["name"])] = true
				}
			}
			for _, p := range schemaProperties(requestSchema(op)) {
				if m := p.(map[string]any); !known[fmt.Sprint(m["name"])] {
					props = append(props, p)
				}
			}
			control["properties"] = props
		}
	}
	if args, ok := control["arguments"].(map[string]any); ok {
		// An affordance's argument whose value is a segment of the target
		// is a path parameter, already in the URL; the body carries the
		// others.
		segments := strings.Split(pathOf(o.Target), "/")
		body := map[string]any{}
		for k, v := range args {
			if !slices.Contains(segments, fmt.Sprint(v)) {
				body[k] = v
			}
		}
		control["arguments"] = body
	}
	body, ct := activeplan.Body(control, true)
	h := http.Header{}
	h.Set("Content-Type", ct)
	h.Set("Accept", "application/json, application/problem+json;q=0.9")
	call := exchange.TrialStep{Via: exchange.ViaHTTP, PlannedRequest: exchange.PlannedRequest{Method: o.Method, URL: o.Target, Header: h, Body: body, BasedOn: from}}
	return retarget(call, from, to)
}

// requestSchema is the JSON schema of the operation's request body.
func requestSchema(op *spec.Operation) map[string]any {
	for _, mt := range []string{"application/json", "application/merge-patch+json"} {
		if s, ok := op.RequestBody[mt].(map[string]any); ok {
			return s
		}
	}
	return nil
}

// schemaProperties renders a schema's required members as HAL-FORMS
// properties, which activeplan.Body fills with a placeholder of their type.
func schemaProperties(schema map[string]any) []any {
	var out []any
	for name, p := range requiredMembers(schema) {
		kind := "text"
		switch p["type"] {
		case "integer", "number":
			kind = "number"
		}
		prop := map[string]any{"name": name, "required": true, "type": kind}
		if m, ok := p["minimum"].(float64); ok {
			prop["min"] = m
		}
		out = append(out, prop)
	}
	return out
}

// argumentsFor fills a tool's required arguments: path parameters from the
// resource's URL (matched against the operation of the same name, else the
// resource's own id segment), the rest with a placeholder of their type.
func argumentsFor(tool *mcp.Tool, op *spec.Operation, resourceURL string, idx *spec.Index) map[string]any {
	var schema map[string]any
	_ = json.Unmarshal(tool.InputSchema, &schema)
	props, _ := schema["properties"].(map[string]any)
	vars := map[string]string{}
	if idx != nil {
		if _, v, ok := idx.Bind(pathOf(resourceURL)); ok {
			vars = v
		}
	}
	if op == nil && len(vars) == 0 {
		vars["id"] = lastSegment(pathOf(resourceURL))
	}
	args := map[string]any{}
	required, _ := schema["required"].([]any)
	for _, r := range required {
		name, _ := r.(string)
		p, _ := props[name].(map[string]any)
		if v, ok := vars[name]; ok {
			args[name] = typed(v, p)
			continue
		}
		args[name] = placeholderFor(p)
	}
	return args
}

func pathOf(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return ""
	}
	return p.EscapedPath()
}

// typed gives a path value the schema's type: MCP servers validate the
// arguments against the tool's inputSchema.
func typed(v string, p map[string]any) any {
	switch p["type"] {
	case "integer", "number":
		if n, err := strconv.ParseFloat(v, 64); err == nil {
			return n
		}
	}
	return v
}

func placeholderFor(p map[string]any) any {
	switch p["type"] {
	case "integer", "number":
		if m, ok := p["minimum"].(float64); ok {
			return m
		}
		return 1
	case "boolean":
		return false
	case "object":
		return map[string]any{}
	case "array":
		return []any{}
	}
	return "agentready trial"
}

// expand fills an OpenAPI path template with the resource's path
// variables, as an absolute URL on the resource's origin.
func expand(template, resourceURL string, idx *spec.Index) (string, bool) {
	if idx == nil {
		return "", false
	}
	_, vars, ok := idx.Bind(pathOf(resourceURL))
	if !ok {
		return "", false
	}
	p := template
	for k, v := range vars {
		p = strings.ReplaceAll(p, "{"+k+"}", v)
	}
	if strings.Contains(p, "{") {
		return "", false
	}
	base, err := url.Parse(resourceURL)
	if err != nil {
		return "", false
	}
	ref, err := base.Parse(p)
	if err != nil {
		return "", false
	}
	return ref.String(), true
}

// toolCall is a 2026-07-28 tools/call: the JSON-RPC request with the _meta
// every modern request carries, and the headers that name the method and
// the tool.
func toolCall(endpoint string, tool *mcp.Tool, args map[string]any) exchange.TrialStep {
	msg := map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": map[string]any{
		"name": tool.Name, "arguments": args,
		"_meta": map[string]any{
			"io.modelcontextprotocol/protocolVersion":    mcp.Modern,
			"io.modelcontextprotocol/clientInfo":         map[string]string{"name": "agentready", "version": "trial"},
			"io.modelcontextprotocol/clientCapabilities": map[string]any{},
		},
	}}
	body, _ := json.Marshal(msg)
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	h.Set("Accept", "application/json, text/event-stream")
	h.Set("MCP-Protocol-Version", mcp.Modern)
	h.Set("Mcp-Method", "tools/call")
	h.Set("Mcp-Name", tool.Name)
	return exchange.TrialStep{Via: exchange.ViaMCP, Tool: tool.Name,
		PlannedRequest: exchange.PlannedRequest{Method: http.MethodPost, URL: endpoint, Header: h, Body: body}}
}
