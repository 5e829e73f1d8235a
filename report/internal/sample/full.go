package sample

import (
	"github.com/agentready/agentready/internal/finding"
)

// Full returns the sample report with every top-level field filled, each
// section with a little of everything it can hold: the report every format
// is asked to show section by section (report's TestEachSectionShowsWhereItSays).
// A new field of finding.Report is filled here too.
func Full() *finding.Report {
	r := Report()
	r.TLSUnverified = true
	tokens, choices, invalid, perStep, stable := 1840, 4.0, 2.0, 35.5, true
	r.States = []finding.StateMatrix{{
		Kind: "/items/{id}", Member: "status", Resources: 4, States: []string{"draft", "published"},
		Controls: []finding.StateControl{
			{Type: "link", Name: "item:publish", OfferedIn: []string{"draft"}},
			{Type: "template", Name: "archive", OfferedIn: []string{"draft", "published"}},
		},
	}}
	r.Interfaces = &finding.Interfaces{Tokenizer: "o200k_base", Catalog: "openapi", Resources: 4,
		Entries: []finding.InterfaceCost{
			{Interface: finding.InterfaceStatic, Offered: true, UpfrontTokens: &tokens, ChoicesPerStep: &choices, InvalidChoicesPerStep: &invalid, CacheStablePrefix: &stable},
			{Interface: finding.InterfaceReferenced, Offered: true, UpfrontTokens: &tokens, PerStepTokens: &perStep, ChoicesPerStep: &invalid, CacheStablePrefix: &stable},
			{Interface: finding.InterfaceDynamic, Reason: "no HAL-FORMS _templates were discovered"},
		},
		Kinds: []finding.InterfaceKind{{Kind: "/items/{id}", State: "draft", Resources: 2}},
	}
	r.Trials = &finding.Trials{Reset: "restart", Tokenizer: "o200k_base",
		Players: []finding.TrialPlayer{
			{Player: "A", Interface: finding.InterfaceStatic, Tasks: 2, Completed: 2, Requests: 6, Tokens: 2920},
			{Player: "B", Interface: finding.InterfaceReferenced, Tasks: 1, Requests: 3, Refused: 1, Tokens: 210},
			{Player: "C", Interface: finding.InterfaceDynamic, Tasks: 2, Completed: 1, WrongState: 1, Requests: 6, Tokens: 370},
		},
		Tasks: []finding.TrialTask{{ID: 1, Kind: "/items/{id}", State: "draft", Operation: "publishItem", Target: "published", Resource: "https://api.example.com/items/1",
			Runs: []finding.TrialRunInfo{
				{Player: "A", Via: "mcp", Resource: "https://api.example.com/items/1", Outcome: "completed", Requests: 3, Tokens: 1450,
					Sent: []finding.TrialRequest{{ExchangeID: "x0101", Step: "call", Method: "POST", URL: "https://api.example.com/mcp", Status: 200}}},
				{Player: "B", Via: "http", Resource: "https://api.example.com/items/1", Outcome: "refused", Requests: 3, Refused: 1, Tokens: 210,
					Sent: []finding.TrialRequest{{ExchangeID: "x0102", Step: "call", Method: "POST", URL: "https://api.example.com/items/1/publication", Status: 409}}},
				{Player: "C", Via: "http", Resource: "https://api.example.com/items/1", Outcome: "wrong state", Requests: 3, Tokens: 180,
					Sent: []finding.TrialRequest{{ExchangeID: "x0103", Step: "call", Method: "POST", URL: "https://api.example.com/items/1/publication", Status: 200}}},
			}},
			{ID: 2, Kind: "/items", Operation: "createItem", Resource: "https://api.example.com/items",
				Runs: []finding.TrialRunInfo{
					{Player: "A", Via: "http", Resource: "https://api.example.com/items", Outcome: "completed", Requests: 3, Tokens: 1470,
						Created: "https://api.example.com/items/7", Cleanup: "cleaned",
						Sent: []finding.TrialRequest{{ExchangeID: "x0104", Step: "call", Method: "POST", URL: "https://api.example.com/items", Status: 201},
							{ExchangeID: "x0105", Step: "cleanup", Method: "DELETE", URL: "https://api.example.com/items/7", Status: 204},
							{ExchangeID: "x0106", Step: "cleanup-read", Method: "GET", URL: "https://api.example.com/items/7", Status: 404}}},
					{Player: "C", Via: "http", Resource: "https://api.example.com/items", Outcome: "completed", Requests: 3, Tokens: 190,
						Created: "https://api.example.com/items/8", Cleanup: "left", CleanupNote: "the DELETE was refused with 405",
						Sent: []finding.TrialRequest{{ExchangeID: "x0107", Step: "call", Method: "POST", URL: "https://api.example.com/items", Status: 201},
							{ExchangeID: "x0108", Step: "cleanup", Method: "DELETE", URL: "https://api.example.com/items/8", Status: 405},
							{ExchangeID: "x0109", Step: "cleanup-read", Method: "GET", URL: "https://api.example.com/items/8", Status: 200}}},
				}}},
		Created: 2, Cleaned: 1, Left: 1,
		LeftBehind: []finding.TrialLeftBehind{{URL: "https://api.example.com/items/8", Task: 2, Player: "C", Why: "the DELETE was refused with 405"}},
	}
	r.Surface = &finding.SurfaceMatrix{
		Projections: []finding.SurfaceProjection{{Name: "OpenAPI", Assessed: true}, {Name: "MCP tools", Reason: "no MCP endpoint was found or named"},
			{Name: "hypermedia", Assessed: true, PerCaller: true}},
		Rows: []finding.SurfaceRow{
			{Operation: "GET /items/{id}", InOpenAPI: true, Names: [][]string{{"getItem"}, nil, {"self"}}},
			{Operation: "POST /items/{id}/publish", InOpenAPI: true, Names: [][]string{{"publishItem"}, nil, nil}, NotForCaller: "needs the editor role"},
		},
	}
	r.MCP = &finding.MCPInfo{Endpoint: "https://api.example.com/mcp", Source: "Link rel=mcp", Era: "modern", Version: "2026-07-28",
		Reason: "DiscoverResult lists 2026-07-28",
		Steps:  []finding.MCPStep{{Method: "server/discover", Status: 200, Meaning: "modern", Why: "the first probe of every endpoint"}},
		Tools: []finding.MCPTool{{Name: "getItem", ReadOnly: true, Idempotent: true, Schema: `{"type":"object"}`,
			Fingerprint: "sha256:4f1c9e0d7a2b", Tokens: 42}},
		CatalogFingerprint: "sha256:9a8b7c6d5e4f", Tokens: 42, Tokenizer: "o200k_base"}
	r.Spec = &finding.SpecInfo{Source: "openapi.yaml", Version: "3.1.0", Operations: 4, Discovery: "--openapi"}
	r.Readiness = &finding.Readiness{
		Score:      finding.Score{PolicyVersion: "3", Value: 90, Grade: "A"},
		Deductions: 3, Deducted: 2, Operations: 4,
		Hotspots: []finding.Hotspot{
			{Operation: "POST /orders", Deductions: 2, Checks: []string{"openapi-hal-input-unconstrained", "openapi-hal-retry-unguarded"},
				Location: &finding.SourceLocation{File: "openapi.yaml", Line: 40, Pointer: "/paths/~1orders/post"}},
			{Operation: "GET /orders", Deductions: 1, Checks: []string{"openapi-hal-pagination-undeclared"},
				Location: &finding.SourceLocation{File: "openapi.yaml", Line: 12, Pointer: "/paths/~1orders/get/responses/200"}},
		},
	}
	r.Baseline = &finding.BaselineSummary{File: "agentready-baseline.json", New: 1, Existing: 8,
		Fixed: []finding.BaselineEntry{{Fingerprint: "b1e2", CheckID: "problem-json-type-uri", Severity: finding.SeverityWarning,
			Message: "problem type is not a URI", URL: "https://api.example.com/items/0"}}, Stale: true}
	ignored := r.Findings[len(r.Findings)-1]
	ignored.Suppression = &finding.Suppression{Reason: "the home page is HTML on purpose", Expires: "2026-12-31"}
	r.Ignored = []finding.Finding{ignored}
	r.App = &finding.AppInfo{Command: "./serve --port 8080", Ready: "https://api.example.com/healthz", Log: "app.log"}
	r.Active = &finding.ActiveInfo{Allow: []string{"POST /items/*/publish"}, Confirmed: "--yes",
		Sent: []finding.ActiveRequest{{ExchangeID: "x42", Identity: "editor", Purpose: "active/state-transition", Method: "POST",
			URL: "https://api.example.com/items/3/publish", Status: 200, Why: "publish moves a draft to published"}}}
	r.Snapshot = &finding.Snapshot{
		OpenAPI: &finding.SnapshotOpenAPI{Source: "openapi.yaml", Operations: map[string]finding.SnapshotOperation{
			"GET /items/{id}": {OperationID: "getItem", InputSchema: []byte(`{"type":"object"}`)}}},
		LLMs: &finding.SnapshotLLMs{URL: "https://api.example.com/llms.txt", Entries: map[string]string{"Items": "/items"}},
	}
	r.Shard = &finding.Shard{Index: 1, Total: 2}
	return r
}
