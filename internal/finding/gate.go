package finding

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
)

// GateReason is one verdict of the gate. With a baseline, Count counts new
// findings only.
type GateReason struct {
	Kind  GateReasonKind
	Count int
}

// Fails reports whether the reason fails the run.
func (r GateReason) Fails() bool {
	switch r.Kind {
	case GateFindings, GateBelowMinimum, GateStaleBaseline, GateNotReached, GateBelowCoverage, GateCoverageUnknown:
		return true
	}
	return false
}
