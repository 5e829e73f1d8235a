package finding

// SpecLint is the SpecInfo.Discovery of a report made by lint, which reads
// an OpenAPI document and sends no request.
const SpecLint = "lint"

// IsLint reports whether r is a lint report: one without a crawl, whose
// scan statistics (pages, requests, probes) have no meaning.
func (r *Report) IsLint() bool {
	return r.Spec != nil && r.Spec.Discovery == SpecLint
}
