package mcpclient

import (
	"net/http"
	"testing"

	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/mcp"
)

func answer(status int, contentType, body string) *mcp.Call {
	call := &mcp.Call{Method: "server/discover", Exchange: &exchange.Exchange{}}
	if status == 0 {
		call.Exchange.Err = "dial tcp: connection refused"
		return call
	}
	call.Exchange.Response = &exchange.Response{Status: status, Header: http.Header{"Content-Type": {contentType}}, Body: []byte(body)}
	call.Message, _ = mcp.ParseResponse(contentType, []byte(body), 1)
	return call
}

// TestClassifyDiscover walks the decision table of specs §6.4 row by row:
// only -32601 and 400, 404, 405, 406 and 501 are evidence of a legacy server.
func TestClassifyDiscover(t *testing.T) {
	const js = "application/json"
	tests := []struct {
		name    string
		call    *mcp.Call
		meaning string
		legacy  string // legacyVersion to ask initialize for
	}{
		{"DiscoverResult listing 2026-07-28", answer(200, js, `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","supportedVersions":["2026-07-28","2025-11-25"]}}`), meaningModern, ""},
		{"SSE DiscoverResult after a priming event", answer(200, "text/event-stream", "id: 0\ndata:\n\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"supportedVersions\":[\"2026-07-28\"]}}\n\n"), meaningModern, ""},
		{"200 listing only legacy versions", answer(200, js, `{"jsonrpc":"2.0","id":1,"result":{"supportedVersions":["2025-11-25","2025-06-18"]}}`), meaningLegacy, "2025-11-25"},
		{"200 with an empty result", answer(200, js, `{"jsonrpc":"2.0","id":1,"result":{}}`), meaningLegacy, ""},
		{"200 listing only a newer modern revision", answer(200, js, `{"jsonrpc":"2.0","id":1,"result":{"supportedVersions":["2027-03-01"]}}`), meaningModern, ""},
		{"200 with a JSON-RPC -32601 (in-session legacy)", answer(200, js, `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found"}}`), meaningLegacy, ""},
		{"200 HTML page", answer(200, "text/html", `<html></html>`), meaningNotMCP, ""},
		{"400 -32000 (TypeScript SDK)", answer(400, js, `{"jsonrpc":"2.0","error":{"code":-32000,"message":"Bad Request: Server not initialized"},"id":null}`), meaningLegacy, ""},
		{"400 -32600 (Python SDK)", answer(400, js, `{"jsonrpc":"2.0","error":{"code":-32600,"message":"Missing session ID"},"id":null}`), meaningLegacy, ""},
		{"404 -32601 to server/discover", answer(404, js, `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found"}}`), meaningLegacy, ""},
		{"405 empty", answer(405, "", ``), meaningLegacy, ""},
		{"406 plain text", answer(406, "text/plain", `Not Acceptable`), meaningLegacy, ""},
		{"400 -32022 naming only legacy versions", answer(400, js, `{"jsonrpc":"2.0","id":1,"error":{"code":-32022,"message":"unsupported","data":{"supported":["2025-06-18","2025-03-26"],"requested":"2026-07-28"}}}`), meaningLegacy, "2025-06-18"},
		{"400 -32022 naming 2026-07-28", answer(400, js, `{"jsonrpc":"2.0","id":1,"error":{"code":-32022,"message":"unsupported","data":{"supported":["2026-07-28"]}}}`), meaningRetry, ""},
		{"400 -32022 naming a newer modern revision", answer(400, js, `{"jsonrpc":"2.0","id":1,"error":{"code":-32022,"message":"unsupported","data":{"supported":["2027-03-01"]}}}`), meaningModern, ""},
		{"400 -32021", answer(400, js, `{"jsonrpc":"2.0","id":1,"error":{"code":-32021,"message":"missing","data":{"requiredCapabilities":{"sampling":{}}}}}`), meaningRetry, ""},
		{"400 -32020", answer(400, js, `{"jsonrpc":"2.0","id":1,"error":{"code":-32020,"message":"header mismatch"}}`), meaningRetry, ""},
		{"501 Not Implemented", answer(501, "text/plain", `Not Implemented`), meaningLegacy, ""},
		{"422 with a JSON-RPC -32601", answer(422, js, `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found"}}`), meaningLegacy, ""},
		{"408 from a proxy", answer(408, "text/plain", `Request Timeout`), meaningRefuse, ""},
		{"409", answer(409, js, `{"error":"conflict"}`), meaningRefuse, ""},
		{"410", answer(410, "text/plain", ``), meaningRefuse, ""},
		{"413 from a proxy", answer(413, "text/html", `<html>Request Entity Too Large</html>`), meaningRefuse, ""},
		{"415 with a non-modern JSON-RPC error", answer(415, js, `{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"x"}}`), meaningRefuse, ""},
		{"200 with JSON-RPC -32603 (internal error)", answer(200, js, `{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"Internal error"}}`), meaningRefuse, ""},
		{"200 with JSON-RPC -32600", answer(200, js, `{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"Invalid Request"}}`), meaningRefuse, ""},
		{"401 with a JSON-RPC -32601", answer(401, js, `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"x"}}`), meaningRefuse, ""},
		{"401", answer(401, js, `{"error":"unauthorized"}`), meaningRefuse, ""},
		{"403", answer(403, "text/plain", `Forbidden`), meaningRefuse, ""},
		{"407", answer(407, "text/plain", ``), meaningRefuse, ""},
		{"429", answer(429, "text/plain", ``), meaningRefuse, ""},
		{"500", answer(500, "text/plain", ``), meaningRefuse, ""},
		{"502", answer(502, "text/plain", ``), meaningRefuse, ""},
		{"503 with a JSON-RPC error body", answer(503, js, `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"x"}}`), meaningRefuse, ""},
		{"302 redirect", answer(302, "", ``), meaningRefuse, ""},
		{"network or TLS error", answer(0, "", ""), meaningRefuse, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := classifyDiscover(tt.call)
			if d.step.Meaning != tt.meaning {
				t.Fatalf("meaning %q (%s), want %q", d.step.Meaning, d.step.Why, tt.meaning)
			}
			if d.step.Why == "" {
				t.Error("no reason recorded")
			}
			if d.legacyVersion != tt.legacy {
				t.Errorf("legacy version %q, want %q", d.legacyVersion, tt.legacy)
			}
		})
	}
}

func TestClassifyDiscoverRetryCapabilities(t *testing.T) {
	d := classifyDiscover(answer(400, "application/json", `{"jsonrpc":"2.0","id":1,"error":{"code":-32021,"message":"missing","data":{"requiredCapabilities":{"sampling":{}}}}}`))
	if string(d.capabilities) != `{"sampling":{}}` {
		t.Errorf("capabilities %s", d.capabilities)
	}
}

func TestParseResponseIgnoresOtherMessages(t *testing.T) {
	body := "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{}}\n\n" +
		"data: {\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"tools\":[]}}\n\n"
	m, err := mcp.ParseResponse("text/event-stream", []byte(body), 7)
	if err != nil || string(m.ID) != "7" {
		t.Fatalf("got %+v, %v", m, err)
	}
	if _, err := mcp.ParseResponse("application/json", []byte(`[1,2]`), 1); err == nil {
		t.Error("a JSON array was taken for a response")
	}
}
