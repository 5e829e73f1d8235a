package finding

import "fmt"

// GateReasonKind is which rule of the gate a reason reports on.
type GateReasonKind int

const (
	// GateDisabled: --fail-on none, so no finding fails the run.
	GateDisabled GateReasonKind = iota + 1
	// GateNoFinding: no finding reaches FailOn.
	GateNoFinding
	// GateFindings: Count findings reach FailOn.
	GateFindings
	// GateBelowMinimum: the grade or score is below FailUnder.
	GateBelowMinimum
	// GateStaleBaseline: the baseline is strict and Count of its entries are
	// fixed.
	GateStaleBaseline
	// GateNotReached: the scan reached no API resource, so nothing it
	// reports is a pass.
	GateNotReached
	// GateBelowCoverage: the share of GET operations reached is below the
	// minimum coverage.
	GateBelowCoverage
	// GateCoverageUnknown: a minimum coverage was asked for, but without an
	// OpenAPI document there are no operations to count.
	GateCoverageUnknown
	// GateDrift: Count changes to the agent surface since the baseline
	// reach FailOnDrift.
	GateDrift
	// GateThrottled: the server throttled more than half of the crawl's
	// GET requests, so nothing the scan reports is a pass.
	GateThrottled
	// GateInterrupted: a signal or a fatal error stopped the scan before
	// its end (Coverage.Interrupted), so nothing it reports is a pass.
	GateInterrupted
	// GateTrial: Count findings of the trial family reach FailOnTrial.
	GateTrial
)

// DriftFamily is the family whose findings are changes to the agent surface
// since the baseline; the gate judges them by FailOnDrift, not FailOn.
const DriftFamily = "drift"

// What fails the run among the drift family's findings (--fail-on-drift).
const (
	// DriftBreaking: breaking changes (the drift findings at error).
	DriftBreaking = "breaking"
	// DriftAny: any change, compatible ones included.
	DriftAny = "any"
	// DriftNone: no change fails the run; they are still reported.
	DriftNone = "none"
)

// ParseFailOnDrift accepts the values of --fail-on-drift; "" is the default,
// DriftBreaking.
func ParseFailOnDrift(s string) (string, error) {
	switch s {
	case "":
		return DriftBreaking, nil
	case DriftBreaking, DriftAny, DriftNone:
		return s, nil
	}
	return "", fmt.Errorf("unknown value %q (want breaking, any or none)", s)
}

// TrialFamily is the family whose findings compare what a trial's
// operations declared with what they did; the gate judges them by
// FailOnTrial, not FailOn, since only a played trial (--trial) can find
// them and a team opts into gating on them apart from the passive checks.
const TrialFamily = "trial"

// GateReason is one verdict of the gate. With a baseline, Count counts new
// findings only.
type GateReason struct {
	Kind  GateReasonKind
	Count int
}

// Fails reports whether the reason fails the run.
func (r GateReason) Fails() bool {
	switch r.Kind {
	case GateFindings, GateBelowMinimum, GateStaleBaseline, GateNotReached, GateBelowCoverage, GateCoverageUnknown, GateDrift, GateThrottled, GateInterrupted, GateTrial:
		return true
	}
	return false
}
