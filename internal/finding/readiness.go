package finding

// Readiness is how well an agent could plan calls from the OpenAPI document
// alone: the report's scoring applied to the checks of the document's
// readiness only (the rules marked Readiness), and the operations with the
// most deductions, most first. The report's own grade is unchanged by it.
type Readiness struct {
	Score Score `json:"score"`
	// Deductions counts the findings of those checks; Deducted the
	// operations with at least one, of the document's Operations.
	Deductions int `json:"deductions"`
	Deducted   int `json:"deducted"`
	Operations int `json:"operations"`
	// Hotspots are the operations with the most deductions, most first
	// (then in the order of their first line), at most MaxHotspots.
	Hotspots []Hotspot `json:"hotspots,omitempty"`
}

// MaxHotspots bounds Readiness.Hotspots; the text report shows the first
// five.
const MaxHotspots = 20

// Hotspot is one operation and its deductions.
type Hotspot struct {
	// Operation is "METHOD /template".
	Operation  string `json:"operation"`
	Deductions int    `json:"deductions"`
	// Checks are the IDs of the checks that deducted, sorted.
	Checks []string `json:"checks"`
	// Location is where its first deduction (by line) is.
	Location *SourceLocation `json:"location,omitempty"`
}
