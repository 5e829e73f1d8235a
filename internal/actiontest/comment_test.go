//go:build unix

package actiontest

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/longtest"
	jsonreport "github.com/agentready/agentready/report/json"
)

// commentLimit is the most characters GitHub takes in a comment.
const commentLimit = 65536

// syntheticChecks fire on every path of syntheticReport, most severe first.
var syntheticChecks = []struct {
	id, family, title string
	severity          finding.Severity
	message           string
}{
	{"negotiation-head-content-length", "negotiation", "HEAD Content-Length differs from GET", finding.SeverityError, "HEAD Content-Length is 0; expected 1843 as on GET, so a client that sizes its buffer from HEAD truncates the body"},
	{"problem-json-media-type", "problem-json", "Errors use application/problem+json", finding.SeverityWarning, `Content-Type is "text/html"; expected "application/problem+json" for 4xx/5xx responses, so an agent cannot read why the call failed`},
	{"vary-accept", "vary", "Responses that depend on Accept say Vary: Accept", finding.SeverityWarning, "the representation changes with Accept but the response has no Vary: Accept, so a shared cache can serve HTML to a JSON client"},
	{"negotiation-wildcard", "negotiation", "Accept: */* gets the default representation", finding.SeverityInfo, "Accept: */* was answered with text/html while the documented default is application/json"},
}

// syntheticReport is the report of a scan of an API of paths paths, each
// failing every one of syntheticChecks: far over what a comment may hold.
func syntheticReport(paths int) *finding.Report {
	r := &finding.Report{
		SchemaVersion: finding.SchemaVersion,
		Tool:          finding.ToolInfo{Name: "agentready", Version: "v0.2.0"},
		Target:        "https://api.example.com/",
		Score: finding.Score{PolicyVersion: "1", Value: 41, Grade: "F", Families: []finding.FamilyScore{
			{Family: "negotiation", State: finding.FamilyGraded, Assessed: true, Value: 30, Grade: "F", Passed: 14, Failed: 2},
			{Family: "problem-json", State: finding.FamilyGraded, Assessed: true, Value: 55, Grade: "D", Passed: 9, Failed: 1},
			{Family: "vary", State: finding.FamilyGraded, Assessed: true, Value: 50, Grade: "D", Passed: 1, Failed: 1},
		}},
		Gate:  &finding.Gate{FailOn: finding.SeverityWarning, Reason: fmt.Sprintf("%d findings at warning or above", 3*paths)},
		Stats: finding.Stats{Pages: paths, Requests: 4 * paths, Probes: 3 * paths},
	}
	for _, c := range syntheticChecks {
		r.Rules = append(r.Rules, finding.RuleInfo{ID: c.id, Family: c.family, Title: c.title, Severity: c.severity,
			Help: "Why it matters, and how to fix it.", DocsURL: "https://github.com/agentready/agentready/blob/main/docs/checks.md#" + c.id})
		r.Checks = append(r.Checks, finding.CheckResult{ID: c.id, Family: c.family, Status: finding.StatusFail, Findings: paths, Severity: c.severity})
		for i := range paths {
			path := fmt.Sprintf("/v1/accounts/{account}/resource-%03d/{id}", i)
			url := "https://api.example.com" + strings.NewReplacer("{account}", "acct_1f9c2b", "{id}", "item_7d41e0a9").Replace(path)
			r.Findings = append(r.Findings, finding.Finding{
				CheckID: c.id, Family: c.family, Severity: c.severity, Message: c.message,
				Evidence:    []finding.Evidence{{Method: "GET", URL: url, Status: 200}},
				Fingerprint: finding.Fingerprint(c.id, "GET", path, ""),
			})
		}
	}
	return r
}

var realAgentready struct {
	dir, path string
	err       error
}

// removeBuiltAgentready removes what buildAgentready built, once every
// test is done with it.
func removeBuiltAgentready() {
	if realAgentready.dir != "" {
		os.RemoveAll(realAgentready.dir)
	}
}

// buildAgentready builds agentready from this checkout once per test
// binary: the fake release runs it for report convert, as the real
// release would.
func buildAgentready(t testing.TB) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds agentready")
	}
	if realAgentready.path == "" && realAgentready.err == nil {
		_, root := loadAction(t)
		dir, err := os.MkdirTemp("", "agentready-actiontest-")
		realAgentready.dir = dir
		if err == nil {
			bin := filepath.Join(dir, "agentready")
			cmd := exec.Command("go", "build", "-o", bin, "./cmd/agentready")
			cmd.Dir = root
			var out []byte
			if out, err = cmd.CombinedOutput(); err != nil {
				err = fmt.Errorf("%v\n%s", err, out)
			}
			realAgentready.path = bin
		}
		realAgentready.err = err
	}
	if realAgentready.err != nil {
		t.Fatalf("build agentready: %v", realAgentready.err)
	}
	return realAgentready.path
}

// TestActionCommentsWithinGitHubsLimits runs the action with a fake
// release whose scan reports a synthetic API, and a stub gh.
func TestActionCommentsWithinGitHubsLimits(t *testing.T) {
	// The comment step's own runs in TestActionRunsAgainstTheDemo, which
	// are long too, post reports of the demo; what this test adds is
	// reports too large for a comment.
	longtest.Skip(t, "builds agentready a second time and runs the action on reports of up to 150 paths")
	built := buildAgentready(t)
	a, root := loadAction(t)
	srv := newReleaseServer(t, []byte(fakeAgentready), nil)
	temp := t.TempDir()
	reportOf := func(t *testing.T, paths int) string {
		var b bytes.Buffer
		if err := jsonreport.New().Write(&b, syntheticReport(paths)); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), "report.json")
		os.WriteFile(path, b.Bytes(), 0o644)
		return path
	}
	inputs := map[string]string{"url": unreachable, "version": fakeVersion, "comment": "true", "token": "stub-token"}
	fake := func(report string, exit int) []string {
		return srv.env(filepath.Join(t.TempDir(), "fake.log"), "FAKE_AGENTREADY_REAL="+built, "FAKE_AGENTREADY_REPORT="+report, fmt.Sprintf("FAKE_AGENTREADY_EXIT=%d", exit))
	}

	t.Run("a 150-path report gives a comment under 65,536 characters that keeps the verdict and the most severe findings", func(t *testing.T) {
		gh := newStubGH(t, ghIdentity{viewer: "github-actions[bot]"}, "[]")
		r := runAction(t, a, root, temp, inputs, append(fake(reportOf(t, 150), 1), gh.env()...)...)
		if r.code != 1 {
			t.Fatalf("exit %d, want 1 (the gate failed)\n%s", r.code, r.log)
		}
		full, err := os.ReadFile(r.outputs["markdown"])
		if err != nil || len(full) <= commentLimit {
			t.Fatalf("the full Markdown report has %d bytes (%v); the test needs one over the limit", len(full), err)
		}
		body := gh.body()
		t.Logf("the full Markdown report: %d bytes; the comment: %d bytes, %d characters", len(full), len(body), utf8.RuneCountInString(body))
		if n := utf8.RuneCountInString(body); n >= commentLimit || len(body) >= commentLimit {
			t.Fatalf("the comment has %d characters, %d bytes: GitHub refuses %d or more", n, len(body), commentLimit)
		}
		for _, want := range []string{
			"<!-- agentready-report -->\n## agentready: grade **F** (41/100)",
			"> **Gate failed** (fail on warning): 450 findings at warning or above",
			"#### 🔴 error: `negotiation-head-content-length` HEAD Content-Length differs from GET (150)",
			"#### 🟡 warning: `problem-json-media-type`",
			"#### 🟡 warning: `vary-accept`",
			"#### 🔵 info: `negotiation-wildcard`",
			"[The full report](" + runURL + ") has everything.",
		} {
			if !strings.Contains(body, want) {
				t.Errorf("the comment lacks %q:\n%s", want, body[:min(len(body), 3000)])
			}
		}
		if !strings.Contains(r.summary, "resource-149") {
			t.Error("the job summary, which the comment links, does not have the whole report")
		}
	})

	t.Run("a read-only token leaves the job to the gate, with a notice", func(t *testing.T) {
		for _, exit := range []int{0, 1} {
			gh := newStubGH(t, ghIdentity{viewer: "github-actions[bot]"}, "[]")
			gh.refuseWrites()
			r := runAction(t, a, root, temp, inputs, append(fake(reportOf(t, 3), exit), gh.env()...)...)
			if r.code != exit {
				t.Fatalf("gate exit %d: the job exited %d\n%s", exit, r.code, r.log)
			}
			if w := gh.writes(); len(w) != 1 || w[0] != "POST repos/agentready/agentready/issues/7/comments" {
				t.Errorf("comment writes %q", w)
			}
			if !strings.Contains(r.log, "::notice title=agentready::the token may not comment on this pull request") {
				t.Errorf("no notice:\n%s", r.log)
			}
			if !strings.Contains(r.log, "gh: gh: Resource not accessible by integration (HTTP 403)") {
				t.Errorf("GitHub's answer is not shown, prefixed:\n%s", r.log)
			}
		}
	})
}
