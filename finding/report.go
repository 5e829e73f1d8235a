package finding

import "time"

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
	// Notes are scan-level facts a reader should know: interruptions, budget
	// exhaustion, what was not assessed and why.
	Notes []string `json:"notes,omitempty"`
	// Gate is filled by the CLI once the gate has been evaluated.
	Gate *Gate `json:"gate,omitempty"`
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
}

// Score is the graded verdict.
type Score struct {
	PolicyVersion string        `json:"policyVersion"`
	Value         int           `json:"value"`
	Grade         string        `json:"grade"`
	Families      []FamilyScore `json:"families"`
}

// FamilyScore is a per-family subscore. A family that did not apply is not
// assessed, and then Value and Grade are meaningless and omitted.
type FamilyScore struct {
	Family   string `json:"family"`
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
	Skipped     map[string]int `json:"skipped,omitempty"`
	Interrupted bool           `json:"interrupted,omitempty"`
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
}
