package leakage

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/internal/mcpmap"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/mcp"
	"github.com/agentready/agentready/internal/sanitize"
	"github.com/agentready/agentready/internal/spec"
)

var (
	functionLevelRef = finding.SpecRef{Doc: "OWASP API Security Top 10", Section: "API5:2023", Level: "advice", URL: "https://owasp.org/API-Security/editions/2023/en/0xa5-broken-function-level-authorization/"}
	toolAccessRef    = finding.SpecRef{Doc: "MCP " + mcp.Modern, Section: "server/tools §Security Considerations (access controls)", Level: "advice", URL: "https://modelcontextprotocol.io/specification/" + mcp.Modern + "/server/tools"}
)

const mcpSplitHelp = "A tool in a catalog listed to a caller that sent no credentials, whose operation\n" +
	"requires credentials or a role, is reported by `leakage-mcp-privileged-tool-anonymous` only;\n" +
	"`leakage-mcp-tool-refused` reports every other refused tool, of any less privileged identity."

// MCPToolRefused flags tools listed to a less privileged identity whose
// operation refuses it: the same rule as leakage-offered-refused, applied to
// the MCP catalog.
type MCPToolRefused struct{ family }

func (MCPToolRefused) Meta() checks.Meta {
	return checks.Meta{
		ID:       "leakage-mcp-tool-refused",
		Since:    checks.FirstRelease,
		Family:   checks.FamilyLeakage,
		Needs:    checks.NeedsMCPPerIdentity,
		Title:    "MCP catalogs list only tools the caller may call",
		Severity: finding.SeverityWarning,
		Security: true,
		SpecRefs: []finding.SpecRef{toolAccessRef, functionLevelRef},
		Help: `An MCP catalog is a list of what the agent may do. A tool that the server then
refuses for this caller wastes the agent's calls and context, and tells every
caller that the capability exists. agentready lists the catalog (tools/list
only, never tools/call) as each less privileged identity and judges each tool
by the operation it projects: refused when GET of the operation's path answered
this identity 401 or 403 wherever it tried (and never 2xx), or when the
configuration's ` + "`access`" + ` mapping or the operation's OpenAPI security requirements
(their role names against the identity's ` + "`roles`" + `) exclude it. When neither can
tell, nothing is reported. Tools that are not ` + "`readOnlyHint: true`" + `, or whose
operation is not safe (GET, HEAD, OPTIONS), are errors; read-only tools are warnings.

` + mcpSplitHelp + `

**How to fix:** build the catalog per caller from the same authorization rules
the handlers enforce, and list only the tools the caller may call.

` + mcpmap.MappingHelp + ` Without an OpenAPI document, a tool whose name
the configuration's ` + "`access`" + ` mapping lists is judged by that entry.`,
	}
}

func (c MCPToolRefused) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	m := c.Meta()
	cats, err := catalogs(in, m.ID, func(checks.IdentityView) bool { return true })
	if err != nil {
		return nil, err
	}
	var out []finding.Finding
	for _, cat := range cats {
		who := caller(cat.view)
		for _, t := range cat.mapped(in) {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			if who.Anonymous() && anonymousRefusal(in, t.op, who) != "" {
				continue // MCPPrivilegedToolAnonymous reports it.
			}
			why, ev, ok := cat.refusal(in, t.op, who)
			if !ok {
				continue
			}
			msg := fmt.Sprintf("as %q, the MCP catalog lists %s but %s; expected no tool for an operation that refuses this caller",
				cat.view.Name, t.describe(), why)
			f := t.finding(m, cat, msg, ev...)
			if !t.tool.ReadOnly() || (t.op.Method != "" && !t.op.IsSafe()) {
				f.Severity = finding.SeverityError
			}
			out = append(out, f)
		}
	}
	return out, nil
}

// MCPPrivilegedToolAnonymous flags a catalog listed to a caller that sent no
// credentials that names tools requiring credentials or a role.
type MCPPrivilegedToolAnonymous struct{ family }

func (MCPPrivilegedToolAnonymous) Meta() checks.Meta {
	return checks.Meta{
		ID:       "leakage-mcp-privileged-tool-anonymous",
		Since:    checks.FirstRelease,
		Family:   checks.FamilyLeakage,
		Needs:    checks.NeedsMCPPerIdentity,
		Title:    "MCP catalogs for anonymous callers name no privileged tool",
		Severity: finding.SeverityError,
		Security: true,
		SpecRefs: []finding.SpecRef{toolAccessRef, functionLevelRef},
		Help: `A catalog that anyone can list is a map of the whole surface for anyone who
asks: an admin refund tool listed to anonymous callers advertises the capability
and its arguments to every scanner on the internet, and invites agents to try
it. agentready lists the catalog (tools/list only, never tools/call) as the
less privileged identities, and reports each tool listed to one that sent no
credentials whose operation requires credentials or a role: an OpenAPI security
requirement with no ` + "`{}`" + ` alternative, or an entry of the configuration's ` + "`access`" + `
mapping naming roles the identity does not hold.

` + mcpSplitHelp + `

**How to fix:** authenticate before listing, and list to anonymous callers only
the tools anyone may call; or, when a tool is meant for anyone, declare an
empty security requirement (` + "`{}`" + `) for its operation.

` + mcpmap.MappingHelp + ` Without an OpenAPI document, a tool whose name
the configuration's ` + "`access`" + ` mapping lists is judged by that entry.`,
	}
}

func (c MCPPrivilegedToolAnonymous) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	m := c.Meta()
	cats, err := catalogs(in, m.ID, func(v checks.IdentityView) bool { return caller(v).Anonymous() })
	if err != nil {
		return nil, err
	}
	var out []finding.Finding
	for _, cat := range cats {
		for _, t := range cat.mapped(in) {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			why := anonymousRefusal(in, t.op, caller(cat.view))
			if why == "" {
				continue
			}
			msg := fmt.Sprintf("the MCP catalog listed to %q, which sent no credentials, names %s, but %s; expected a catalog for anonymous callers to name only tools anyone may call",
				cat.view.Name, t.describe(), why)
			out = append(out, t.finding(m, cat, msg))
		}
	}
	return out, nil
}

// anonymousRefusal says why op refuses a caller that sent no credentials, or
// "" when the declared rules do not refuse it.
func anonymousRefusal(in *checks.Input, op *spec.Operation, who exchange.Caller) string {
	if a, why := in.MayCall(op, who); a == checks.AccessRefused {
		return why
	}
	return ""
}

// catalog is the MCP catalog one less privileged identity was listed.
type catalog struct {
	view    checks.IdentityView
	listing *mcp.Listing
	// refused maps path templates to a GET of them that answered the
	// identity 401 or 403, for templates no GET of which answered it 2xx.
	refused map[string]*exchange.Exchange
}

// catalogs returns the readable catalogs of the less privileged identities
// that want selects, or the skip that says why none can be judged. Each
// catalog that could not be read is recorded as an observation of checkID:
// a refusal to list is a fact about the app, not a defect.
func catalogs(in *checks.Input, checkID string, want func(checks.IdentityView) bool) ([]catalog, error) {
	vs, err := views(in)
	if err != nil {
		return nil, err
	}
	switch {
	case in.MCP == nil:
		return nil, checks.Skip("not assessed: no MCP endpoint was given (--mcp) or found on the target")
	case in.MCP.Verdict.Era == mcp.EraNone:
		return nil, checks.Skip(fmt.Sprintf("not assessed: %s did not answer as an MCP endpoint", in.MCP.Endpoint.URL))
	}
	if in.Spec == nil && len(in.Access) == 0 {
		return nil, checks.Skip("not assessed: neither an OpenAPI document nor the configuration's access mapping tells which operation a tool projects and who may call it")
	}
	var out []catalog
	var unread []string
	selected := 0
	for _, v := range vs[:len(vs)-1] {
		if !want(v) {
			continue
		}
		selected++
		l, why := readable(v.MCP)
		if l == nil {
			fact := fmt.Sprintf("%s: %s", v.Name, why)
			in.Observe(checkID, fact)
			unread = append(unread, fact)
			continue
		}
		in.Observe(checkID, fmt.Sprintf("%s: the MCP catalog lists %s", v.Name, plural(len(l.Tools), "tool")))
		out = append(out, catalog{view: v, listing: l, refused: refusedGets(in.Spec, v.Recording)})
	}
	switch {
	case selected == 0:
		return nil, checks.Skip("not assessed: every less privileged identity sent credentials; add one that sends none (--identity NAME without --header-for)")
	case len(out) == 0:
		return nil, checks.Skip("not assessed: the MCP catalog could not be read as a less privileged identity (" + strings.Join(unread, "; ") + ")")
	}
	return out, nil
}

// readable returns the first tools/list walk of a snapshot, or says why
// there is none.
func readable(s *mcp.Snapshot) (*mcp.Listing, string) {
	switch {
	case s == nil:
		return nil, "the MCP catalog was not listed as this identity"
	case s.Verdict.RefusedStatus == http.StatusUnauthorized || s.Verdict.RefusedStatus == http.StatusForbidden:
		return nil, fmt.Sprintf("the MCP endpoint answered %d", s.Verdict.RefusedStatus)
	case s.Verdict.Refused != "":
		return nil, "the MCP endpoint refused the probe: " + s.Verdict.Refused
	case !s.Assessed():
		return nil, "the endpoint did not answer as MCP: " + s.Verdict.Reason
	case len(s.Listings) == 0 || len(s.Listings[0].Pages) == 0:
		l := mcp.Listing{}
		if len(s.Listings) > 0 {
			l = s.Listings[0]
		}
		if l.Failed != nil && (l.Failed.Status() == http.StatusUnauthorized || l.Failed.Status() == http.StatusForbidden) {
			return nil, fmt.Sprintf("tools/list answered %d", l.Failed.Status())
		}
		if l.Problem != "" {
			return nil, "tools/list failed: " + l.Problem
		}
		return nil, "tools/list was not answered"
	}
	return &s.Listings[0], ""
}

// mappedTool is a listed tool and the operation it projects.
type mappedTool struct {
	tool *mcp.Tool
	op   *spec.Operation
	how  string
}

// mapped pairs the catalog's tools with their operations, in catalog order;
// tools that map to none say nothing.
func (c catalog) mapped(in *checks.Input) []mappedTool {
	var out []mappedTool
	for i := range c.listing.Tools {
		t := &c.listing.Tools[i]
		if op, how := toolOperation(in, t); op != nil {
			out = append(out, mappedTool{tool: t, op: op, how: how})
		}
	}
	return out
}

// toolOperation maps a tool as the mcp family's parity checks do; without
// such an operation, a tool named in the access mapping stands for the
// operation of that name.
func toolOperation(in *checks.Input, t *mcp.Tool) (*spec.Operation, string) {
	if in.Spec != nil {
		if op, how := mcpmap.OperationFor(in.Spec, t); op != nil {
			return op, how
		}
	}
	if _, ok := in.Access[t.Name]; ok && t.NameValid && t.Name != "" {
		return &spec.Operation{OperationID: t.Name}, "the access mapping"
	}
	return nil, ""
}

// refusal says how op refuses who, with evidence: GETs of the operation's
// path that the identity was refused first, then the declared rules.
func (c catalog) refusal(in *checks.Input, op *spec.Operation, who exchange.Caller) (string, []finding.Evidence, bool) {
	if x := c.refused[op.PathTemplate]; x != nil && op.PathTemplate != "" {
		return fmt.Sprintf("GET of %s answered %d to this caller", exchange.PathOf(x.Request.URL), x.Response.Status),
			[]finding.Evidence{checks.Evidence(x, nil, []string{"Content-Type", "WWW-Authenticate"})}, true
	}
	if a, why := in.MayCall(op, who); a == checks.AccessRefused {
		return why, nil, true
	}
	return "", nil, false
}

// refusedGets indexes, by path template, a GET that answered the identity
// 401 or 403, keeping only templates no GET of which answered it 2xx: one
// refused resource among readable ones is about that resource, not about
// the operation.
func refusedGets(doc *spec.Document, rec *exchange.Recording) map[string]*exchange.Exchange {
	out := map[string]*exchange.Exchange{}
	if doc == nil || rec == nil {
		return out
	}
	readable := map[string]bool{}
	for _, x := range rec.Exchanges {
		if x.Request.Method != http.MethodGet || x.Response == nil || x.Purpose == PurposeMissingSibling {
			continue
		}
		t := templateOf(doc, x.Request.URL)
		switch st := x.Response.Status; {
		case t == "":
		case st/100 == 2:
			readable[t] = true
		case out[t] == nil && (st == http.StatusUnauthorized || st == http.StatusForbidden):
			out[t] = x
		}
	}
	for t := range readable {
		delete(out, t)
	}
	return out
}

func templateOf(doc *spec.Document, rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return ""
	}
	t, _ := doc.Index().MatchPath(u.EscapedPath())
	return t
}

func (t mappedTool) describe() string {
	label := fmt.Sprintf("tool %q", sanitize.Truncate(t.tool.Name, 80))
	if t.op.Method == "" {
		return fmt.Sprintf("%s (operation %s, mapped by %s)", label, t.op.OperationID, t.how)
	}
	return fmt.Sprintf("%s (%s %s, mapped by %s)", label, t.op.Method, t.op.PathTemplate, t.how)
}

func (t mappedTool) finding(m checks.Meta, c catalog, msg string, ev ...finding.Evidence) finding.Finding {
	f := checks.New(m, c.view.Name+" "+t.tool.Name, msg, append([]finding.Evidence{mcpmap.ToolEvidence(c.listing, t.tool, "")}, ev...)...)
	if t.op.Location.File != "" {
		loc := t.op.Location
		f.Location = &loc
	}
	return f
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
