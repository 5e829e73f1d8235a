package finding

// StateMatrix is a reading aid, not a finding: for one kind of resource (a
// path shape), which hypermedia controls were offered in each lifecycle state
// the scan observed. It shows at a glance whether, say, cancellation
// disappears once an order has shipped.
type StateMatrix struct {
	// Kind is the path shape of the resources, e.g. /orders/{id}.
	Kind string `json:"kind"`
	// Member is the member the state was read from: "state" or "status".
	Member string `json:"member"`
	// Resources is how many distinct resources were observed.
	Resources int `json:"resources"`
	// States are the observed states, in order of first observation in the
	// (sorted) recording.
	States []string `json:"states"`
	// Controls are sorted by type, then name.
	Controls []StateControl `json:"controls"`
}

// StateControl is one control and the states it was offered in.
type StateControl struct {
	// Type is "link" (a HAL relation), "template" (a HAL-FORMS template),
	// "affordance" (an operation of the affordances array) or "next-action".
	Type string `json:"type"`
	Name string `json:"name"`
	// OfferedIn lists states in the order of StateMatrix.States.
	OfferedIn []string `json:"offeredIn"`
}
