package pipeline

import "github.com/agentready/agentready/internal/finding"

// locate gives a place in the OpenAPI document to findings that have none:
// the operation that the finding's primary request matches. Code scanning
// needs a file and a line for every result, and "this GET /orders/1 answers
// without Vary" is best shown on the operation that describes it. Findings
// whose request matches no operation keep no location. The document's index
// of path templates is built only when a finding needs it: lint's findings,
// located by their checks, never do.
func locate(p *Pipeline, fs []finding.Finding) []finding.Finding {
	if p.Doc == nil || len(p.Doc.Operations) == 0 {
		return fs
	}
	for i := range fs {
		f := &fs[i]
		if f.Location != nil || len(f.Evidence) == 0 {
			continue
		}
		if op := p.Doc.Index().Match(f.PrimaryMethod(), f.PrimaryURL()); op != nil {
			loc := op.Location
			f.Location = &loc
		}
	}
	return fs
}
