package diff_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/agentready/agentready/fixtures/demo"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/golden"
	"github.com/agentready/agentready/report/diff"
	"github.com/agentready/agentready/report/internal/demoscan"
)

var extensions = map[string]string{"text": "txt", "json": "json", "markdown": "md"}

// TestGoldenDiff compares the conformant demo with one that renames a tool,
// requires a new argument, drops a tool's hints and omits Vary: the surface
// drift and the new findings, in every format.
func TestGoldenDiff(t *testing.T) {
	before, err := demoscan.Scan()
	if err != nil {
		t.Fatal(err)
	}
	after, err := demoscan.Scan(demo.DefectMCPRenamedTool, demo.DefectMCPRequiredArgument, demo.DefectMCPGetNotReadOnly, demo.DefectNoVaryAccept)
	if err != nil {
		t.Fatal(err)
	}
	d := diff.Compare(before, after)
	if !d.Breaking || len(d.Drift.Changes) != 3 {
		t.Errorf("breaking %v, %d changes, want 3 breaking ones", d.Breaking, len(d.Drift.Changes))
	}
	for _, format := range diff.Formats {
		t.Run(format, func(t *testing.T) {
			var buf bytes.Buffer
			if err := diff.Write(&buf, d, format); err != nil {
				t.Fatal(err)
			}
			golden.Check(t, golden.Path("diff", "diff."+extensions[format]), golden.NormalizePorts(buf.Bytes()))
		})
	}
}

func TestSameReportHasNoDrift(t *testing.T) {
	rep, err := demoscan.Scan()
	if err != nil {
		t.Fatal(err)
	}
	d := diff.Compare(rep, rep)
	if d.Breaking || !d.Drift.Compared || len(d.Drift.Changes)+len(d.NewFindings)+len(d.FixedFindings)+len(d.ChangedFindings) != 0 {
		t.Errorf("a report against itself: %+v", d)
	}
	for _, fd := range d.Families {
		if fd.Delta == nil && fd.New.State == finding.FamilyGraded || fd.Delta != nil && *fd.Delta != 0 {
			t.Errorf("family %s moved: %+v", fd.Family, fd)
		}
	}
}

func TestFindingsByFingerprint(t *testing.T) {
	f := func(fp string, sev finding.Severity) finding.Finding {
		return finding.Finding{CheckID: "vary-accept", Family: "vary", Fingerprint: fp, Severity: sev, Message: fp}
	}
	drifted := finding.Finding{CheckID: "drift-removed", Family: finding.DriftFamily, Fingerprint: "d", Severity: finding.SeverityError}
	before := &finding.Report{Findings: []finding.Finding{f("kept", finding.SeverityWarning), f("gone", finding.SeverityInfo), f("raised", finding.SeverityWarning)}}
	after := &finding.Report{Findings: []finding.Finding{f("kept", finding.SeverityWarning), f("raised", finding.SeverityError), f("added", finding.SeverityInfo), f("added", finding.SeverityError), drifted}}
	d := diff.Compare(before, after)
	if len(d.NewFindings) != 1 || d.NewFindings[0].Fingerprint != "added" || d.NewFindings[0].Severity != finding.SeverityError {
		t.Errorf("new %+v", d.NewFindings)
	}
	if len(d.FixedFindings) != 1 || d.FixedFindings[0].Fingerprint != "gone" {
		t.Errorf("fixed %+v", d.FixedFindings)
	}
	if len(d.ChangedFindings) != 1 || d.ChangedFindings[0].OldSeverity != finding.SeverityWarning {
		t.Errorf("changed %+v", d.ChangedFindings)
	}
	if d.Drift.Compared || d.Breaking || d.Families != nil {
		t.Errorf("reports without snapshots or scores: %+v", d)
	}
}

// TestHostileStringsStayText: what the scanned app names is shown, never
// interpreted, in Markdown (a pull-request comment) and on a terminal.
func TestHostileStringsStayText(t *testing.T) {
	name := "x](javascript:alert(1)) <img src=x> @team \x1b[31m|"
	rep := func(tools ...string) *finding.Report {
		s := &finding.Snapshot{MCP: &finding.SnapshotMCP{Tools: map[string]finding.SnapshotTool{}}}
		for _, n := range tools {
			s.MCP.Tools[n] = finding.SnapshotTool{}
		}
		return &finding.Report{Snapshot: s}
	}
	d := diff.Compare(rep(name, "ok"), rep("ok"))
	var md, txt bytes.Buffer
	if err := diff.Write(&md, d, "markdown"); err != nil {
		t.Fatal(err)
	}
	if err := diff.Write(&txt, d, "text"); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"<img", "x](javascript", "@team", "\x1b"} {
		if strings.Contains(md.String(), bad) {
			t.Errorf("markdown carries %q:\n%s", bad, md.String())
		}
	}
	if strings.Contains(txt.String(), "\x1b") {
		t.Errorf("text carries an escape sequence:\n%s", txt.String())
	}
}

// TestHostileReportsPrintSafely: every string a diff prints comes from a
// report another job wrote, and may carry terminal escapes and bidi
// overrides to rewrite what the reader sees.
func TestHostileReportsPrintSafely(t *testing.T) {
	const bad = "x\x1b[31mred\x1b]0;title\x07\u202eevil\u009b"
	hostile := func(grade string, fp string) *finding.Report {
		return &finding.Report{
			Target: "https://api.example/" + bad,
			Score: finding.Score{Grade: grade + bad, Value: 50, Families: []finding.FamilyScore{
				{Family: "vary" + bad, State: finding.FamilyGraded, Value: 50, Grade: grade + bad},
				{Family: "hal" + bad, State: "odd" + bad},
			}},
			Findings: []finding.Finding{{CheckID: "vary-accept" + bad, Fingerprint: fp, Severity: finding.SeverityError, Message: bad}},
		}
	}
	d := diff.Compare(hostile("A", "old"), hostile("F", "new"))
	for _, format := range []string{"text", "markdown"} {
		var buf bytes.Buffer
		if err := diff.Write(&buf, d, format); err != nil {
			t.Fatal(err)
		}
		out := buf.String()
		for _, raw := range []string{"\x1b", "\u202e", "\u009b", "\x07"} {
			if strings.Contains(out, raw) {
				t.Errorf("%s: %q printed raw:\n%q", format, raw, out)
			}
		}
		if !strings.Contains(out, "vary-accept") || !strings.Contains(out, "redevil") {
			t.Errorf("%s: the strings themselves are lost:\n%s", format, out)
		}
	}
}
