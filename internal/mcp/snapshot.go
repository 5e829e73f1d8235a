// Package mcp holds what the scanner learned from an MCP endpoint, as plain
// data: the revision verdict with the reasoning behind it, every JSON-RPC
// call with its raw answer, the raw tools/list pages, the tools decoded from
// them, and the fingerprints and token counts derived from the tools. It does
// no I/O; probe/mcpclient fills a Snapshot and checks/mcptools judges it.
package mcp

import (
	"encoding/json"

	"github.com/agentready/agentready/internal/exchange"
)

// The two revisions the scanner speaks: the first modern one (stateless,
// server/discover) and the last legacy one (initialize and sessions).
const (
	Modern = "2026-07-28"
	Legacy = "2025-11-25"
)

// Era is the family of revisions a server speaks, as 2026-07-28
// basic/versioning names them.
type Era string

const (
	// EraUnknown means the revision could not be determined, for example
	// because the probe met a 401 and the scanner refused to fall back.
	EraUnknown Era = ""
	EraModern  Era = "modern"
	EraLegacy  Era = "legacy"
	// EraNone means the endpoint does not speak MCP at all.
	EraNone Era = "none"
)

// Verdict is the revision decision and how it was reached.
type Verdict struct {
	Era Era `json:"era"`
	// Version is the revision used for the rest of the exchange: 2026-07-28
	// for a modern server, or what initialize negotiated.
	Version string `json:"version,omitempty"`
	// SupportedVersions are the revisions the server listed, in
	// server/discover or in the data of an UnsupportedProtocolVersion error.
	SupportedVersions []string `json:"supportedVersions,omitempty"`
	// FellBack is set when the scanner fell back to initialize.
	FellBack bool `json:"fellBack,omitempty"`
	// Refused says why the scanner stopped without falling back (a 401, a
	// 5xx, a network error); empty otherwise.
	Refused string `json:"refused,omitempty"`
	// RefusedStatus is the HTTP status behind Refused, 0 for a transport error.
	RefusedStatus int `json:"refusedStatus,omitempty"`
	// Reason is the one-line explanation of the verdict.
	Reason string `json:"reason"`
	// Steps record every request of the decision and what it meant.
	Steps []Step `json:"steps"`
}

// Step is one request of the revision decision.
type Step struct {
	Method  string `json:"method"`
	Status  int    `json:"status,omitempty"`
	RPCCode int    `json:"rpcCode,omitempty"`
	Error   string `json:"error,omitempty"`
	// Meaning is what the answer said about the era: "modern", "legacy",
	// "retry", "refuse" or "not-mcp".
	Meaning string `json:"meaning"`
	Why     string `json:"why"`
}

// Call is one JSON-RPC request sent to the endpoint and what came back.
type Call struct {
	Method string
	// Era is the era the request was sent in.
	Era      Era
	Exchange *exchange.Exchange
	// Message is the JSON-RPC response, nil when none could be read.
	Message *Message
	// ParseError says why no response could be read, when the HTTP exchange
	// completed.
	ParseError string
	// Connection labels the HTTP connection used, for stability checks.
	Connection string
}

// Status is the HTTP status of the call, 0 when there was no response.
func (c *Call) Status() int {
	if c.Exchange == nil || c.Exchange.Response == nil {
		return 0
	}
	return c.Exchange.Response.Status
}

// Listing is one complete walk through tools/list.
type Listing struct {
	// Label names the run: "first", "second, same session", "second, new
	// connection".
	Label string
	Pages []Page
	Tools []Tool
	// Complete is set when the last page had no nextCursor.
	Complete bool
	// Problem says why the walk stopped early, if it did.
	Problem string
	// Failed is the call that ended the walk with an error, if any.
	Failed *Call
}

// Page is one raw tools/list result.
type Page struct {
	Call *Call
	// Cursor is the cursor sent, nil on the first page.
	Cursor *string
	// NextCursor is nil when absent; an empty string is a real cursor.
	NextCursor *string
	// Raw is the result object as received.
	Raw json.RawMessage
}

// Endpoint is an MCP endpoint and how it was found.
type Endpoint struct {
	URL string `json:"url"`
	// Source says where it came from: "--mcp", "Link header of /",
	// "llms.txt", "/mcp" (the conventional path).
	Source string `json:"source"`
}

// SourceConventional is the source of an endpoint that nothing advertised:
// the scanner tried the conventional path.
const SourceConventional = "/mcp (conventional path)"

// Conventional reports an endpoint that was only guessed.
func (e Endpoint) Conventional() bool { return e.Source == SourceConventional }

// EndpointVerdict is the revision verdict of an endpoint other than the one
// fully examined.
type EndpointVerdict struct {
	Endpoint Endpoint
	Verdict  Verdict
	Calls    []*Call
}

// Snapshot is everything learned from an app's MCP face.
type Snapshot struct {
	Endpoint Endpoint
	// Identity names the credentials the snapshot was taken with, so that
	// snapshots of several callers can be compared.
	Identity string
	Verdict  Verdict
	// ServerInfo and Capabilities are as the server declared them.
	ServerInfo   json.RawMessage
	Capabilities json.RawMessage
	// SessionID is the Mcp-Session-Id minted by a legacy server, "" when none.
	SessionID string
	// SessionDemanded is set when a legacy server minted no session and then
	// refused the follow-up request with 400 or 404.
	SessionDemanded *Call
	Calls           []*Call
	// Listings are the tools/list walks: the first and a second one for the
	// stability check.
	Listings []Listing
	// Catalog is derived from the first complete listing.
	Catalog Catalog
	// ForeignOrigin is the opening request repeated with an Origin header of
	// another site, nil when it was not sent.
	ForeignOrigin *Call
	// ResourceMetadata are the GETs of protected resource metadata (RFC
	// 9728) sent after a 401, in the order an MCP client tries them.
	ResourceMetadata []*exchange.Exchange
	// Others are further advertised endpoints of the same app, with their
	// revision verdicts.
	Others []EndpointVerdict
	// Notes are facts for the report (bounds hit, pages that failed).
	Notes []string
}

// Assessed reports whether the endpoint spoke MCP in a known era.
func (s *Snapshot) Assessed() bool {
	return s != nil && (s.Verdict.Era == EraModern || s.Verdict.Era == EraLegacy)
}

// Exchanges lists every exchange of the snapshot, the other endpoints'
// included, in the order they were sent.
func (s *Snapshot) Exchanges() []*exchange.Exchange {
	var out []*exchange.Exchange
	add := func(calls []*Call) {
		for _, c := range calls {
			if c.Exchange != nil {
				out = append(out, c.Exchange)
			}
		}
	}
	add(s.Calls)
	out = append(out, s.ResourceMetadata...)
	for _, o := range s.Others {
		add(o.Calls)
	}
	return out
}

// CallsTo returns the calls of one JSON-RPC method, in order.
func (s *Snapshot) CallsTo(method string) []*Call {
	var out []*Call
	for _, c := range s.Calls {
		if c.Method == method {
			out = append(out, c)
		}
	}
	return out
}
