package spec

import "github.com/agentready/agentready/internal/finding"

// Info summarizes d for the report; discovery says how it was found.
func (d *Document) Info(discovery string) *finding.SpecInfo {
	if d == nil {
		return nil
	}
	return &finding.SpecInfo{
		Source: d.Source, Version: d.Version, Operations: len(d.Operations),
		Discovery: discovery, Problems: len(d.Problems),
	}
}

// VersionLabel names the document's format and version for a reader.
func (d *Document) VersionLabel() string {
	switch {
	case d.Swagger2:
		return "Swagger " + d.Version
	case d.Version == "":
		return "version unknown"
	}
	return "OpenAPI " + d.Version
}
