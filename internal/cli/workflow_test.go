package cli

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/agentready/agentready/fixtures/mcpfix"
	"github.com/agentready/agentready/internal/finding"
)

// commandPayload is text a GitHub runner would act on at the start of a
// line, with words of every length in front of it so that wrapping puts it
// at the start of some continuation line.
func commandPayload() string {
	var b strings.Builder
	for n := range 40 {
		b.WriteString(strings.Repeat("w", n) + " ::set-output name=x::y \n::error::pwned ##[warning]legacy ")
	}
	return b.String()
}

// commandServer is an API whose titles, link targets, problem details and
// headers all carry workflow commands.
func commandServer() http.Handler {
	payload := commandPayload()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Debug", strings.ReplaceAll(payload, "\n", " "))
		w.Header().Set("Link", `</next>; rel="next"; title="`+strings.ReplaceAll(payload, "\n", " ")+`"`)
		if r.URL.Path != "/" {
			w.Header().Set("Content-Type", "application/problem+json")
			w.WriteHeader(http.StatusNotFound)
			json.NewEncoder(w).Encode(map[string]any{"type": "about:blank", "title": payload, "detail": payload, "status": "404"})
			return
		}
		links := map[string]any{"self": map[string]string{"href": "/"}}
		for n := range 12 {
			links[fmt.Sprintf("item%d", n)] = map[string]string{
				"href":  "/" + strings.Repeat("segment/", n) + "::error::pwned",
				"title": payload,
			}
		}
		w.Header().Set("Content-Type", "application/hal+json")
		json.NewEncoder(w).Encode(map[string]any{"_links": links, "title": payload, "description": payload})
	})
}

// assertNoWorkflowCommand fails when a runner would act on a line of out:
// "::" after leading whitespace, or "##[" anywhere.
func assertNoWorkflowCommand(t *testing.T, name, out string) {
	t.Helper()
	for _, line := range strings.FieldsFunc(out, func(r rune) bool { return r == '\n' || r == '\r' }) {
		if strings.HasPrefix(strings.TrimLeftFunc(line, unicode.IsSpace), "::") || strings.Contains(line, "##[") {
			t.Fatalf("a runner acts on this line of %s: %q", name, line)
		}
	}
}

func TestScanOutputCannotIssueWorkflowCommands(t *testing.T) {
	target := serveHandler(t, commandServer())
	r := run(t, "scan", "-v", "--fail-on", "none", "--max-pages", "20", target)
	if r.code != ExitOK {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	assertNoWorkflowCommand(t, "stdout", r.stdout)
	assertNoWorkflowCommand(t, "stderr", r.stderr)
	if !strings.Contains(r.stdout, `\::`) {
		t.Fatalf("no payload reached a line start, so this test plants nothing:\n%s", r.stdout)
	}
}

func TestMCPTextCannotIssueWorkflowCommands(t *testing.T) {
	srv := &mcpfix.Server{Tools: []json.RawMessage{
		json.RawMessage(`{"name":"::error::pwned","description":"##[warning]legacy","inputSchema":{"type":"object"}}`),
	}}
	r := run(t, "mcp", serveHandler(t, srv)+"mcp")
	if r.code != ExitOK {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	assertNoWorkflowCommand(t, "stdout", r.stdout)
	if !strings.Contains(r.stdout, `\::error::pwned`) {
		t.Fatalf("the tool is not listed:\n%s", r.stdout)
	}
}

// commandReport is a saved report, as another job could write it, whose
// family, notes and finding carry workflow commands (with words of every
// length in front, so that wrapping puts some at a line start), terminal
// escapes and a bidi override.
func commandReport(t *testing.T, grade string) string {
	t.Helper()
	cmd := "::error::pwned"
	payload := commandPayload() + " \x1b[31mred\u202e"
	return writeJSON(t, finding.Report{
		SchemaVersion: finding.SchemaVersion,
		Target:        "https://api.example/",
		Shard:         &finding.Shard{Index: 1, Total: 1},
		Score: finding.Score{Grade: grade, Value: 50, Families: []finding.FamilyScore{
			{Family: cmd, State: finding.FamilyGraded, Value: 50, Grade: grade},
		}},
		Notes:  []string{cmd, payload},
		Checks: []finding.CheckResult{{ID: "vary-accept", Status: finding.StatusFail, Findings: 1, Severity: finding.SeverityError}},
		Findings: []finding.Finding{{CheckID: "vary-accept", Severity: finding.SeverityError, Fingerprint: grade,
			Message: payload}},
	})
}

func TestReportTextCannotIssueWorkflowCommands(t *testing.T) {
	old, new := commandReport(t, "A"), commandReport(t, "F")
	for _, args := range [][]string{
		{"report", "diff", old, new},
		{"report", "diff", "--format", "markdown", old, new},
		{"report", "merge", "--fail-on", "none", new},
		{"report", "merge", "--fail-on", "none", "--format", "markdown", new},
		{"report", "convert", "--from", new},
	} {
		r := run(t, args...)
		if r.code == ExitUsage {
			t.Fatalf("%s: exit %d: %s", args, r.code, r.stderr)
		}
		assertNoWorkflowCommand(t, strings.Join(args[:2], " ")+" stdout", r.stdout)
		// Markdown keeps each note and finding on one line, after "- " or
		// "| "; the text wraps them, and the diff starts a line with the
		// family.
		defused := `\::`
		if slices.Contains(args, "markdown") {
			defused = "::error::pwned"
		}
		if !strings.Contains(r.stdout, defused) {
			t.Errorf("%s: no %q: the test planted nothing at a line start:\n%s", args, defused, r.stdout)
		}
		for _, raw := range []string{"\x1b", "\u202e"} {
			if strings.Contains(r.stdout, raw) {
				t.Errorf("%s: %q printed raw", args, raw)
			}
		}
	}
	// A file gets what stdout gets; JSON stays byte for byte.
	txt := filepath.Join(t.TempDir(), "diff.txt")
	if r := run(t, "report", "diff", "-o", txt, old, new); r.code == ExitUsage {
		t.Fatal(r.stderr)
	}
	if b, _ := os.ReadFile(txt); !strings.Contains(string(b), `\::error::pwned`) {
		t.Errorf("the text file is not defused:\n%s", b)
	}
	r := run(t, "report", "merge", "--fail-on", "none", "--format", "json", new)
	if !strings.Contains(r.stdout, `"::error::pwned"`) || !strings.Contains(r.stdout, `##[warning]legacy`) {
		t.Errorf("the JSON report was altered:\n%s", r.stdout)
	}
}
