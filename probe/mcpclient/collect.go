package mcpclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/mcp"
	"github.com/agentready/agentready/internal/oauthmeta"
	"github.com/agentready/agentready/internal/urlx"
)

// handshake is the outcome of the revision decision.
type handshake struct {
	verdict mcp.Verdict
	// capabilities are the client capabilities declared on modern requests
	// (widened only when the server asked for it with -32021).
	capabilities json.RawMessage
	discover     *mcp.Call
	initialize   *mcp.Call
	session      string
}

// decide sends server/discover, and initialize only on positive evidence of
// a legacy server.
func (c *client) decide(ctx context.Context) handshake {
	h := handshake{capabilities: json.RawMessage(`{}`)}
	v := &h.verdict
	legacyVersion := ""
	for attempt := 0; ; attempt++ {
		call := c.rpc(ctx, request{method: "server/discover", params: c.modernParams(h.capabilities, nil),
			era: mcp.EraModern, version: mcp.Modern, conn: "1"})
		d := classifyDiscover(call)
		v.Steps = append(v.Steps, d.step)
		if len(d.supported) > 0 {
			v.SupportedVersions = d.supported
		}
		switch d.step.Meaning {
		case meaningModern:
			v.Era, v.Reason = mcp.EraModern, d.step.Why
			if d.modernElsewhere {
				v.Refused = d.step.Why
				return h
			}
			v.Version, h.discover = mcp.Modern, call
			return h
		case meaningRetry:
			if attempt >= 1 {
				v.Era, v.Refused, v.RefusedStatus = mcp.EraModern, "the server rejected a valid modern probe twice: "+d.step.Why, d.step.Status
				v.Reason = "modern (it answers with modern error codes), but it refused every probe; no fallback"
				return h
			}
			// Capabilities read from a scrubbed answer that held a
			// credential are not known, and the marker is not sent.
			if d.capabilities != nil && !exchange.HoldsRedaction(d.capabilities) {
				h.capabilities = d.capabilities
			}
			continue
		case meaningRefuse:
			v.Refused, v.RefusedStatus = d.step.Why, d.step.Status
			v.Reason = "not determined: " + d.step.Why + "; the scanner did not fall back to initialize"
			return h
		case meaningNotMCP:
			v.Era, v.Reason = mcp.EraNone, d.step.Why
			return h
		}
		legacyVersion = d.legacyVersion
		break
	}
	return c.fallBack(ctx, h, legacyVersion)
}

// fallBack runs the legacy handshake after a legacy signal.
func (c *client) fallBack(ctx context.Context, h handshake, version string) handshake {
	v := &h.verdict
	v.FellBack = true
	if version == "" {
		version = mcp.Legacy
	}
	call := c.rpc(ctx, request{method: "initialize", era: mcp.EraLegacy, conn: "1", params: map[string]any{
		"protocolVersion": version,
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]string{"name": c.cfg.ClientName, "version": c.cfg.ClientVersion},
	}})
	st, negotiated := classifyInitialize(call)
	v.Steps = append(v.Steps, st)
	legacySignal := v.Steps[len(v.Steps)-2].Why
	switch st.Meaning {
	case meaningLegacy:
		v.Era, v.Version, h.initialize = mcp.EraLegacy, negotiated, call
		v.Reason = legacySignal + "; " + st.Why
		if sid := c.mintedSession(call.Exchange); validSessionID(sid) {
			h.session = sid
			c.openSession(sid, call.Exchange)
		}
	case meaningRefuse:
		v.Refused, v.RefusedStatus = st.Why, st.Status
		v.Reason = "not determined: " + legacySignal + ", then " + st.Why
	default:
		v.Era, v.Reason = mcp.EraNone, st.Why
	}
	return h
}

// validSessionID accepts what 2025-11-25 allows: visible ASCII, bounded.
func validSessionID(s string) bool {
	if s == "" || len(s) > 1024 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 0x21 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

// Collect examines one endpoint: the revision decision, then, if it speaks
// MCP, two walks through tools/list, the other read-only list methods and
// the ui:// resources listed, and a last walk after all of them.
func Collect(ctx context.Context, cfg Config, ep mcp.Endpoint) (*mcp.Snapshot, error) {
	return examine(ctx, cfg, ep, "default", true)
}

// List takes the catalog one caller is shown, and no more: the revision
// decision and a single walk through tools/list, so that the catalogs of
// several callers can be compared at a small cost per caller. identity names
// the caller in the snapshot.
func List(ctx context.Context, cfg Config, ep mcp.Endpoint, identity string) (*mcp.Snapshot, error) {
	return examine(ctx, cfg, ep, identity, false)
}

// examine runs the decision and, when full, everything the mcp family
// judges; otherwise only the first walk.
func examine(ctx context.Context, cfg Config, ep mcp.Endpoint, identity string, full bool) (*mcp.Snapshot, error) {
	u, err := endpointURL(ep.URL)
	if err != nil {
		return nil, err
	}
	c := newClient(cfg, u)
	defer c.close()
	s := &mcp.Snapshot{Endpoint: ep, Identity: identity}
	h := c.decide(ctx)
	s.Verdict = h.verdict
	switch {
	case h.verdict.Refused != "":
	case h.verdict.Era == mcp.EraModern:
		mcp.WarmTokenizer()
		c.collectModern(ctx, s, h, full)
	case h.verdict.Era == mcp.EraLegacy:
		mcp.WarmTokenizer()
		c.collectLegacy(ctx, s, h, full)
	}
	if full && h.verdict.Refused == "" && (h.verdict.Era == mcp.EraModern || h.verdict.Era == mcp.EraLegacy) {
		s.ForeignOrigin = c.probeOrigin(ctx, h)
	}
	if full {
		s.ResourceMetadata = c.discoverResource(ctx)
	}
	s.Calls = c.calls
	for _, l := range s.Listings {
		if l.Problem != "" {
			s.Notes = append(s.Notes, fmt.Sprintf("tools/list (%s): %s", l.Label, l.Problem))
		}
	}
	if len(s.Listings) > 0 {
		s.Catalog = mcp.NewCatalog(s.Listings[0].Tools)
	}
	return s, nil
}

func (c *client) collectModern(ctx context.Context, s *mcp.Snapshot, h handshake, full bool) {
	if r := h.discover.Message.Result; r != nil {
		var caps, meta json.RawMessage
		mcp.ResultMember(r, "capabilities", &caps)
		s.Capabilities = caps
		if mcp.ResultMember(r, "_meta", &meta) {
			var info map[string]json.RawMessage
			if json.Unmarshal(meta, &info) == nil {
				s.ServerInfo = info["io.modelcontextprotocol/serverInfo"]
			}
		}
	}
	req := request{era: mcp.EraModern, version: mcp.Modern}
	s.Listings = append(s.Listings, c.walk(ctx, "first", withConn(req, "1"), h.capabilities))
	if !full {
		return
	}
	s.Listings = append(s.Listings, c.walk(ctx, "second, new connection", withConn(req, "2"), h.capabilities))
	var resources *mcp.Call
	for _, method := range []string{"prompts/list", "resources/list", "resources/templates/list"} {
		r := withConn(req, "1")
		r.method, r.params = method, c.modernParams(h.capabilities, nil)
		if call := c.rpc(ctx, r); method == "resources/list" {
			resources = call
		}
	}
	c.readUIResources(ctx, resources, withConn(req, "1"), h.capabilities)
	s.Listings = append(s.Listings, c.walk(ctx, mcp.LabelAfterRequests, withConn(req, "1"), h.capabilities))
}

// maxUIReads bounds the ui:// resources read from one server.
const maxUIReads = 4

// readUIResources reads the first ui:// resources a resources/list answer
// names (MCP Apps interfaces), as a host does before showing them.
func (c *client) readUIResources(ctx context.Context, list *mcp.Call, base request, capabilities json.RawMessage) {
	uris := mcp.UIResourceURIs(list)
	for _, uri := range uris[:min(len(uris), maxUIReads)] {
		if exchange.HoldsRedaction(uri) {
			// Read from a scrubbed answer: the real URI is not known.
			continue
		}
		r := base
		r.method = "resources/read"
		params := map[string]any{"uri": uri}
		r.name, r.params = uri, params
		if r.era == mcp.EraModern {
			r.params = c.modernParams(capabilities, params)
		}
		c.rpc(ctx, r)
	}
}

func (c *client) collectLegacy(ctx context.Context, s *mcp.Snapshot, h handshake, full bool) {
	// The snapshot is recorded: it holds the session as the recording shows it.
	s.SessionID = c.secrets.String(h.session)
	if r := h.initialize.Message.Result; r != nil {
		var caps, info json.RawMessage
		mcp.ResultMember(r, "capabilities", &caps)
		mcp.ResultMember(r, "serverInfo", &info)
		s.Capabilities, s.ServerInfo = caps, info
	}
	req := request{era: mcp.EraLegacy, version: h.verdict.Version, session: h.session, conn: "1"}
	note := req
	note.method = "notifications/initialized"
	initialized := c.rpc(ctx, note)
	first := c.walk(ctx, "first", req, nil)
	s.Listings = append(s.Listings, first)
	if h.session == "" {
		s.SessionDemanded = demanded(initialized, first)
	}
	if s.SessionDemanded == nil && full {
		s.Listings = append(s.Listings, c.walk(ctx, "second, same session", req, nil))
		if mcp.Declares(s.Capabilities, "resources") {
			r := req
			r.method = "resources/list"
			c.readUIResources(ctx, c.rpc(ctx, r), req, nil)
		}
		s.Listings = append(s.Listings, c.walk(ctx, mcp.LabelAfterRequests, req, nil))
	}
	if h.session != "" {
		if _, err := c.deleteSession(ctx, h.session, h.verdict.Version); err != nil {
			s.Notes = append(s.Notes, err.Error())
		}
	}
}

// ForeignOrigin is the Origin of the probe of Origin validation: a name
// under .invalid, which no browser page can be served from (RFC 6761).
const ForeignOrigin = "https://attacker.invalid"

// PurposeForeignOrigin marks the exchange of that probe in the recording.
const PurposeForeignOrigin = "mcp/foreign-origin"

// probeOrigin repeats the request that opened the exchange, server/discover
// or initialize, as a page on a foreign origin would send it after a DNS
// rebinding: servers MUST answer 403. It is sent last, after the session of
// a legacy server was closed; a session it opens anyway is closed too.
func (c *client) probeOrigin(ctx context.Context, h handshake) *mcp.Call {
	r := request{conn: "1", origin: ForeignOrigin}
	if h.verdict.Era == mcp.EraModern {
		r.method, r.era, r.version, r.params = "server/discover", mcp.EraModern, mcp.Modern, c.modernParams(h.capabilities, nil)
		return c.rpc(ctx, r)
	}
	r.method, r.era = "initialize", mcp.EraLegacy
	r.params = map[string]any{
		"protocolVersion": h.verdict.Version,
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]string{"name": c.cfg.ClientName, "version": c.cfg.ClientVersion},
	}
	call := c.rpc(ctx, r)
	if resp := call.Exchange; resp != nil && resp.Response != nil {
		if sid := c.mintedSession(resp); validSessionID(sid) && sid != h.session {
			c.openSession(sid, call.Exchange)
			_, _ = c.deleteSession(ctx, sid, h.verdict.Version)
		}
	}
	return call
}

// PurposeResourceMetadata marks the GETs of protected resource metadata.
const PurposeResourceMetadata = "mcp/resource-metadata"

// discoverResource does what an MCP client does on a 401: it reads the
// protected resource metadata (RFC 9728) the challenge names in
// resource_metadata, else the well-known URL built from the endpoint, else
// the one at the root of its origin, and stops at the first that answers
// 200. Only the endpoint's origin is fetched: credentials go nowhere else.
func (c *client) discoverResource(ctx context.Context) []*exchange.Exchange {
	var challenged *mcp.Call
	for _, call := range c.calls {
		if call.Status() == http.StatusUnauthorized {
			challenged = call
			break
		}
	}
	if challenged == nil {
		return nil
	}
	var candidates []*url.URL
	if rm := oauthmeta.ResourceMetadata(challenged.Exchange.Response.Header.Values("WWW-Authenticate")); rm != "" {
		if u, err := c.endpoint.Parse(rm); err == nil && urlx.SameOrigin(u, c.endpoint) {
			candidates = append(candidates, u)
		}
	}
	candidates = append(candidates, oauthmeta.WellKnown(c.endpoint, oauthmeta.ProtectedResourceSuffix),
		oauthmeta.WellKnown(&url.URL{Scheme: c.endpoint.Scheme, Host: c.endpoint.Host}, oauthmeta.ProtectedResourceSuffix))
	var out []*exchange.Exchange
	seen := map[string]bool{}
	for _, u := range candidates {
		if seen[u.String()] {
			continue
		}
		seen[u.String()] = true
		x := c.get(ctx, u, "application/json", PurposeResourceMetadata)
		out = append(out, x)
		if x.Response != nil && x.Response.Status == http.StatusOK {
			break
		}
	}
	return out
}

// get fetches a document on the endpoint's origin with the client's
// headers and bounds.
func (c *client) get(ctx context.Context, u *url.URL, accept, purpose string) *exchange.Exchange {
	if !urlx.SameOrigin(u, c.endpoint) {
		return &exchange.Exchange{Purpose: purpose, Request: exchange.Request{Method: http.MethodGet, URL: u.String()}, Err: "not sent: another origin"}
	}
	if exchange.HoldsRedaction(u.String()) {
		return &exchange.Exchange{Purpose: purpose, Request: exchange.Request{Method: http.MethodGet, URL: u.String()}, Err: "not sent: the URL held a credential, redacted in the recording"}
	}
	doc := newClient(c.cfg, u)
	defer doc.close()
	h := doc.baseHeader()
	h.Set("Accept", accept)
	return doc.send(ctx, http.MethodGet, h, nil, "1", purpose)
}

// demanded returns the call a session-less legacy server refused with 400
// or 404, the answers 2025-11-25 prescribes for a missing or unknown session.
func demanded(initialized *mcp.Call, first mcp.Listing) *mcp.Call {
	for _, call := range []*mcp.Call{initialized, first.Failed} {
		if call != nil && (call.Status() == http.StatusBadRequest || call.Status() == http.StatusNotFound) {
			return call
		}
	}
	return nil
}

func withConn(r request, conn string) request { r.conn = conn; return r }

// walk pages through tools/list until a result has no nextCursor. An empty
// string is a cursor like any other; only absence ends the list.
func (c *client) walk(ctx context.Context, label string, base request, capabilities json.RawMessage) mcp.Listing {
	l := mcp.Listing{Label: label}
	var cursor *string
	seen := map[string]bool{}
	for page := 0; page < c.cfg.MaxPages; page++ {
		r := base
		r.method = "tools/list"
		var extra map[string]any
		if cursor != nil {
			extra = map[string]any{"cursor": *cursor}
		}
		if r.era == mcp.EraModern {
			r.params = c.modernParams(capabilities, extra)
		} else if extra != nil {
			r.params = extra
		}
		call := c.rpc(ctx, r)
		result, problem := listResult(call)
		if problem != "" {
			l.Problem = fmt.Sprintf("page %d: %s", page+1, problem)
			l.Failed = call
			return l
		}
		p := mcp.Page{Call: call, Cursor: cursor, Raw: result}
		var next json.RawMessage
		if mcp.ResultMember(result, "nextCursor", &next) && string(next) != "null" {
			var s string
			if json.Unmarshal(next, &s) != nil {
				l.Problem = fmt.Sprintf("page %d: nextCursor is not a string: %s", page+1, truncate(string(next), 40))
				l.Pages = append(l.Pages, p)
				return l
			}
			p.NextCursor = &s
		}
		if p.NextCursor != nil && exchange.HoldsRedaction(*p.NextCursor) {
			// Read from the scrubbed answer: the real cursor is not known,
			// and the marker must not be sent in its place.
			l.Pages = append(l.Pages, p)
			l.Problem = fmt.Sprintf("page %d: nextCursor held a credential, redacted in the recording; the next page was not requested", page+1)
			return l
		}
		tools, problems := mcp.DecodeTools(result, page, len(l.Tools))
		l.Tools = append(l.Tools, tools...)
		l.Pages = append(l.Pages, p)
		if len(problems) > 0 {
			l.Problem = strings.Join(problems, "; ")
		}
		if p.NextCursor == nil {
			l.Complete = true
			return l
		}
		if seen[*p.NextCursor] {
			l.Problem = fmt.Sprintf("page %d: the server repeated cursor %q; stopped to avoid a loop", page+1, truncate(*p.NextCursor, 40))
			return l
		}
		seen[*p.NextCursor] = true
		cursor = p.NextCursor
	}
	l.Problem = fmt.Sprintf("stopped after %d pages, the bound", c.cfg.MaxPages)
	return l
}

func listResult(call *mcp.Call) (json.RawMessage, string) {
	switch {
	case call.Exchange == nil || call.Exchange.Response == nil:
		return nil, "no response: " + errorText(call)
	case call.Message == nil:
		return nil, fmt.Sprintf("HTTP %d without a JSON-RPC response: %s", call.Status(), call.ParseError)
	case call.Message.Error != nil:
		return nil, fmt.Sprintf("HTTP %d, JSON-RPC error %d: %s", call.Status(), call.Message.Error.Code, truncate(call.Message.Error.Message, 120))
	case len(call.Message.Result) == 0 || string(call.Message.Result) == "null":
		return nil, "result is null"
	}
	return call.Message.Result, ""
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "…"
}

// Verdict decides the revision of an endpoint without listing anything, and
// closes the session the decision opened.
func Verdict(ctx context.Context, cfg Config, ep mcp.Endpoint) (mcp.EndpointVerdict, error) {
	u, err := endpointURL(ep.URL)
	if err != nil {
		return mcp.EndpointVerdict{}, err
	}
	c := newClient(cfg, u)
	defer c.close()
	h := c.decide(ctx)
	if h.session != "" {
		_, _ = c.deleteSession(ctx, h.session, h.verdict.Version)
	}
	return mcp.EndpointVerdict{Endpoint: ep, Verdict: h.verdict, Calls: c.calls}, nil
}

func endpointURL(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, errors.New("MCP endpoint must be an absolute http or https URL")
	}
	return u, nil
}
