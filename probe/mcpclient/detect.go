package mcpclient

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/agentready/agentready/internal/mcp"
)

// Meanings of one answer during the revision decision.
const (
	meaningModern = "modern"
	meaningLegacy = "legacy"
	meaningRetry  = "retry"
	meaningRefuse = "refuse"
	meaningNotMCP = "not-mcp"
)

// decision is what one server/discover answer means.
type decision struct {
	step mcp.Step
	// supported are the versions the answer listed.
	supported []string
	// capabilities to declare on a retry after -32021.
	capabilities json.RawMessage
	// legacyVersion is the version to ask initialize for, when the server
	// named its legacy versions.
	legacyVersion string
	// modernElsewhere is set when the server is modern but speaks none of
	// the revisions the scanner does.
	modernElsewhere bool
}

// The fallback rule: only positive evidence of a legacy server leads to
// initialize, because anything able to make a probe fail (a proxy, a rate
// limiter, an outage) could otherwise push the client onto an older
// revision. The evidence is a JSON-RPC -32601 (Method not found) to
// server/discover, or one of the statuses a legacy server gives a request
// it cannot route: 400 (no session), 404, 405, 406 (the Accept it does not
// speak) and 501 (Not Implemented). A DiscoverResult that lists only legacy
// revisions, or -32022 naming only them, is the server saying so itself.
// Every other status (401, 403, 407, 408, 409, 413, 429, any other 5xx, …)
// says nothing about the era: no fallback.

// legacyStatus reports the statuses that are evidence of a legacy server.
func legacyStatus(status int) bool {
	switch status {
	case http.StatusBadRequest, http.StatusNotFound, http.StatusMethodNotAllowed, http.StatusNotAcceptable, http.StatusNotImplemented:
		return true
	}
	return false
}

// refusedStatus reports the answers that never lead to a conclusion, even
// with a JSON-RPC body: an authorization or rate refusal, or a server
// error, which anyone between the client and the server can provoke.
func refusedStatus(status int) bool {
	switch status {
	case http.StatusUnauthorized, http.StatusForbidden, http.StatusProxyAuthRequired, http.StatusTooManyRequests:
		return true
	}
	return status >= 500
}

// methodNotFound is the JSON-RPC code a legacy server answers
// server/discover with.
const methodNotFound = -32601

// classifyDiscover applies the decision table of specs §6.4 to the answer to
// a fully valid server/discover probe. It is pure, so every row is tested.
func classifyDiscover(call *mcp.Call) decision {
	d := decision{step: mcp.Step{Method: call.Method, Status: call.Status()}}
	if call.Message != nil && call.Message.Error != nil {
		d.step.RPCCode = call.Message.Error.Code
	}
	say := func(meaning, why string, args ...any) decision {
		d.step.Meaning, d.step.Why = meaning, fmt.Sprintf(why, args...)
		return d
	}
	x := call.Exchange
	if x == nil || x.Response == nil {
		d.step.Error = errorText(call)
		return say(meaningRefuse, "no HTTP response (network, TLS or timeout): the era is unknown, and falling back could be a downgrade")
	}
	status, m := x.Response.Status, call.Message
	rpcErr := m != nil && m.Error != nil
	switch {
	case status >= 300 && status < 400:
		return say(meaningRefuse, "HTTP %d redirect; MCP requests are not redirected, so the era is unknown", status)
	case refusedStatus(status) && !legacyStatus(status):
		return say(meaningRefuse, "HTTP %d says nothing about the era; falling back on it could be a downgrade", status)
	case status >= 400 && rpcErr && mcp.IsModernError(m.Error.Code):
		return modernError(d, m.Error)
	case status >= 400 && legacyStatus(status):
		return say(meaningLegacy, "HTTP %d without a recognized modern error body: a legacy server (fall back to initialize)", status)
	case status >= 400 && rpcErr && m.Error.Code == methodNotFound:
		return say(meaningLegacy, "HTTP %d with JSON-RPC -32601 (Method not found) to server/discover, which every modern server implements: a legacy server", status)
	case status >= 400:
		return say(meaningRefuse, "HTTP %d is not one of the answers that show a legacy server (JSON-RPC -32601, HTTP 400, 404, 405, 406, 501); falling back on it could be a downgrade", status)
	}
	// 2xx.
	switch {
	case m == nil:
		return say(meaningNotMCP, "HTTP %d without a JSON-RPC response: not an MCP endpoint", status)
	case rpcErr && mcp.IsModernError(m.Error.Code):
		return modernError(d, m.Error)
	case rpcErr && m.Error.Code == methodNotFound:
		return say(meaningLegacy, "JSON-RPC -32601 (Method not found) to server/discover, which every modern server implements: a legacy server")
	case rpcErr:
		return say(meaningRefuse, "JSON-RPC error %d to server/discover is not Method not found (-32601), so it says nothing about the era; falling back on it could be a downgrade", m.Error.Code)
	}
	var versions []string
	mcp.ResultMember(m.Result, "supportedVersions", &versions)
	d.supported = versions
	switch {
	case slices.Contains(versions, mcp.Modern):
		return say(meaningModern, "DiscoverResult lists %s", mcp.Modern)
	case len(versions) == 0:
		return say(meaningLegacy, "HTTP %d with an empty result (no supportedVersions): a legacy server", x.Response.Status)
	case anyModern(versions):
		d.modernElsewhere = true
		return say(meaningModern, "DiscoverResult lists only %s, modern revisions the scanner does not speak", strings.Join(versions, ", "))
	}
	d.legacyVersion = newestLegacy(versions)
	return say(meaningLegacy, "DiscoverResult lists only legacy revisions (%s)", strings.Join(versions, ", "))
}

// modernError handles -32020, -32021 and -32022: the server is modern, so the
// client retries as the error says and never falls back on its own account.
func modernError(d decision, e *mcp.RPCError) decision {
	say := func(meaning, why string, args ...any) decision {
		d.step.Meaning, d.step.Why = meaning, fmt.Sprintf(why, args...)
		return d
	}
	var data struct {
		Supported            []string        `json:"supported"`
		RequiredCapabilities json.RawMessage `json:"requiredCapabilities"`
	}
	_ = json.Unmarshal(e.Data, &data)
	switch e.Code {
	case mcp.CodeUnsupportedVersion:
		d.supported = data.Supported
		switch {
		case slices.Contains(data.Supported, mcp.Modern):
			return say(meaningRetry, "UnsupportedProtocolVersion (-32022) although it lists %s: retry once", mcp.Modern)
		case anyModern(data.Supported):
			d.modernElsewhere = true
			return say(meaningModern, "UnsupportedProtocolVersion (-32022) naming only %s, modern revisions the scanner does not speak", strings.Join(data.Supported, ", "))
		case len(data.Supported) > 0:
			d.legacyVersion = newestLegacy(data.Supported)
			return say(meaningLegacy, "UnsupportedProtocolVersion (-32022) naming only legacy revisions (%s): retry with %s, as it says", strings.Join(data.Supported, ", "), d.legacyVersion)
		}
		return say(meaningRetry, "UnsupportedProtocolVersion (-32022) without data.supported: retry once")
	case mcp.CodeMissingClientCapability:
		d.capabilities = data.RequiredCapabilities
		if len(d.capabilities) == 0 || string(d.capabilities) == "null" {
			d.capabilities = json.RawMessage(`{}`)
		}
		return say(meaningRetry, "MissingRequiredClientCapability (-32021): retry declaring %s", string(d.capabilities))
	}
	return say(meaningRetry, "HeaderMismatch (-32020) on a probe whose headers match its _meta: retry once")
}

// anyModern reports a revision from 2026-07-28 on. Revisions are dates, so
// they compare as strings.
func anyModern(versions []string) bool {
	for _, v := range versions {
		if v >= mcp.Modern {
			return true
		}
	}
	return false
}

// newestLegacy picks the newest legacy revision listed, preferring the one
// the scanner knows best.
func newestLegacy(versions []string) string {
	if slices.Contains(versions, mcp.Legacy) {
		return mcp.Legacy
	}
	best := ""
	for _, v := range versions {
		if v < mcp.Modern && v > best {
			best = v
		}
	}
	if best == "" {
		return mcp.Legacy
	}
	return best
}

func errorText(call *mcp.Call) string {
	if call.Exchange != nil && call.Exchange.Err != "" {
		return call.Exchange.Err
	}
	return call.ParseError
}

// classifyInitialize reads the answer to initialize after a legacy signal.
// Refusals keep their meaning: a 401 here is still no reason to conclude
// anything.
func classifyInitialize(call *mcp.Call) (mcp.Step, string) {
	st := mcp.Step{Method: call.Method, Status: call.Status()}
	if call.Message != nil && call.Message.Error != nil {
		st.RPCCode = call.Message.Error.Code
	}
	x := call.Exchange
	switch {
	case x == nil || x.Response == nil:
		st.Error = errorText(call)
		st.Meaning, st.Why = meaningRefuse, "no HTTP response to initialize (network, TLS or timeout)"
	case refusedStatus(x.Response.Status):
		st.Meaning, st.Why = meaningRefuse, fmt.Sprintf("HTTP %d to initialize", x.Response.Status)
	case call.Message == nil || call.Message.Error != nil || x.Response.Status >= 300:
		st.Meaning, st.Why = meaningNotMCP, fmt.Sprintf("HTTP %d to initialize without an InitializeResult: not an MCP endpoint", x.Response.Status)
	default:
		var version string
		mcp.ResultMember(call.Message.Result, "protocolVersion", &version)
		if version == "" {
			st.Meaning, st.Why = meaningNotMCP, "InitializeResult without protocolVersion: not an MCP endpoint"
			return st, ""
		}
		st.Meaning, st.Why = meaningLegacy, "initialize negotiated "+version
		return st, version
	}
	return st, ""
}
