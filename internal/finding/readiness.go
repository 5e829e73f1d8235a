package finding

// Readiness is how well an agent could plan calls from the OpenAPI document
// alone: a grade, over the checks of the document's readiness only (the
// rules marked Readiness), of the share of operations an agent could plan
// without a guess (internal/score's Readiness), and the operations with the
// most deductions, most first. The report's own grade is unchanged by it.
type Readiness struct {
	Score Score `json:"score"`
	// Deductions counts the findings of those checks; Deducted the
	// operations with at least one (every one when a finding is about the
	// whole document), of the document's Operations.
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
