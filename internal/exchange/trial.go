package exchange

// A trial plays the tasks an API declares, through each interface it
// offers, with deterministic players: the checks plan it from the
// recording, the user confirms it, the probe plays it, and the checks judge
// what came back. These are the plain values passed between them.

// The players of a trial, after seed 000's three interfaces.
const (
	// PlayerCatalog tries the operations of the static catalog (the MCP
	// tools, else the OpenAPI operations) that apply to the kind.
	PlayerCatalog = "A"
	// PlayerReferences reads the resource and follows its references
	// (affordances, next_actions).
	PlayerReferences = "B"
	// PlayerTemplates reads the resource as HAL-FORMS and follows its
	// templates.
	PlayerTemplates = "C"
)

// The roles of the steps of a trial run.
const (
	// StepRead is a read of the resource the player navigates by.
	StepRead = "read"
	// StepCall is one attempt at the task; the probe sends the next one
	// only while none has succeeded.
	StepCall = "call"
	// StepReread reads the resource again after the attempt that succeeded
	// (or the last one), to see what changed.
	StepReread = "reread"
	// StepRepeat sends the attempt that succeeded once more, identical, for
	// an operation declared idempotent; a StepReread follows it.
	StepRepeat = "repeat"
	// StepStale sends the affordance's request that succeeded once more,
	// conditional (If-Match) on the entity tag of the read it was offered
	// on, which the success made stale; a StepReread follows it. The probe
	// sends it only after the call succeeded and when that read carried an
	// entity tag, which it fills in for StaleETag.
	StepStale = "stale"
	// StepCleanup deletes what the run's attempt created, after the run's
	// last re-read: the DELETE the OpenAPI document declares on the
	// created resource's path. The probe fills CreatedURL in from the
	// attempt's answer (CreatedBy) and sends it only when that answer
	// names a resource at the run's CreatedAt; a StepCleanupRead follows.
	StepCleanup = "cleanup"
	// StepCleanupRead reads the created resource once more after the
	// cleanup: 404 or 410 says it is gone.
	StepCleanupRead = "cleanup-read"
)

// CreatedURL stands, in a planned StepCleanup or StepCleanupRead, for the
// URL of the resource the run's attempt created: it is known only once
// the attempt is answered.
const CreatedURL = "(the created resource's URL)"

// IsTrialWrite reports a step that changes state: every one counts against
// trial.writes.
func IsTrialWrite(role string) bool {
	return role == StepCall || role == StepRepeat || role == StepStale || role == StepCleanup
}

// IsHousekeeping reports a step that cleans up after the task rather than
// plays it: it is not counted as the player's requests or tokens.
func IsHousekeeping(role string) bool {
	return role == StepCleanup || role == StepCleanupRead
}

// StaleETag stands, in a planned StepStale, for the entity tag of the
// run's read: it is known only once the read is answered.
const StaleETag = "(the entity tag of the read)"

// How the target is brought back to the state the scan saw between runs.
const (
	// ResetRestart: the harness restarts the app (the demo resets in
	// process).
	ResetRestart = "restart"
	// ResetCommand: the user's --trial-reset command runs.
	ResetCommand = "command"
	// ResetDistinct: nothing is reset; each run acts on a resource no other
	// run touches.
	ResetDistinct = "distinct"
)

// ResetWords says how the target is reset between a trial's runs, for the
// plan printed before sending and the reports.
func ResetWords(kind string) string {
	switch kind {
	case ResetRestart:
		return "restarting it"
	case ResetCommand:
		return "the --trial-reset command"
	}
	return "nothing: each run acts on a resource of its own"
}

// TrialTask is one state-changing operation the API declares on one kind
// of resource in one state: "cancelOrder on /orders/{id}, pending".
type TrialTask struct {
	ID   int
	Kind string // path shape of the resource
	// State is the resource's state (or status) member, "" when it has
	// none (a task the OpenAPI document alone declares).
	State     string
	Operation string // operationId, tool name or relation
	// Target is the state the API declares the operation leads to, "" when
	// it declares none (success is then a 2xx and an observable change).
	Target string
	// NextAction is set when the resource's next_actions lists the
	// operation: the API says what it does next, and that it applies now.
	NextAction bool
	// Declared are the MCP tool's hints, when a tool of that name was
	// listed; nil members were not declared.
	ReadOnly, Idempotent, Destructive *bool
}

// StateWords names a task's state as plans and reports print it.
func StateWords(state string) string {
	if state == "" {
		return "no state"
	}
	return state
}

// TrialStep is one request of a run.
type TrialStep struct {
	PlannedRequest
	Role string // StepRead, StepCall, StepReread or StepRepeat
	// Via is "mcp" for a tools/call, "http" otherwise.
	Via string
	// Tool is the MCP tool a tools/call names, "" over HTTP.
	Tool string
	// Shown is every header that will be sent, credentials redacted; the
	// probe fills it in before asking for confirmation.
	Shown map[string][]string
}

// Via values.
const (
	ViaMCP  = "mcp"
	ViaHTTP = "http"
)

// TrialRun is one player's attempt at one task, on one resource.
type TrialRun struct {
	Task     int
	Player   string
	Resource string // URL of the resource acted on
	// Identity is the caller the run is sent as.
	Identity string
	// Steps are every request the run may send, in order; a call after one
	// that succeeded, and a repeat after none did, are not sent.
	Steps []TrialStep
	// Exchanges are what was sent, filled by the probe, each with the index
	// of its step in Roles.
	Exchanges []*Exchange
	Roles     []string
	// CreatedAt is the absolute URL template ("http://api/items/{item_id}")
	// of the item of the collection the attempt is sent to, as the OpenAPI
	// document declares it: where a resource the attempt creates is found
	// by its id (CreatedBy). "" when the document declares none.
	CreatedAt string
	// NoCleanup says why no cleanup is planned for what the attempt may
	// create ("" when one is, or when the attempt creates nothing).
	NoCleanup string
}

// TrialPlan is the whole trial: the tasks, the runs, and how the target is
// reset between runs.
type TrialPlan struct {
	Tasks []TrialTask
	Runs  []TrialRun
	Reset string
	// Notes say what was left out and why (bounds, a missing interface).
	Notes []string
	// PlanOnly is set when the user asked for the plan alone: nothing of
	// it was sent.
	PlanOnly bool
	// Sent is set once the runs were played.
	Sent bool
}

// Writes counts the state-changing requests the plan may send.
func (p *TrialPlan) Writes() int {
	n := 0
	for _, r := range p.Runs {
		for _, s := range r.Steps {
			if IsTrialWrite(s.Role) {
				n++
			}
		}
	}
	return n
}
