package finding

import "encoding/json"

// MCPInfo is what the report says about the app's MCP face: the revision
// verdict with its reasoning, and the tool catalog with a fingerprint per tool
// and for the whole catalog, so that a later scan or a baseline can tell
// what changed. It mirrors the mcp package's snapshot without importing it.
type MCPInfo struct {
	Endpoint string `json:"endpoint"`
	Source   string `json:"source"`
	Identity string `json:"identity,omitempty"`
	// Era is "modern", "legacy", "none" or "" when it could not be determined.
	Era               string    `json:"era"`
	Version           string    `json:"version,omitempty"`
	SupportedVersions []string  `json:"supportedVersions,omitempty"`
	FellBack          bool      `json:"fellBack,omitempty"`
	Refused           string    `json:"refused,omitempty"`
	Reason            string    `json:"reason"`
	Steps             []MCPStep `json:"steps"`
	// Tools are listed in server order.
	Tools              []MCPTool     `json:"tools,omitempty"`
	CatalogFingerprint string        `json:"catalogFingerprint,omitempty"`
	Tokens             int           `json:"tokens,omitempty"`
	Tokenizer          string        `json:"tokenizer,omitempty"`
	Others             []MCPEndpoint `json:"otherEndpoints,omitempty"`
	Notes              []string      `json:"notes,omitempty"`
	// Identities are the catalogs listed as each less privileged identity,
	// least privileged first, when the scan ran as several.
	Identities []MCPIdentity `json:"identities,omitempty"`
	// ToolsList is the tool definitions as the first tools/list walk
	// returned them, in one {"tools": [...]} object: set only by
	// `agentready mcp --format json`, whose output `agentready lint
	// --mcp-tools` reads; a scan's report leaves it out.
	ToolsList json.RawMessage `json:"toolsList,omitempty"`
}

// MCPIdentity is what the endpoint listed to one less privileged identity.
type MCPIdentity struct {
	Identity string `json:"identity"`
	// Era is as in MCPInfo; empty when the endpoint refused the identity.
	Era string `json:"era"`
	// Refused says why the revision was not determined, RefusedStatus the
	// HTTP status behind it (401 and 403 are answers, not failures).
	Refused       string `json:"refused,omitempty"`
	RefusedStatus int    `json:"refusedStatus,omitempty"`
	// Tools are the names listed, in server order.
	Tools              []string `json:"tools"`
	CatalogFingerprint string   `json:"catalogFingerprint,omitempty"`
	// Problem says why tools/list stopped early or failed.
	Problem string `json:"problem,omitempty"`
}

// MCPStep is one request of the revision decision and what it meant.
type MCPStep struct {
	Method  string `json:"method"`
	Status  int    `json:"status,omitempty"`
	RPCCode int    `json:"rpcCode,omitempty"`
	Error   string `json:"error,omitempty"`
	Meaning string `json:"meaning"`
	Why     string `json:"why"`
}

// MCPTool is one tool of the catalog.
type MCPTool struct {
	Name        string   `json:"name"`
	Title       string   `json:"title,omitempty"`
	ReadOnly    bool     `json:"readOnly"`
	Destructive bool     `json:"destructive"`
	Idempotent  bool     `json:"idempotent"`
	OpenWorld   bool     `json:"openWorld"`
	Hints       []string `json:"hints,omitempty"`
	Schema      string   `json:"schema"`
	Fingerprint string   `json:"fingerprint"`
	Tokens      int      `json:"tokens"`
}

// MCPEndpoint is another MCP endpoint of the same app and its revision.
type MCPEndpoint struct {
	Endpoint string `json:"endpoint"`
	Source   string `json:"source"`
	Era      string `json:"era"`
	Version  string `json:"version,omitempty"`
	Reason   string `json:"reason"`
}
