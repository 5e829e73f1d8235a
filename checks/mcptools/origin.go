package mcptools

import (
	"context"
	"fmt"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/internal/mcpmap"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/mcp"
)

// OriginValidated reports an endpoint that serves a request from a foreign Origin.
type OriginValidated struct{}

func (OriginValidated) Meta() checks.Meta {
	return checks.Meta{
		ID: "mcp-origin-validated", Family: checks.FamilyMCP, Security: true,
		Since:    checks.FirstRelease,
		Title:    "The MCP endpoint refuses a request from a foreign Origin with 403",
		Severity: finding.SeverityError,
		SpecRefs: []finding.SpecRef{
			mcpRef(mcp.Modern, "basic/transports/streamable-http §Security & Endpoint (validate Origin; 403 when present and invalid)", "MUST", "basic/transports/streamable-http"),
			mcpRef(mcp.Legacy, "basic/transports §Streamable HTTP, Security Warning", "MUST", "basic/transports"),
		},
		Help: "Servers MUST validate the `Origin` header of every request and answer 403 when it is present\n" +
			"and invalid. Without it, a web page on any site can rebind its own DNS name to the server's\n" +
			"address and drive the MCP endpoint from the victim's browser (DNS rebinding), with whatever the\n" +
			"network position or cookies grant. The scanner repeats its opening request (`server/discover`,\n" +
			"or `initialize` for a legacy server; both read-only) once more, last, with\n" +
			"`Origin: https://attacker.invalid`, a name that cannot exist. A 2xx means the request was\n" +
			"served; 403 passes. Another refusal (401, 400) is noted, not judged: the scanner cannot tell\n" +
			"whether the Origin was the reason. A request without `Origin` is not covered by the clause, so\n" +
			"non-browser clients are unaffected. A session the probe opened anyway is closed at once.\n\n" +
			"**How to fix:** compare `Origin`, when present, with the origins you serve (your own, and the\n" +
			"hosts' you allow) and answer 403 otherwise. The Go SDK: wrap the handler in\n" +
			"`http.NewCrossOriginProtection()`; the TypeScript SDK: `allowedOrigins` with DNS rebinding\n" +
			"protection enabled.",
		Needs: checks.NeedsMCP,
	}
}

func (c OriginValidated) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	return judge(ctx, in, c.Meta(), runOrigin)
}

func runOrigin(m checks.Meta, in *checks.Input, s *mcp.Snapshot) ([]finding.Finding, error) {
	c := s.ForeignOrigin
	if c == nil || c.Exchange == nil {
		return nil, checks.Skip("the request with a foreign Origin was not sent")
	}
	status := c.Status()
	switch {
	case status == 0:
		return nil, checks.Skip("the request with a foreign Origin got no answer")
	case status >= 200 && status < 300:
		ev := mcpmap.CallEvidence(c)
		ev.RequestHeaders = checks.Evidence(c.Exchange, append([]string{"Origin"}, mcpmap.RequestHeaders...), nil).RequestHeaders
		ev.Expected, ev.Actual = "403 Forbidden", fmt.Sprintf("%d: %s was served", status, c.Method)
		return []finding.Finding{checks.New(m, c.Method, fmt.Sprintf("%s served %s sent with Origin %s (HTTP %d); a page on any site can drive it after a DNS rebinding",
			s.Endpoint.URL, c.Method, c.Exchange.Request.Header.Get("Origin"), status), ev)}, nil
	case status != 403:
		in.Observe(m.ID, fmt.Sprintf("%s with a foreign Origin was refused with %d, not 403; whether the Origin was the reason is not known", c.Method, status))
	}
	return nil, nil
}
