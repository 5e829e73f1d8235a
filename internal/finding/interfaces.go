package finding

// Interface names, in the order a report lists them (seed 000's A, B, C).
const (
	InterfaceStatic     = "static"
	InterfaceReferenced = "referenced"
	InterfaceDynamic    = "dynamic"
)

// Interfaces estimates what each way of handing an agent its operations
// places in the model's context and how many choices it leaves per step,
// from what the scan recorded. No model is run: docs/interfaces.md states
// the method and what it does not measure.
type Interfaces struct {
	// Tokenizer names how tokens were counted (see MCPInfo's catalog).
	Tokenizer string `json:"tokenizer"`
	// Catalog is where the static catalog came from: "mcp" (the tools
	// listed), "openapi" (the document's operations) or "" when neither.
	Catalog string `json:"catalog"`
	// Resources is how many crawled resources the per-step figures are over.
	Resources int `json:"resources"`
	// Entries are static, referenced and dynamic, in that order.
	Entries []InterfaceCost `json:"entries"`
	// Kinds are the figures per resource kind and state, sorted.
	Kinds []InterfaceKind `json:"kinds,omitempty"`
}

// InterfaceCost is one interface's figures over every visited resource.
// When Offered is false the figures are absent, never zero.
type InterfaceCost struct {
	Interface string `json:"interface"`
	Offered   bool   `json:"offered"`
	// Reason says why the interface is not offered.
	Reason string `json:"reason,omitempty"`
	// UpfrontTokens are placed in context before the first step.
	UpfrontTokens *int `json:"upfrontTokens,omitempty"`
	// PerStepTokens is the median of the tokens of controls added per
	// visited resource.
	PerStepTokens *float64 `json:"perStepTokens,omitempty"`
	// ChoicesPerStep is the median number of state-changing operations the
	// agent chooses among on a resource.
	ChoicesPerStep *float64 `json:"choicesPerStep,omitempty"`
	// InvalidChoicesPerStep (static only) is the median number of those
	// the state matrix shows are not offered in the resource's state.
	InvalidChoicesPerStep *float64 `json:"invalidChoicesPerStep,omitempty"`
	// CacheStablePrefix says whether the upfront part is identical at every
	// step, so a host can cache it as a prompt prefix.
	CacheStablePrefix *bool `json:"cacheStablePrefix,omitempty"`
}

// InterfaceKind is the figures of one resource kind in one state.
type InterfaceKind struct {
	// Kind is the path shape; State is the observed state, "" for resources
	// that carry none.
	Kind      string `json:"kind"`
	State     string `json:"state"`
	Resources int    `json:"resources"`
	// Entries are the interfaces' per-step figures on this kind and state
	// (no upfront tokens, which do not depend on the resource).
	Entries []InterfaceCost `json:"entries"`
}

// Interface returns the entry of the named interface, or nil.
func (s *Interfaces) Interface(name string) *InterfaceCost {
	if s == nil {
		return nil
	}
	for i := range s.Entries {
		if s.Entries[i].Interface == name {
			return &s.Entries[i]
		}
	}
	return nil
}
