package finding

// Trials is what a trial measured: seed 000's table (tasks, successes,
// refused attempts, tokens read) played on the scanned API by three
// deterministic players, beside the interfaces section's passive estimate.
// docs/trials.md has the players, the measures and their limits.
type Trials struct {
	// Reset says how the target was brought back between runs: "restart"
	// (the harness or the demo restarted it), "command" (--trial-reset) or
	// "distinct" (each run acted on a resource of its own).
	Reset string `json:"reset"`
	// PlanOnly is set when the trial was planned and not sent
	// (--trial-plan): the runs have no figures.
	PlanOnly bool `json:"planOnly,omitempty"`
	// Tokenizer names how tokens were counted, as in the interfaces section.
	Tokenizer string `json:"tokenizer,omitempty"`
	// Players are A, B and C, in that order, with their totals.
	Players []TrialPlayer `json:"players"`
	// Tasks are the tasks in plan order, each with its runs.
	Tasks []TrialTask `json:"tasks"`
	// Created counts the resources the runs' attempts created (a 201 with
	// a Location, else the answer's self link or id on the item path the
	// OpenAPI document declares); Cleaned those a cleanup deleted and a
	// read then found gone; Left the others, listed in LeftBehind for the
	// user to remove.
	Created    int               `json:"created"`
	Cleaned    int               `json:"cleaned"`
	Left       int               `json:"left"`
	LeftBehind []TrialLeftBehind `json:"leftBehind,omitempty"`
}

// TrialLeftBehind is a resource a trial created and did not remove.
type TrialLeftBehind struct {
	URL    string `json:"url"`
	Task   int    `json:"task"`
	Player string `json:"player"`
	// Why it was left: no DELETE declared, the allow-list does not name
	// it, or the DELETE failed.
	Why string `json:"why"`
}

// TrialPlayer is one player's totals over the tasks it played.
type TrialPlayer struct {
	// Player is "A", "B" or "C"; Interface the interfaces section's name
	// of what it plays by (static, referenced, dynamic).
	Player    string `json:"player"`
	Interface string `json:"interface"`
	Tasks     int    `json:"tasks"`
	Completed int    `json:"completed"`
	// WrongState counts runs accepted that left the resource in another
	// state than the one the operation declares.
	WrongState int `json:"wrongState"`
	Requests   int `json:"requests"`
	// Refused counts attempts the server refused: invalid transitions
	// attempted.
	Refused int `json:"refused"`
	Tokens  int `json:"tokens"`
}

// TrialTask is one task and what each player's run of it did.
type TrialTask struct {
	ID        int    `json:"id"`
	Kind      string `json:"kind"`
	State     string `json:"state"`
	Operation string `json:"operation"`
	// Target is the state the API declares the operation leads to, absent
	// when it declares none (success is then an observable change).
	Target string `json:"target,omitempty"`
	// Resource is the URL the first run acted on.
	Resource string         `json:"resource"`
	Runs     []TrialRunInfo `json:"runs"`
}

// TrialRunInfo is one player's run of a task.
type TrialRunInfo struct {
	Player string `json:"player"`
	// Via is "mcp" (a tools/call) or "http".
	Via      string `json:"via"`
	Resource string `json:"resource"`
	// Outcome is "completed" (accepted, and the re-read shows the declared
	// target state, or a change when none is declared), "wrong state"
	// (accepted, changed, but not to the declared state), "refused" (every
	// attempt refused), "no change" (accepted, and nothing observable
	// changed) or "planned".
	Outcome string `json:"outcome"`
	// Requests and Tokens leave out the cleanup, which is housekeeping,
	// not the task.
	Requests int `json:"requests"`
	Refused  int `json:"refused"`
	Tokens   int `json:"tokens"`
	// Created is the URL of the resource the run's attempt created, absent
	// when it created none; Cleanup is then "cleaned" or "left", and
	// CleanupNote says why it was left.
	Created     string `json:"created,omitempty"`
	Cleanup     string `json:"cleanup,omitempty"`
	CleanupNote string `json:"cleanupNote,omitempty"`
	// Sent lists what the run sent, in order.
	Sent []TrialRequest `json:"sent,omitempty"`
}

// TrialRequest is one request of a trial run and the status it got (0 when
// no response came).
type TrialRequest struct {
	ExchangeID string `json:"exchangeId"`
	// Step is "read", "call", "reread", "repeat", "stale", "cleanup" or
	// "cleanup-read".
	Step   string `json:"step"`
	Method string `json:"method"`
	URL    string `json:"url"`
	Status int    `json:"status,omitempty"`
}
