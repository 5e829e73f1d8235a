package cli

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"unicode"

	"github.com/agentready/agentready/fixtures/mcpfix"
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
