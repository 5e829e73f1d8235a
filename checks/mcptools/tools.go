package mcptools

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/dlclark/regexp2"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/internal/mcpmap"
	"github.com/agentready/agentready/checks/internal/rubric"
	"github.com/agentready/agentready/checks/internal/schemacache"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/mcp"
	"github.com/agentready/agentready/internal/sanitize"
)

var toolsRef = mcpRef(mcp.Modern, "server/tools §Tool", "MUST", "server/tools")

// ToolInputSchema reports a tool without a valid object inputSchema.
type ToolInputSchema struct{}

func (ToolInputSchema) Meta() checks.Meta {
	return checks.Meta{
		ID: "mcp-tool-input-schema", Family: checks.FamilyMCP,
		Documents: checks.DocMCPTools,
		Since:     checks.FirstRelease,
		Title:     "Every tool has an inputSchema that is a valid object schema",
		Severity:  finding.SeverityError,
		SpecRefs:  []finding.SpecRef{toolsRef, mcpRef(mcp.Legacy, "server/tools §Tool", "MUST", "server/tools")},
		Help: "`inputSchema` is required, MUST be a valid JSON Schema (2020-12 unless `$schema` says\n" +
			"otherwise), MUST NOT be null, and its root is `type: \"object\"`. Agents build their arguments\n" +
			"from it; a missing or broken schema makes the tool uncallable, or called with guesses. The\n" +
			"scanner compiles each schema with a JSON Schema compiler, offline (remote `$ref`s are not\n" +
			"fetched, so they fail to resolve).\n\n" +
			"**How to fix:** give every tool `{\"type\":\"object\",\"properties\":{...}}`, even when it takes no\n" +
			"arguments (`{\"type\":\"object\"}`).",
		Needs: checks.NeedsMCP,
	}
}

func (c ToolInputSchema) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	return judge(ctx, in, c.Meta(), runInputSchema)
}

// ToolOutputSchema reports an outputSchema that is not a valid schema, or not an
// object where 2025-11-25 requires one.
type ToolOutputSchema struct{}

func (ToolOutputSchema) Meta() checks.Meta {
	return checks.Meta{
		ID: "mcp-tool-output-schema", Family: checks.FamilyMCP,
		Documents: checks.DocMCPTools,
		Since:     checks.FirstRelease,
		Title:     "Output schemas are valid (object roots in 2025-11-25)",
		Severity:  finding.SeverityError,
		SpecRefs:  []finding.SpecRef{mcpRef(mcp.Legacy, "server/tools §Output Schema", "MUST", "server/tools"), toolsRef},
		Help: "An `outputSchema` is optional, but when present it MUST be a valid JSON Schema, and in\n" +
			"2025-11-25 its root MUST be `type: \"object\"` (2026-07-28 allows any root). Clients validate\n" +
			"`structuredContent` against it; an invalid one makes every structured result suspect.\n\n" +
			"**How to fix:** fix the schema, or wrap a non-object result in an object for legacy clients.",
		Needs: checks.NeedsMCP,
	}
}

func (c ToolOutputSchema) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	return judge(ctx, in, c.Meta(), runOutputSchema)
}

// ToolName reports tool names that are missing, malformed or listed twice.
type ToolName struct{}

func (ToolName) Meta() checks.Meta {
	return checks.Meta{
		ID: "mcp-tool-name", Family: checks.FamilyMCP,
		Documents: checks.DocMCPTools,
		Since:     checks.FirstRelease,
		Title:     "Tool names are 1 to 128 of A-Z a-z 0-9 _ - . and unique",
		Severity:  finding.SeverityWarning,
		SpecRefs:  []finding.SpecRef{mcpRef(mcp.Modern, "server/tools §Tool Names", "SHOULD", "server/tools")},
		Help: "Tool names SHOULD be 1 to 128 characters of `A-Z a-z 0-9 _ - .`, and unique within the\n" +
			"server. Hosts prefix, route and display tools by name; spaces, slashes or duplicates make some\n" +
			"hosts reject the whole server, and a duplicate shadows the other tool. A tool without a string\n" +
			"`name` is an error: the member is required.\n\n" +
			"**How to fix:** rename the tool, e.g. `getOrder`, `orders.cancel`, `DATA_EXPORT_v2`.",
		Needs: checks.NeedsMCP,
	}
}

func (c ToolName) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	return judge(ctx, in, c.Meta(), runToolName)
}

// ToolMCPHeader reports invalid x-mcp-header declarations, for which clients drop
// the tool.
type ToolMCPHeader struct{}

func (ToolMCPHeader) Meta() checks.Meta {
	return checks.Meta{
		ID: "mcp-tool-mcp-header", Family: checks.FamilyMCP,
		Documents: checks.DocMCPTools,
		Since:     checks.FirstRelease,
		Title:     "x-mcp-header declarations are valid",
		Severity:  finding.SeverityError,
		SpecRefs:  []finding.SpecRef{mcpRef(mcp.Modern, "basic/transports/streamable-http §Custom Headers (x-mcp-header)", "MUST", "basic/transports/streamable-http")},
		Help: "In 2026-07-28 a property of `inputSchema` can carry `x-mcp-header: Name` so that the client\n" +
			"mirrors the argument into an `Mcp-Param-Name` header. The value MUST be a non-empty HTTP token,\n" +
			"unique (case-insensitively) within the tool, on a `string`, `integer` or `boolean` property\n" +
			"reached only through `properties`. Clients MUST drop a tool whose declaration is invalid: the\n" +
			"tool is listed by the server and never seen by any agent. The SDKs drop it silently, which is\n" +
			"why the scanner reads the raw `tools/list` pages.\n\n" +
			"**How to fix:** correct the declaration, or remove it.",
		Needs: checks.NeedsMCP,
	}
}

func (c ToolMCPHeader) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	return judge(ctx, in, c.Meta(), runMCPHeader)
}

// ToolHintConflict reports a tool that says it is both read-only and destructive.
type ToolHintConflict struct{}

func (ToolHintConflict) Meta() checks.Meta {
	return checks.Meta{
		ID: "mcp-tool-hint-conflict", Family: checks.FamilyMCP,
		Documents: checks.DocMCPTools,
		Since:     checks.FirstRelease,
		Title:     "A read-only tool does not also claim to be destructive",
		Severity:  finding.SeverityInfo,
		SpecRefs:  []finding.SpecRef{mcpRef(mcp.Modern, "schema ToolAnnotations (destructiveHint is meaningful only when readOnlyHint is false)", "definition", "schema#toolannotations")},
		Help: "`destructiveHint` is meaningful only when `readOnlyHint` is false. A tool that says both\n" +
			"`readOnlyHint: true` and `destructiveHint: true` contradicts itself, and hosts resolve the\n" +
			"contradiction differently.\n\n" +
			"**How to fix:** drop `destructiveHint` from read-only tools, or drop `readOnlyHint`.",
		Needs: checks.NeedsMCP,
	}
}

func (c ToolHintConflict) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	return judge(ctx, in, c.Meta(), runHintConflict)
}

// ToolDescription reports the description smells of each tool.
type ToolDescription struct{}

func (ToolDescription) Meta() checks.Meta {
	return checks.Meta{
		ID: "mcp-tool-description", Family: checks.FamilyMCP,
		Documents: checks.DocMCPTools,
		Since:     checks.FirstRelease,
		Title:     "Tools and their parameters are described",
		Severity:  finding.SeverityInfo,
		SpecRefs: []finding.SpecRef{
			mcpRef(mcp.Modern, "server/tools §Tool", "SHOULD", "server/tools"),
			{Doc: "Hasan et al., MCP Tool Descriptions Are Smelly! (2026)", Level: "advice", URL: "https://arxiv.org/abs/2602.14878"},
		},
		Help: "The model chooses a tool from its description and fills arguments from the parameter\n" +
			"descriptions. A study of 856 tools on 103 MCP servers found description defects in 97%.\n" +
			"The scanner reports the smells it can see without running anything: no stated purpose (an\n" +
			"empty description, or one that only repeats the name), parameters without a description\n" +
			"(unexplained parameters), and a tool that may change something but says nothing of its\n" +
			"effects: no `readOnlyHint: true`, no `destructiveHint` either way, and no verb of reading or\n" +
			"changing in its description, so that a host must presume it destructive. Each finding counts\n" +
			"the smells of one tool.\n\n" +
			"**How to fix:** say what the tool does, when to use it, what each parameter means, and what it\n" +
			"changes (or set `readOnlyHint` / `destructiveHint`).",
		Needs: checks.NeedsMCP,
	}
}

func (c ToolDescription) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	return judge(ctx, in, c.Meta(), runDescription)
}

// compiledSchemas holds what compiling each schema text gave: every
// identity's catalog, and several checks, compile the same tools' schemas.
var compiledSchemas schemacache.Cache[error]

// compileSchema compiles a schema offline. Patterns use an ECMA-262 engine,
// the dialect JSON Schema specifies, so valid patterns that Go's RE2 lacks
// (lookahead) are not reported.
func compileSchema(raw json.RawMessage) error {
	return compiledSchemas.Get(string(raw), func() error { return compileSchemaText(raw) })
}

func compileSchemaText(raw json.RawMessage) error {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return err
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(jsonschema.SchemeURLLoader{})
	c.UseRegexpEngine(func(s string) (jsonschema.Regexp, error) {
		re, err := regexp2.Compile(s, regexp2.ECMAScript)
		if err != nil {
			return nil, err
		}
		return ecmaRegexp{re}, nil
	})
	const loc = "urn:agentready:tool-schema"
	if err := c.AddResource(loc, doc); err != nil {
		return err
	}
	_, err = c.Compile(loc)
	return err
}

type ecmaRegexp struct{ re *regexp2.Regexp }

func (r ecmaRegexp) MatchString(s string) bool { ok, _ := r.re.MatchString(s); return ok }
func (r ecmaRegexp) String() string            { return r.re.String() }

// schemaError shortens a compiler error to one line.
func schemaError(err error) string {
	line, _, _ := strings.Cut(err.Error(), "\n")
	return sanitize.Truncate(line, 160)
}

// rootType returns the root "type" of a schema when it is a single string.
func rootType(raw json.RawMessage) (obj map[string]json.RawMessage, typ string, isObject bool) {
	if json.Unmarshal(raw, &obj) != nil || obj == nil {
		return nil, "", false
	}
	_ = json.Unmarshal(obj["type"], &typ)
	return obj, typ, true
}

func inputSchemaProblem(raw json.RawMessage) string {
	switch strings.TrimSpace(string(raw)) {
	case "":
		return "has no inputSchema"
	case "null":
		return "has inputSchema null"
	}
	_, typ, isObject := rootType(raw)
	switch {
	case !isObject:
		return "has an inputSchema that is not a JSON object: " + sanitize.Truncate(string(raw), 60)
	case typ != "object":
		return fmt.Sprintf("has an inputSchema whose root type is %q, not \"object\"", typ)
	}
	if err := compileSchema(raw); err != nil {
		return "has an inputSchema that is not a valid JSON Schema: " + schemaError(err)
	}
	return ""
}

// eachTool is the rule of a check that judges the tools of the first
// listing one by one: problem is what is wrong with a tool, "" when
// nothing is, and the finding on it says so after the tool's label, with
// the member of its definition at fault as evidence.
func eachTool(member string, problem func(s *mcp.Snapshot, t *mcp.Tool) string) snapshotRule {
	return func(m checks.Meta, _ *checks.Input, s *mcp.Snapshot) ([]finding.Finding, error) {
		l, err := firstListing(s)
		if err != nil {
			return nil, err
		}
		var out []finding.Finding
		for i := range l.Tools {
			t := &l.Tools[i]
			if p := problem(s, t); p != "" {
				out = append(out, checks.New(m, t.Name, toolLabel(t)+" "+p, mcpmap.ToolEvidence(l, t, member)))
			}
		}
		return out, nil
	}
}

var runInputSchema = eachTool("inputSchema", func(_ *mcp.Snapshot, t *mcp.Tool) string { return inputSchemaProblem(t.InputSchema) })

var runOutputSchema = eachTool("outputSchema", outputSchemaProblem)

// outputSchemaProblem is what is wrong with a tool's outputSchema, if it
// has one, for the revision the endpoint speaks.
func outputSchemaProblem(s *mcp.Snapshot, t *mcp.Tool) string {
	if len(t.OutputSchema) == 0 {
		return ""
	}
	_, typ, isObject := rootType(t.OutputSchema)
	switch {
	case strings.TrimSpace(string(t.OutputSchema)) == "null":
		return "has outputSchema null"
	case !isObject:
		return "has an outputSchema that is not a JSON Schema object"
	case s.Verdict.Era == mcp.EraLegacy && typ != "object":
		return fmt.Sprintf("has an outputSchema whose root type is %q; %s requires \"object\"", typ, s.Verdict.Version)
	}
	if err := compileSchema(t.OutputSchema); err != nil {
		return "has an outputSchema that is not a valid JSON Schema: " + schemaError(err)
	}
	return ""
}

var toolName = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,128}$`)

func runToolName(m checks.Meta, _ *checks.Input, s *mcp.Snapshot) ([]finding.Finding, error) {
	l, err := firstListing(s)
	if err != nil {
		return nil, err
	}
	var out []finding.Finding
	seen := map[string]int{}
	for i := range l.Tools {
		t := &l.Tools[i]
		switch {
		case !t.NameValid:
			f := checks.New(m, fmt.Sprintf("#%d/%d", t.Page, t.Index), toolLabel(t)+" has no string name", mcpmap.ToolEvidence(l, t, "name"))
			f.Severity = finding.SeverityError
			out = append(out, f)
			continue
		case !toolName.MatchString(t.Name):
			out = append(out, checks.New(m, t.Name, fmt.Sprintf("%s: the name is not 1 to 128 characters of A-Z a-z 0-9 _ - .", toolLabel(t)), mcpmap.ToolEvidence(l, t, "name")))
		}
		seen[t.Name]++
		if seen[t.Name] == 2 {
			out = append(out, checks.New(m, t.Name+"#duplicate", fmt.Sprintf("%s is listed more than once", toolLabel(t)), mcpmap.ToolEvidence(l, t, "name")))
		}
	}
	return out, nil
}

// headerToken is an RFC 9110 token.
var headerToken = regexp.MustCompile("^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")

// headerProblems walks an input schema and returns what is wrong with its
// x-mcp-header declarations.
func headerProblems(raw json.RawMessage) []string {
	var root any
	if json.Unmarshal(raw, &root) != nil {
		return nil
	}
	var problems []string
	names := map[string]string{}
	var walk func(v any, path string, viaProperties bool, depth int)
	walk = func(v any, path string, viaProperties bool, depth int) {
		if depth > 32 {
			return
		}
		switch x := v.(type) {
		case map[string]any:
			if h, ok := x["x-mcp-header"]; ok {
				problems = append(problems, headerProblem(h, x, path, viaProperties, names)...)
			}
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				if k == "properties" {
					if props, ok := x[k].(map[string]any); ok {
						pkeys := make([]string, 0, len(props))
						for pk := range props {
							pkeys = append(pkeys, pk)
						}
						sort.Strings(pkeys)
						for _, pk := range pkeys {
							walk(props[pk], path+"/properties/"+pk, viaProperties, depth+1)
						}
						continue
					}
				}
				walk(x[k], path+"/"+k, false, depth+1)
			}
		case []any:
			for i, e := range x {
				walk(e, fmt.Sprintf("%s/%d", path, i), false, depth+1)
			}
		}
	}
	walk(root, "", true, 0)
	return problems
}

func headerProblem(h any, schema map[string]any, path string, viaProperties bool, names map[string]string) []string {
	at := path
	if at == "" {
		at = "the schema root"
	}
	name, isString := h.(string)
	switch {
	case path == "" || !viaProperties:
		return []string{fmt.Sprintf("x-mcp-header at %s is not reached through properties alone", at)}
	case !isString || name == "":
		return []string{fmt.Sprintf("x-mcp-header at %s is not a non-empty string", at)}
	case !headerToken.MatchString(name):
		return []string{fmt.Sprintf("x-mcp-header %q at %s is not an HTTP token", sanitize.Truncate(name, 40), at)}
	}
	var out []string
	if typ, _ := schema["type"].(string); typ != "string" && typ != "integer" && typ != "boolean" {
		out = append(out, fmt.Sprintf("x-mcp-header %q is on a property of type %v; only string, integer and boolean are allowed", name, schema["type"]))
	}
	key := strings.ToLower(name)
	if other, dup := names[key]; dup {
		out = append(out, fmt.Sprintf("x-mcp-header %q at %s repeats the one at %s (names are case-insensitive)", name, at, other))
	} else {
		names[key] = at
	}
	return out
}

var runMCPHeader = eachTool("inputSchema", func(_ *mcp.Snapshot, t *mcp.Tool) string {
	if ps := headerProblems(t.InputSchema); len(ps) > 0 {
		return "will be dropped by every conforming client: " + strings.Join(ps, "; ")
	}
	return ""
})

var runHintConflict = eachTool("annotations", func(_ *mcp.Snapshot, t *mcp.Tool) string {
	if a := t.Annotations; a != nil && a.ReadOnlyHint != nil && *a.ReadOnlyHint && a.DestructiveHint != nil && *a.DestructiveHint {
		return "says both readOnlyHint: true and destructiveHint: true"
	}
	return ""
})

// descriptionSmells lists what is visibly wrong with a tool's descriptions.
func descriptionSmells(t *mcp.Tool) []string {
	var smells []string
	switch d := strings.TrimSpace(t.Description); {
	case d == "":
		smells = append(smells, "empty description")
	case rubric.Restates(d, t.Name, t.Title):
		smells = append(smells, "the description only repeats the name")
	}
	if d := strings.TrimSpace(t.Description); d != "" && !effectsStated(t) {
		smells = append(smells, "it may change something (no readOnlyHint: true) and neither its annotations nor its description say what")
	}
	var schema struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if json.Unmarshal(t.InputSchema, &schema) != nil {
		return smells
	}
	var bare []string
	for name, raw := range schema.Properties {
		var p struct {
			Description string `json:"description"`
		}
		if json.Unmarshal(raw, &p) != nil || strings.TrimSpace(p.Description) == "" {
			bare = append(bare, name)
		}
	}
	if len(bare) > 0 {
		sort.Strings(bare)
		smells = append(smells, fmt.Sprintf("%d of %d parameters have no description (%s)",
			len(bare), len(schema.Properties), sanitize.Truncate(strings.Join(bare, ", "), 120)))
	}
	return smells
}

// effectsStated reports whether a tool says what it does to the world: by
// being read-only, by an explicit destructiveHint, or in its description.
func effectsStated(t *mcp.Tool) bool {
	if t.ReadOnly() || (t.Annotations != nil && t.Annotations.DestructiveHint != nil) {
		return true
	}
	_, named := rubric.Find(t.Description, rubric.SideEffects)
	return named
}

func runDescription(m checks.Meta, in *checks.Input, s *mcp.Snapshot) ([]finding.Finding, error) {
	l, err := firstListing(s)
	if err != nil {
		return nil, err
	}
	var out []finding.Finding
	for i := range l.Tools {
		t := &l.Tools[i]
		if smells := descriptionSmells(t); len(smells) > 0 {
			out = append(out, checks.New(m, t.Name, fmt.Sprintf("%s: %d description smell(s): %s", toolLabel(t), len(smells), strings.Join(smells, "; ")),
				mcpmap.ToolEvidence(l, t, "description")))
		}
	}
	in.Observe(m.ID, fmt.Sprintf("%d of %d tools have description smells", len(out), len(l.Tools)))
	return out, nil
}
