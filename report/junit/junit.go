// Package junit writes a report as JUnit XML, so that CI systems other than
// GitHub show agentready's results with their usual test views: one test
// suite per family, one test case per check that ran. A passed check is a
// passed case, a skipped check is skipped with its reason, a failed check is
// a failure whose message and text list the occurrences, and a check that
// could not be evaluated is an error. Names are the check IDs, so history
// lines up between runs.
package junit

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/report/internal/view"
)

// Bounds on what one case carries: CI views show a screenful, the JSON
// report keeps everything.
const (
	maxField       = 1000
	maxOccurrences = 200
)

// Reporter writes JUnit XML.
type Reporter struct{}

// New returns a JUnit reporter.
func New() *Reporter { return &Reporter{} }

type testSuites struct {
	XMLName  xml.Name    `xml:"testsuites"`
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr"`
	Skipped  int         `xml:"skipped,attr"`
	Time     string      `xml:"time,attr"`
	Suites   []testSuite `xml:"testsuite"`
}

type testSuite struct {
	Name       string     `xml:"name,attr"`
	Tests      int        `xml:"tests,attr"`
	Failures   int        `xml:"failures,attr"`
	Errors     int        `xml:"errors,attr"`
	Skipped    int        `xml:"skipped,attr"`
	Time       string     `xml:"time,attr"`
	Timestamp  string     `xml:"timestamp,attr,omitempty"`
	Properties []property `xml:"properties>property,omitempty"`
	Cases      []testCase `xml:"testcase"`
}

type property struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type testCase struct {
	Name      string   `xml:"name,attr"`
	ClassName string   `xml:"classname,attr"`
	Time      string   `xml:"time,attr"`
	Failure   *outcome `xml:"failure,omitempty"`
	Error     *outcome `xml:"error,omitempty"`
	Skipped   *outcome `xml:"skipped,omitempty"`
}

type outcome struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr,omitempty"`
	Text    string `xml:",cdata"`
}

// Write renders r.
func (*Reporter) Write(w io.Writer, r *finding.Report) error {
	if r == nil {
		return errors.New("junit report: nil report")
	}
	doc := build(r)
	var buf bytes.Buffer
	buf.WriteString(xml.Header)
	enc := xml.NewEncoder(&buf)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("junit report: %w", err)
	}
	buf.WriteByte('\n')
	_, err := w.Write(buf.Bytes())
	return err
}

func build(r *finding.Report) testSuites {
	byCheck := map[string][]finding.Finding{}
	for _, g := range view.Groups(r) {
		byCheck[g.CheckID] = g.Findings
	}
	rules := view.Rules(r)
	doc := testSuites{Name: view.NonEmpty(clean(r.Tool.Name), "agentready"), Time: seconds(r.Stats.DurationMS)}
	families := map[string]*testSuite{}
	var order []string
	for _, c := range view.Checks(r) {
		fam := view.NonEmpty(clean(c.Family), "unknown")
		s := families[fam]
		if s == nil {
			s = &testSuite{Name: fam, Time: "0"}
			if !r.StartedAt.IsZero() {
				s.Timestamp = r.StartedAt.UTC().Format(time.RFC3339)
			}
			s.Properties = suiteProperties(r, fam)
			families[fam] = s
			order = append(order, fam)
		}
		tc := testCase{Name: view.NonEmpty(clean(c.ID), "unknown-check"), ClassName: "agentready." + fam, Time: "0"}
		switch c.Status {
		case finding.StatusPass:
		case finding.StatusFail:
			tc.Failure = failure(c, rules[c.ID], byCheck[c.ID])
			s.Failures++
		case finding.StatusSkip:
			tc.Skipped = &outcome{Message: view.NonEmpty(clean(c.Reason), "skipped")}
			s.Skipped++
		default:
			tc.Error = &outcome{Message: view.NonEmpty(clean(c.Reason), "the check could not be evaluated"), Type: "check-error"}
			s.Errors++
		}
		s.Tests++
		s.Cases = append(s.Cases, tc)
	}
	if len(order) == 0 {
		// Nothing ran: one empty suite still says what was scanned, so the
		// CI view shows an empty run rather than nothing at all.
		order = append(order, doc.Name)
		families[doc.Name] = &testSuite{Name: doc.Name, Time: "0", Properties: suiteProperties(r, "")}
	}
	sort.Strings(order)
	for _, fam := range order {
		s := families[fam]
		doc.Suites = append(doc.Suites, *s)
		doc.Tests += s.Tests
		doc.Failures += s.Failures
		doc.Errors += s.Errors
		doc.Skipped += s.Skipped
	}
	return doc
}

// suiteProperties say what was scanned and how it was graded; the target is
// on every suite because some CI views show suites one at a time.
func suiteProperties(r *finding.Report, fam string) []property {
	props := []property{{Name: "target", Value: clean(view.URL(r.Target))}, {Name: "grade", Value: clean(view.Grade(r))}}
	for _, p := range []property{
		{Name: "grade.basis", Value: view.Basis(r)}, {Name: "shard", Value: view.ShardLabel(r)}, {Name: "coverage.cause", Value: view.Cause(r)},
		{Name: "coverage", Value: view.CoverageLine(r)}, {Name: "coverage.fraction", Value: view.FractionLabel(r)},
		{Name: "coverage.operations", Value: view.OperationsLine(r)}, {Name: "coverage.partial", Value: view.PartialLine(r)},
		{Name: "tls.unverified", Value: view.TLSUnverifiedLine(r)},
	} {
		if p.Value != "" {
			props = append(props, property{Name: p.Name, Value: clean(p.Value)})
		}
	}
	if r.Active != nil {
		props = append(props, property{Name: "activeProbes.sent", Value: fmt.Sprint(len(r.Active.Sent))})
	}
	for _, f := range r.Score.Families {
		if f.Family != fam {
			continue
		}
		switch view.FamilyState(f) {
		case finding.FamilyGraded:
			props = append(props, property{Name: "family.grade", Value: clean(f.Grade)}, property{Name: "family.score", Value: fmt.Sprint(f.Value)},
				property{Name: "family.judged", Value: view.Judged(f)})
		case finding.FamilyNotPresent:
			props = append(props, property{Name: "family.notPresent", Value: clean(f.Reason)})
		default:
			props = append(props, property{Name: "family.notAssessed", Value: clean(f.Reason)})
		}
	}
	return props
}

// failure lists the occurrences: the message says how many and shows the
// first, the text has one line per occurrence with its exchange.
func failure(c finding.CheckResult, rule *finding.RuleInfo, fs []finding.Finding) *outcome {
	sev := c.Severity
	if len(fs) > 0 {
		sev = fs[0].Severity
	}
	n := max(len(fs), c.Findings)
	msg := fmt.Sprintf("%d %s", n, view.Plural(n, "occurrence", "occurrences"))
	if len(fs) > 0 {
		msg += ": " + clean(fs[0].Message)
	}
	var text strings.Builder
	if rule != nil {
		if t := clean(rule.Title); t != "" {
			text.WriteString(t + "\n")
		}
		if cl := clean(view.Clauses(rule.SpecRefs)); cl != "" {
			text.WriteString("Spec: " + cl + "\n")
		}
		if view.IsWebURL(rule.DocsURL) {
			text.WriteString("Docs: " + clean(rule.DocsURL) + "\n")
		}
	}
	for i := range fs {
		if i == maxOccurrences {
			fmt.Fprintf(&text, "… and %d more (see the JSON report)\n", len(fs)-i)
			break
		}
		text.WriteString("- " + occurrence(&fs[i]) + "\n")
	}
	return &outcome{Message: msg, Type: sev.String(), Text: text.String()}
}

func occurrence(f *finding.Finding) string {
	line := clean(f.Message)
	if len(f.Evidence) > 0 {
		e := &f.Evidence[0]
		ex := strings.TrimSpace(clean(e.Method) + " " + clean(view.URL(e.URL)))
		if e.Status > 0 {
			ex += fmt.Sprintf(" -> %d", e.Status)
		}
		if ex != "" {
			line = ex + ": " + line
		}
		if e.Curl != "" {
			line += "\n  " + clean(view.Curl(e.Curl))
		}
	}
	if l := f.Location; l != nil && l.File != "" && l.Line > 0 {
		line += fmt.Sprintf("\n  spec: %s:%d", clean(l.File), l.Line)
	}
	return line
}

// clean makes an untrusted string one bounded line; encoding/xml then
// escapes attributes; the failure text goes in CDATA, which encoding/xml
// splits around any "]]>", and which holds no control character or invalid
// UTF-8 once cleaned.
func clean(s string) string { return view.Line(s, maxField) }

func seconds(ms int64) string {
	return fmt.Sprintf("%.3f", float64(ms)/1000)
}
