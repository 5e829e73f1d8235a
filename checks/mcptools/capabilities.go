package mcptools

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/internal/mcpmap"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/mcp"
	"github.com/agentready/agentready/internal/sanitize"
)

var (
	listChangedRef = mcpRef(mcp.Legacy, "server/tools §Capabilities, §List Changed Notification", "SHOULD", "server/tools")
	tasksRef       = mcpRef(mcp.Legacy, "basic/utilities/tasks §Tool-Level Negotiation", "MUST", "basic/utilities/tasks")
	tasksExtRef    = finding.SpecRef{Doc: "MCP Tasks extension (io.modelcontextprotocol/tasks)", Level: "MUST", URL: "https://github.com/modelcontextprotocol/ext-tasks"}
	appsRef        = finding.SpecRef{Doc: "MCP Apps extension (io.modelcontextprotocol/ui, SEP-1865)", Section: "UI resources", Level: "definition", URL: "https://github.com/modelcontextprotocol/ext-apps"}
	resourcesRef   = mcpRef(mcp.Modern, "server/resources §Capabilities, §Reading Resources", "MUST", "server/resources")
)

// ListChangedDeclared reports a catalog that changed during the scan on a
// server that does not declare tools.listChanged.
type ListChangedDeclared struct{}

func (ListChangedDeclared) Meta() checks.Meta {
	return checks.Meta{
		ID: "mcp-list-changed-declared", Family: checks.FamilyMCP,
		Since:    checks.FirstRelease,
		Title:    "A server whose catalog changes declares tools.listChanged",
		Severity: finding.SeverityWarning,
		SpecRefs: []finding.SpecRef{listChangedRef},
		Help: "A server's `tools` capability says with `listChanged` whether it notifies clients when the\n" +
			"catalog changes (`notifications/tools/list_changed`; in 2026-07-28 through\n" +
			"`subscriptions/listen`). A host that was not told caches the catalog it listed first and\n" +
			"never lists again: a tool added later is never seen, and a removed one is still called. The\n" +
			"scanner lists the catalog three times (see `mcp-catalog-stable`); a catalog that changed\n" +
			"while the server does not declare `tools.listChanged: true` is reported.\n\n" +
			"**How to fix:** keep the catalog fixed, or declare `\"tools\": {\"listChanged\": true}` and\n" +
			"send the notification when it changes.",
		Needs: checks.NeedsMCP,
	}
}

func (c ListChangedDeclared) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	return judge(ctx, in, c.Meta(), runListChangedDeclared)
}

func runListChangedDeclared(m checks.Meta, in *checks.Input, s *mcp.Snapshot) ([]finding.Finding, error) {
	changes, err := catalogChanges(in, s)
	if err != nil || len(changes) == 0 {
		return nil, err
	}
	if mcp.DeclaresTrue(s.Capabilities, "tools", "listChanged") {
		return nil, nil
	}
	declared := "no tools capability"
	if raw, ok := mcp.Capability(s.Capabilities, "tools"); ok {
		declared = "tools: " + sanitize.Truncate(string(raw), 80)
	}
	c := changes[0]
	ev := mcpmap.CallEvidence(openingCall(s))
	ev.JSONPointer = "/result/capabilities/tools"
	ev.Expected = `"listChanged": true`
	ev.Actual = declared
	return []finding.Finding{checks.New(m, "tools", fmt.Sprintf("the catalog changed between tools/list (%s) and (%s): %s; the server declares %s, so no host is told",
		c.first.Label, c.later.Label, c.diff, declared), ev, mcpmap.CallEvidence(c.later.Pages[0].Call))}, nil
}

// openingCall is the call whose result declared the capabilities:
// server/discover for a modern server, initialize for a legacy one.
func openingCall(s *mcp.Snapshot) *mcp.Call {
	method := "server/discover"
	if s.Verdict.Era == mcp.EraLegacy {
		method = "initialize"
	}
	var last *mcp.Call
	for _, c := range s.CallsTo(method) {
		if c.Exchange != nil && c.Exchange.Purpose != "" && !strings.HasSuffix(c.Exchange.Purpose, "foreign-origin") {
			last = c
		}
	}
	return last
}

// CapabilitiesConsistent reports declared capabilities that disagree with
// what the tools say, and MCP Apps interfaces listed but not readable.
type CapabilitiesConsistent struct{}

func (CapabilitiesConsistent) Meta() checks.Meta {
	return checks.Meta{
		ID: "mcp-capabilities-consistent", Family: checks.FamilyMCP,
		Since:    checks.FirstRelease,
		Title:    "Declared capabilities agree with the tools' task and UI metadata",
		Severity: finding.SeverityWarning,
		SpecRefs: []finding.SpecRef{tasksRef, tasksExtRef, appsRef, resourcesRef},
		Help: "Hosts decide what they may do with a tool from the server's declared capabilities, not from\n" +
			"the tool alone:\n\n" +
			"- A tool whose `execution.taskSupport` is `optional` or `required` on a server that does not\n" +
			"  declare `tasks.requests.tools.call` (2025-11-25), or the tasks extension\n" +
			"  `io.modelcontextprotocol/tasks` (2026-07-28): clients MUST NOT use tasks with it, so a\n" +
			"  tool that requires them cannot be called at all.\n" +
			"- A tool that names an MCP Apps interface (`_meta.ui.resourceUri`) on a server that does not\n" +
			"  declare `resources`: the host reads the interface with `resources/read`, which the server\n" +
			"  does not offer.\n" +
			"- A `ui://` resource that `resources/list` lists and `resources/read` does not return (an\n" +
			"  error, or no contents). The scanner reads at most 4 of them, with the read-only\n" +
			"  `resources/read` and nothing else.\n\n" +
			"**How to fix:** declare what the tools rely on, or drop the metadata; serve every listed\n" +
			"interface.",
		FiredBy: "task support without the tasks capability",
		Needs:   checks.NeedsMCP,
	}
}

func (c CapabilitiesConsistent) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	return judge(ctx, in, c.Meta(), runCapabilitiesConsistent)
}

// toolMeta is what a tool says of tasks and interfaces.
type toolMeta struct {
	Execution struct {
		TaskSupport string `json:"taskSupport"`
	} `json:"execution"`
	Meta struct {
		UI struct {
			ResourceURI string `json:"resourceUri"`
		} `json:"ui"`
		// LegacyUIResourceURI is the flat key of earlier MCP Apps drafts.
		LegacyUIResourceURI string `json:"ui/resourceUri"`
	} `json:"_meta"`
}

func runCapabilitiesConsistent(m checks.Meta, _ *checks.Input, s *mcp.Snapshot) ([]finding.Finding, error) {
	l, err := firstListing(s)
	if err != nil {
		return nil, err
	}
	caps := s.Capabilities
	tasks := mcp.Declares(caps, "tasks", "requests", "tools", "call")
	taskCap := "tasks.requests.tools.call"
	if s.Verdict.Era == mcp.EraModern {
		tasks = tasks || mcp.Declares(caps, "extensions", "io.modelcontextprotocol/tasks")
		taskCap = "the tasks extension io.modelcontextprotocol/tasks"
	}
	resources := mcp.Declares(caps, "resources")
	var out []finding.Finding
	for i := range l.Tools {
		t := &l.Tools[i]
		var tm toolMeta
		if json.Unmarshal(t.Raw, &tm) != nil {
			continue
		}
		if ts := tm.Execution.TaskSupport; (ts == "optional" || ts == "required") && !tasks {
			out = append(out, checks.New(m, t.Name+"|tasks", fmt.Sprintf("%s says execution.taskSupport %q, but the server does not declare %s, so no client may use tasks with it",
				toolLabel(t), ts, taskCap), mcpmap.ToolEvidence(l, t, "execution/taskSupport")))
		}
		uri, member := tm.Meta.UI.ResourceURI, "_meta/ui/resourceUri"
		if uri == "" {
			uri, member = tm.Meta.LegacyUIResourceURI, "_meta/ui~1resourceUri"
		}
		if uri != "" && !resources {
			out = append(out, checks.New(m, t.Name+"|ui", fmt.Sprintf("%s names the interface %s, but the server does not declare the resources capability the host reads it with",
				toolLabel(t), sanitize.Truncate(uri, 120)), mcpmap.ToolEvidence(l, t, member)))
		}
	}
	for _, call := range s.CallsTo("resources/read") {
		if problem := unreadable(call); problem != "" {
			uri := mcp.ReadURI(call)
			out = append(out, checks.New(m, "read|"+uri, fmt.Sprintf("resources/list lists the interface %s, but resources/read %s",
				sanitize.Truncate(uri, 120), problem), mcpmap.CallEvidence(call)))
		}
	}
	return out, nil
}

// unreadable says why a resources/read call returned nothing to show, ""
// when it returned contents.
func unreadable(call *mcp.Call) string {
	switch {
	case call.Exchange == nil || call.Exchange.Response == nil:
		return "was not answered"
	case call.Message == nil:
		return fmt.Sprintf("answered HTTP %d without a JSON-RPC response", call.Status())
	case call.Message.Error != nil:
		return fmt.Sprintf("answered JSON-RPC error %d: %s", call.Message.Error.Code, sanitize.Truncate(call.Message.Error.Message, 120))
	}
	var contents []json.RawMessage
	if !mcp.ResultMember(call.Message.Result, "contents", &contents) || len(contents) == 0 {
		return "returned no contents"
	}
	return ""
}
