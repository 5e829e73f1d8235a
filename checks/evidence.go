package checks

import (
	"fmt"
	"net/http"

	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/sanitize"
)

// ExcerptLimit caps body excerpts in evidence.
const ExcerptLimit = 240

// Evidence reduces an exchange to what proves a finding: the request headers
// and response headers named, the status, and a curl line.
func Evidence(x *exchange.Exchange, requestHeaders, responseHeaders []string) finding.Evidence {
	ev := finding.Evidence{
		ExchangeID: x.ID,
		Purpose:    x.Purpose,
		Method:     x.Request.Method,
		URL:        x.Request.URL,
		Curl:       x.Curl(),
	}
	ev.RequestHeaders = pick(x.Request.Header, requestHeaders)
	if x.Response != nil {
		ev.Status = x.Response.Status
		ev.ResponseHeaders = pick(x.Response.Header, responseHeaders)
	}
	return ev
}

// Excerpt returns a short, sanitized excerpt of a response body.
func Excerpt(x *exchange.Exchange) string {
	if x.Response == nil {
		return ""
	}
	return sanitize.Excerpt(x.Response.Body, ExcerptLimit)
}

func pick(h http.Header, names []string) http.Header {
	if len(names) == 0 || h == nil {
		return nil
	}
	out := http.Header{}
	for _, n := range names {
		if vs, ok := h[http.CanonicalHeaderKey(n)]; ok {
			out[http.CanonicalHeaderKey(n)] = append([]string(nil), vs...)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// New starts a finding from a check's metadata; the pipeline fills the
// fingerprint.
func New(m Meta, subject, message string, ev ...finding.Evidence) finding.Finding {
	return finding.Finding{
		CheckID:  m.ID,
		Family:   string(m.Family),
		Severity: m.Severity,
		Security: m.Security,
		Subject:  subject,
		Message:  message,
		Evidence: ev,
		SpecRefs: m.SpecRefs,
	}
}

// LineSubject is the subject of a finding about one line of a text
// document, "line 3": the line tells the findings of one check apart, and
// lint, which reads the document from a file, points the finding at it.
func LineSubject(line int) string { return fmt.Sprintf("line %d", line) }

// SubjectLine is the line a LineSubject names, or 0 for any other subject.
func SubjectLine(subject string) int {
	var line int
	if n, err := fmt.Sscanf(subject, "line %d", &line); n != 1 || err != nil || line < 1 || LineSubject(line) != subject {
		return 0
	}
	return line
}
