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
	case GateFindings, GateBelowMinimum, GateStaleBaseline:
		return true
	}
	return false
}
