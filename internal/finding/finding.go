// Package finding holds the data every other package agrees on: severities,
// findings with their evidence, check results and the report. It imports
// nothing of ours, so checks, the probe and the reporters can all depend on it.
package finding

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"strings"
)

// Severity orders findings. The zero value is deliberately invalid so that a
// forgotten severity is caught by the registry instead of silently being info.
type Severity uint8

const (
	SeverityNone Severity = iota
	SeverityInfo
	SeverityWarning
	SeverityError
)

var severityNames = map[Severity]string{
	SeverityNone:    "none",
	SeverityInfo:    "info",
	SeverityWarning: "warning",
	SeverityError:   "error",
}

func (s Severity) String() string {
	if n, ok := severityNames[s]; ok {
		return n
	}
	return fmt.Sprintf("severity(%d)", uint8(s))
}

// ParseSeverity accepts the names printed by String, plus "warn" and "note"
// because users coming from other linters type them.
func ParseSeverity(s string) (Severity, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "none", "off", "never":
		return SeverityNone, nil
	case "info", "note":
		return SeverityInfo, nil
	case "warning", "warn":
		return SeverityWarning, nil
	case "error":
		return SeverityError, nil
	}
	return SeverityNone, fmt.Errorf("unknown severity %q (want error, warning, info or none)", s)
}

func (s Severity) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

func (s *Severity) UnmarshalText(b []byte) error {
	v, err := ParseSeverity(string(b))
	if err != nil {
		return err
	}
	*s = v
	return nil
}

// SpecRef names the clause a check rests on.
type SpecRef struct {
	Doc     string `json:"doc"`
	Section string `json:"section,omitempty"`
	URL     string `json:"url,omitempty"`
	// Level is the requirement keyword of the clause (MUST, SHOULD, ...); it is
	// what justifies the check's severity.
	Level string `json:"level,omitempty"`
}

func (r SpecRef) String() string {
	s := r.Doc
	if r.Section != "" {
		s += " §" + r.Section
	}
	return s
}

// SourceLocation is a place in the user's spec file, 1-based.
type SourceLocation struct {
	File      string `json:"file"`
	Line      int    `json:"line"`
	Column    int    `json:"column,omitempty"`
	EndLine   int    `json:"endLine,omitempty"`
	EndColumn int    `json:"endColumn,omitempty"`
	Pointer   string `json:"pointer,omitempty"`
}

// Evidence is one exchange, reduced to what proves the finding.
type Evidence struct {
	ExchangeID      string      `json:"exchangeId,omitempty"`
	Purpose         string      `json:"purpose,omitempty"`
	Method          string      `json:"method"`
	URL             string      `json:"url"`
	RequestHeaders  http.Header `json:"requestHeaders,omitempty"`
	Status          int         `json:"status,omitempty"`
	ResponseHeaders http.Header `json:"responseHeaders,omitempty"`
	Header          string      `json:"header,omitempty"`
	JSONPointer     string      `json:"jsonPointer,omitempty"`
	// JSONPath is the RFC 9535 normalized path of the value a house rule
	// judged, in the JSON value its target reads (docs/custom-rules.md).
	JSONPath string `json:"jsonPath,omitempty"`
	Expected string `json:"expected,omitempty"`
	Actual   string `json:"actual,omitempty"`
	Excerpt  string `json:"excerpt,omitempty"`
	Curl     string `json:"curl,omitempty"`
}

// Finding is one occurrence of one problem. Occurrences of the same check are
// grouped by the reporters and by grading, so a check that fires on 500 URLs
// is one failed check with 500 occurrences.
type Finding struct {
	CheckID  string   `json:"checkId"`
	Family   string   `json:"family"`
	Severity Severity `json:"severity"`
	Security bool     `json:"security,omitempty"`
	Message  string   `json:"message"`
	// Subject distinguishes findings of one check on one path shape (a header
	// name, a relation, a media type). It feeds the fingerprint.
	Subject     string          `json:"subject,omitempty"`
	Evidence    []Evidence      `json:"evidence,omitempty"`
	SpecRefs    []SpecRef       `json:"specRefs,omitempty"`
	Location    *SourceLocation `json:"location,omitempty"`
	Fingerprint string          `json:"fingerprint"`
	// BaselineState is "new", "existing" or empty when no baseline was given.
	BaselineState string `json:"baselineState,omitempty"`
	// Suppression says why the configuration ignores this finding; set only
	// on the findings in Report.Ignored.
	Suppression *Suppression `json:"suppression,omitempty"`
}

// PrimaryURL is the URL of the first piece of evidence, or "".
func (f *Finding) PrimaryURL() string {
	if len(f.Evidence) == 0 {
		return ""
	}
	return f.Evidence[0].URL
}

// PrimaryMethod is the method of the first piece of evidence, or "".
func (f *Finding) PrimaryMethod() string {
	if len(f.Evidence) == 0 {
		return ""
	}
	return f.Evidence[0].Method
}

// Fingerprint is stable across runs, ports and IDs: it hashes the check, the
// method, the path shape (IDs replaced by placeholders) and the subject. The
// shape is given by the caller so that this package stays free of URL rules.
func Fingerprint(checkID, method, pathShape, subject string) string {
	h := sha256.New()
	for _, part := range []string{checkID, method, pathShape, subject} {
		h.Write([]byte(part))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))[:32]
}

// CheckStatus is the outcome of running one check, kept apart from findings.
type CheckStatus string

const (
	StatusPass  CheckStatus = "pass"
	StatusFail  CheckStatus = "fail"
	StatusSkip  CheckStatus = "skip"
	StatusError CheckStatus = "error"
)

// CheckResult records how one check went.
type CheckResult struct {
	ID       string      `json:"id"`
	Family   string      `json:"family"`
	Status   CheckStatus `json:"status"`
	Reason   string      `json:"reason,omitempty"`
	Findings int         `json:"findings"`
	// Observations are facts the check recorded that are not findings.
	Observations []string `json:"observations,omitempty"`
	// Severity is the highest severity among the check's findings, or the
	// check's default when it has none.
	Severity Severity `json:"severity"`
}
