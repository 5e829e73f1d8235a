package finding

import "slices"

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
	// Interrupted says what stopped the scan before its end and in which
	// phase: a signal ("interrupted by SIGINT during the crawl") or a fatal
	// error; empty for a scan that ran to its end or to its budget. An
	// interrupted scan has no grade, whatever it reached.
	Interrupted string `json:"interrupted,omitempty"`
	// Surfaces are the kinds of API surface the scan saw, sorted: the
	// Surface constants. A family that judges a surface the app does not
	// have is "not present" rather than graded.
	Surfaces []string `json:"surfaces,omitempty"`
	// Throttling counts the requests the server answered by asking the
	// scan to slow down; nil when it never did.
	Throttling *Throttling `json:"throttling,omitempty"`
}

// Throttling counts throttled answers: 429, or 503 with a valid
// Retry-After (exchange.Response.Throttled). The scan waits each out and
// sends the request again, at most twice; what is still throttled then
// says nothing about the resource.
type Throttling struct {
	// Requests counts the requests sent, each once however often it was
	// sent again.
	Requests int `json:"requests"`
	// Throttled counts the requests answered with a throttled answer at
	// least once.
	Throttled int `json:"throttled"`
	// StillThrottled counts those whose last answer was throttled: the
	// retries were spent, the wait asked for was too long, or the phase
	// ended first.
	StillThrottled int `json:"stillThrottled"`
	// CrawlGETs counts the crawl's GET requests of the judged identity,
	// and CrawlThrottled those of them that stayed throttled.
	CrawlGETs      int `json:"crawlGets"`
	CrawlThrottled int `json:"crawlThrottled"`
}

// Overwhelmed reports a crawl of which more than half the GET requests
// stayed throttled: what it reached is the server's rate limit, not the
// API, and grading it would pass an API the scan barely saw.
func (t *Throttling) Overwhelmed() bool {
	return t != nil && t.CrawlThrottled*2 > t.CrawlGETs
}

// Throttled reports a scan whose crawl the server throttled too much to
// grade (Throttling.Overwhelmed).
func (c *Coverage) Throttled() bool { return c != nil && c.Throttling.Overwhelmed() }

// The surfaces a family may need.
const (
	// SurfaceOpenAPI: an OpenAPI document was given or found, and loaded.
	SurfaceOpenAPI = "openapi"
	// SurfaceHypermedia: a 2xx response was served as HAL or HAL-FORMS, or
	// carried affordances or next actions.
	SurfaceHypermedia = "hypermedia"
	// SurfaceStatefulActions: a 2xx JSON response carried next_actions, the
	// members of a stateful business action.
	SurfaceStatefulActions = "stateful-actions"
	// SurfaceMCP: an MCP endpoint answered as one.
	SurfaceMCP = "mcp"
	// SurfaceBaseline: the scan was given a baseline (--baseline) that
	// carries a surface snapshot to compare with.
	SurfaceBaseline = "baseline"
	// SurfaceTrial: a trial (--trial) was played, not only planned.
	SurfaceTrial = "trial"
)

// Reached reports whether the scan reached the API at all: a 2xx API
// resource, a reached operation, or an MCP endpoint that answered. A nil
// Coverage (a report that does not measure it, such as lint's) counts as
// reached.
func (c *Coverage) Reached() bool {
	if c == nil {
		return true
	}
	return c.APIResources > 0 || c.Has(SurfaceMCP) || c.Operations != nil && c.Operations.Reached > 0
}

// Stopped reports a scan a signal or a fatal error stopped before its end.
func (c *Coverage) Stopped() bool { return c != nil && c.Interrupted != "" }

// Has reports whether the scan saw the surface.
func (c *Coverage) Has(surface string) bool {
	return c != nil && slices.Contains(c.Surfaces, surface)
}

// Percent is Fraction in whole percent, rounded down so that a minimum is
// never met by rounding; -1 without a document.
func (c *Coverage) Percent() int {
	if c == nil || c.Fraction == nil {
		return -1
	}
	return int(*c.Fraction*100 + 1e-9)
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
	ReasonPayment           = "needs-payment"            // it answered 402: it is priced, and the scan never pays
	ReasonBasePath          = "base-path-mismatch"       // neither the servers path nor the bare path answered
	ReasonAnsweredError     = "answered-error"           // it answered 4xx or 5xx (Status says which)
	ReasonBudget            = "not-reached-in-budget"    // the page, time or request limits ended first
)
