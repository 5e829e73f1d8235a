package finding

// Coverage says what a scan reached and what it could not, so that a
// verdict never rests on less than it shows. Every reporter shows it on the
// first screen.
type Coverage struct {
	// Pages counts the crawled responses of the judged identity by status
	// class: "2xx", "3xx", "4xx", "5xx", and "none" for requests that got
	// no answer.
	Pages map[string]int `json:"pages"`
	// APIResources counts the distinct URLs that answered 2xx with a media
	// type an API serves (JSON and its +json kinds, XML, YAML, plain text),
	// HTML pages and discovery documents left out.
	APIResources int `json:"apiResources"`
	// Operations are the GET operations of the OpenAPI document and whether
	// each was reached; nil when the scan had no document.
	Operations *OperationCoverage `json:"operations,omitempty"`
	// Fraction is Operations.Reached / Operations.Declared, nil without a
	// document.
	Fraction *float64 `json:"fraction,omitempty"`
	// Cause names the likely misconfiguration when no API resource was
	// reached, with what to pass; empty otherwise.
	Cause string `json:"cause,omitempty"`
}

// OperationCoverage lists the GET operations the document declares.
type OperationCoverage struct {
	Declared int              `json:"declared"`
	Reached  int              `json:"reached"`
	Items    []OperationReach `json:"items"`
}

// OperationReach is one GET operation: reached with a 2xx, or not, with the
// reason.
type OperationReach struct {
	Method      string `json:"method"`
	Path        string `json:"path"`
	OperationID string `json:"operationId,omitempty"`
	Reached     bool   `json:"reached"`
	// Status is the status of the best answer the operation got (a 2xx
	// when reached), 0 when nothing was sent to it.
	Status int    `json:"status,omitempty"`
	URL    string `json:"url,omitempty"`
	// Reason is one of the Reason constants when not reached.
	Reason string `json:"reason,omitempty"`
}

// Why a declared GET operation was not reached.
const (
	ReasonPathParameter     = "needs-path-parameter"     // no response, example or link supplied a value
	ReasonRequiredParameter = "needs-required-parameter" // a required header or query parameter had no value
	ReasonCredentials       = "needs-credentials"        // it answered 401/403, or declares security the scan sent nothing for
	ReasonBasePath          = "base-path-mismatch"       // neither the servers path nor the bare path answered
	ReasonAnsweredError     = "answered-error"           // it answered 4xx or 5xx (Status says which)
	ReasonBudget            = "not-reached-in-budget"    // the page, time or request limits ended first
)
