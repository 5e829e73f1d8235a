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
	"github.com/agentready/agentready/internal/mcp"
	"github.com/agentready/agentready/internal/sanitize"
	"github.com/agentready/agentready/internal/spec"
)

var (
	// Hints are not requirements on servers; what makes a wrong hint an error
	// is the method's meaning in HTTP and what hosts do with the hint.
	annotationsRef = mcpRef(mcp.Modern, "schema ToolAnnotations (hint meanings and defaults)", "definition", "schema#toolannotations")
	methodsRef     = finding.SpecRef{Doc: "RFC 9110", Section: "9.2.1 Safe Methods", Level: "definition", URL: "https://www.rfc-editor.org/rfc/rfc9110#section-9.2.1"}
	operationRef   = finding.SpecRef{Doc: "OpenAPI 3.1", Section: "4.8.10 Operation Object", Level: "MUST", URL: "https://spec.openapis.org/oas/v3.1.0#operation-object"}
	responsesRef   = finding.SpecRef{Doc: "OpenAPI 3.1", Section: "4.8.16 Responses Object", Level: "definition", URL: "https://spec.openapis.org/oas/v3.1.0#responses-object"}
)

// deleteCase is the case of the family's tests that fires the rules about
// DELETE and PUT: the demo declares no such operation.
const deleteCase = "DELETE with destructiveHint false and no idempotentHint"

// ParityUnknownProperty reports tool arguments the operation does not take.
type ParityUnknownProperty struct{}

func (ParityUnknownProperty) Meta() checks.Meta {
	return checks.Meta{
		ID: "mcp-parity-unknown-property", Family: checks.FamilyMCP,
		Documents: checks.DocOpenAPI | checks.DocMCPTools,
		Since:     checks.FirstRelease,
		Title:     "Tool arguments are operation parameters or body fields",
		Severity:  finding.SeverityError,
		SpecRefs:  []finding.SpecRef{operationRef, toolsRef},
		Help: "Every property of a tool's `inputSchema` must be a parameter or a request-body field of the\n" +
			"operation it projects. An extra property is an argument the API will not receive: the agent\n" +
			"fills it, and the value is silently lost or, worse, sent somewhere unintended.\n\n" +
			"**How to fix:** generate the tool's schema from the operation, or drop the property.\n\n" + mcpmap.MappingHelp,
		Needs: checks.NeedsMCP,
	}
}

func (c ParityUnknownProperty) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	return judge(ctx, in, c.Meta(), parity(ruleUnknownProperty))
}

// ParityMissingParameter reports required operation parameters the tool lacks.
type ParityMissingParameter struct{}

func (ParityMissingParameter) Meta() checks.Meta {
	return checks.Meta{
		ID: "mcp-parity-missing-parameter", Family: checks.FamilyMCP,
		Documents: checks.DocOpenAPI | checks.DocMCPTools,
		Since:     checks.FirstRelease,
		Title:     "Required operation parameters are tool arguments",
		Severity:  finding.SeverityError,
		SpecRefs:  []finding.SpecRef{operationRef, toolsRef},
		Help: "A required parameter of the operation (every path parameter is required) or a required body\n" +
			"field that the tool's schema lacks cannot be supplied by any agent: every call fails, or the\n" +
			"server fills a default the agent never chose.\n\n" +
			"**How to fix:** add the parameter to the tool's `inputSchema`, with its type and description.\n\n" + mcpmap.MappingHelp,
		Needs: checks.NeedsMCP,
	}
}

func (c ParityMissingParameter) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	return judge(ctx, in, c.Meta(), parity(ruleMissingParameter))
}

// ParityType reports tool arguments whose type differs from the operation's.
type ParityType struct{}

func (ParityType) Meta() checks.Meta {
	return checks.Meta{
		ID: "mcp-parity-type", Family: checks.FamilyMCP,
		Documents: checks.DocOpenAPI | checks.DocMCPTools,
		Since:     checks.FirstRelease,
		Title:     "Tool argument types match the operation's",
		Severity:  finding.SeverityError,
		SpecRefs:  []finding.SpecRef{operationRef, toolsRef},
		Help: "When a tool says `string` and the operation says `integer` (or the reverse), the agent sends\n" +
			"values the API rejects. `integer` and `number` are treated as compatible.\n\n" +
			"**How to fix:** derive both schemas from one declaration.\n\n" + mcpmap.MappingHelp,
		Needs: checks.NeedsMCP,
	}
}

func (c ParityType) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	return judge(ctx, in, c.Meta(), parity(ruleType))
}

// ParityRequired reports a tool and an operation that disagree on what is required.
type ParityRequired struct{}

func (ParityRequired) Meta() checks.Meta {
	return checks.Meta{
		ID: "mcp-parity-required", Family: checks.FamilyMCP,
		Documents: checks.DocOpenAPI | checks.DocMCPTools,
		Since:     checks.FirstRelease,
		Title:     "Tool and operation agree on what is required",
		Severity:  finding.SeverityWarning,
		SpecRefs:  []finding.SpecRef{operationRef, toolsRef},
		Help: "A parameter that the operation requires and the tool marks optional lets agents omit it and\n" +
			"fail; one that the tool requires and the operation does not forces agents to invent values.\n\n" +
			"**How to fix:** align `required` in the tool's schema with the operation.\n\n" + mcpmap.MappingHelp,
		Needs: checks.NeedsMCP,
	}
}

func (c ParityRequired) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	return judge(ctx, in, c.Meta(), parity(ruleRequired))
}

// ParityReadOnlyUnsafe reports readOnlyHint on a tool of an unsafe operation.
type ParityReadOnlyUnsafe struct{}

func (ParityReadOnlyUnsafe) Meta() checks.Meta {
	return checks.Meta{
		ID: "mcp-parity-readonly-unsafe", Since: checks.FirstRelease, Family: checks.FamilyMCP,
		Documents: checks.DocOpenAPI | checks.DocMCPTools,
		Title:     "readOnlyHint is only on tools whose operation is GET or HEAD", Severity: finding.SeverityError, Security: true,
		SpecRefs: []finding.SpecRef{annotationsRef, methodsRef},
		Help: "Hosts auto-approve tools marked `readOnlyHint: true`: no confirmation is asked. On a tool that\n" +
			"projects a POST, PUT, PATCH or DELETE, the hint lets an agent change state without the user's\n" +
			"consent. This is a security problem, whatever the hint's \"untrusted\" status in the spec.\n\n" +
			"**How to fix:** derive `readOnlyHint` from the HTTP method (true only for GET and HEAD).\n\n" + mcpmap.MappingHelp,
		Needs: checks.NeedsMCP,
	}
}

func (c ParityReadOnlyUnsafe) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	return judge(ctx, in, c.Meta(), parity(ruleReadOnlyUnsafe))
}

// ParityGetNotReadOnly reports a tool of a GET or HEAD operation without readOnlyHint.
type ParityGetNotReadOnly struct{}

func (ParityGetNotReadOnly) Meta() checks.Meta {
	return checks.Meta{
		ID: "mcp-parity-get-not-readonly", Family: checks.FamilyMCP,
		Documents: checks.DocOpenAPI | checks.DocMCPTools,
		Since:     checks.FirstRelease,
		Title:     "Tools of GET operations say readOnlyHint: true",
		Severity:  finding.SeverityWarning,
		SpecRefs:  []finding.SpecRef{annotationsRef, methodsRef},
		Help: "MCP's defaults presume a tool without annotations writes, destroys and reaches an open world.\n" +
			"A tool that only reads (its operation is GET or HEAD) without `readOnlyHint: true` makes hosts\n" +
			"ask for confirmation on every read, and teaches users to click through prompts.\n\n" +
			"**How to fix:** set `readOnlyHint: true` (and `openWorldHint: false` when it stays in your API).\n\n" + mcpmap.MappingHelp,
		Needs: checks.NeedsMCP,
	}
}

func (c ParityGetNotReadOnly) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	return judge(ctx, in, c.Meta(), parity(ruleGetNotReadOnly))
}

// ParityDeleteNotDestructive reports a tool of a DELETE operation that denies being
// destructive.
type ParityDeleteNotDestructive struct{}

func (ParityDeleteNotDestructive) Meta() checks.Meta {
	return checks.Meta{
		ID: "mcp-parity-delete-not-destructive", Family: checks.FamilyMCP,
		Documents: checks.DocOpenAPI | checks.DocMCPTools,
		Since:     checks.FirstRelease,
		Title:     "Tools of DELETE operations do not deny being destructive",
		Severity:  finding.SeverityError,
		SpecRefs:  []finding.SpecRef{annotationsRef, methodsRef},
		Help: "A DELETE removes something. `destructiveHint: false` on its tool tells hosts it cannot, and\n" +
			"they may skip the confirmation the user relies on. Leaving the hint at its default (true) is fine.\n\n" +
			"**How to fix:** remove `destructiveHint: false` from tools that delete.\n\n" + mcpmap.MappingHelp,
		Needs:   checks.NeedsMCP,
		FiredBy: deleteCase,
	}
}

func (c ParityDeleteNotDestructive) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	return judge(ctx, in, c.Meta(), parity(ruleDeleteNotDestructive))
}

// ParityIdempotent reports a tool of a PUT or DELETE operation without idempotentHint.
type ParityIdempotent struct{}

func (ParityIdempotent) Meta() checks.Meta {
	return checks.Meta{
		ID: "mcp-parity-idempotent", Family: checks.FamilyMCP,
		Documents: checks.DocOpenAPI | checks.DocMCPTools,
		Since:     checks.FirstRelease,
		Title:     "Tools of PUT and DELETE operations say idempotentHint: true",
		Severity:  finding.SeverityInfo,
		SpecRefs:  []finding.SpecRef{annotationsRef, {Doc: "RFC 9110", Section: "9.2.2 Idempotent Methods", Level: "definition", URL: "https://www.rfc-editor.org/rfc/rfc9110#section-9.2.2"}},
		Help: "PUT and DELETE are idempotent in HTTP: repeating them has no further effect. Saying so with\n" +
			"`idempotentHint: true` tells agents they may retry after a timeout instead of checking state first.\n\n" +
			"**How to fix:** set `idempotentHint: true` on those tools.\n\n" + mcpmap.MappingHelp,
		Needs:   checks.NeedsMCP,
		FiredBy: deleteCase,
	}
}

func (c ParityIdempotent) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	return judge(ctx, in, c.Meta(), parity(ruleIdempotent))
}

// ParityDescription reports a tool description that contradicts the operation's
// summary.
type ParityDescription struct{}

func (ParityDescription) Meta() checks.Meta {
	return checks.Meta{
		ID: "mcp-parity-description", Family: checks.FamilyMCP,
		Documents: checks.DocOpenAPI | checks.DocMCPTools,
		Since:     checks.FirstRelease,
		Title:     "Tool descriptions agree with the operation's summary",
		Severity:  finding.SeverityInfo,
		SpecRefs:  []finding.SpecRef{toolsRef, operationRef},
		Help: "When the tool's description starts with a reading verb (get, list, find) and the operation's\n" +
			"summary with a writing one (create, cancel, delete), or the reverse, one of them is wrong, and\n" +
			"the model reads the tool's.\n\n" +
			"**How to fix:** derive the description from the summary.\n\n" + mcpmap.MappingHelp,
		Needs: checks.NeedsMCP,
	}
}

func (c ParityDescription) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	return judge(ctx, in, c.Meta(), parity(ruleDescription))
}

// ParityOutputSchema reports a tool whose outputSchema disagrees with the
// 2xx response schema of its operation.
type ParityOutputSchema struct{}

func (ParityOutputSchema) Meta() checks.Meta {
	return checks.Meta{
		ID: "mcp-parity-output-schema", Family: checks.FamilyMCP,
		Documents: checks.DocOpenAPI | checks.DocMCPTools,
		Since:     checks.FirstRelease,
		Title:     "A tool's outputSchema agrees with its operation's 2xx response schema",
		Severity:  finding.SeverityWarning,
		SpecRefs:  []finding.SpecRef{mcpRef(mcp.Legacy, "server/tools §Output Schema", "MUST", "server/tools"), responsesRef},
		Help: "When a tool declares an `outputSchema`, servers MUST return structured results that conform\n" +
			"to it, and clients validate them against it. A tool that projects an operation returns what\n" +
			"the operation answers, so the two schemas must agree: a root of another type, a property the\n" +
			"response does not declare (when the response lists its properties), a property whose type\n" +
			"differs, or a property the response requires that the `outputSchema` forbids\n" +
			"(`additionalProperties: false`) means results that fail the client's validation, or a schema\n" +
			"that describes something the API never sends. The scanner compares with the JSON schema of\n" +
			"the operation's first 2xx response (by code, then media type); `integer` and `number` are\n" +
			"compatible, and properties the `outputSchema` leaves out are not reported.\n\n" +
			"**How to fix:** derive the `outputSchema` from the response schema, or drop it.\n\n" + mcpmap.MappingHelp,
		FiredBy: "outputSchema disagrees with the 2xx response",
		Needs:   checks.NeedsMCP,
	}
}

func (c ParityOutputSchema) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	return judge(ctx, in, c.Meta(), parityOn("outputSchema", ruleOutputSchema))
}

// ParityUnmappedTool reports a tool that projects no declared operation.
type ParityUnmappedTool struct{}

func (ParityUnmappedTool) Meta() checks.Meta {
	return checks.Meta{
		ID: "mcp-parity-unmapped-tool", Family: checks.FamilyMCP,
		Documents: checks.DocOpenAPI | checks.DocMCPTools,
		Since:     checks.FirstRelease,
		Title:     "Every tool projects a declared operation",
		Severity:  finding.SeverityWarning,
		SpecRefs:  []finding.SpecRef{operationRef, toolsRef},
		Help: "A tool that maps to no operation of the OpenAPI document is a verb outside the declared\n" +
			"surface: it is not reviewed with the API, not covered by its security requirements, and drifts\n" +
			"on its own.\n\n" +
			"**How to fix:** name the operation (operationId, `x-mcp-tool` or the tool's `_meta`), or declare it.\n\n" + mcpmap.MappingHelp,
		Needs: checks.NeedsMCP,
	}
}

func (c ParityUnmappedTool) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	return judge(ctx, in, c.Meta(), runUnmappedTool)
}

// ParityMissingTool reports an agent-facing operation without a tool.
type ParityMissingTool struct{}

func (ParityMissingTool) Meta() checks.Meta {
	return checks.Meta{
		ID: "mcp-parity-missing-tool", Family: checks.FamilyMCP,
		Documents: checks.DocOpenAPI | checks.DocMCPTools,
		Since:     checks.FirstRelease,
		Title:     "Agent-facing operations have a tool",
		Severity:  finding.SeverityInfo,
		SpecRefs:  []finding.SpecRef{operationRef, toolsRef},
		Help: "An operation with `x-hal-rel` is meant for agents: hypermedia clients reach it by relation.\n" +
			"Without a tool, MCP clients cannot reach it at all. The catalog may rightly differ per\n" +
			"caller: an operation the scanned caller may not call (by its OpenAPI security requirement or\n" +
			"the configuration's `access` mapping) is not judged, and the check says so in its observations.\n\n" +
			"**How to fix:** project the operation as a tool, or say in the description why it is not.\n\n" + mcpmap.MappingHelp,
		Needs: checks.NeedsMCP,
	}
}

func (c ParityMissingTool) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	return judge(ctx, in, c.Meta(), runMissingTool)
}

// pair is a tool and the operation it maps to.
type pair struct {
	listing *mcp.Listing
	tool    *mcp.Tool
	op      *spec.Operation
	how     string
	// usable is set when the tool's inputSchema can be read; a broken one
	// is reported by mcp-tool-input-schema alone.
	usable bool
}

// pairRule is what one parity check finds wrong with a tool and its operation.
type pairRule func(p pair) []string

// parity adapts a per-pair rule about the tool's arguments to a check run.
func parity(r pairRule) snapshotRule { return parityOn("inputSchema", r) }

// parityOn adapts a per-pair rule to a check run, its evidence pointing at
// member of the tool.
func parityOn(member string, r pairRule) snapshotRule {
	return func(m checks.Meta, in *checks.Input, s *mcp.Snapshot) ([]finding.Finding, error) {
		pairs, _, err := mapped(in, s)
		if err != nil {
			return nil, err
		}
		var out []finding.Finding
		for _, p := range pairs {
			for _, msg := range r(p) {
				f := checks.New(m, p.tool.Name+"|"+p.op.Key()+"|"+msg, fmt.Sprintf("%s (%s, mapped by %s): %s", toolLabel(p.tool), p.op.Key(), p.how, msg),
					mcpmap.ToolEvidence(p.listing, p.tool, member))
				if p.op.Location.File != "" {
					loc := p.op.Location
					f.Location = &loc
				}
				out = append(out, f)
			}
		}
		return out, nil
	}
}

// toolPairing is the tools paired with operations, and the operations no tool
// maps to.
type toolPairing struct {
	pairs    []pair
	unmapped []*spec.Operation
}

var parityKey = checks.NewKey[toolPairing]()

// mapped pairs tools with operations, and also returns the operations no
// tool maps to.
func mapped(in *checks.Input, s *mcp.Snapshot) ([]pair, []*spec.Operation, error) {
	if err := in.NeedSpec(); err != nil {
		return nil, nil, err
	}
	if len(in.Spec.Operations) == 0 {
		return nil, nil, checks.Skip("the OpenAPI document declares no operation")
	}
	l, err := firstListing(s)
	if err != nil {
		return nil, nil, err
	}
	r := checks.Memo(in, parityKey, func() toolPairing {
		var res toolPairing
		used := map[*spec.Operation]bool{}
		for i := range l.Tools {
			t := &l.Tools[i]
			if op, how := mcpmap.OperationFor(in.Spec, t); op != nil {
				res.pairs = append(res.pairs, pair{listing: l, tool: t, op: op, how: how, usable: inputSchemaProblem(t.InputSchema) == ""})
				used[op] = true
			}
		}
		for _, op := range in.Spec.Operations {
			if !used[op] {
				res.unmapped = append(res.unmapped, op)
			}
		}
		return res
	})
	return r.pairs, r.unmapped, nil
}

// field is an argument on either side.
type field struct {
	name     string
	in       string // path, query, header, cookie, body
	required bool
	schema   map[string]any
}

// operationFields lists an operation's parameters and JSON body fields. open
// is set when the body accepts members it does not list.
func operationFields(op *spec.Operation) (fields []field, open bool) {
	for _, p := range op.Parameters {
		fields = append(fields, field{name: p.Name, in: p.In, required: p.Required || p.In == "path", schema: p.Schema})
	}
	body := bodySchema(op)
	if body == nil {
		return fields, false
	}
	props, _ := body["properties"].(map[string]any)
	if len(props) == 0 {
		return fields, true
	}
	req := requiredSet(body)
	for _, name := range slices.Sorted(maps.Keys(props)) {
		sch, _ := props[name].(map[string]any)
		fields = append(fields, field{name: name, in: "body", required: op.RequestBodyRequired && req[name], schema: sch})
	}
	return fields, false
}

func bodySchema(op *spec.Operation) map[string]any {
	types := slices.Sorted(maps.Keys(op.RequestBody))
	for _, mt := range types {
		if mt == "application/json" || strings.HasSuffix(mt, "+json") {
			sch, _ := op.RequestBody[mt].(map[string]any)
			return sch
		}
	}
	return nil
}

// toolFields lists a tool's arguments; a "body" or "requestBody" object
// property is read as the operation's body.
func toolFields(t *mcp.Tool, hasBody bool) []field {
	var root map[string]any
	if json.Unmarshal(t.InputSchema, &root) != nil {
		return nil
	}
	props, _ := root["properties"].(map[string]any)
	req := requiredSet(root)
	var out []field
	for _, name := range slices.Sorted(maps.Keys(props)) {
		sch, _ := props[name].(map[string]any)
		if hasBody && (name == "body" || name == "requestBody") && typeSet(sch)["object"] {
			inner, _ := sch["properties"].(map[string]any)
			innerReq := requiredSet(sch)
			for _, n := range slices.Sorted(maps.Keys(inner)) {
				s, _ := inner[n].(map[string]any)
				out = append(out, field{name: n, in: "body", required: req[name] && innerReq[n], schema: s})
			}
			continue
		}
		out = append(out, field{name: name, required: req[name], schema: sch})
	}
	return out
}

func requiredSet(schema map[string]any) map[string]bool {
	out := map[string]bool{}
	if req, ok := schema["required"].([]any); ok {
		for _, r := range req {
			if s, ok := r.(string); ok {
				out[s] = true
			}
		}
	}
	return out
}

func fieldIndex(fs []field) map[string]field {
	out := make(map[string]field, len(fs))
	for _, f := range fs {
		if _, dup := out[f.name]; !dup {
			out[f.name] = f
		}
	}
	return out
}

func sides(p pair) (tool, op map[string]field, open bool) {
	opFields, open := operationFields(p.op)
	return fieldIndex(toolFields(p.tool, bodySchema(p.op) != nil)), fieldIndex(opFields), open
}

func ruleUnknownProperty(p pair) []string {
	if !p.usable {
		return nil
	}
	tool, op, open := sides(p)
	var out []string
	for _, name := range slices.Sorted(maps.Keys(tool)) {
		if _, ok := op[name]; !ok && !open {
			out = append(out, fmt.Sprintf("argument %q is neither a parameter nor a body field of the operation", name))
		}
	}
	return out
}

func ruleMissingParameter(p pair) []string {
	if !p.usable {
		return nil
	}
	tool, op, _ := sides(p)
	var out []string
	for _, name := range slices.Sorted(maps.Keys(op)) {
		f := op[name]
		if _, ok := tool[name]; !ok && f.required && f.in != "cookie" {
			out = append(out, fmt.Sprintf("required %s %s %q is not an argument of the tool", f.in, kind(f), name))
		}
	}
	return out
}

func kind(f field) string {
	if f.in == "body" {
		return "field"
	}
	return "parameter"
}

func ruleType(p pair) []string {
	if !p.usable {
		return nil
	}
	tool, op, _ := sides(p)
	var out []string
	for _, name := range slices.Sorted(maps.Keys(tool)) {
		o, ok := op[name]
		if !ok {
			continue
		}
		tt, ot := typeSet(tool[name].schema), typeSet(o.schema)
		if len(tt) == 0 || len(ot) == 0 || compatible(tt, ot) {
			continue
		}
		out = append(out, fmt.Sprintf("argument %q is %s in the tool and %s in the operation", name, typeList(tt), typeList(ot)))
	}
	return out
}

func typeSet(schema map[string]any) map[string]bool {
	out := map[string]bool{}
	switch t := schema["type"].(type) {
	case string:
		out[t] = true
	case []any:
		for _, x := range t {
			if s, ok := x.(string); ok {
				out[s] = true
			}
		}
	}
	return out
}

func compatible(a, b map[string]bool) bool {
	norm := func(t string) string {
		if t == "integer" {
			return "number"
		}
		return t
	}
	for x := range a {
		for y := range b {
			if norm(x) == norm(y) {
				return true
			}
		}
	}
	return false
}

func typeList(s map[string]bool) string { return strings.Join(slices.Sorted(maps.Keys(s)), "|") }

func ruleRequired(p pair) []string {
	if !p.usable {
		return nil
	}
	tool, op, _ := sides(p)
	var out []string
	for _, name := range slices.Sorted(maps.Keys(tool)) {
		o, ok := op[name]
		if !ok || o.in == "cookie" || tool[name].required == o.required {
			continue
		}
		if o.required {
			out = append(out, fmt.Sprintf("argument %q is required by the operation and optional in the tool", name))
		} else {
			out = append(out, fmt.Sprintf("argument %q is required by the tool and optional in the operation", name))
		}
	}
	return out
}

func ruleReadOnlyUnsafe(p pair) []string {
	if p.tool.ReadOnly() && p.op.Method != "GET" && p.op.Method != "HEAD" {
		return []string{fmt.Sprintf("readOnlyHint is true on a %s operation; hosts auto-approve read-only tools", p.op.Method)}
	}
	return nil
}

func ruleGetNotReadOnly(p pair) []string {
	if (p.op.Method == "GET" || p.op.Method == "HEAD") && !p.tool.ReadOnly() {
		return []string{fmt.Sprintf("the operation is %s but readOnlyHint is not true, so MCP's defaults presume the tool destructive and open-world", p.op.Method)}
	}
	return nil
}

func ruleDeleteNotDestructive(p pair) []string {
	a := p.tool.Annotations
	if p.op.Method == "DELETE" && a != nil && a.DestructiveHint != nil && !*a.DestructiveHint {
		return []string{"destructiveHint is false on a DELETE operation"}
	}
	return nil
}

func ruleIdempotent(p pair) []string {
	if (p.op.Method == "PUT" || p.op.Method == "DELETE") && !p.tool.Idempotent() {
		return []string{fmt.Sprintf("the operation is %s, idempotent in HTTP, but idempotentHint is not true", p.op.Method)}
	}
	return nil
}

var (
	readVerbs  = regexp.MustCompile(`^(get|gets|list|lists|find|finds|fetch|fetches|read|reads|search|searches|show|shows|retrieve|retrieves|view|views|look)$`)
	writeVerbs = regexp.MustCompile(`^(create|creates|add|adds|update|updates|set|sets|delete|deletes|remove|removes|cancel|cancels|pay|pays|ship|ships|submit|submits|confirm|confirms|modify|modifies|replace|replaces|post|posts)$`)
)

func verbClass(s string) string {
	w := strings.Fields(strings.ToLower(s))
	if len(w) == 0 {
		return ""
	}
	verb := strings.Trim(w[0], ".,:;!")
	switch {
	case readVerbs.MatchString(verb):
		return "read"
	case writeVerbs.MatchString(verb):
		return "write"
	}
	return ""
}

func ruleDescription(p pair) []string {
	summary := p.op.Summary
	if summary == "" {
		return nil
	}
	dc, sc := verbClass(p.tool.Description), verbClass(summary)
	if dc == "" || sc == "" || dc == sc {
		return nil
	}
	return []string{fmt.Sprintf("the description %q reads as a %s while the operation's summary %q reads as a %s",
		sanitize.Truncate(p.tool.Description, 60), dc, sanitize.Truncate(summary, 60), sc)}
}

func runUnmappedTool(m checks.Meta, in *checks.Input, s *mcp.Snapshot) ([]finding.Finding, error) {
	pairs, _, err := mapped(in, s)
	if err != nil {
		return nil, err
	}
	l := &s.Listings[0]
	isMapped := map[*mcp.Tool]bool{}
	for _, p := range pairs {
		isMapped[p.tool] = true
	}
	var out []finding.Finding
	for i := range l.Tools {
		t := &l.Tools[i]
		if !isMapped[t] && t.NameValid {
			out = append(out, checks.New(m, t.Name, toolLabel(t)+" maps to no operation of the OpenAPI document: a verb outside the declared surface",
				mcpmap.ToolEvidence(l, t, "name")))
		}
	}
	return out, nil
}

func runMissingTool(m checks.Meta, in *checks.Input, s *mcp.Snapshot) ([]finding.Finding, error) {
	_, unmapped, err := mapped(in, s)
	if err != nil {
		return nil, err
	}
	l := &s.Listings[0]
	var out []finding.Finding
	for _, op := range unmapped {
		if len(op.HALRels) == 0 || !in.JudgesAbsence(m.ID, op) {
			continue
		}
		ev := mcpmap.ListingEvidence(l)
		ev.Expected = "a tool named " + op.OperationID
		f := checks.New(m, op.Key(), fmt.Sprintf("%s (operationId %q, x-hal-rel %s) is agent-facing but no tool maps to it",
			op.Key(), op.OperationID, strings.Join(op.HALRels, ", ")), ev)
		if op.Location.File != "" {
			loc := op.Location
			f.Location = &loc
		}
		out = append(out, f)
	}
	return out, nil
}

// successSchema is the JSON schema of the operation's first 2xx response,
// by code ("2XX" after the explicit ones) then media type, with where it
// was found; nil when the operation declares none.
func successSchema(op *spec.Operation) (map[string]any, string) {
	for _, code := range slices.Sorted(maps.Keys(op.Responses)) {
		if len(code) != 3 || code[0] != '2' {
			continue
		}
		content := op.Responses[code].Content
		for _, mt := range slices.Sorted(maps.Keys(content)) {
			if sch := content[mt]; sch != nil && (mt == "application/json" || strings.HasSuffix(mt, "+json")) {
				return sch, code + " " + mt
			}
		}
	}
	return nil, ""
}

func ruleOutputSchema(p pair) []string {
	if len(p.tool.OutputSchema) == 0 || compileSchema(p.tool.OutputSchema) != nil {
		// An absent schema promises nothing; a broken one is reported by
		// mcp-tool-output-schema alone.
		return nil
	}
	var out map[string]any
	if json.Unmarshal(p.tool.OutputSchema, &out) != nil || out == nil {
		return nil
	}
	resp, where := successSchema(p.op)
	if resp == nil {
		return nil
	}
	if ot, rt := typeSet(out), typeSet(resp); len(ot) > 0 && len(rt) > 0 && !compatible(ot, rt) {
		return []string{fmt.Sprintf("the outputSchema's root is %s and the %s response's is %s", typeList(ot), where, typeList(rt))}
	}
	outProps, _ := out["properties"].(map[string]any)
	respProps, _ := resp["properties"].(map[string]any)
	var msgs []string
	for _, name := range slices.Sorted(maps.Keys(outProps)) {
		rs, declared := respProps[name]
		if !declared {
			if len(respProps) > 0 {
				msgs = append(msgs, fmt.Sprintf("outputSchema property %q is not a property of the %s response", name, where))
			}
			continue
		}
		os, _ := outProps[name].(map[string]any)
		rsm, _ := rs.(map[string]any)
		if ot, rt := typeSet(os), typeSet(rsm); len(ot) > 0 && len(rt) > 0 && !compatible(ot, rt) {
			msgs = append(msgs, fmt.Sprintf("property %q is %s in the outputSchema and %s in the %s response", name, typeList(ot), typeList(rt), where))
		}
	}
	if open, isBool := out["additionalProperties"].(bool); isBool && !open {
		for _, name := range slices.Sorted(maps.Keys(requiredSet(resp))) {
			if _, ok := outProps[name]; !ok {
				msgs = append(msgs, fmt.Sprintf("the %s response requires %q, which the outputSchema forbids (additionalProperties: false)", where, name))
			}
		}
	}
	return msgs
}
