package cli

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/agentready/agentready/fixtures/demo"
	"github.com/agentready/agentready/internal/config"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/report"
)

// Passwords of the user-info tests, each given only in a URL.
const (
	mcpPassword     = "mcp-pass-word-77"
	openAPIPassword = "openapi-pass-99"
)

// authLog keeps the Authorization each request of a test server carried.
type authLog struct {
	mu     sync.Mutex
	byPath map[string][]string
}

func (l *authLog) serve(t *testing.T, next http.Handler) string {
	t.Helper()
	l.byPath = map[string][]string{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		l.mu.Lock()
		l.byPath[r.URL.Path] = append(l.byPath[r.URL.Path], r.Header.Get("Authorization"))
		l.mu.Unlock()
		next.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// sent is the Authorization of every request to path, and of every other
// request.
func (l *authLog) sent(path string) (to, others []string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for p, auths := range l.byPath {
		if p == path {
			to = append(to, auths...)
		} else {
			others = append(others, auths...)
		}
	}
	return to, others
}

func basic(user, pass string) string {
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+pass))
}

// withUserinfo is base (http://host:port) with user:pass@ after the scheme.
func withUserinfo(base, user, pass string) string {
	return strings.Replace(base, "://", "://"+user+":"+pass+"@", 1)
}

// allSent reports whether auths holds requests, each with want.
func allSent(auths []string, want string) bool {
	for _, a := range auths {
		if a != want {
			return false
		}
	}
	return len(auths) > 0
}

// The user-info of --mcp and --openapi URLs is sent as Basic credentials
// to that URL alone, and no output shows it: the URLs are printed without.
func TestURLFlagUserinfoSentButNeverPrinted(t *testing.T) {
	var targetLog, mcpLog authLog
	target := targetLog.serve(t, demo.New())
	mcpOrigin := mcpLog.serve(t, demo.New())
	dir := t.TempDir()
	args := []string{"scan", target + "/", "-v", "--max-pages", "20",
		"--mcp", withUserinfo(mcpOrigin, "alice", mcpPassword) + "/mcp",
		"--openapi", withUserinfo(target, "bob", openAPIPassword) + "/openapi.json"}
	for _, format := range report.Formats() {
		args = append(args, "-o", format+"="+filepath.Join(dir, "report."+format))
	}
	r := run(t, args...)
	if r.code != ExitOK && r.code != ExitGateFailed {
		t.Fatalf("code %d: %s", r.code, r.stderr)
	}
	outputs := map[string]string{"stdout": r.stdout, "stderr": r.stderr}
	for _, format := range report.Formats() {
		outputs[format] = readOutput(t, filepath.Join(dir, "report."+format))
	}
	for where, out := range outputs {
		for _, leak := range []string{mcpPassword, openAPIPassword, "alice:", "bob:"} {
			if strings.Contains(out, leak) {
				t.Errorf("%s shows %q", where, leak)
			}
		}
	}
	var rep finding.Report
	if err := json.Unmarshal([]byte(outputs["json"]), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.MCP == nil || rep.MCP.Endpoint != mcpOrigin+"/mcp" || rep.MCP.Era != "modern" {
		t.Errorf("MCP section %+v: want the endpoint listed, named without its user-info", rep.MCP)
	}
	if !strings.Contains(r.stderr, "GET "+target+"/openapi.json: 200") {
		t.Errorf("the -v log shows no fetch of the OpenAPI URL without its user-info:\n%s", r.stderr)
	}
	mcpAuth, _ := mcpLog.sent("/mcp")
	if !allSent(mcpAuth, basic("alice", mcpPassword)) {
		t.Errorf("the MCP endpoint got %q: want its user-info as Basic credentials on every request", mcpAuth)
	}
	specAuth, others := targetLog.sent("/openapi.json")
	if !allSent(specAuth, basic("bob", openAPIPassword)) {
		t.Errorf("the OpenAPI URL got %q: want its user-info as Basic credentials", specAuth)
	}
	for _, a := range others {
		if a != "" {
			t.Fatalf("another request to the target carried %q: a URL's credentials go to it alone", a)
		}
	}
}

// agentready mcp treats its URL's user-info as the scan treats the
// target's: sent as Basic credentials, never printed, even in an error.
func TestMCPCommandUserinfo(t *testing.T) {
	var log authLog
	origin := log.serve(t, demo.New())
	endpoint := withUserinfo(origin, "alice", mcpPassword) + "/mcp"
	for _, args := range [][]string{
		{"mcp", "-v", endpoint},
		{"mcp", "-v", "--format", "json", endpoint},
	} {
		r := run(t, args...)
		if r.code != ExitOK {
			t.Fatalf("%v: code %d: %s", args, r.code, r.stderr)
		}
		if strings.Contains(r.stdout+r.stderr, mcpPassword) || strings.Contains(r.stdout+r.stderr, "alice") {
			t.Errorf("%v printed the user-info:\n%s\n%s", args, r.stdout, r.stderr)
		}
		if !strings.Contains(r.stdout, origin+"/mcp") {
			t.Errorf("%v does not name the endpoint:\n%s", args, r.stdout)
		}
	}
	if auths, _ := log.sent("/mcp"); !allSent(auths, basic("alice", mcpPassword)) {
		t.Errorf("the endpoint got %q: want the user-info as Basic credentials", auths)
	}
	for _, args := range [][]string{
		{"mcp", "ftp://alice:" + mcpPassword + "@127.0.0.1/mcp"},
		{"scan", "--mcp", "ftp://alice:" + mcpPassword + "@127.0.0.1/mcp", origin + "/"},
		{"scan", "ftp://alice:" + mcpPassword + "@127.0.0.1/"},
	} {
		r := run(t, args...)
		if r.code != ExitUsage || strings.Contains(r.stderr, mcpPassword) || !strings.Contains(r.stderr, "ftp://127.0.0.1/") {
			t.Errorf("%v: code %d, stderr %q: want a usage error naming the URL without its user-info", args, r.code, r.stderr)
		}
	}
}

// init writes no URL's user-info into the file meant to be committed, says
// how to pass it instead, and scrubs the file like every output.
func TestInitWithholdsCredentials(t *testing.T) {
	const tenant = "tenantsecret4242"
	target := serve(t)
	path := filepath.Join(t.TempDir(), config.FileName)
	raw := withUserinfo(strings.TrimSuffix(target, "/"), "alice", mcpPassword) + "/?key=" + tenant
	for _, output := range []string{"-", path} {
		r := run(t, "init", raw, "--max-pages", "5", "-H", "X-Key: "+tenant,
			"--mcp", withUserinfo(strings.TrimSuffix(target, "/"), "carol", openAPIPassword)+"/mcp", "-o", output)
		if r.code != ExitOK {
			t.Fatalf("init -o %s: code %d: %s", output, r.code, r.stderr)
		}
		written := r.stdout
		if output != "-" {
			written = readOutput(t, path)
		}
		for _, leak := range []string{mcpPassword, openAPIPassword, "alice", "carol", tenant} {
			if strings.Contains(written+r.stderr, leak) {
				t.Errorf("init -o %s wrote %q:\n%s", output, leak, written)
			}
		}
		for _, want := range []string{"target: \"" + target + "?key=REDACTED\"", "mcp: \"" + target + "mcp\"", "--header-for 'me=Authorization: Basic env:"} {
			if !strings.Contains(written, want) {
				t.Errorf("init -o %s lacks %q:\n%s", output, want, written)
			}
		}
		if _, err := config.Parse([]byte(written)); err != nil {
			t.Errorf("init -o %s wrote an invalid file: %v", output, err)
		}
	}
}
