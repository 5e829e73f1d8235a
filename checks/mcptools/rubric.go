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
	"github.com/agentready/agentready/checks/internal/rubric"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/mcp"
	"github.com/agentready/agentready/internal/sanitize"
)

// The description rubric of seed 000 beyond what mcp-tool-description
// already judges (purpose and effects): one info check per item, so that a
// team can turn off the one item it disagrees with by its ID. Each item is
// asked only where the tool's definition shows it applies.

var (
	rubricRef = finding.SpecRef{Doc: "agentready", Section: "the description rubric", Level: "advice",
		URL: "https://github.com/agentready/agentready/blob/main/docs/mcp.md#the-description-rubric"}
	smellsRef = finding.SpecRef{Doc: "Hasan et al., MCP Tool Descriptions Are Smelly! (2026)", Level: "advice", URL: "https://arxiv.org/abs/2602.14878"}
)

// ToolDescriptionPreconditions reports a tool that changes an existing
// resource without saying in which states it may.
type ToolDescriptionPreconditions struct{}

func (ToolDescriptionPreconditions) Meta() checks.Meta { return rubricChecks[preconditionsRow].Meta() }

func (ToolDescriptionPreconditions) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	return rubricChecks[preconditionsRow].run(ctx, in)
}

// ToolDescriptionErrors reports a tool that can be refused without saying
// what a refusal means.
type ToolDescriptionErrors struct{}

func (ToolDescriptionErrors) Meta() checks.Meta { return rubricChecks[errorsRow].Meta() }

func (ToolDescriptionErrors) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	return rubricChecks[errorsRow].run(ctx, in)
}

// ToolDescriptionLimits reports a tool that may return part of a collection
// without saying so.
type ToolDescriptionLimits struct{}

func (ToolDescriptionLimits) Meta() checks.Meta { return rubricChecks[limitsRow].Meta() }

func (ToolDescriptionLimits) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	return rubricChecks[limitsRow].run(ctx, in)
}

// ToolDescriptionExamples reports an argument that takes a formatted value
// with no example of it.
type ToolDescriptionExamples struct{}

func (ToolDescriptionExamples) Meta() checks.Meta { return rubricChecks[examplesRow].Meta() }

func (ToolDescriptionExamples) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	return rubricChecks[examplesRow].run(ctx, in)
}

// ToolDescriptionLength reports a description over the configured budget.
type ToolDescriptionLength struct{}

func (ToolDescriptionLength) Meta() checks.Meta { return rubricChecks[lengthRow].Meta() }

func (ToolDescriptionLength) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	return rubricChecks[lengthRow].run(ctx, in)
}

// rubricCheck is one row of the table of the rubric's checks: its
// metadata, but for what every row shares (Meta adds it), and its
// judgement of one tool.
type rubricCheck struct {
	meta checks.Meta
	// fails reports a tool whose description fails the row's item; budget
	// is the most tokens a description may cost
	// (limits.mcp-description-max-tokens).
	fails func(r toolRubric, budget int) bool
	// says what the finding on a tool that fails says.
	says func(r toolRubric, budget int) string
	// member is the member of the tool's definition the evidence points
	// at.
	member string
}

// The rows of rubricChecks, one a check.
const (
	preconditionsRow = iota
	errorsRow
	limitsRow
	examplesRow
	lengthRow
)

var rubricChecks = [...]rubricCheck{
	preconditionsRow: {
		meta: checks.Meta{
			ID:    "mcp-tool-description-preconditions",
			Title: "Tools that change a resource say when they may be called",
			Help: "An input schema says what arguments are well formed, not which states of the resource make\n" +
				"the call meaningful: an order is paid only while pending, a booking cancelled only before it\n" +
				"starts. A model that is not told calls and learns from the refusal, or asks a second tool first.\n" +
				"Asked only of a tool that may change something (no `readOnlyHint: true`) and acts on an existing\n" +
				"resource (a required argument that identifies one, such as `id` or `orderId`); a precondition is\n" +
				"recognised by wordings such as \"only while\", \"allowed when\", \"requires\", \"must be\", \"unless\".\n\n" +
				"**How to fix:** say in the description which states the resource must be in, e.g. \"Allowed only\n" +
				"while the order is pending.\"",
		},
		fails: missing(rubric.Preconditions),
		says: func(r toolRubric, _ int) string {
			return fmt.Sprintf("%s may change the resource its required argument %q names, and its description does not say in which states it may be called", toolLabel(r.tool), r.identifier)
		},
		member: "description",
	},
	errorsRow: {
		meta: checks.Meta{
			ID:    "mcp-tool-description-errors",
			Title: "Tools that can be refused say what a refusal means",
			Help: "After a failure a client must decide whether to stop, wait, refresh the resource's state or try\n" +
				"another operation (seed 000). A tool result with `isError` carries text, not that decision; the\n" +
				"description is where the model learns it before it calls. Asked only of a tool that can be\n" +
				"refused for the state of what it acts on: one that may change something and takes a required\n" +
				"argument that identifies an existing resource. Error semantics are recognised by wordings such as\n" +
				"\"refused\", \"fails\", \"error\", \"conflict\", \"not found\", \"retry\" or a status code with its reason.\n\n" +
				"**How to fix:** say what happens when the call cannot be made and what to do then, e.g. \"Refused\n" +
				"with 409 Conflict once the order has shipped; read the order again before retrying.\"",
		},
		fails: missing(rubric.ErrorSemantics),
		says: func(r toolRubric, _ int) string {
			return fmt.Sprintf("%s can be refused for the state of the resource %q names, and its description does not say what a refusal means or what to do then", toolLabel(r.tool), r.identifier)
		},
		member: "description",
	},
	limitsRow: {
		meta: checks.Meta{
			ID:    "mcp-tool-description-limits",
			Title: "Tools that return part of a collection say so",
			Help: "A model takes what a tool returns as the whole answer unless it is told otherwise. Asked only of\n" +
				"a tool whose `outputSchema` shows that a result can be partial (an array with `maxItems`, or a\n" +
				"property such as `nextCursor`, `hasMore` or `truncated`) while its input schema has no argument to\n" +
				"page or bound it (`limit`, `page`, `cursor`, `offset`, …): the model can neither ask for the rest\n" +
				"nor learn from the schema alone that it exists. A tool that returns a whole collection has no\n" +
				"limitation to state and is not asked. A limitation is recognised by wordings such as \"at most\",\n" +
				"\"up to\", \"maximum\", \"paginated\", \"per page\", \"only returns\", \"does not include\".\n\n" +
				"**How to fix:** say how much comes back and how to get the rest, e.g. \"Returns at most 50 orders,\n" +
				"newest first; narrow the filter for older ones\", or add a `cursor` argument.",
			FiredBy: rubricCase,
		},
		fails: missing(rubric.Limitations),
		says: func(r toolRubric, _ int) string {
			return toolLabel(r.tool) + " may return part of a collection (its outputSchema says so) with no argument to page it, and its description does not say what is left out"
		},
		member: "description",
	},
	examplesRow: {
		meta: checks.Meta{
			ID:    "mcp-tool-description-examples",
			Title: "Arguments that take an expression or a list give an example",
			Help: "A model fills a string argument that takes a filter expression, a query in some syntax or a\n" +
				"comma-separated list by guessing the format, and the first guess is often refused. One example is\n" +
				"the cheapest fix. Asked only of a string argument whose name or description says it takes such a\n" +
				"format (filter, expression, syntax, query language, comma-separated, JSON, SQL, regex, cron, glob)\n" +
				"and whose schema does not pin it (no `enum`, `const`, `format`, `pattern` or `examples`); an\n" +
				"example in the argument's or the tool's description (\"e.g.\", \"for example\", \"such as\", a `code`\n" +
				"span) answers it.\n\n" +
				"**How to fix:** add `examples` to the argument's schema, or an example to its description, e.g.\n" +
				"\"Filter expression, e.g. `state:paid AND total>100`.\"",
			FiredBy: rubricCase,
		},
		fails: missing(rubric.Examples),
		says: func(r toolRubric, _ int) string {
			return fmt.Sprintf("%s takes a formatted value in %s with no example of it", toolLabel(r.tool), quotedList(r.formatted))
		},
		// The item is asked only of a tool with such an argument: the
		// finding points at the schema that declares it.
		member: "inputSchema",
	},
	lengthRow: {
		meta: checks.Meta{
			ID:    "mcp-tool-description-length",
			Title: "Tool descriptions keep within a token budget",
			Help: "Every tool's description is in the model's context on every turn, whether or not the tool is\n" +
				"used; a long one also buries its purpose. Hasan et al. found that augmenting descriptions helped\n" +
				"some tasks and made others worse while adding steps. The budget, counted with the catalog's\n" +
				"tokenizer (o200k_base), is `limits.mcp-description-max-tokens` (default 375: the share of one tool\n" +
				"in the catalog budget of mcp-context-cost, 15000 tokens over 40 tools, so that a description over\n" +
				"it alone spends a whole tool's share).\n\n" +
				"**How to fix:** keep the purpose, preconditions, effects and errors; move tutorials, long\n" +
				"examples and schema restatements into the schema or into documentation the tool can return.",
			FiredBy: rubricCase,
		},
		fails: func(r toolRubric, budget int) bool { return r.judgement.OverBudget(budget) },
		says: func(r toolRubric, budget int) string {
			return fmt.Sprintf("the description of %s costs %d tokens (%s), over the budget of %d",
				toolLabel(r.tool), r.judgement.Tokens, r.judgement.Tokenizer, budget)
		},
		member: "description",
	},
}

// Meta is the row's metadata with what every rubric check shares: each is
// advice on the tools/list of the MCP endpoint, resting on the rubric.
func (c rubricCheck) Meta() checks.Meta {
	m := c.meta
	m.Family, m.Documents, m.Since, m.Severity = checks.FamilyMCP, checks.DocMCPTools, checks.FirstRelease, finding.SeverityInfo
	m.SpecRefs, m.Needs = []finding.SpecRef{rubricRef, smellsRef}, checks.NeedsMCP
	return m
}

// run reports each tool of the first listing that fails the row.
func (c rubricCheck) run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	return judge(ctx, in, c.Meta(), func(m checks.Meta, in *checks.Input, s *mcp.Snapshot) ([]finding.Finding, error) {
		rs, err := toolRubrics(in, s)
		if err != nil {
			return nil, err
		}
		budget := in.Catalog.Or().DescriptionTokens
		var out []finding.Finding
		for _, r := range rs {
			if c.fails(r, budget) {
				out = append(out, checks.New(m, r.tool.Name, c.says(r, budget), mcpmap.ToolEvidence(r.listing, r.tool, c.member)))
			}
		}
		return out, nil
	})
}

// missing is the predicate of a row that asks item: the context asks it
// and the description does not state it.
func missing(item rubric.Item) func(toolRubric, int) bool {
	return func(r toolRubric, _ int) bool { return slices.Contains(r.judgement.Missing(), item) }
}

// rubricCase is the family's table case that fires every rubric check.
const rubricCase = "description rubric items missing"

// toolRubric is the rubric applied to one tool, with what made each item
// asked, for the messages.
type toolRubric struct {
	listing   *mcp.Listing
	tool      *mcp.Tool
	judgement rubric.Judgement
	// identifier is the required argument naming the existing resource the
	// tool acts on; formatted, the arguments that take a formatted value
	// without an example.
	identifier string
	formatted  []string
}

type rubricMemo struct {
	rs  []toolRubric
	err error
}

var rubricKey = checks.NewKey[rubricMemo]()

// toolRubrics judges every tool of the first listing once for the five
// checks.
func toolRubrics(in *checks.Input, s *mcp.Snapshot) ([]toolRubric, error) {
	r := checks.Memo(in, rubricKey, func() rubricMemo {
		l, err := firstListing(s)
		if err != nil {
			return rubricMemo{err: err}
		}
		out := make([]toolRubric, 0, len(l.Tools))
		for i := range l.Tools {
			out = append(out, judgeTool(l, &l.Tools[i]))
		}
		return rubricMemo{rs: out}
	})
	return r.rs, r.err
}

// judgeTool applies the rubric to a tool's description, in the context its
// definition gives.
func judgeTool(l *mcp.Listing, t *mcp.Tool) toolRubric {
	r := toolRubric{listing: l, tool: t}
	props, required := schemaProperties(t.InputSchema)
	changes := !t.ReadOnly()
	if changes {
		for _, name := range required {
			if identifierArg.MatchString(name) {
				r.identifier = name
				break
			}
		}
	}
	bounded := partialResult(t.OutputSchema) && !slices.ContainsFunc(slices.Collect(maps.Keys(props)), pagingArg.MatchString)
	for _, name := range slices.Sorted(maps.Keys(props)) {
		if takesFormat(name, props[name]) {
			r.formatted = append(r.formatted, name)
		}
	}
	r.judgement = rubric.Judge(t.Description, rubric.Context{
		Names:         []string{t.Name, t.Title},
		StateChanging: changes && r.identifier != "",
		CanFail:       changes && r.identifier != "",
		Bounded:       bounded,
		// An example in the tool's own description answers for its
		// arguments too.
		Formatted: len(r.formatted) > 0,
	})
	return r
}

// identifierArg is an argument name that identifies an existing resource:
// id, orderId, order_id, order-id, uuid.
var identifierArg = regexp.MustCompile(`^(?i:id|uuid)$|[_-](?i:id|uuid)$|[a-z0-9](Id|ID|Uuid|UUID)$`)

// partialResult reports whether an output schema says a result may be
// partial: an array with maxItems among its top-level properties, or a
// property that points at more (a next cursor, hasMore, truncated). Only
// then is the tool known to leave something out; a tool that returns a
// whole collection has no limitation to state.
func partialResult(raw json.RawMessage) bool {
	props, _ := schemaProperties(raw)
	for name, p := range props {
		if moreMarker.MatchString(name) {
			return true
		}
		var a struct {
			Type     any              `json:"type"`
			MaxItems *json.RawMessage `json:"maxItems"`
		}
		if json.Unmarshal(p, &a) == nil && a.Type == "array" && a.MaxItems != nil {
			return true
		}
	}
	return false
}

// moreMarker is an output property that says more results exist.
var moreMarker = regexp.MustCompile(`^(?i:next|next_?cursor|next_?page(_?token)?|has_?more|more|truncated|is_?truncated)$`)

// pagingArg is an argument that bounds or pages a result.
var pagingArg = regexp.MustCompile(`^(?i:limit|max|max_?results|max_?items|top|first|last|count|size|page|page_?size|per_?page|page_?token|next_?token|cursor|after|before|offset|skip)$`)

// formatWords say that a string takes a format of its own.
var (
	formatArg   = regexp.MustCompile(`^(?i:filter|filters|expr|expression|jq|jsonpath|sql|cron|glob)$`)
	formatWords = regexp.MustCompile(`(?i)\b(filter\s+expression|expression|syntax|query\s+language|comma[-\s]separated|space[-\s]separated|json|jsonpath|sql|regex|regular\s+expression|cron|glob)\b`)
)

// takesFormat reports whether an argument takes a string of a format its
// schema does not pin and its description does not exemplify.
func takesFormat(name string, raw json.RawMessage) bool {
	var p struct {
		Type        any             `json:"type"`
		Description string          `json:"description"`
		Enum        json.RawMessage `json:"enum"`
		Const       json.RawMessage `json:"const"`
		Format      string          `json:"format"`
		Pattern     string          `json:"pattern"`
		Examples    json.RawMessage `json:"examples"`
	}
	if json.Unmarshal(raw, &p) != nil || p.Type != "string" {
		return false
	}
	if p.Enum != nil || p.Const != nil || p.Format != "" || p.Pattern != "" || p.Examples != nil {
		return false
	}
	if !formatArg.MatchString(name) && !formatWords.MatchString(p.Description) {
		return false
	}
	_, exemplified := rubric.Find(p.Description, rubric.Examples)
	return !exemplified
}

// schemaProperties reads the top-level properties and required names of a
// schema; a schema that is not an object gives none.
func schemaProperties(raw json.RawMessage) (map[string]json.RawMessage, []string) {
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
		Required   []string                   `json:"required"`
	}
	if json.Unmarshal(raw, &s) != nil {
		return nil, nil
	}
	return s.Properties, s.Required
}

func quotedList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", sanitize.Truncate(n, 40))
	}
	return sanitize.Truncate(strings.Join(q, ", "), 160)
}
