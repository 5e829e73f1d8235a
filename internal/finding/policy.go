package finding

// Baseline states of a finding.
const (
	BaselineNew      = "new"
	BaselineExisting = "existing"
)

// BaselineSummary compares a scan with the baseline it was given.
type BaselineSummary struct {
	// File is the baseline report the findings were compared with.
	File string `json:"file"`
	// New and Existing count the findings in each state.
	New      int `json:"new"`
	Existing int `json:"existing"`
	// Fixed are baseline entries no longer found although their check was
	// assessed. Their presence makes the baseline stale.
	Fixed []BaselineEntry `json:"fixed,omitempty"`
	// Unverified are baseline entries no longer found whose check did not
	// run or could not be assessed this time, so nothing is known of them.
	Unverified []BaselineEntry `json:"unverified,omitempty"`
	// Stale is true when Fixed is not empty: the baseline lists findings that
	// are gone and should be rewritten.
	Stale bool `json:"stale"`
}

// BaselineEntry is one finding recorded in a baseline.
type BaselineEntry struct {
	Fingerprint string   `json:"fingerprint"`
	CheckID     string   `json:"checkId"`
	Severity    Severity `json:"severity"`
	Message     string   `json:"message,omitempty"`
	URL         string   `json:"url,omitempty"`
}

// Suppression is why a finding is ignored.
type Suppression struct {
	Reason string `json:"reason"`
	// Expires is the last day (YYYY-MM-DD) the ignore applies, if any.
	Expires string `json:"expires,omitempty"`
}

// AppInfo describes an app the scan started itself.
type AppInfo struct {
	Command string `json:"command"`
	// Ready is the readiness condition that was met: a URL or a pattern.
	Ready string `json:"ready,omitempty"`
	// Log is the file the app's output was written to.
	Log string `json:"log"`
}
