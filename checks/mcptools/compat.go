package mcptools

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/internal/mcpmap"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/jsonorder"
	"github.com/agentready/agentready/internal/mcp"
)

// The published references the host profiles rest on; a limit no host
// documents is not checked.
var (
	openAIFunctionsRef = finding.SpecRef{Doc: "OpenAI API reference, Chat Completions: tools[].function", Section: "name; tools", Level: "limit",
		URL: "https://platform.openai.com/docs/api-reference/chat/create"}
	anthropicToolsRef = finding.SpecRef{Doc: "Anthropic Messages API reference: tools[]", Section: "name", Level: "limit",
		URL: "https://docs.anthropic.com/en/api/messages"}
	geminiFunctionRef = finding.SpecRef{Doc: "Gemini API reference: FunctionDeclaration", Section: "name", Level: "limit",
		URL: "https://ai.google.dev/api/caching#FunctionDeclaration"}
	geminiSchemaRef = finding.SpecRef{Doc: "Gemini API reference: Schema (a select subset of an OpenAPI 3.0 schema object)", Section: "type", Level: "limit",
		URL: "https://ai.google.dev/api/caching#Schema"}
)

// ToolClientCompat reports tools that a major host's model API refuses, by
// the limits each host publishes.
type ToolClientCompat struct{}

func (ToolClientCompat) Meta() checks.Meta {
	return checks.Meta{
		ID: "mcp-tool-client-compat", Family: checks.FamilyMCP,
		Documents: checks.DocMCPTools,
		Since:     checks.FirstRelease,
		Title:     "Tools fit the published limits of the major hosts' model APIs",
		Severity:  finding.SeverityWarning,
		SpecRefs:  []finding.SpecRef{openAIFunctionsRef, anthropicToolsRef, geminiFunctionRef, geminiSchemaRef},
		Help: "A host hands each MCP tool to its model's API as a function declaration, and that API has\n" +
			"limits of its own, tighter than MCP's. A tool outside them is refused there, and often the\n" +
			"whole request with it: a catalog that loads in one host fails in another. The scanner checks\n" +
			"only limits the hosts publish, each finding naming the host, the limit, its source and the\n" +
			"JSON pointer:\n\n" +
			"- OpenAI (function calling): a name of 1 to 64 of `a-z A-Z 0-9 _ -`, and at most 128\n" +
			"  functions in a request.\n" +
			"- Anthropic Claude (Messages API): a name matching `^[a-zA-Z0-9_-]{1,64}$`.\n" +
			"- Google Gemini (FunctionDeclaration): a name of 1 to 64 of `a-z A-Z 0-9 _ : . -`; its\n" +
			"  `parameters` are a subset of the OpenAPI 3.0 schema object, where `type` is one value\n" +
			"  (not an array such as `[\"string\",\"null\"]`) and every subschema is an object (not the\n" +
			"  boolean schema `true` or `false`). A host that passes the schema as\n" +
			"  `parametersJsonSchema` instead is not bound by the second limit.\n\n" +
			"Hosts that rename tools (adding a server prefix, for example) leave less room than the\n" +
			"figures above. A limit a host has not documented is not checked.\n\n" +
			"**How to fix:** name tools with letters, digits, `_` and `-` within 64 characters; write\n" +
			"a nullable value as `anyOf` of two schemas, and `{}` for a schema that accepts anything;\n" +
			"split a catalog of more than 128 tools, or offer a search tool.",
		Needs: checks.NeedsMCP,
	}
}

func (c ToolClientCompat) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	return judge(ctx, in, c.Meta(), runClientCompat)
}

// hostLimit is one published limit of one host on a single tool: what it
// finds wrong, as messages with the JSON pointer under the tool.
type hostLimit struct {
	host  string
	ref   finding.SpecRef
	check func(t *mcp.Tool) []limitBreach
}

type limitBreach struct{ member, what string }

// The name patterns the hosts publish.
var (
	openAIName    = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)
	anthropicName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)
	geminiName    = regexp.MustCompile(`^[a-zA-Z0-9_:.-]{1,64}$`)
)

// maxOpenAIFunctions is the number of functions one OpenAI request takes.
const maxOpenAIFunctions = 128

func nameLimit(re *regexp.Regexp, rule string) func(t *mcp.Tool) []limitBreach {
	return func(t *mcp.Tool) []limitBreach {
		if !t.NameValid || re.MatchString(t.Name) {
			return nil
		}
		return []limitBreach{{"name", "the name is not " + rule}}
	}
}

var hostLimits = []hostLimit{
	{"OpenAI", openAIFunctionsRef, nameLimit(openAIName, "1 to 64 of a-z A-Z 0-9 _ -")},
	{"Anthropic Claude", anthropicToolsRef, nameLimit(anthropicName, "1 to 64 of a-z A-Z 0-9 _ - (^[a-zA-Z0-9_-]{1,64}$)")},
	{"Google Gemini", geminiFunctionRef, nameLimit(geminiName, "1 to 64 of a-z A-Z 0-9 _ : . -")},
	{"Google Gemini", geminiSchemaRef, geminiSchemaBreaches},
}

// maxBreachesShown bounds the pointers one finding lists.
const maxBreachesShown = 3

// geminiSchemaBreaches finds, in an input schema, what the OpenAPI 3.0
// subset of Gemini's Schema cannot say: a type array, and a boolean where a
// subschema is expected. additionalProperties is left alone: OpenAPI 3.0
// itself allows a boolean there.
func geminiSchemaBreaches(t *mcp.Tool) []limitBreach {
	var root any
	if json.Unmarshal(t.InputSchema, &root) != nil {
		return nil
	}
	var out []limitBreach
	var walk func(v any, ptr string, depth int)
	walk = func(v any, ptr string, depth int) {
		if depth > maxSchemaDepth {
			return
		}
		x, ok := v.(map[string]any)
		if !ok {
			if b, isBool := v.(bool); isBool && ptr != "" {
				out = append(out, limitBreach{"inputSchema" + ptr, fmt.Sprintf("the subschema is the boolean %t, not a Schema object", b)})
			}
			return
		}
		if types, isArray := x["type"].([]any); isArray {
			out = append(out, limitBreach{"inputSchema" + ptr + "/type", fmt.Sprintf("type is an array of %d types; Schema.type is a single value", len(types))})
		}
		for _, k := range slices.Sorted(maps.Keys(x)) {
			switch k {
			case "properties", "$defs", "definitions":
				props, _ := x[k].(map[string]any)
				for _, name := range slices.Sorted(maps.Keys(props)) {
					walk(props[name], jsonorder.Join(ptr+"/"+k, name), depth+1)
				}
			case "items", "not":
				walk(x[k], ptr+"/"+k, depth+1)
			case "anyOf", "oneOf", "allOf", "prefixItems":
				if list, ok := x[k].([]any); ok {
					for i, e := range list {
						walk(e, fmt.Sprintf("%s/%s/%d", ptr, k, i), depth+1)
					}
				} else {
					walk(x[k], ptr+"/"+k, depth+1)
				}
			}
		}
	}
	walk(root, "", 0)
	return out
}

func runClientCompat(m checks.Meta, _ *checks.Input, s *mcp.Snapshot) ([]finding.Finding, error) {
	l, err := firstListing(s)
	if err != nil {
		return nil, err
	}
	var out []finding.Finding
	if n := len(l.Tools); n > maxOpenAIFunctions && l.Complete {
		ev := mcpmap.ListingEvidence(l)
		ev.Actual = fmt.Sprintf("%d tools", n)
		ev.Expected = fmt.Sprintf("at most %d", maxOpenAIFunctions)
		out = append(out, checks.New(m, "catalog|OpenAI", fmt.Sprintf("OpenAI: the catalog lists %d tools, and a request takes at most %d functions (%s)",
			n, maxOpenAIFunctions, openAIFunctionsRef.URL), ev))
	}
	for i := range l.Tools {
		t := &l.Tools[i]
		// One finding per host and tool, with every limit of that host the
		// tool breaks.
		byHost := map[string][]string{}
		evs := map[string][]finding.Evidence{}
		var hosts []string
		for _, lim := range hostLimits {
			breaches := lim.check(t)
			if len(breaches) == 0 {
				continue
			}
			if _, seen := byHost[lim.host]; !seen {
				hosts = append(hosts, lim.host)
			}
			var at []string
			for j, b := range breaches {
				if j == maxBreachesShown {
					at = append(at, fmt.Sprintf("and %d more", len(breaches)-j))
					break
				}
				at = append(at, fmt.Sprintf("%s at /%s", b.what, b.member))
				evs[lim.host] = append(evs[lim.host], mcpmap.ToolEvidence(l, t, b.member))
			}
			byHost[lim.host] = append(byHost[lim.host], fmt.Sprintf("%s (%s)", strings.Join(at, "; "), lim.ref.URL))
		}
		for _, host := range hosts {
			out = append(out, checks.New(m, t.Name+"|"+host, fmt.Sprintf("%s: %s breaks the published limits: %s",
				host, toolLabel(t), strings.Join(byHost[host], "; ")), evs[host]...))
		}
	}
	return out, nil
}
