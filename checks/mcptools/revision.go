package mcptools

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/internal/mcpmap"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/mcp"
)

var versioningRef = mcpRef(mcp.Modern, "basic/versioning §Backward Compatibility", "SHOULD", "basic/versioning")

// RevisionUndetermined reports a probe failure that leaves the endpoint's
// revision unknown, on which the scanner does not fall back to initialize.
type RevisionUndetermined struct{}

func (RevisionUndetermined) Meta() checks.Meta {
	return checks.Meta{
		ID: "mcp-revision-undetermined", Family: checks.FamilyMCP,
		Since:    checks.FirstRelease,
		Title:    "The MCP endpoint answers a valid modern probe",
		Severity: finding.SeverityWarning,
		SpecRefs: []finding.SpecRef{versioningRef, mcpRef(mcp.Modern, "basic/transports/streamable-http §Backward Compatibility", "SHOULD", "basic/transports/streamable-http")},
		Help: "The scanner sends one fully valid `server/discover` request (every required header and\n" +
			"`_meta`). Only a JSON-RPC `-32601` or an HTTP 400, 404, 405, 406 or 501 shows a legacy server.\n" +
			"Any other failure (401, 403, 407, 429, another 4xx, a 5xx other than 501, a redirect, a network\n" +
			"or TLS error) says nothing about which revision the server speaks, so the scanner reports it\n" +
			"and does **not** fall back to the\n" +
			"legacy `initialize` handshake: anything able to make the probe fail could otherwise push\n" +
			"clients onto an older protocol (a downgrade). Clients that fall back on any error, as both Go\n" +
			"SDKs do, are exposed to exactly that.\n\n" +
			"Authentication statuses are reported as `info` (pass credentials with `-H`); server errors and\n" +
			"network failures as `warning`.\n\n" +
			"**How to fix:** answer `server/discover` (MCP 2026-07-28 requires it), or, for a legacy server,\n" +
			"answer it with a 400, 404 or 405, or a JSON-RPC `-32601` (Method not found); keep authentication\n" +
			"and rate limits for what they mean.",
		Needs: checks.NeedsMCP,
	}
}

func (c RevisionUndetermined) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	return judgeAnyVerdict(ctx, in, c.Meta(), runUndetermined)
}

// LegacyOnly reports an endpoint that speaks only the legacy revision.
type LegacyOnly struct{}

func (LegacyOnly) Meta() checks.Meta {
	return checks.Meta{
		ID: "mcp-legacy-only", Family: checks.FamilyMCP,
		Since:    checks.FirstRelease,
		Title:    "The MCP endpoint speaks the modern revision",
		Severity: finding.SeverityInfo,
		SpecRefs: []finding.SpecRef{versioningRef},
		Help: "MCP 2026-07-28 is stateless: no `initialize`, no sessions, version and capabilities in every\n" +
			"request's `_meta`, and a mandatory `server/discover`. A server that speaks only 2025-11-25 or\n" +
			"older still works, because dual-era clients fall back to `initialize`, but every new connection\n" +
			"pays a failed probe first, and sessions pin clients to one server instance.\n\n" +
			"**How to fix:** serve 2026-07-28 as well (the Go SDK: `StreamableHTTPOptions{Stateless: true}`,\n" +
			"which also answers legacy `initialize`).",
		Needs: checks.NeedsMCP,
	}
}

func (c LegacyOnly) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	return judge(ctx, in, c.Meta(), runLegacyOnly)
}

// RevisionDrift reports MCP endpoints of one app that speak different revisions.
type RevisionDrift struct{}

func (RevisionDrift) Meta() checks.Meta {
	return checks.Meta{
		ID: "mcp-revision-drift", Family: checks.FamilyMCP,
		Since:    checks.FirstRelease,
		Title:    "All MCP endpoints of the app speak the same revision",
		Severity: finding.SeverityWarning,
		SpecRefs: []finding.SpecRef{{Doc: "MCP 2026-07-28", Section: "basic/versioning (era is a property of the server, cached per origin)", Level: "SHOULD", URL: "https://modelcontextprotocol.io/specification/2026-07-28/basic/versioning"}},
		Help: "Clients cache the era of a server per origin. Two MCP endpoints on one app that speak\n" +
			"different revisions break that cache, and usually mean two implementations of one surface that\n" +
			"will drift apart: one gets a fix or a new tool, the other does not.\n\n" +
			"**How to fix:** serve every MCP endpoint from one implementation, or retire the old one.",
		Needs: checks.NeedsMCP,
	}
}

func (c RevisionDrift) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	return judgeAnyVerdict(ctx, in, c.Meta(), runDrift)
}

// ResultFields reports modern results without resultType, ttlMs or cacheScope.
type ResultFields struct{}

func (ResultFields) Meta() checks.Meta {
	return checks.Meta{
		ID: "mcp-result-fields", Family: checks.FamilyMCP,
		Since:    checks.FirstRelease,
		Title:    "Modern results carry resultType, ttlMs and cacheScope",
		Severity: finding.SeverityError,
		SpecRefs: []finding.SpecRef{
			mcpRef(mcp.Modern, "basic/index §Results", "MUST", "basic"),
			mcpRef(mcp.Modern, "server/utilities/caching", "MUST", "server/utilities/caching"),
		},
		Help: "In 2026-07-28 every result MUST carry `resultType` (`complete` or `input_required`), and the\n" +
			"results of `server/discover` and of the list methods MUST carry `ttlMs` (an integer ≥ 0) and\n" +
			"`cacheScope` (`public` or `private`). Clients use them to cache catalogs; without them every\n" +
			"agent re-lists tools on every turn, or caches them for ever.\n\n" +
			"**How to fix:** add the three members to every modern result (the official SDKs do).",
		Needs: checks.NeedsMCP,
	}
}

func (c ResultFields) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	return judge(ctx, in, c.Meta(), runResultFields)
}

// UnknownMethod reports a method the server lacks that is not answered with 404 and
// -32601.
type UnknownMethod struct{}

func (UnknownMethod) Meta() checks.Meta {
	return checks.Meta{
		ID: "mcp-unknown-method", Family: checks.FamilyMCP,
		Since:    checks.FirstRelease,
		Title:    "A modern server answers an unimplemented method with 404 and -32601",
		Severity: finding.SeverityError,
		SpecRefs: []finding.SpecRef{mcpRef(mcp.Modern, "basic/transports/streamable-http", "MUST", "basic/transports/streamable-http")},
		Help: "A 2026-07-28 server answers a method it does not implement with HTTP 404 and JSON-RPC\n" +
			"`-32601`. The pair is how a dual-era client tells a modern server from a legacy one; any other\n" +
			"combination makes clients mistake the server's era, or retry for nothing. The scanner sees it\n" +
			"on the read-only list methods (`prompts/list`, `resources/list`, `resources/templates/list`).\n\n" +
			"**How to fix:** return `404` with `{\"error\":{\"code\":-32601,...}}` for methods the server lacks.",
		Needs: checks.NeedsMCP,
	}
}

func (c UnknownMethod) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	return judge(ctx, in, c.Meta(), runUnknownMethod)
}

// LegacySession reports a legacy server that demands a session it never minted.
type LegacySession struct{}

func (LegacySession) Meta() checks.Meta {
	return checks.Meta{
		ID: "mcp-legacy-session", Family: checks.FamilyMCP,
		Since:    checks.FirstRelease,
		Title:    "A legacy server that needs a session mints one",
		Severity: finding.SeverityError,
		SpecRefs: []finding.SpecRef{mcpRef(mcp.Legacy, "basic/transports §Session Management", "MUST", "basic/transports")},
		Help: "In 2025-11-25 a server that uses sessions returns `Mcp-Session-Id` on the `initialize`\n" +
			"response, and the client echoes it. A server that mints no session and then refuses the next\n" +
			"request with 400 or 404 (\"no valid session ID\") cannot be used by any client.\n\n" +
			"**How to fix:** return `Mcp-Session-Id` with the InitializeResult, or stop requiring one.",
		Needs: checks.NeedsMCP,
	}
}

func (c LegacySession) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	return judge(ctx, in, c.Meta(), runLegacySession)
}

func runUndetermined(m checks.Meta, _ *checks.Input, s *mcp.Snapshot) ([]finding.Finding, error) {
	if s.Verdict.Refused == "" {
		return nil, nil
	}
	var last *mcp.Call
	for _, c := range s.Calls {
		if c.Method == "server/discover" || c.Method == "initialize" {
			last = c
		}
	}
	f := checks.New(m, "refused", fmt.Sprintf("%s: %s; the revision was not determined and the scanner did not fall back to initialize",
		s.Endpoint.URL, s.Verdict.Refused), mcpmap.CallEvidence(last))
	switch s.Verdict.RefusedStatus {
	case http.StatusUnauthorized, http.StatusForbidden, http.StatusProxyAuthRequired, http.StatusTooManyRequests:
		f.Severity = finding.SeverityInfo
	}
	return []finding.Finding{f}, nil
}

func runLegacyOnly(m checks.Meta, in *checks.Input, s *mcp.Snapshot) ([]finding.Finding, error) {
	speaks := s.Verdict.Version
	if len(s.Verdict.SupportedVersions) > 0 {
		speaks = strings.Join(s.Verdict.SupportedVersions, ", ")
	}
	in.Observe(m.ID, fmt.Sprintf("%s is %s and speaks %s (%s)", s.Endpoint.URL, s.Verdict.Era, speaks, s.Verdict.Reason))
	if s.Verdict.Era != mcp.EraLegacy {
		return nil, nil
	}
	discover := s.CallsTo("server/discover")
	var ev []finding.Finding
	if len(discover) > 0 {
		ev = append(ev, checks.New(m, "legacy", fmt.Sprintf("%s speaks only legacy MCP (negotiated %s); modern clients pay a failed server/discover first: %s",
			s.Endpoint.URL, s.Verdict.Version, s.Verdict.Reason), mcpmap.CallEvidence(discover[0])))
	}
	return ev, nil
}

func runDrift(m checks.Meta, _ *checks.Input, s *mcp.Snapshot) ([]finding.Finding, error) {
	if len(s.Others) == 0 {
		return nil, checks.Skip("only one MCP endpoint was found")
	}
	known := func(v mcp.Verdict) bool {
		return v.Refused == "" && (v.Era == mcp.EraModern || v.Era == mcp.EraLegacy)
	}
	if !known(s.Verdict) {
		return nil, checks.Skip("the revision of the first endpoint was not determined")
	}
	var out []finding.Finding
	for _, o := range s.Others {
		if !known(o.Verdict) || o.Verdict.Era == s.Verdict.Era {
			continue
		}
		var call *mcp.Call
		if len(o.Calls) > 0 {
			call = o.Calls[0]
		}
		out = append(out, checks.New(m, o.Endpoint.URL, fmt.Sprintf("%s (%s) is %s (%s) while %s (%s) is %s (%s)",
			s.Endpoint.URL, s.Endpoint.Source, s.Verdict.Era, s.Verdict.Version,
			o.Endpoint.URL, o.Endpoint.Source, o.Verdict.Era, o.Verdict.Version), mcpmap.CallEvidence(call)))
	}
	return out, nil
}

// cacheable are the methods whose modern results carry caching hints.
var cacheable = []string{"server/discover", "tools/list", "prompts/list", "resources/list", "resources/templates/list"}

func runResultFields(m checks.Meta, _ *checks.Input, s *mcp.Snapshot) ([]finding.Finding, error) {
	if s.Verdict.Era != mcp.EraModern {
		return nil, checks.Skip("the server is not modern; resultType and caching hints are 2026-07-28 rules")
	}
	var out []finding.Finding
	reported := map[string]bool{}
	for _, c := range s.Calls {
		if c.Era != mcp.EraModern || c.Message == nil || c.Message.Error != nil || len(c.Message.Result) == 0 {
			continue
		}
		problems := resultProblems(c.Method, c.Message.Result)
		if len(problems) == 0 || reported[c.Method] {
			continue
		}
		reported[c.Method] = true
		ev := mcpmap.CallEvidence(c)
		ev.JSONPointer = "/result"
		out = append(out, checks.New(m, c.Method, fmt.Sprintf("%s result %s", c.Method, strings.Join(problems, "; ")), ev))
	}
	return out, nil
}

func resultProblems(method string, result json.RawMessage) []string {
	var obj map[string]json.RawMessage
	if json.Unmarshal(result, &obj) != nil {
		return []string{"is not a JSON object"}
	}
	var out []string
	var rt string
	switch raw, ok := obj["resultType"]; {
	case !ok:
		out = append(out, "lacks resultType")
	case json.Unmarshal(raw, &rt) != nil || rt == "":
		out = append(out, "has a resultType that is not a string: "+string(raw))
	}
	if !slices.Contains(cacheable, method) || rt == "input_required" {
		return out
	}
	var ttl json.Number
	switch raw, ok := obj["ttlMs"]; {
	case !ok:
		out = append(out, "lacks ttlMs")
	case json.Unmarshal(raw, &ttl) != nil || !nonNegativeInteger(ttl):
		out = append(out, "has ttlMs "+string(raw)+", not an integer ≥ 0")
	}
	var scope string
	switch raw, ok := obj["cacheScope"]; {
	case !ok:
		out = append(out, "lacks cacheScope")
	case json.Unmarshal(raw, &scope) != nil || (scope != "public" && scope != "private"):
		out = append(out, "has cacheScope "+string(raw)+", not \"public\" or \"private\"")
	}
	return out
}

func nonNegativeInteger(n json.Number) bool {
	i, err := n.Int64()
	return err == nil && i >= 0
}

// optionalMethods are the read-only methods a modern server may lack.
var optionalMethods = []string{"prompts/list", "resources/list", "resources/templates/list"}

func runUnknownMethod(m checks.Meta, _ *checks.Input, s *mcp.Snapshot) ([]finding.Finding, error) {
	if s.Verdict.Era != mcp.EraModern {
		return nil, checks.Skip("the server is not modern; 404 with -32601 is the 2026-07-28 answer")
	}
	var out []finding.Finding
	judged := 0
	for _, c := range s.Calls {
		if !slices.Contains(optionalMethods, c.Method) || c.Exchange == nil || c.Exchange.Response == nil {
			continue
		}
		judged++
		code := 0
		if c.Message != nil && c.Message.Error != nil {
			code = c.Message.Error.Code
		}
		status := c.Status()
		wrong := (code == mcp.CodeMethodNotFound && status != http.StatusNotFound) ||
			(status == http.StatusNotFound && code != mcp.CodeMethodNotFound)
		if !wrong {
			continue
		}
		got := fmt.Sprintf("HTTP %d", status)
		if code != 0 {
			got += fmt.Sprintf(" with JSON-RPC error %d", code)
		} else {
			got += " without a JSON-RPC -32601 error"
		}
		ev := mcpmap.CallEvidence(c)
		ev.Expected, ev.Actual = "HTTP 404 with JSON-RPC error -32601", got
		out = append(out, checks.New(m, c.Method, fmt.Sprintf("%s, which the server does not implement, was answered with %s; expected HTTP 404 with -32601", c.Method, got), ev))
	}
	if judged == 0 {
		return nil, checks.Skip("no optional list method was answered")
	}
	return out, nil
}

func runLegacySession(m checks.Meta, _ *checks.Input, s *mcp.Snapshot) ([]finding.Finding, error) {
	if s.Verdict.Era != mcp.EraLegacy {
		return nil, checks.Skip("the server is not legacy; 2026-07-28 has no sessions")
	}
	if s.SessionDemanded == nil {
		return nil, nil
	}
	init := s.CallsTo("initialize")
	evs := []finding.Evidence{mcpmap.CallEvidence(s.SessionDemanded)}
	if len(init) > 0 {
		evs = append([]finding.Evidence{mcpmap.CallEvidence(init[len(init)-1])}, evs...)
	}
	return []finding.Finding{checks.New(m, "session", fmt.Sprintf("initialize returned no Mcp-Session-Id, then %s was refused with HTTP %d: the server demands a session it never minted",
		s.SessionDemanded.Method, s.SessionDemanded.Status()), evs...)}, nil
}
