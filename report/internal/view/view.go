// Package view prepares a finding.Report for the document formats (SARIF,
// Markdown, HTML, JUnit): findings grouped by check in one stable order,
// rules looked up by ID, headers sorted and redacted, URLs stripped of
// credentials, strings made safe to show. Each format still escapes for its
// own syntax; this package only removes what no format should ever show.
package view

import (
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"sort"
	"strings"

	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/sanitize"
)

// Group is every occurrence of one check.
type Group struct {
	CheckID  string
	Family   string
	Severity finding.Severity
	// Rule is nil when the report carries no metadata for the check (a
	// hand-edited or truncated JSON report).
	Rule     *finding.RuleInfo
	Findings []finding.Finding
}

// Title is the rule's title, or the check ID when there is no rule.
func (g *Group) Title() string {
	if g.Rule != nil && strings.TrimSpace(g.Rule.Title) != "" {
		return g.Rule.Title
	}
	return g.CheckID
}

// Rules indexes the report's rules by check ID.
func Rules(r *finding.Report) map[string]*finding.RuleInfo {
	m := make(map[string]*finding.RuleInfo, len(r.Rules))
	for i := range r.Rules {
		m[r.Rules[i].ID] = &r.Rules[i]
	}
	return m
}

// Groups groups findings by check: most severe check first, then by ID.
// Occurrences are ordered the same way and then by URL, method, subject and
// message, so two runs over the same app compare line for line.
func Groups(r *finding.Report) []*Group {
	rules := Rules(r)
	byID := map[string]*Group{}
	var groups []*Group
	for _, f := range r.Findings {
		g := byID[f.CheckID]
		if g == nil {
			g = &Group{CheckID: f.CheckID, Family: f.Family, Rule: rules[f.CheckID]}
			byID[f.CheckID] = g
			groups = append(groups, g)
		}
		g.Severity = max(g.Severity, f.Severity)
		g.Findings = append(g.Findings, f)
	}
	for _, g := range groups {
		sort.SliceStable(g.Findings, func(i, j int) bool { return OccurrenceLess(&g.Findings[i], &g.Findings[j]) })
	}
	sort.SliceStable(groups, func(i, j int) bool {
		if groups[i].Severity != groups[j].Severity {
			return groups[i].Severity > groups[j].Severity
		}
		return groups[i].CheckID < groups[j].CheckID
	})
	return groups
}

// OccurrenceLess orders two findings of one check.
func OccurrenceLess(a, b *finding.Finding) bool {
	if a.Severity != b.Severity {
		return a.Severity > b.Severity
	}
	if ua, ub := a.PrimaryURL(), b.PrimaryURL(); ua != ub {
		return ua < ub
	}
	if ma, mb := a.PrimaryMethod(), b.PrimaryMethod(); ma != mb {
		return ma < mb
	}
	if a.Subject != b.Subject {
		return a.Subject < b.Subject
	}
	return a.Message < b.Message
}

// Checks returns the check results sorted by family, then ID.
func Checks(r *finding.Report) []finding.CheckResult {
	out := append([]finding.CheckResult(nil), r.Checks...)
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Family != out[j].Family {
			return out[i].Family < out[j].Family
		}
		return out[i].ID < out[j].ID
	})
	return out
}

// Header is one header line.
type Header struct{ Name, Value string }

// Headers flattens h into sorted lines, with credentials redacted again: a
// report read back from JSON may come from an older or edited file.
func Headers(h http.Header) []Header {
	if len(h) == 0 {
		return nil
	}
	red := exchange.RedactHeader(h, nil)
	names := make([]string, 0, len(red))
	for name := range red {
		names = append(names, name)
	}
	sort.Strings(names)
	var out []Header
	for _, name := range names {
		for _, v := range red[name] {
			out = append(out, Header{Name: name, Value: v})
		}
	}
	return out
}

// URL removes a password or token from the user-info part of a URL, the one
// place a URL carries a credential by construction. Anything unparsable is
// returned as it is; callers escape it for their format.
func URL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		// Unparsable, yet it may still carry user-info: cut it textually.
		return userInfo.ReplaceAllString(raw, "${1}"+exchange.Redacted+"@")
	}
	if u.User == nil {
		return raw
	}
	if _, has := u.User.Password(); has {
		u.User = url.UserPassword(u.User.Username(), exchange.Redacted)
	} else {
		u.User = url.User(exchange.Redacted)
	}
	return u.String()
}

// userInfo is the user-info of an absolute URL: what lies between the
// scheme's // and the first @ before any / ? or #.
var userInfo = regexp.MustCompile(`^([A-Za-z][A-Za-z0-9+.-]*://)[^/?#@]*@`)

// Curl redacts the user-info of every URL in a curl line; header values were
// redacted when the exchange was recorded.
func Curl(s string) string {
	fields := strings.Fields(s)
	for i, f := range fields {
		q := strings.Trim(f, "'\"")
		if strings.Contains(q, "://") && strings.Contains(q, "@") {
			fields[i] = strings.Replace(f, q, URL(q), 1)
		}
	}
	return strings.Join(fields, " ")
}

// IsWebURL reports whether s is an absolute http or https URL, the only kind
// the documents turn into links: a report may carry javascript: or data:
// URLs planted by the scanned app.
func IsWebURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" &&
		!strings.ContainsAny(s, " \t\r\n<>\"'`\\")
}

// Line makes an untrusted string one safe line of at most max bytes: no
// control characters, escape sequences or invalid UTF-8, newlines folded.
func Line(s string, max int) string { return sanitize.Truncate(sanitize.Line(s), max) }

// Text is Line that keeps newlines, for multi-line fields such as help.
func Text(s string, max int) string { return sanitize.Truncate(sanitize.Terminal(s), max) }

// SeverityLabel is the lower-case severity name.
func SeverityLabel(s finding.Severity) string { return s.String() }

// Clauses renders spec references as "RFC 9110 §8.6 (MUST); ...".
func Clauses(refs []finding.SpecRef) string {
	parts := make([]string, 0, len(refs))
	for _, r := range refs {
		s := r.String()
		if r.Level != "" {
			s += " (" + r.Level + ")"
		}
		if strings.TrimSpace(s) != "" {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, "; ")
}

// Summary counts check outcomes.
type Summary struct {
	Total, Passed, Failed, Skipped, Errored int
}

// GradedOn says how many checks the grade rests on, and what became of the
// others: "graded on 8 of 10 checks (1 skipped, 1 errored)". checks is the
// noun the format counts them with.
func (s Summary) GradedOn(checks string) string {
	out := fmt.Sprintf("graded on %d of %d %s", s.Passed+s.Failed, s.Total, checks)
	var extra []string
	if s.Skipped > 0 {
		extra = append(extra, fmt.Sprintf("%d skipped", s.Skipped))
	}
	if s.Errored > 0 {
		extra = append(extra, fmt.Sprintf("%d errored", s.Errored))
	}
	if len(extra) > 0 {
		out += " (" + strings.Join(extra, ", ") + ")"
	}
	return out
}

// Summarize counts the report's check results by status.
func Summarize(r *finding.Report) Summary {
	s := Summary{Total: len(r.Checks)}
	for _, c := range r.Checks {
		switch c.Status {
		case finding.StatusPass:
			s.Passed++
		case finding.StatusFail:
			s.Failed++
		case finding.StatusSkip:
			s.Skipped++
		case finding.StatusError:
			s.Errored++
		}
	}
	return s
}

// SeverityCount is how many of a report's findings have one severity.
type SeverityCount struct {
	Severity finding.Severity
	Count    int
}

// SeverityCounts counts the report's findings by severity, most severe
// first, leaving out the severities none has.
func SeverityCounts(r *finding.Report) []SeverityCount {
	n := map[finding.Severity]int{}
	for _, f := range r.Findings {
		n[f.Severity]++
	}
	var out []SeverityCount
	for s := finding.SeverityError; s > finding.SeverityNone; s-- {
		if n[s] > 0 {
			out = append(out, SeverityCount{s, n[s]})
		}
	}
	return out
}

// Grade is the report's grade, printable, or finding.GradeNotAssessed when
// there is none. A report read back may carry anything there.
func Grade(r *finding.Report) string {
	if g := strings.TrimSpace(Line(r.Score.Grade, 20)); g != "" {
		return g
	}
	return finding.GradeNotAssessed
}

// Plural is one when n is 1 and many otherwise: "1 check", "2 checks".
func Plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// NonEmpty is s, or fallback when s is blank, so that a report read back
// with a field emptied still says something in its place.
func NonEmpty(s, fallback string) string {
	if strings.TrimSpace(s) == "" {
		return fallback
	}
	return s
}

// statusLabels name the check outcomes as every format shows them.
var statusLabels = map[finding.CheckStatus]string{
	finding.StatusPass:  "passed",
	finding.StatusFail:  "failed",
	finding.StatusSkip:  "skipped",
	finding.StatusError: "errored",
}

// StatusLabel names a check outcome ("passed", "errored"); "" for a status
// this release does not know, which a report read back may carry.
func StatusLabel(s finding.CheckStatus) string { return statusLabels[s] }

// FailedDetail says what a failed check found: "3 findings, error".
func FailedDetail(c finding.CheckResult) string {
	return fmt.Sprintf("%d %s, %s", c.Findings, Plural(c.Findings, "finding", "findings"), c.Severity)
}

// ActiveSent says how many active requests were sent, in the words of a
// format ("request(s)", or its plural of one): the state-changing ones, and
// apart the re-reads (GET) that flow probes send to see what they changed.
func ActiveSent(sent []finding.ActiveRequest, requests string) string {
	changing := 0
	for _, s := range sent {
		if s.Method != http.MethodGet && s.Method != http.MethodHead && s.Method != http.MethodOptions {
			changing++
		}
	}
	if changing == len(sent) {
		return fmt.Sprintf("%d state-changing %s", len(sent), requests)
	}
	return fmt.Sprintf("%d %s (%d state-changing, %d re-read(s))", len(sent), requests, changing, len(sent)-changing)
}
