package exchange

import "net/http"

// ActiveRequest is one planned active probe: a state-changing request sent
// only with --active, to what the user allowed, after the user saw it. The
// checks plan it, the user confirms it, and the probe sends it.
type ActiveRequest struct {
	PlannedRequest
	// Identity is the caller it is sent as; empty for a scan as one
	// unnamed caller.
	Identity string
	// Operation names the control (template key, affordance operation).
	Operation string
	// Why says what the probe tests, for the plan printed before sending.
	Why string
	// Shown is every header that will be sent, credentials redacted; the
	// probe fills it in before asking for confirmation.
	Shown http.Header
}
