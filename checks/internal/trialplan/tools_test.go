package trialplan

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/agentready/agentready/internal/exchange"
)

// A tool that is not marked read-only, projects no OpenAPI operation and
// that no resource names is a task of its own, on the endpoint: player A
// sends the tools/call alone, with the values its inputSchema declares. A
// tool a value would have to be guessed for is left out with a note, and
// the tools the allow-list does not name are counted in one.
func TestToolsOnNoResource(t *testing.T) {
	rec := recording(orderPage(1, "pending"))
	snap := snapshot(cancelTool,
		`{"name":"notifyTeam","inputSchema":{"type":"object","properties":{"channel":{"type":"string","enum":["ops","sales"]},"note":{"type":"string"}},"required":["channel"]}}`,
		`{"name":"listTeams","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":true}}`,
		`{"name":"payOrder","inputSchema":{"type":"object"}}`,
		`{"name":"deletePost","inputSchema":{"type":"object"}}`,
		`{"name":"sendReport","inputSchema":{"type":"object","properties":{"to":{"type":"string"}},"required":["to"]}}`,
		`{"name":"purgeCache","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":false}}`,
	)
	p := Plan(Input{Recording: rec, Spec: jsonServerDoc(t), MCP: snap, Rules: rules(t, "mcp:*"), Reset: exchange.ResetDistinct})
	var tools []string
	for _, r := range p.Runs {
		task := p.Tasks[slices.IndexFunc(p.Tasks, func(tk exchange.TrialTask) bool { return tk.ID == r.Task })]
		if task.Kind != "/mcp" {
			continue
		}
		if len(r.Steps) != 1 || r.Steps[0].Role != exchange.StepCall || r.Player != exchange.PlayerCatalog || r.Resource != "http://a/mcp" {
			t.Errorf("%s: run %+v, want player A's tools/call alone on the endpoint", task.Operation, r)
		}
		tools = append(tools, task.Operation+" "+argumentsOf(t, r.Steps[0].Body))
	}
	// listTeams is read-only, payOrder named by next_actions, deletePost
	// projects the document's operation, sendReport has no value for "to".
	if want := []string{`notifyTeam {"channel":"ops"}`, `purgeCache {}`}; !slices.Equal(tools, want) {
		t.Errorf("tool tasks %q, want %q", tools, want)
	}
	if !slices.ContainsFunc(p.Notes, func(n string) bool {
		return strings.Contains(n, "the sendReport tool, which acts on no resource the scan saw, is not played: in the tool's inputSchema, /to has no example")
	}) {
		t.Errorf("notes %q, want one on sendReport's undeclared value", p.Notes)
	}
	if slices.ContainsFunc(p.Notes, func(n string) bool { return strings.Contains(n, "another task") }) {
		t.Errorf("notes %q: tool tasks read no resource, and share none", p.Notes)
	}

	narrow := Plan(Input{Recording: rec, Spec: jsonServerDoc(t), MCP: snap, Rules: rules(t, "mcp:cancelOrder"), Reset: exchange.ResetDistinct})
	for _, tk := range narrow.Tasks {
		if tk.Kind == "/mcp" {
			t.Errorf("%s planned, and the allow-list does not name it", tk.Operation)
		}
	}
	if !slices.ContainsFunc(narrow.Notes, func(n string) bool {
		return strings.Contains(n, "trial: 3 tool(s) that act on no resource the scan saw are not played: the allow-list names none of them")
	}) {
		t.Errorf("notes %q, want one counting notifyTeam, sendReport and purgeCache", narrow.Notes)
	}
}

// argumentsOf is the arguments of a tools/call, as sent.
func argumentsOf(t *testing.T, body []byte) string {
	t.Helper()
	var msg struct {
		Params struct {
			Arguments json.RawMessage `json:"arguments"`
		} `json:"params"`
	}
	if err := json.Unmarshal(body, &msg); err != nil {
		t.Fatal(err)
	}
	return string(msg.Params.Arguments)
}
