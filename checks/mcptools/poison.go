package mcptools

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/internal/mcpmap"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/jsonorder"
	"github.com/agentready/agentready/internal/mcp"
	"github.com/agentready/agentready/internal/sanitize"
)

// A host puts every string of the catalog into the model's context, where
// the model reads it as instructions; the user never sees most of it. The
// patterns below are the deterministic part of what public scanners flag
// (Invariant's mcp-scan, Cisco's mcp-scanner): each is phrased so that an
// ordinary description of what an API does cannot match it.
var (
	pseudoTag   = regexp.MustCompile(`(?i)<\s*/?\s*(important|system|instructions?|critical|urgent|hidden|secret)\s*>|\[\[\[?\s*system|\[\s*(hidden|internal|secret|private|system)\s+(instruction|override|prompt)s?\s*\]`)
	concealment = regexp.MustCompile(`(?i)\b(do\s+not|don't|dont|never|must\s+not)\s+(tell|inform|notify|alert)\s+(the\s+)?user\b|` +
		`\b(do\s+not|don't|dont|never|must\s+not)\s+(mention|reveal|show|disclose)\b[^.!?\n]{0,60}\bto\s+the\s+user\b|` +
		`\bwithout\s+(telling|informing|notifying|alerting)\s+the\s+user\b|\btell\s+the\s+user\s+only\b|\bhide\b[^.!?\n]{0,30}\bfrom\s+the\s+user\b|` +
		`\bthe\s+user\s+(must|should)\s+not\s+(know|see|be\s+told)\b`)
	override = regexp.MustCompile(`(?i)\b(ignore|disregard|forget|override)\b[^.!?\n]{0,30}\b(previous|prior|above|earlier|all|any|other|system)\b[^.!?\n]{0,30}\b(instructions?|prompts?|rules|guidelines|directions)\b|` +
		`\bnew\s+instructions?\s*:|\byou\s+are\s+now\s+(a|an|the|in)\b`)
	contextTheft = regexp.MustCompile(`(?i)\b(include|send|pass|add|append|copy|attach|provide)\b[^.!?\n]{0,40}\b(system\s+prompt|conversation\s+history|entire\s+conversation|chat\s+history|previous\s+messages)\b`)
	coercion     = regexp.MustCompile(`(?i)\bbefore\s+(using|calling|invoking)\s+any\s+other\s+tools?\b|\balways\s+(call|use|invoke|run)\s+this\s+tool\s+first\b|` +
		`\b(tool|it)\s+will\s+not\s+work\s+unless\b|\botherwise\s+the\s+tool\s+will\s+not\s+work\b`)
	// secretPath names files that hold credentials; matches ending in .pub,
	// public keys, are left out.
	secretPath = regexp.MustCompile(`(?i)~/\.ssh(/[\w.-]+)?|\.ssh/[\w.-]+|\bid_(rsa|dsa|ecdsa|ed25519)[\w.]*|\.aws/credentials|(^|[\s/"'(~` + "`" + `])\.env\b|\bmcp\.json\b|\.npmrc\b|\.netrc\b|\.pgpass\b|\.kube/config\b|\.docker/config\.json\b|/etc/(passwd|shadow)\b|\.git-credentials\b`)
	// secretVar is an environment variable whose name says it is a secret;
	// written with $ it is an expansion the model is asked to perform.
	secretVar   = regexp.MustCompile(`\$\{?[A-Z][A-Z0-9_]*(SECRET|TOKEN|PASSWORD|PASSWD|API_?KEY|PRIVATE_KEY|ACCESS_KEY|CREDENTIALS?)[A-Z0-9_]*\}?`)
	bareSecret  = regexp.MustCompile(`\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*_(SECRET|TOKEN|PASSWORD|API_KEY|PRIVATE_KEY|ACCESS_KEY)(?:_[A-Z0-9]+)*\b`)
	exfiltrates = regexp.MustCompile(`(?i)\b(read|pass|send|include|copy|upload|attach|append|provide|post|forward|output|print|cat|leak|share)\b`)
)

// hiddenInstructions lists what in s reads as an instruction to the model
// that the user was not meant to see.
func hiddenInstructions(s string) []string {
	var out []string
	add := func(kind string, m string) {
		out = append(out, fmt.Sprintf("%s (%q)", kind, sanitize.Truncate(strings.TrimSpace(m), 60)))
	}
	for _, p := range []struct {
		kind string
		re   *regexp.Regexp
	}{
		{"instruction tag", pseudoTag}, {"concealment from the user", concealment},
		{"instruction override", override}, {"request for the conversation", contextTheft},
		{"coercion of tool order", coercion}, {"secret environment variable", secretVar},
	} {
		if m := p.re.FindString(s); m != "" {
			add(p.kind, m)
		}
	}
	for _, m := range secretPath.FindAllString(s, 8) {
		if !strings.HasSuffix(strings.ToLower(m), ".pub") {
			add("secret file", m)
			break
		}
	}
	for _, sentence := range sentences(s) {
		if m := bareSecret.FindString(sentence); m != "" && exfiltrates.MatchString(sentence) && !secretVar.MatchString(sentence) {
			add("secret environment variable", m)
			break
		}
	}
	if r, at, ok := invisibleRune(s); ok {
		out = append(out, fmt.Sprintf("invisible or bidirectional character U+%04X at byte %d", r, at))
	}
	return out
}

var sentenceEnd = regexp.MustCompile(`[.!?\n]+`)

func sentences(s string) []string { return sentenceEnd.Split(s, -1) }

// invisibleRune finds a code point that renders as nothing or reorders
// text, so that what the user reviews differs from what the model reads:
// zero-width characters, bidirectional controls and Unicode tag characters.
// A zero-width joiner inside an emoji sequence is how emoji are written.
func invisibleRune(s string) (rune, int, bool) {
	prev := rune(-1)
	for i, r := range s {
		switch {
		case r == 0x200D && prev >= 0 && (unicode.Is(unicode.So, prev) || prev == 0xFE0F || unicode.Is(unicode.Sk, prev)):
		case r >= 0x200B && r <= 0x200F, r >= 0x202A && r <= 0x202E, r >= 0x2060 && r <= 0x2064,
			r >= 0x2066 && r <= 0x2069, r == 0xFEFF && i > 0, r >= 0xE0000 && r <= 0xE007F:
			return r, i, true
		}
		prev = r
	}
	return 0, 0, false
}

// maxSchemaDepth bounds the walk of a hostile input schema.
const maxSchemaDepth = 32

// schemaText is one string of an input schema that reaches the model, with
// the JSON pointer where it is.
type schemaText struct{ pointer, text string }

// schemaTexts collects the strings of a schema a host shows the model:
// property names, descriptions, titles, defaults, examples and enum values.
func schemaTexts(raw json.RawMessage) []schemaText {
	var root any
	if json.Unmarshal(raw, &root) != nil {
		return nil
	}
	var out []schemaText
	var walk func(v any, ptr string, depth int)
	walk = func(v any, ptr string, depth int) {
		if depth > maxSchemaDepth {
			return
		}
		switch x := v.(type) {
		case string:
			out = append(out, schemaText{ptr, x})
		case []any:
			for i, e := range x {
				walk(e, fmt.Sprintf("%s/%d", ptr, i), depth+1)
			}
		case map[string]any:
			for _, k := range slices.Sorted(maps.Keys(x)) {
				switch k {
				case "description", "title", "default", "examples", "enum", "const":
					walk(x[k], ptr+"/"+k, depth+1)
				case "properties", "patternProperties", "$defs", "definitions":
					props, _ := x[k].(map[string]any)
					for _, name := range slices.Sorted(maps.Keys(props)) {
						at := jsonorder.Join(ptr+"/"+k, name)
						out = append(out, schemaText{at, name})
						walk(props[name], at, depth+1)
					}
				case "items", "additionalProperties", "anyOf", "oneOf", "allOf", "not", "prefixItems":
					walk(x[k], ptr+"/"+k, depth+1)
				}
			}
		}
	}
	walk(root, "", 0)
	return out
}

// toolTexts lists every string of a tool that reaches the model, with the
// member it sits in.
func toolTexts(t *mcp.Tool) []schemaText {
	out := []schemaText{{"name", t.Name}, {"title", t.Title}, {"description", t.Description}}
	if t.Annotations != nil {
		out = append(out, schemaText{"annotations/title", t.Annotations.Title})
	}
	for _, st := range schemaTexts(t.InputSchema) {
		out = append(out, schemaText{"inputSchema" + st.pointer, st.text})
	}
	return out
}

// HiddenInstructions reports text that addresses the model behind the
// user's back: in tool definitions, prompts, resources and the server's
// instructions.
type HiddenInstructions struct{}

func (HiddenInstructions) Meta() checks.Meta {
	return checks.Meta{
		ID: "mcp-hidden-instructions", Family: checks.FamilyMCP, Security: true,
		Documents: checks.DocMCPTools,
		Since:     checks.FirstRelease,
		Title:     "Tool definitions and server instructions hide no instructions to the model",
		Severity:  finding.SeverityError,
		SpecRefs: []finding.SpecRef{
			mcpRef(mcp.Legacy, "server/tools §Security Considerations (clients SHOULD show tool inputs and confirm)", "SHOULD", "server/tools"),
			mcpRef(mcp.Legacy, "schema ToolAnnotations (clients MUST consider them untrusted)", "MUST", "schema#toolannotations"),
			{Doc: "Invariant Labs, MCP Security Notification: Tool Poisoning Attacks (2025)", Level: "advice", URL: "https://invariantlabs.ai/blog/mcp-security-notification-tool-poisoning-attacks"},
		},
		Help: "A host places every tool's name, description and input schema, and the server's `instructions`,\n" +
			"in the model's context; the user sees a name and a one-line summary at most. Text there that\n" +
			"addresses the model behind the user's back is a tool-poisoning attack, or reads exactly like one:\n" +
			"instruction tags (`<IMPORTANT>`, `<SYSTEM>`), \"do not tell the user\", \"ignore previous\n" +
			"instructions\", \"call this tool first\", references to credential files (`~/.ssh/id_rsa`,\n" +
			"`.aws/credentials`, `mcp.json`) or to secret environment variables (`$AWS_SECRET_ACCESS_KEY`),\n" +
			"and zero-width, bidirectional or tag characters that make the reviewed text differ from the\n" +
			"text the model reads. The scanner matches these deterministically in tool names, titles,\n" +
			"descriptions, every string of `inputSchema` (property names, descriptions, defaults, enum\n" +
			"values), prompt and resource descriptions, and `instructions`. Guidance for the model that is\n" +
			"open about itself (\"prefer reading resources before calling mutating tools\") is not flagged.\n\n" +
			"**How to fix:** say what the tool does and nothing to the model that the user should not read;\n" +
			"remove invisible characters. If the text came from a dependency, treat the server as compromised.",
		Needs: checks.NeedsMCP,
	}
}

func (c HiddenInstructions) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	return judge(ctx, in, c.Meta(), runHidden)
}

func runHidden(m checks.Meta, _ *checks.Input, s *mcp.Snapshot) ([]finding.Finding, error) {
	var out []finding.Finding
	if call, text := serverInstructions(s); text != "" {
		if hits := hiddenInstructions(text); len(hits) > 0 {
			ev := mcpmap.CallEvidence(call)
			ev.JSONPointer = "/result/instructions"
			out = append(out, checks.New(m, "instructions", "the server's instructions address the model behind the user's back: "+strings.Join(hits, "; "), ev))
		}
	}
	if len(s.Listings) > 0 {
		l := &s.Listings[0]
		for i := range l.Tools {
			t := &l.Tools[i]
			if f, ok := poisonedTool(m, l, t); ok {
				out = append(out, f)
			}
		}
	}
	out = append(out, poisonedEntries(m, s, "prompts/list", "prompts")...)
	out = append(out, poisonedEntries(m, s, "resources/list", "resources")...)
	if len(out) == 0 && len(s.Listings) == 0 {
		return nil, checks.Skip("tools/list was not answered and the server gave no instructions")
	}
	return out, nil
}

func poisonedTool(m checks.Meta, l *mcp.Listing, t *mcp.Tool) (finding.Finding, bool) {
	var hits []string
	member := ""
	for _, st := range toolTexts(t) {
		if h := hiddenInstructions(st.text); len(h) > 0 {
			if member == "" {
				member = st.pointer
			}
			hits = append(hits, st.pointer+": "+strings.Join(h, ", "))
		}
	}
	if len(hits) == 0 {
		return finding.Finding{}, false
	}
	return checks.New(m, t.Name, fmt.Sprintf("%s addresses the model behind the user's back: %s", toolLabel(t), strings.Join(hits, "; ")),
		mcpmap.ToolEvidence(l, t, member)), true
}

// serverInstructions returns the instructions of the decision's answer:
// initialize for a legacy server, server/discover for a modern one.
func serverInstructions(s *mcp.Snapshot) (*mcp.Call, string) {
	for _, method := range []string{"initialize", "server/discover"} {
		for _, c := range s.CallsTo(method) {
			var text string
			if c.Message != nil && mcp.ResultMember(c.Message.Result, "instructions", &text) && text != "" {
				return c, text
			}
		}
	}
	return nil, ""
}

// poisonedEntries judges the descriptions of a prompts/list or
// resources/list answer: they reach the model the same way.
func poisonedEntries(m checks.Meta, s *mcp.Snapshot, method, member string) []finding.Finding {
	var out []finding.Finding
	for _, c := range s.CallsTo(method) {
		if c.Message == nil {
			continue
		}
		var entries []map[string]json.RawMessage
		if !mcp.ResultMember(c.Message.Result, member, &entries) {
			continue
		}
		for i, e := range entries {
			var name, desc string
			_ = json.Unmarshal(e["name"], &name)
			_ = json.Unmarshal(e["description"], &desc)
			var hits []string
			for _, text := range append([]string{name, desc}, argumentTexts(e["arguments"])...) {
				hits = append(hits, hiddenInstructions(text)...)
			}
			if len(hits) > 0 {
				ev := mcpmap.CallEvidence(c)
				ev.JSONPointer = fmt.Sprintf("/result/%s/%d", member, i)
				out = append(out, checks.New(m, member+"/"+name, fmt.Sprintf("%s entry %q addresses the model behind the user's back: %s",
					method, sanitize.Truncate(name, 80), strings.Join(hits, "; ")), ev))
			}
		}
		break
	}
	return out
}

func argumentTexts(raw json.RawMessage) []string {
	var args []struct {
		Name        string `json:"name"`
		Description string `json:"description"`
	}
	_ = json.Unmarshal(raw, &args)
	var out []string
	for _, a := range args {
		out = append(out, a.Name, a.Description)
	}
	return out
}
