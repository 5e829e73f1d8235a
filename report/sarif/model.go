package sarif

// The SARIF 2.1.0 objects agentready writes, hand-written so that every field
// GitHub code scanning reads is under our control (webRequest/webResponse,
// partialFingerprints, automationDetails). Field order follows the schema's
// reading order; encoding/json keeps it, so output is stable.

// Log is the top-level sarifLog object.
type Log struct {
	Schema  string `json:"$schema"`
	Version string `json:"version"`
	Runs    []Run  `json:"runs"`
}

// Run is one analysis.
type Run struct {
	Tool              Tool               `json:"tool"`
	Invocations       []Invocation       `json:"invocations,omitempty"`
	AutomationDetails *AutomationDetails `json:"automationDetails,omitempty"`
	// Results is never nil: an empty array says "scanned, nothing found",
	// which GitHub uses to close earlier alerts.
	Results    []Result       `json:"results"`
	Properties map[string]any `json:"properties,omitempty"`
}

// Tool wraps the driver.
type Tool struct {
	Driver Driver `json:"driver"`
}

// Driver is the toolComponent that produced the run.
type Driver struct {
	Name            string `json:"name"`
	Version         string `json:"version,omitempty"`
	SemanticVersion string `json:"semanticVersion,omitempty"`
	InformationURI  string `json:"informationUri,omitempty"`
	Rules           []Rule `json:"rules"`
}

// Rule is a reportingDescriptor.
type Rule struct {
	ID                   string         `json:"id"`
	Name                 string         `json:"name"`
	ShortDescription     Message        `json:"shortDescription"`
	FullDescription      Message        `json:"fullDescription"`
	HelpURI              string         `json:"helpUri,omitempty"`
	Help                 Help           `json:"help"`
	DefaultConfiguration Configuration  `json:"defaultConfiguration"`
	Properties           RuleProperties `json:"properties"`
}

// Message is a message or multiformatMessageString with text only.
type Message struct {
	Text string `json:"text"`
}

// Help carries the rule's documentation as text and Markdown.
type Help struct {
	Text     string `json:"text"`
	Markdown string `json:"markdown,omitempty"`
}

// Configuration is a reportingConfiguration.
type Configuration struct {
	Level string `json:"level"`
}

// RuleProperties is the property bag GitHub reads on a rule.
type RuleProperties struct {
	Tags      []string `json:"tags"`
	Precision string   `json:"precision"`
	// ProblemSeverity is GitHub's non-security severity scale.
	ProblemSeverity string `json:"problem.severity"`
	// SecuritySeverity turns the rule into a security rule on GitHub.
	SecuritySeverity string `json:"security-severity,omitempty"`
	// Clauses lists the spec clauses the check rests on.
	Clauses []string `json:"clauses,omitempty"`
}

// Invocation says whether the scan completed and carries its notes.
type Invocation struct {
	ExecutionSuccessful bool           `json:"executionSuccessful"`
	StartTimeUTC        string         `json:"startTimeUtc,omitempty"`
	EndTimeUTC          string         `json:"endTimeUtc,omitempty"`
	Notifications       []Notification `json:"toolExecutionNotifications,omitempty"`
}

// Notification is a scan-level fact (budget reached, results cut).
type Notification struct {
	Level   string  `json:"level"`
	Message Message `json:"message"`
}

// AutomationDetails identifies the run; GitHub derives the upload category
// from its id.
type AutomationDetails struct {
	ID string `json:"id"`
}

// Result is one finding.
type Result struct {
	RuleID              string            `json:"ruleId"`
	RuleIndex           int               `json:"ruleIndex"`
	Level               string            `json:"level"`
	Message             Message           `json:"message"`
	Locations           []Location        `json:"locations"`
	PartialFingerprints map[string]string `json:"partialFingerprints"`
	BaselineState       string            `json:"baselineState,omitempty"`
	WebRequest          *WebRequest       `json:"webRequest,omitempty"`
	WebResponse         *WebResponse      `json:"webResponse,omitempty"`
	Properties          map[string]any    `json:"properties,omitempty"`
}

// Location wraps a physical location.
type Location struct {
	PhysicalLocation PhysicalLocation `json:"physicalLocation"`
}

// PhysicalLocation is a file and a region in it.
type PhysicalLocation struct {
	ArtifactLocation ArtifactLocation `json:"artifactLocation"`
	Region           Region           `json:"region"`
}

// ArtifactLocation is a repository-relative URI.
type ArtifactLocation struct {
	URI string `json:"uri"`
}

// Region is 1-based; zero fields are left out.
type Region struct {
	StartLine   int `json:"startLine"`
	StartColumn int `json:"startColumn,omitempty"`
	EndLine     int `json:"endLine,omitempty"`
	EndColumn   int `json:"endColumn,omitempty"`
}

// WebRequest is the HTTP request behind a result.
type WebRequest struct {
	Protocol string            `json:"protocol,omitempty"`
	Target   string            `json:"target"`
	Method   string            `json:"method"`
	Headers  map[string]string `json:"headers,omitempty"`
}

// WebResponse is what came back.
type WebResponse struct {
	StatusCode         int               `json:"statusCode,omitempty"`
	Headers            map[string]string `json:"headers,omitempty"`
	Body               *Content          `json:"body,omitempty"`
	NoResponseReceived bool              `json:"noResponseReceived,omitempty"`
}

// Content is an artifactContent with text.
type Content struct {
	Text string `json:"text"`
}
