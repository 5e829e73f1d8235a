package finding

import "encoding/json"

// Snapshot is the agent surface a scan saw, kept in the report so that a
// later scan given this report as its baseline can tell what changed: the
// drift family compares the two, and `agentready report diff` shows it.
// Each part is nil when the scan did not see it (no MCP endpoint answered a
// complete tool listing, no OpenAPI document, ...): a part missing on
// either side is not compared, so that a scan that saw less never reports
// everything as removed. Maps are keyed by what agents call things by, so
// that a JSON pointer into the snapshot names the same item in both.
type Snapshot struct {
	MCP        *SnapshotMCP        `json:"mcp,omitempty"`
	OpenAPI    *SnapshotOpenAPI    `json:"openapi,omitempty"`
	Hypermedia *SnapshotHypermedia `json:"hypermedia,omitempty"`
	AgentCard  *SnapshotAgentCard  `json:"agentCard,omitempty"`
	LLMs       *SnapshotLLMs       `json:"llms,omitempty"`
}

// SnapshotMCP is the tool catalog of the first complete tools/list walk.
type SnapshotMCP struct {
	Endpoint string `json:"endpoint"`
	// Tools are keyed by name.
	Tools map[string]SnapshotTool `json:"tools"`
	// OutputSchemas is set when Tools record each tool's outputSchema.
	// Snapshots written by earlier releases did not: there a tool without
	// one is not known to have none, and outputs are not compared.
	OutputSchemas bool `json:"outputSchemas,omitempty"`
	// Prompts (keyed by name) and Resources (keyed by URI, a template by
	// its URI template) are nil when prompts/list or resources/list was not
	// answered in full, or the snapshot predates them: unknown, which is
	// never compared, as opposed to an empty listing.
	Prompts   map[string]SnapshotPrompt   `json:"prompts,omitzero"`
	Resources map[string]SnapshotResource `json:"resources,omitzero"`
}

// SnapshotPrompt is one prompt of prompts/list.
type SnapshotPrompt struct {
	// Fingerprint changes when anything of the entry does (name, title,
	// description, arguments).
	Fingerprint string `json:"fingerprint"`
	// Arguments maps each argument's name to whether it is required.
	Arguments map[string]bool `json:"arguments"`
}

// SnapshotResource is one resource, or resource template, an MCP server
// lists.
type SnapshotResource struct {
	// Fingerprint changes when anything of the entry does.
	Fingerprint string `json:"fingerprint"`
	Template    bool   `json:"template,omitempty"`
	MimeType    string `json:"mimeType,omitempty"`
}

// SnapshotTool is one tool as an agent was built against it.
type SnapshotTool struct {
	// Fingerprint is the tool's (MCPTool.Fingerprint): it changes when its
	// name, description, input schema or annotations do.
	Fingerprint string `json:"fingerprint"`
	// InputSchema is canonical JSON (sorted keys, no insignificant space);
	// absent when the tool declares none.
	InputSchema json.RawMessage `json:"inputSchema,omitempty"`
	// Annotations are the hints as declared: an absent hint is not false.
	Annotations *ToolAnnotations `json:"annotations,omitempty"`
	// OutputSchema is canonical JSON, absent when the tool declares none
	// (see SnapshotMCP.OutputSchemas).
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
}

// ToolAnnotations are an MCP tool's hints, each tri-state.
type ToolAnnotations struct {
	Title           string `json:"title,omitempty"`
	ReadOnlyHint    *bool  `json:"readOnlyHint,omitempty"`
	DestructiveHint *bool  `json:"destructiveHint,omitempty"`
	IdempotentHint  *bool  `json:"idempotentHint,omitempty"`
	OpenWorldHint   *bool  `json:"openWorldHint,omitempty"`
}

// ReadOnly is the effective readOnlyHint: false unless declared true.
func (a *ToolAnnotations) ReadOnly() bool {
	return a != nil && a.ReadOnlyHint != nil && *a.ReadOnlyHint
}

// Destructive is the effective destructiveHint: true unless declared false.
func (a *ToolAnnotations) Destructive() bool {
	return a == nil || a.DestructiveHint == nil || *a.DestructiveHint
}

// SnapshotOpenAPI is the operations of the OpenAPI document.
type SnapshotOpenAPI struct {
	Source string `json:"source"`
	// Operations are keyed by "METHOD /path/template".
	Operations map[string]SnapshotOperation `json:"operations"`
}

// SnapshotOperation is one operation: what a client generated from the
// document, or an agent planning from it, relies on.
type SnapshotOperation struct {
	OperationID string `json:"operationId,omitempty"`
	// InputSchema gathers the parameters and the JSON request body as one
	// JSON Schema object, so that operations and tools are compared alike:
	// a property per parameter, named "in:name" (path:id, query:page), and
	// "body" for the request body; required lists the required ones.
	InputSchema json.RawMessage `json:"inputSchema"`
	// HALRels is x-hal-rel, sorted.
	HALRels []string `json:"halRels,omitempty"`
	// Responses are keyed by status as written ("200", "4XX", "default").
	// Nil when the snapshot predates them or the document was too large to
	// record every response: unknown, which is never compared.
	Responses map[string]SnapshotResponse `json:"responses,omitzero"`
}

// SnapshotResponse is one declared response of an operation: what a client
// reads.
type SnapshotResponse struct {
	// MediaTypes are the declared media types, sorted.
	MediaTypes []string `json:"mediaTypes"`
	// Schema is the JSON body's schema (application/json, else the first
	// JSON media type by name), cut as the input schema is; absent when no
	// JSON body is declared.
	Schema json.RawMessage `json:"schema,omitempty"`
	// ProblemTypes are the problem type URIs an error response's
	// application/problem+json schema pins its type member to (by const or
	// enum, through allOf, or in every member of a oneOf or anyOf), sorted.
	// Schema is recorded without them when it is that schema, so that a
	// type dropped is one change, of the problem types.
	ProblemTypes []string `json:"problemTypes,omitempty"`
}

// SnapshotHypermedia is what the crawled HAL resources offered in _links,
// pagination relations (first, prev, next, last) aside: they come and go
// with the page.
type SnapshotHypermedia struct {
	// Offered maps a path shape (/orders/{id}) to the link relations any
	// of its resources offered, sorted.
	Offered map[string][]string `json:"offered"`
	// Always maps a path shape to the relations every resource of it the
	// scan fetched offered, sorted: the ones that do not depend on the
	// resource's state, whose disappearance a later scan can judge.
	Always map[string][]string `json:"always"`
}

// SnapshotAgentCard is the A2A agent card's skills.
type SnapshotAgentCard struct {
	URL string `json:"url"`
	// Skills are keyed by id (by name when a skill has no id).
	Skills map[string]SnapshotSkill `json:"skills"`
}

// SnapshotSkill is one skill of the agent card.
type SnapshotSkill struct {
	Name string `json:"name,omitempty"`
}

// SnapshotLLMs is the file lists of llms.txt.
type SnapshotLLMs struct {
	URL string `json:"url"`
	// Entries map each link's name to its URL, as written (paths of the
	// scanned origin are kept as paths).
	Entries map[string]string `json:"entries"`
}
