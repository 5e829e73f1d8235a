package junit_test

import (
	"bytes"
	"encoding/xml"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/golden"
	"github.com/agentready/agentready/report/internal/sample"
	"github.com/agentready/agentready/report/junit"
)

func render(t *testing.T, r *finding.Report) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := junit.New().Write(&buf, r); err != nil {
		t.Fatalf("Write: %v", err)
	}
	return buf.Bytes()
}

// parsed mirrors the JUnit schema's elements, read back with encoding/xml.
type parsed struct {
	Tests    int `xml:"tests,attr"`
	Failures int `xml:"failures,attr"`
	Errors   int `xml:"errors,attr"`
	Skipped  int `xml:"skipped,attr"`
	Suites   []struct {
		Name     string `xml:"name,attr"`
		Tests    int    `xml:"tests,attr"`
		Failures int    `xml:"failures,attr"`
		Props    []struct {
			Name  string `xml:"name,attr"`
			Value string `xml:"value,attr"`
		} `xml:"properties>property"`
		Cases []struct {
			Name      string `xml:"name,attr"`
			ClassName string `xml:"classname,attr"`
			Failure   *struct {
				Message string `xml:"message,attr"`
				Type    string `xml:"type,attr"`
				Text    string `xml:",chardata"`
			} `xml:"failure"`
			Skipped *struct {
				Message string `xml:"message,attr"`
			} `xml:"skipped"`
			Error *struct {
				Message string `xml:"message,attr"`
			} `xml:"error"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

func parse(t *testing.T, b []byte) parsed {
	t.Helper()
	var p parsed
	if err := xml.Unmarshal(b, &p); err != nil {
		t.Fatalf("output is not well-formed XML: %v", err)
	}
	return p
}

func TestGoldenSample(t *testing.T) {
	golden.Check(t, golden.Path("sample", "report.xml"), render(t, sample.Report()))
}

func TestOneCasePerCheckOneSuitePerFamily(t *testing.T) {
	r := sample.Report()
	p := parse(t, render(t, r))
	if p.Tests != len(r.Checks) || p.Failures != 4 || p.Skipped != 1 || p.Errors != 1 {
		t.Errorf("totals tests=%d failures=%d skipped=%d errors=%d", p.Tests, p.Failures, p.Skipped, p.Errors)
	}
	var names []string
	for _, s := range p.Suites {
		names = append(names, s.Name)
	}
	if got := strings.Join(names, ","); got != "mcp,negotiation,problem-json" {
		t.Errorf("suites %s", got)
	}
	cases := map[string]int{}
	for _, s := range p.Suites {
		for _, c := range s.Cases {
			cases[c.Name]++
			if c.ClassName != "agentready."+s.Name {
				t.Errorf("case %s has classname %s", c.Name, c.ClassName)
			}
			switch c.Name {
			case "negotiation-head-content-length":
				if c.Failure == nil || c.Failure.Type != "error" || !strings.HasPrefix(c.Failure.Message, "5 occurrences: HEAD Content-Length is 11") ||
					strings.Count(c.Failure.Text, "\n- HEAD https://api.example.com/items/") != 5 ||
					!strings.Contains(c.Failure.Text, "Spec: RFC 9110 §8.6 (MUST)") {
					t.Errorf("failure %+v", c.Failure)
				}
			case "mcp-tools-list":
				if c.Skipped == nil || c.Skipped.Message != "no MCP endpoint given (use --mcp URL)" {
					t.Errorf("skipped case %+v", c)
				}
			case "problem-json-type-uri":
				if c.Error == nil || c.Error.Message != "problem body is not a JSON object" {
					t.Errorf("errored case %+v", c)
				}
			case "negotiation-not-acceptable":
				if c.Failure != nil || c.Skipped != nil || c.Error != nil {
					t.Errorf("passed check rendered as %+v", c)
				}
			}
		}
	}
	for _, c := range r.Checks {
		if cases[c.ID] != 1 {
			t.Errorf("check %s has %d cases", c.ID, cases[c.ID])
		}
	}
}

func TestHostileReportIsSafe(t *testing.T) {
	out := render(t, sample.Hostile())
	if !utf8.Valid(out) {
		t.Error("output is not valid UTF-8")
	}
	p := parse(t, out) // well-formed despite markup, escapes and invalid bytes
	if len(p.Suites) == 0 {
		t.Fatal("no suites")
	}
	// Markup from the app stays text: the document has only JUnit's
	// elements.
	allowed := map[string]bool{"testsuites": true, "testsuite": true, "properties": true, "property": true,
		"testcase": true, "failure": true, "skipped": true, "error": true}
	dec := xml.NewDecoder(bytes.NewReader(out))
	for {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		if se, ok := tok.(xml.StartElement); ok && !allowed[se.Name.Local] {
			t.Errorf("unexpected element <%s>", se.Name.Local)
		}
	}
	for _, bad := range []string{"\x1b", "\u009b", "hunter2", "secret-token", "session=secret"} {
		if bytes.Contains(out, []byte(bad)) {
			t.Errorf("output contains %q", bad)
		}
	}
	for _, b := range out {
		if b < 0x20 && b != '\n' && b != '\t' && b != '\r' {
			t.Fatalf("control byte %#x: not allowed in XML 1.0", b)
		}
	}
	if len(out) > 1<<20 {
		t.Errorf("%d bytes: the 100 KB strings were not bounded", len(out))
	}
}

func TestManyOccurrencesAreBounded(t *testing.T) {
	r := sample.Report()
	for range 1000 {
		r.Findings = append(r.Findings, r.Findings[0])
	}
	out := string(render(t, r))
	if !strings.Contains(out, "… and 805 more (see the JSON report)") {
		t.Error("occurrences beyond the bound are not summarised")
	}
}

func TestEmptyReportStillNamesTheTarget(t *testing.T) {
	p := parse(t, render(t, &finding.Report{Target: "http://127.0.0.1/"}))
	if len(p.Suites) != 1 || len(p.Suites[0].Props) == 0 || p.Suites[0].Props[0].Value != "http://127.0.0.1/" {
		t.Errorf("empty report: %+v", p)
	}
}
