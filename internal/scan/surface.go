package scan

import (
	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/surface"
	"github.com/agentready/agentready/internal/finding"
)

// surfaceMatrix is the operation × projection table of the report, built
// only when the surface family is selected: it reads the same recording as
// the family's checks and is their reading aid.
func surfaceMatrix(in *checks.Input, cs []checks.Check) *finding.SurfaceMatrix {
	if !hasFamily(cs, checks.FamilySurface) {
		return nil
	}
	return surface.Matrix(in)
}
