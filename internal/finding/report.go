package finding

import (
	"slices"
	"time"
)

// SchemaVersion is bumped on any breaking change to the JSON report.
const SchemaVersion = 1

// Report is the one value every reporter renders.
type Report struct {
	SchemaVersion int           `json:"schemaVersion"`
	Tool          ToolInfo      `json:"tool"`
	Target        string        `json:"target"`
	StartedAt     time.Time     `json:"startedAt"`
	FinishedAt    time.Time     `json:"finishedAt"`
	Score         Score         `json:"score"`
	Rules         []RuleInfo    `json:"rules"`
	Checks        []CheckResult `json:"checks"`
	Findings      []Finding     `json:"findings"`
	Stats         Stats         `json:"stats"`
	// TLSUnverified is set when the scan did not verify the servers' TLS
	// certificates (--insecure): whoever answered may not have been the
	// target, and every reporter says so on its first screen.
	TLSUnverified bool `json:"tlsUnverified,omitempty"`
	// Notes are scan-level facts a reader should know: interruptions, budget
	// exhaustion, what was not assessed and why.
	Notes []string `json:"notes,omitempty"`
	// States shows which controls each kind of resource offered in each
	// observed state; empty when no kind was seen in two states.
	States []StateMatrix `json:"states,omitempty"`
	// Interfaces compares what a static catalog, contextual references and
	// HAL-FORMS templates cost an agent; nil when the hypermedia families
	// were not run.
	Interfaces *Interfaces `json:"interfaces,omitempty"`
	// Trials is what a trial (--trial) played and measured; nil when no
	// trial was asked for.
	Trials *Trials `json:"trials,omitempty"`
	// Gate is filled by the CLI once the gate has been evaluated.
	Gate *Gate `json:"gate,omitempty"`
	// Surface is the matrix of operations by projection, when an OpenAPI
	// document was available to anchor it.
	Surface *SurfaceMatrix `json:"surface,omitempty"`
	// MCP describes the app's MCP endpoint when one was examined.
	MCP *MCPInfo `json:"mcp,omitempty"`
	// Spec names the OpenAPI document the checks used, or is nil when none
	// was given or found (a note then says so).
	Spec *SpecInfo `json:"spec,omitempty"`
	// Readiness grades the OpenAPI document's own agent readiness and lists
	// its hotspot operations; nil when no readiness check passed or failed
	// (no document, or one not checked operation by operation).
	Readiness *Readiness `json:"readiness,omitempty"`
	// Baseline compares the findings with an earlier report, when one was
	// given (--baseline).
	Baseline *BaselineSummary `json:"baseline,omitempty"`
	// Ignored are the findings the configuration's ignores matched; they
	// count neither toward the grade nor toward the gate.
	Ignored []Finding `json:"ignored,omitempty"`
	// App describes the app the scan started itself (--start), or is nil.
	App *AppInfo `json:"app,omitempty"`
	// Active lists the state-changing requests sent with --active; nil when
	// active probes were not enabled, so a report always tells whether the
	// scan changed the target.
	Active *ActiveInfo `json:"active,omitempty"`
	// Coverage is what the scan reached and what it could not.
	Coverage *Coverage `json:"coverage,omitempty"`
	// Snapshot is the agent surface the scan saw, which a later scan given
	// this report as its baseline compares with (the drift family).
	Snapshot *Snapshot `json:"snapshot,omitempty"`
	// Shard is set when the report is one shard of a split scan (--shard):
	// its findings, coverage and grade are of its path shapes alone, until
	// 'agentready report merge' joins the shards.
	Shard *Shard `json:"shard,omitempty"`
}

// ActiveInfo describes the active probes of a scan.
type ActiveInfo struct {
	// Allow is the allow-list as given.
	Allow []string `json:"allow"`
	// Confirmed says how the user agreed: "prompt" or "--yes".
	Confirmed string `json:"confirmed,omitempty"`
	// Sent are the requests that left the scanner, in the order sent.
	Sent []ActiveRequest `json:"sent"`
}

// ActiveRequest is one active probe that was sent.
type ActiveRequest struct {
	ExchangeID string `json:"exchangeId"`
	Identity   string `json:"identity,omitempty"`
	Purpose    string `json:"purpose"`
	Method     string `json:"method"`
	URL        string `json:"url"`
	// Status is the answer, 0 when none came back.
	Status int `json:"status"`
	// Why says what the probe tested.
	Why string `json:"why"`
}

// SpecInfo says which OpenAPI document was used and how it was found.
type SpecInfo struct {
	// Source is the path or URL it was read from.
	Source string `json:"source"`
	// Version is its openapi (or swagger) field.
	Version    string `json:"version,omitempty"`
	Operations int    `json:"operations"`
	// Discovery says how it was found: "--openapi", "Link rel=service-desc",
	// "HAL _links.service-desc" or "well-known path".
	Discovery string `json:"discovery,omitempty"`
	// Problems counts load problems, each reported as a finding.
	Problems int `json:"problems,omitempty"`
}

// ToolInfo identifies the producer.
type ToolInfo struct {
	Name    string `json:"name"`
	Version string `json:"version"`
	DocsURL string `json:"docsUrl,omitempty"`
}

// RuleInfo is the metadata of a check that ran, carried in the report so that
// reporters never need to import the checks.
type RuleInfo struct {
	ID       string    `json:"id"`
	Family   string    `json:"family"`
	Title    string    `json:"title"`
	Severity Severity  `json:"severity"`
	Security bool      `json:"security,omitempty"`
	SpecRefs []SpecRef `json:"specRefs,omitempty"`
	Help     string    `json:"help"`
	DocsURL  string    `json:"docsUrl"`
	// Readiness marks a check of the document's own agent readiness, which
	// Report.Readiness grades.
	Readiness bool `json:"readiness,omitempty"`
	// Documents are what the check reads when it judges documents alone
	// ("openapi", "mcp-tools"), so that `agentready lint` runs it; empty for
	// a check that needs a live scan. Listings of the checks show it; a
	// report, whose checks ran, leaves it out.
	Documents []string `json:"-"`
}

// Score is the graded verdict.
type Score struct {
	PolicyVersion string `json:"policyVersion"`
	Value         int    `json:"value"`
	Grade         string `json:"grade"`
	// Basis says in one line how the grade follows from the families (or
	// why there is none), so that a reader can check it against the table.
	Basis    string        `json:"basis,omitempty"`
	Families []FamilyScore `json:"families"`
}

// The states of a family.
const (
	// FamilyGraded: at least one check passed or failed.
	FamilyGraded = "graded"
	// FamilyNotPresent: the app has none of what the family judges (no
	// OpenAPI document, no HAL, no MCP endpoint).
	FamilyNotPresent = "not-present"
	// FamilyNotAssessed: what the family judges may exist, but the scan
	// could not judge it (every check skipped or errored).
	FamilyNotAssessed = "not-assessed"
)

// FamilyScore is a per-family subscore. A family that is not graded has no
// Value or Grade; Reason says why.
type FamilyScore struct {
	Family string `json:"family"`
	// State is FamilyGraded, FamilyNotPresent or FamilyNotAssessed.
	State string `json:"state"`
	// Assessed is State == FamilyGraded, kept for readers of earlier
	// reports.
	Assessed bool   `json:"assessed"`
	Value    int    `json:"value"`
	Grade    string `json:"grade,omitempty"`
	Passed   int    `json:"passed"`
	Failed   int    `json:"failed"`
	Skipped  int    `json:"skipped"`
	Errored  int    `json:"errored"`
	Reason   string `json:"reason,omitempty"`
}

// Stats describe what was scanned.
type Stats struct {
	Pages      int   `json:"pages"`
	Requests   int   `json:"requests"`
	Probes     int   `json:"probes"`
	DurationMS int64 `json:"durationMs"`
	// Sampling lists the path shapes seen and how many URLs of each were probed.
	Sampling []ShapeSample `json:"sampling,omitempty"`
	// Skipped counts URLs that were found but not fetched, by reason.
	Skipped map[string]int `json:"skipped,omitempty"`
	// Interrupted is set when a signal or a fatal error stopped the scan
	// before its end; Coverage.Interrupted says which, and in which phase.
	// A scan its budget cut short is not interrupted: see BudgetCut.
	Interrupted bool `json:"interrupted,omitempty"`
	// BudgetCut names the phases the time budget (--budget, or a phase's
	// own bound) ended before their work was done, in the order they
	// ran: the Cut constants. Such a scan is still graded on what it
	// reached.
	BudgetCut []string `json:"budgetCut,omitempty"`
	// Addresses maps each host name the scan connected to to the addresses
	// it resolved to, once for the whole scan: the only addresses its
	// requests went to, in the order they were tried. Through a proxy, the
	// name is the proxy's. A host given as an IP address is not listed.
	Addresses map[string][]string `json:"addresses,omitempty"`
}

// The phases a budget may cut short, as Stats.BudgetCut names them.
const (
	CutCrawl  = "crawl"  // the crawl's share of the budget ran out
	CutProbes = "probes" // the planned and follow-up probes were not all sent
	CutMCP    = "mcp"    // the MCP endpoint or its catalog as an identity was not examined
	CutActive = "active" // active probes were not all sent
)

// CutBy records that the budget cut phase short, once.
func (s *Stats) CutBy(phase string) {
	if !slices.Contains(s.BudgetCut, phase) {
		s.BudgetCut = append(s.BudgetCut, phase)
	}
}

// ShapeSample says how a path shape was sampled.
type ShapeSample struct {
	Shape   string `json:"shape"`
	Seen    int    `json:"seen"`
	Sampled int    `json:"sampled"`
}

// Gate is the pass/fail decision, with the reason.
type Gate struct {
	FailOn Severity `json:"failOn"`
	Passed bool     `json:"passed"`
	Reason string   `json:"reason"`
	// FailUnder is the minimum grade or score, e.g. "grade B" or "score 80".
	FailUnder string `json:"failUnder,omitempty"`
	// NewOnly is set when a baseline was given: only new findings gate.
	NewOnly bool `json:"newOnly,omitempty"`
	// StrictBaseline fails the run when the baseline is stale.
	StrictBaseline bool `json:"strictBaseline,omitempty"`
	// MinCoverage is the least share of the document's GET operations, in
	// percent, the scan must reach; 0 is no minimum.
	MinCoverage int `json:"minCoverage,omitempty"`
	// FailOnDrift says which changes to the agent surface since the
	// baseline fail the run (DriftBreaking, DriftAny, DriftNone); set when
	// the baseline carried a surface snapshot to compare with.
	FailOnDrift string `json:"failOnDrift,omitempty"`
	// FailOnTrial is the severity at or above which the trial family's
	// findings fail the run ("none": never); set when a trial was played.
	FailOnTrial string `json:"failOnTrial,omitempty"`
	// Reasons are the gate's verdicts, of which Reason is the text. They are
	// not written: a report read back carries the text only.
	Reasons []GateReason `json:"-"`
}
