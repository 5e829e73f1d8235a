package checks

import (
	"net/url"

	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/spec"
)

// Static is implemented by checks that judge the OpenAPI document alone,
// without any exchange. `agentready lint` runs exactly these, over an Input
// whose Spec is set and whose recording is empty; a scan runs them too.
type Static interface {
	// Static reports whether the check needs nothing but Input.Spec.
	Static() bool
}

// IsStatic reports whether c is a static check.
func IsStatic(c Check) bool {
	s, ok := c.(Static)
	return ok && s.Static()
}

// StaticOnly filters a list of checks down to the static ones, in order.
func StaticOnly(cs []Check) []Check {
	var out []Check
	for _, c := range cs {
		if IsStatic(c) {
			out = append(out, c)
		}
	}
	return out
}

// NewStaticInput is the Input of a lint run: the document and an empty
// recording. target names the document (a file: URL for a path).
func NewStaticInput(target *url.URL, doc *spec.Document) *Input {
	in := NewInput(target, &exchange.Recording{Target: target.String()})
	in.Spec = doc
	return in
}
