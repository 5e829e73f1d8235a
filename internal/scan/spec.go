package scan

import (
	"fmt"

	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/spec"
	"github.com/agentready/agentready/probe"
)

// specSlot carries the OpenAPI document from the probe, which loads it
// after fetching the start resource, to the planning of probes. The probe
// calls back from the goroutine that later plans, so no lock is needed.
type specSlot struct{ doc *spec.Document }

// set keeps the document the probe hands over as soon as it is loaded
// (probe.Session.OnSpec).
func (s *specSlot) set(d *spec.Document) { s.doc = d }

// get is the loaded document, or nil.
func (s *specSlot) get() *spec.Document {
	if s == nil {
		return nil
	}
	return s.doc
}

// describeSpec says in the report which document the checks used and how it
// was found, and passes on the document's own notices (Swagger 2.0).
func describeSpec(rep *finding.Report, res *probe.Result) {
	if res.Spec == nil {
		return
	}
	rep.Spec = res.Spec.Info(res.SpecDiscovery)
	rep.Notes = append(rep.Notes, fmt.Sprintf("OpenAPI document: %s (%s, %d operations, found by %s)",
		res.Spec.Source, res.Spec.VersionLabel(), len(res.Spec.Operations), res.SpecDiscovery))
	rep.Notes = append(rep.Notes, res.Spec.Notices...)
}
