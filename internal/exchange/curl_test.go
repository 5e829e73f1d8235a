package exchange

import (
	"maps"
	"net/http"
	"reflect"
	"strings"
	"testing"
)

func TestCurlOfAPlainRequest(t *testing.T) {
	x := &Exchange{Request: Request{Method: http.MethodHead, URL: "https://api.example/items?a=1&b=2",
		Header: http.Header{"Accept": {"application/json"}, "User-Agent": {"agentready/1"}}}}
	want := `curl -sS -i -I -H 'Accept: application/json' 'https://api.example/items?a=1&b=2'`
	if got := x.Curl(); got != want {
		t.Errorf("curl\n %s\nwant\n %s", got, want)
	}
}

// TestCurlNeverReplaysADeadSession: a request sent in an MCP session names
// its ID, which is dead once the scan has ended; the line opens a session
// first, or refuses to run.
func TestCurlNeverReplaysADeadSession(t *testing.T) {
	const endpoint = "https://api.example/mcp"
	initialize := Request{Method: http.MethodPost, URL: endpoint, Header: http.Header{"Content-Type": {"application/json"}},
		Body: `{"method":"initialize"}`}
	inSession := Request{Method: http.MethodPost, URL: endpoint, Body: `{"method":"tools/list"}`,
		Header: http.Header{"Content-Type": {"application/json"}, "Mcp-Session-Id": {"dead-123"}}}

	opened := inSession
	opened.SetSessionStart([]Request{initialize})
	want := `MCP_SESSION_ID=$(curl -sS -D - -o /dev/null -X POST -H 'Content-Type: application/json' --data-raw '{"method":"initialize"}' https://api.example/mcp` +
		` | awk 'tolower($1) == "mcp-session-id:" {print $2}' | tr -d '\r') && ` +
		`curl -sS -i -X POST -H 'Content-Type: application/json' -H "Mcp-Session-Id: $MCP_SESSION_ID" --data-raw '{"method":"tools/list"}' https://api.example/mcp`
	if got := (&Exchange{Request: opened}).Curl(); got != want {
		t.Errorf("curl\n %s\nwant\n %s", got, want)
	}

	unknown := (&Exchange{Request: inSession}).Curl()
	if strings.Contains(unknown, "dead-123") || !strings.HasPrefix(unknown, `: "${MCP_SESSION_ID:?the scan's MCP session has ended`) {
		t.Errorf("a request of an unknown session is shown as replayable:\n %s", unknown)
	}
}

func TestRedactOwnHeaderRedactsInPlace(t *testing.T) {
	h := http.Header{"Set-Cookie": {"a=1", "b=2"}, "X-Tenant": {"t"}, "Content-Type": {"application/json"}}
	got := RedactOwnHeader(h, map[string]bool{"X-Tenant": true})
	want := http.Header{"Set-Cookie": {Redacted, Redacted}, "X-Tenant": {Redacted}, "Content-Type": {"application/json"}}
	if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(h, want) {
		t.Errorf("got %v (header now %v), want %v", got, h, want)
	}
	odd := http.Header{"set-cookie": {"a=1"}}
	if got := RedactOwnHeader(odd, nil); got.Get("Set-Cookie") != Redacted {
		t.Errorf("a non-canonical name kept its value: %v", got)
	}
}

// TestRedactedNames: a user's header is redacted in the request's own lines
// unless its name is on the short list of fields that carry no credential.
func TestRedactedNames(t *testing.T) {
	got := RedactedNames(http.Header{"accept": {"application/vnd.api+json"}, "X-Custom-Token": {"v"}, "Dnt": {"1"}},
		http.Header{"Authorization": {"Bearer t"}, "Prefer": {"return=minimal"}, "Mcp-Session-Id": {"s"}})
	want := map[string]bool{"X-Custom-Token": true, "Authorization": true, "Mcp-Session-Id": true}
	if !maps.Equal(got, want) {
		t.Errorf("RedactedNames = %v, want %v", got, want)
	}
	h := RedactHeader(http.Header{"Accept": {"application/vnd.api+json"}, "X-Custom-Token": {"v"}}, got)
	if h.Get("Accept") != "application/vnd.api+json" || h.Get("X-Custom-Token") != Redacted {
		t.Errorf("RedactHeader = %v", h)
	}
}
