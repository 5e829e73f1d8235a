package scan

import (
	"github.com/agentready/agentready/internal/coverage"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/probe"
)

// operationsOf is the coverage of the document's GET operations, nil when
// the scan had no OpenAPI 3 document to count them against.
func operationsOf(res *probe.Result) *finding.OperationCoverage {
	if res.Spec == nil || res.Spec.Swagger2 {
		return nil
	}
	facts := coverage.Facts{Unfilled: res.Unfilled}
	if b := res.BasePath; b != nil {
		facts.Explored, facts.BasePath, facts.BaseMismatch = true, b.Path, b.Mismatch
	}
	return coverage.Operations(res.Spec, res.Recording, facts)
}
