package finding

// SurfaceMatrix says which operation each projection of the API (OpenAPI,
// MCP tools, llms.txt, the agent card, hypermedia) names, and by what name.
// It is a reading aid for the surface family's findings, not a finding:
// rows are OpenAPI operations in document order, then names that match no
// operation.
type SurfaceMatrix struct {
	Projections []SurfaceProjection `json:"projections"`
	Rows        []SurfaceRow        `json:"rows"`
}

// SurfaceProjection is one column; a projection that was not assessed says why.
type SurfaceProjection struct {
	Name     string `json:"name"`
	Assessed bool   `json:"assessed"`
	Reason   string `json:"reason,omitempty"`
	// PerCaller marks a projection that shows each caller what it may call
	// (MCP tools, hypermedia), as opposed to a document that describes the
	// whole API to everyone.
	PerCaller bool `json:"perCaller,omitempty"`
}

// SurfaceRow is one operation. Names holds, per projection in column order,
// the names that projection uses for it, sorted; empty when it names none.
type SurfaceRow struct {
	// Operation is "METHOD /template", or the name as written when the row
	// is a name that matches no operation.
	Operation string     `json:"operation"`
	InOpenAPI bool       `json:"inOpenAPI"`
	Names     [][]string `json:"names"`
	// NotForCaller says why the scanned caller may not call the operation,
	// or why the scan cannot tell; then a per-caller projection that names
	// nothing for it is not assessed for this caller rather than missing.
	NotForCaller string `json:"notForCaller,omitempty"`
}

// NotAssessedForCaller reports a cell that names nothing because the
// projection is per caller and the operation is not the caller's to call.
func (m *SurfaceMatrix) NotAssessedForCaller(row SurfaceRow, col int) bool {
	return row.NotForCaller != "" && col < len(m.Projections) && m.Projections[col].PerCaller &&
		(col >= len(row.Names) || len(row.Names[col]) == 0)
}
