package mcp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/agentready/agentready/internal/exchange"
)

// JSON-RPC and MCP error codes the scanner acts on (2026-07-28 basic/index
// §Error Codes).
const (
	CodeMethodNotFound          = -32601
	CodeInvalidParams           = -32602
	CodeHeaderMismatch          = -32020
	CodeMissingClientCapability = -32021
	CodeUnsupportedVersion      = -32022
)

// IsModernError reports the three codes that only a modern server sends.
func IsModernError(code int) bool {
	return code == CodeHeaderMismatch || code == CodeMissingClientCapability || code == CodeUnsupportedVersion
}

// Message is a JSON-RPC response (or, inside an SSE stream, any message).
type Message struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  *RPCError       `json:"error,omitempty"`
}

// RPCError is a JSON-RPC error object.
type RPCError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// IsResponse reports a message that answers a request: it has a result or
// an error and no method.
func (m *Message) IsResponse() bool {
	return m.Method == "" && (m.Result != nil || m.Error != nil)
}

// maxSSEEvents bounds how many events of one stream are looked at; a hostile
// server can stream notifications forever.
const maxSSEEvents = 1000

var errNoResponse = errors.New("no JSON-RPC response in the body")

// ParseResponse reads the JSON-RPC response to request id from an HTTP body
// that is either application/json or text/event-stream. Other messages in a
// stream (notifications, priming events with an empty data line) are
// skipped. A JSON body is accepted as the response whatever its id, since a
// server may answer a malformed request with id null.
func ParseResponse(contentType string, body []byte, id int) (*Message, error) {
	mt, _ := exchange.MediaTypeOf(contentType)
	if mt == "text/event-stream" {
		return parseSSE(body, id)
	}
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 {
		return nil, errors.New("empty body")
	}
	if trimmed[0] != '{' {
		return nil, fmt.Errorf("body is not a JSON-RPC object (Content-Type %q)", contentType)
	}
	var m Message
	if err := json.Unmarshal(trimmed, &m); err != nil {
		return nil, fmt.Errorf("body is not a JSON-RPC message: %v", err)
	}
	if !m.IsResponse() {
		return nil, errNoResponse
	}
	return &m, nil
}

func parseSSE(body []byte, id int) (*Message, error) {
	want := fmt.Sprint(id)
	var fallback *Message
	events := 0
	for _, data := range sseData(body) {
		if events++; events > maxSSEEvents {
			break
		}
		var m Message
		if json.Unmarshal([]byte(data), &m) != nil || !m.IsResponse() {
			continue
		}
		if strings.Trim(string(m.ID), `"`) == want {
			return &m, nil
		}
		if fallback == nil {
			fallback = &m
		}
	}
	if fallback != nil {
		return fallback, nil
	}
	return nil, errNoResponse
}

// sseData returns the data of each event, multi-line data joined with "\n"
// as the SSE format says; events with empty data (priming events) are left
// out.
func sseData(body []byte) []string {
	var out []string
	var cur []string
	flush := func() {
		if joined := strings.Join(cur, "\n"); strings.TrimSpace(joined) != "" {
			out = append(out, joined)
		}
		cur = nil
	}
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(make([]byte, 0, 64<<10), len(body)+1)
	for sc.Scan() {
		line := strings.TrimSuffix(sc.Text(), "\r")
		switch {
		case line == "":
			flush()
		case strings.HasPrefix(line, "data:"):
			cur = append(cur, strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " "))
		}
	}
	flush()
	return out
}

// ResultMember decodes one member of a result object into v; it reports
// whether the member was present.
func ResultMember(result json.RawMessage, name string, v any) bool {
	var obj map[string]json.RawMessage
	if json.Unmarshal(result, &obj) != nil {
		return false
	}
	raw, ok := obj[name]
	if !ok {
		return false
	}
	return json.Unmarshal(raw, v) == nil
}

// HasMember reports whether a result object has a member, whatever its value.
func HasMember(result json.RawMessage, name string) bool {
	var obj map[string]json.RawMessage
	if json.Unmarshal(result, &obj) != nil {
		return false
	}
	_, ok := obj[name]
	return ok
}
