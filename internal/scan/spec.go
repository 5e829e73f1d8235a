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

// attachSpec makes the probe hand over the document as soon as it is
// loaded, keeping any callback the caller set.
func attachSpec(cfg *probe.Config) *specSlot {
	s := &specSlot{}
	prev := cfg.Spec.OnLoad
	cfg.Spec.OnLoad = func(d *spec.Document) {
		s.doc = d
		if prev != nil {
			prev(d)
		}
	}
	return s
}

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
