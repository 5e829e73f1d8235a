package cli

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/agentready/agentready/fixtures/demo"
	"github.com/agentready/agentready/fixtures/mcpfix"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/report"
)

// The values of the wire test: an Accept no other server would answer, a
// custom header and a bearer token, both credentials.
const (
	wireAccept = "application/vnd.api+json"
	wireCustom = "custom-token-5150"
	wireToken  = "wire-user-token-77"
	// failingPath is a page of the demo's that the wire test's server
	// makes fail.
	failingPath = "/reports/monthly"
)

// received is one request as a test server got it.
type received struct {
	method, path string
	header       http.Header
	body         string
}

// receivedLog keeps every request a test server got, before it is served.
type receivedLog struct {
	mu   sync.Mutex
	reqs []received
}

func (l *receivedLog) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		r.Body = io.NopCloser(strings.NewReader(string(body)))
		l.mu.Lock()
		l.reqs = append(l.reqs, received{method: r.Method, path: r.URL.RequestURI(), header: r.Header.Clone(), body: string(body)})
		l.mu.Unlock()
		next.ServeHTTP(w, r)
	})
}

func (l *receivedLog) all() []received {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]received(nil), l.reqs...)
}

// wireServer is the demo with what a scan needs to send every kind of
// request: an MCP endpoint, and a page it links to that always fails with
// 500 (failingPath), whose crawl answer is sent again: the repeats copy its
// recorded Accept. It answers the vendor Accept as HAL, and the user's
// token as the demo's user: a request that carried a redaction marker
// instead gets the demo's 406 or 401.
func wireServer(t *testing.T) (string, *receivedLog) {
	t.Helper()
	tools := &mcpfix.Server{Era: mcpfix.Modern}
	app := demo.New()
	mux := http.NewServeMux()
	mux.Handle("/mcp", tools)
	mux.HandleFunc(failingPath, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/problem+json")
		w.WriteHeader(http.StatusInternalServerError)
		fmt.Fprint(w, `{"title":"Internal Server Error","status":500}`)
	})
	mux.Handle("/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Accept") == wireAccept {
			r.Header.Set("Accept", "application/hal+json")
		}
		if r.Header.Get("Authorization") == "Bearer "+wireToken {
			r.Header.Set("Authorization", "Bearer "+demo.UserToken)
		}
		app.ServeHTTP(w, r)
	}))
	log := &receivedLog{}
	srv := httptest.NewServer(log.wrap(mux))
	t.Cleanup(srv.Close)
	return srv.URL, log
}

// TestRequestsCarryTheUsersValues scans as two identities, with a vendor
// Accept and two credentials, and checks what the server received from
// every kind of request (crawl, planned probes and their repeats,
// follow-ups, discovery documents, the OpenAPI document, MCP, the second
// identity): never the redaction marker, and the user's values where they
// apply. Every output then shows the Accept as sent, so that its curl lines
// replay, and never a credential.
func TestRequestsCarryTheUsersValues(t *testing.T) {
	target, log := wireServer(t)
	dir := t.TempDir()
	args := []string{"scan", target + "/", "-v", "--mcp", target + "/mcp",
		"-H", "Accept: " + wireAccept, "-H", "X-Custom-Token: " + wireCustom,
		"--identity", "anonymous", "--identity", "user", "--header-for", "user=Authorization: Bearer env:USER_TOKEN"}
	for _, format := range report.Formats() {
		args = append(args, "-o", format+"="+filepath.Join(dir, "report."+format))
	}
	r := runEnv(t, []string{"USER_TOKEN=" + wireToken}, args...)
	if r.code != ExitGateFailed && r.code != ExitOK {
		t.Fatalf("code %d: %s", r.code, r.stderr)
	}

	reqs := log.all()
	kinds := map[string]int{}
	for _, q := range reqs {
		for name, vs := range q.header {
			for _, v := range vs {
				if strings.Contains(v, exchange.Redacted) {
					t.Errorf("%s %s was sent %s: %s", q.method, q.path, name, v)
				}
			}
		}
		if strings.Contains(q.path+q.body, exchange.Redacted) {
			t.Errorf("%s %s was sent the redaction marker in its URL or body", q.method, q.path)
		}
		if got := q.header.Get("X-Custom-Token"); got != wireCustom {
			t.Errorf("%s %s was sent X-Custom-Token %q, want the user's value", q.method, q.path, got)
		}
		switch auth := q.header.Get("Authorization"); auth {
		case "":
			kinds["as anonymous"]++
		case "Bearer " + wireToken:
			kinds["as user"]++
		default:
			t.Errorf("%s %s was sent Authorization %q", q.method, q.path, auth)
		}
		switch {
		case q.method == http.MethodPost && q.path == "/mcp":
			kinds["MCP"]++
		case q.path == "/openapi.json":
			kinds["OpenAPI document"]++
		case q.path == "/llms.txt" || strings.HasPrefix(q.path, "/.well-known/"):
			kinds["discovery document"]++
		case q.method == http.MethodHead || q.method == http.MethodOptions:
			kinds["planned probe"]++
		case q.path == failingPath && q.header.Get("Accept") == wireAccept:
			kinds["failing page sent as crawled"]++
		}
	}
	for kind, least := range map[string]int{"as anonymous": 1, "as user": 1, "MCP": 1, "OpenAPI document": 1,
		"discovery document": 1, "planned probe": 1, "failing page sent as crawled": 2 * 3} {
		if kinds[kind] < least {
			t.Errorf("%d requests %s, want at least %d: the test would not see what they carry (%v)", kinds[kind], kind, least, kinds)
		}
	}

	outputs := map[string]string{"stdout": r.stdout, "stderr": r.stderr}
	for _, format := range report.Formats() {
		outputs[format] = readOutput(t, filepath.Join(dir, "report."+format))
	}
	for where, out := range outputs {
		for _, secret := range []string{wireCustom, wireToken} {
			if strings.Contains(out, secret) {
				t.Errorf("%s holds the credential %q", where, secret)
			}
		}
	}
	for _, format := range []string{"json", "text", "sarif", "junit"} {
		if out := outputs[format]; !strings.Contains(out, "Accept: "+wireAccept) || !strings.Contains(out, "X-Custom-Token: REDACTED") {
			t.Errorf("the %s report shows no curl line with the Accept sent and the credential redacted", format)
		}
	}
	if strings.Contains(outputs["json"], "Accept: REDACTED") {
		t.Error("the JSON report shows a redacted Accept")
	}
}
