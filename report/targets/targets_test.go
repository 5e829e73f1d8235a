package targets_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/report"
	"github.com/agentready/agentready/report/internal/sample"
	"github.com/agentready/agentready/report/internal/sarifcheck"
	"github.com/agentready/agentready/report/json"
	"github.com/agentready/agentready/report/targets"
)

func results() []targets.Result {
	a := sample.Report()
	a.Gate = &finding.Gate{Passed: true}
	b := sample.Report()
	b.Target = "http://b.test/"
	b.Gate = &finding.Gate{Passed: false}
	return []targets.Result{
		{Name: "orders", URL: a.Target, Category: "agentready/orders", ExitCode: targets.ExitPassed, Report: a},
		{Name: "billing", URL: b.Target, Category: "agentready/billing", ExitCode: targets.ExitGateFailed, Report: b},
		{Name: "gone", URL: "http://gone.test/", Category: "agentready/gone", ExitCode: targets.ExitIncomplete, Error: "unreachable: connection refused"},
	}
}

func TestWorstOrdersPassedGateFailedIncomplete(t *testing.T) {
	rs := results()
	for _, tt := range []struct {
		codes []int
		want  int
	}{
		{nil, 0}, {[]int{0, 0}, 0}, {[]int{0, 1}, 1}, {[]int{1, 0}, 1}, {[]int{3, 1}, 3}, {[]int{1, 3, 0}, 3},
	} {
		var in []targets.Result
		for _, c := range tt.codes {
			in = append(in, targets.Result{ExitCode: c})
		}
		if got := targets.Worst(in); got != tt.want {
			t.Errorf("Worst(%v) = %d, want %d", tt.codes, got, tt.want)
		}
	}
	if got := targets.Worst(rs); got != targets.ExitIncomplete {
		t.Errorf("Worst = %d", got)
	}
}

// TestJSONHoldsEveryReportAndASummary: each element's report is the
// single-target report, readable as one; the document itself is not.
func TestJSONHoldsEveryReportAndASummary(t *testing.T) {
	var buf bytes.Buffer
	if err := targets.Write(&buf, "json", report.Options{}, results()); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		TargetsSchemaVersion int `json:"targetsSchemaVersion"`
		Summary              struct {
			ExitCode                                int
			Outcome                                 string
			Targets, Passed, GateFailed, Incomplete int
		}
		Targets []struct {
			Name, URL, SARIFCategory, Outcome, Error string
			ExitCode                                 int
			Report                                   json.RawMessage
		}
	}
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	s := doc.Summary
	if doc.TargetsSchemaVersion != 1 || s.ExitCode != 3 || s.Outcome != "incomplete" || s.Targets != 3 || s.Passed != 1 || s.GateFailed != 1 || s.Incomplete != 1 {
		t.Fatalf("summary %+v", doc)
	}
	if len(doc.Targets) != 3 || doc.Targets[1].Name != "billing" || doc.Targets[1].Outcome != "gate-failed" || doc.Targets[2].Error == "" {
		t.Fatalf("targets %+v", doc.Targets)
	}
	rep, err := jsonreport.Read(bytes.NewReader(doc.Targets[1].Report))
	if err != nil || rep.Target != "http://b.test/" || len(rep.Findings) == 0 {
		t.Fatalf("the billing report does not read back: %v %+v", err, rep)
	}
	if string(doc.Targets[2].Report) != "null" {
		t.Errorf("a target that was not scanned has report %s", doc.Targets[2].Report)
	}
	if _, err := jsonreport.Read(&buf); err == nil || !strings.Contains(err.Error(), "combined report of several targets") {
		t.Errorf("the combined document reads as one report: %v", err)
	}
}

// TestSARIFHasOneRunPerScannedTarget: GitHub code scanning tells runs apart
// by automationDetails.id; one shared id would let one target's upload
// close the other's alerts.
func TestSARIFHasOneRunPerScannedTarget(t *testing.T) {
	var buf bytes.Buffer
	if err := targets.Write(&buf, "sarif", report.Options{}, results()); err != nil {
		t.Fatal(err)
	}
	sarifcheck.Schema(t, buf.Bytes())
	sarifcheck.GitHubRules(t, buf.Bytes())
	var log struct {
		Runs []struct {
			AutomationDetails struct{ ID string }
			Results           []json.RawMessage
		}
	}
	if err := json.Unmarshal(buf.Bytes(), &log); err != nil {
		t.Fatal(err)
	}
	if len(log.Runs) != 2 || log.Runs[0].AutomationDetails.ID != "agentready/orders/" || log.Runs[1].AutomationDetails.ID != "agentready/billing/" {
		t.Fatalf("runs %+v", log.Runs)
	}
	if len(log.Runs[0].Results) == 0 {
		t.Error("the first run has no results")
	}
}

func TestTextIsEachReportThenTheSummary(t *testing.T) {
	var buf bytes.Buffer
	if err := targets.Write(&buf, "text", report.Options{}, results()); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	order := []string{
		"=== Target 1 of 3: orders", "Grade", "=== Target 2 of 3: billing", "=== Target 3 of 3: gone",
		"Not scanned: unreachable: connection refused", "=== Summary of 3 targets: 1 passed, 1 gate failed, 1 incomplete ===",
		"orders", "billing", "gate failed", "gone", "not scanned: unreachable",
		"Exit 3: not every target could be scanned or judged (gone)",
	}
	at := 0
	for _, want := range order {
		i := strings.Index(out[at:], want)
		if i < 0 {
			t.Fatalf("%q missing after byte %d:\n%s", want, at, out)
		}
		at += i + len(want)
	}
}

func TestMarkdownSummaryEscapesWhatTheAppSaid(t *testing.T) {
	rs := results()
	rs[2].Error = "refused | <img src=x> @team"
	var buf bytes.Buffer
	if err := targets.WriteSummary(&buf, "markdown", rs); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if strings.Contains(out, "<img") || strings.Contains(out, "refused |") || strings.Contains(out, " @team") {
		t.Errorf("the error text is live Markdown:\n%s", out)
	}
	if !strings.Contains(out, "| Target | Grade |") || strings.Count(out, "\n| ") != 5 {
		t.Errorf("summary table:\n%s", out)
	}
}

func TestHTMLHasNoCombinedForm(t *testing.T) {
	if targets.Combined("html") || targets.Combined("junit") || !targets.Combined("sarif") {
		t.Error("Combined")
	}
	if err := targets.Write(&bytes.Buffer{}, "html", report.Options{}, results()); err == nil {
		t.Error("html wrote a combined document")
	}
}

// TestTextPrintsNoEscapes: a target's name and a report's grade are shown
// as text, whatever a configuration or a report read back holds.
func TestTextPrintsNoEscapes(t *testing.T) {
	rs := results()
	rs[0].Name = "orders\x1b[2J\u202e"
	rs[1].Report.Score.Grade = "F\x1b]0;pwned\x07"
	var buf bytes.Buffer
	if err := targets.Write(&buf, "text", report.Options{}, rs); err != nil {
		t.Fatal(err)
	}
	if out := buf.String(); strings.ContainsAny(out, "\x1b\u202e\x07") || !strings.Contains(out, "orders") {
		t.Errorf("raw escapes in the text:\n%q", out)
	}
}

// TestEachFormatSaysItsCombinedForm: whether a format has a document of
// several targets, and which, is what its reporter implements; no list of
// names here can disagree with it.
func TestEachFormatSaysItsCombinedForm(t *testing.T) {
	want := map[string]string{"text": "sections", "markdown": "sections", "json": "one document", "sarif": "one document", "html": "none", "junit": "none"}
	for _, format := range report.Formats() {
		rep, err := report.New(format, report.Options{})
		if err != nil {
			t.Fatal(err)
		}
		form := "none"
		switch rep.(type) {
		case report.SectionWriter:
			form = "sections"
		case report.TargetsWriter:
			form = "one document"
		}
		if form != want[format] {
			t.Errorf("%s writes several targets as %q, want %q", format, form, want[format])
		}
		if targets.Combined(format) != (form != "none") || targets.Sectioned(format) != (form == "sections") {
			t.Errorf("%s: Combined %v, Sectioned %v, but its reporter writes %s", format, targets.Combined(format), targets.Sectioned(format), form)
		}
		err = targets.Write(&bytes.Buffer{}, format, report.Options{}, results())
		if (err == nil) != (form != "none") {
			t.Errorf("%s: Write: %v", format, err)
		}
		if err := targets.WriteSummary(&bytes.Buffer{}, format, results()); (err == nil) != (form == "sections") {
			t.Errorf("%s: WriteSummary: %v", format, err)
		}
	}
	if targets.Combined("yaml") || targets.Sectioned("yaml") {
		t.Error("an unknown format has a combined form")
	}
}
