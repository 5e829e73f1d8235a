//go:build interop

// Package interop_test runs `agentready mcp` against MCP implementations no
// one here wrote. internal/interop/mcp-everything.sh installs them and sets the
// environment; with CI=true a missing piece fails the test instead of
// skipping it.
package interop_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentready/agentready/internal/finding"
)

var agentready string

// TestMain builds the CLI, unless AGENTREADY_BIN names a built one.
func TestMain(m *testing.M) {
	if bin := os.Getenv("AGENTREADY_BIN"); bin != "" {
		agentready = bin
		os.Exit(m.Run())
	}
	dir, err := os.MkdirTemp("", "agentready-interop")
	if err != nil {
		panic(err)
	}
	agentready = filepath.Join(dir, "agentready")
	build := exec.Command("go", "build", "-o", agentready, "../../cmd/agentready")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		panic(err)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// need returns a file named by an environment variable; without it the test
// skips, or fails in CI.
func need(t *testing.T, name string) string {
	t.Helper()
	path := os.Getenv(name)
	if path == "" {
		missing(t, fmt.Sprintf("%s is not set; run internal/interop/mcp-everything.sh or internal/interop/servers.sh", name))
	}
	if _, err := os.Stat(path); err != nil {
		missing(t, fmt.Sprintf("%s=%s: %v", name, path, err))
	}
	return path
}

func missing(t *testing.T, why string) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf("interop prerequisites missing in CI: %s", why)
	}
	t.Skipf("interop prerequisites missing: %s", why)
}

func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// startEverything runs server-everything on 127.0.0.1 and stops it, by its
// own process handle, when the test ends.
func startEverything(t *testing.T) string {
	t.Helper()
	node, server, shim := need(t, "AGENTREADY_NODE22"), need(t, "AGENTREADY_EVERYTHING"), need(t, "AGENTREADY_LOOPBACK_SHIM")
	port := freePort(t)
	cmd := exec.Command(node, "-r", shim, server, "streamableHttp")
	cmd.Env = append(os.Environ(), fmt.Sprintf("PORT=%d", port))
	return "http://" + startListening(t, "server-everything", cmd, port) + "/mcp"
}

// startListening starts cmd, a server of the test's own that is to listen
// on 127.0.0.1:port, waits until it does, and stops it, by its own process
// handle, when the test ends. It returns the address.
func startListening(t *testing.T, name string, cmd *exec.Cmd, port int) string {
	t.Helper()
	var logs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	deadline := time.Now().Add(30 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s did not listen on %s: %s", name, addr, logs.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	assertLoopbackOnly(t, port)
	return addr
}

// assertLoopbackOnly reads the kernel's socket table: the listener must be
// bound to 127.0.0.1, not to every interface.
func assertLoopbackOnly(t *testing.T, port int) {
	t.Helper()
	f, err := os.Open("/proc/net/tcp")
	if err != nil {
		t.Logf("cannot verify the bind address: %v", err)
		return
	}
	defer f.Close()
	want := fmt.Sprintf(":%04X", port)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) > 3 && strings.HasSuffix(fields[1], want) && fields[3] == "0A" {
			if fields[1] != "0100007F"+want {
				t.Fatalf("port %d listens on %s, not on 127.0.0.1", port, fields[1])
			}
			return
		}
	}
	if six, err := os.ReadFile("/proc/net/tcp6"); err == nil && bytes.Contains(six, []byte(want+" 00000000000000000000000000000000:0000 0A")) {
		t.Fatalf("port %d listens on every IPv6 interface", port)
	}
}

// runMCP runs `agentready mcp --format json URL`.
func runMCP(t *testing.T, endpoint string) (*finding.MCPInfo, int, time.Duration, string) {
	t.Helper()
	cmd := exec.Command(agentready, "mcp", "--format", "json", endpoint)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	begin := time.Now()
	err := cmd.Run()
	took := time.Since(begin)
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	var info finding.MCPInfo
	if err := json.Unmarshal(stdout.Bytes(), &info); err != nil {
		t.Fatalf("exit %d, output is not JSON: %v\n%s\n%s", code, err, stdout.String(), stderr.String())
	}
	return &info, code, took, stderr.String()
}

// sdkTools lists the tools with the Go SDK, declaring no capability, as the
// scanner does (server-everything adds tools for declared capabilities).
func sdkTools(t *testing.T, endpoint string) []string {
	t.Helper()
	client := mcpsdk.NewClient(&mcpsdk.Implementation{Name: "interop-reference", Version: "1"},
		&mcpsdk.ClientOptions{Capabilities: &mcpsdk.ClientCapabilities{}})
	cs, err := client.Connect(context.Background(), &mcpsdk.StreamableClientTransport{
		Endpoint: endpoint, DisableStandaloneSSE: true}, &mcpsdk.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	var names []string
	for tool, err := range cs.Tools(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, tool.Name)
	}
	slices.Sort(names)
	return names
}

func TestServerEverythingIsLegacyAndListedCompletely(t *testing.T) {
	endpoint := startEverything(t)
	info, code, took, stderr := runMCP(t, endpoint)
	t.Logf("TIMING agentready mcp against server-everything: %d ms", took.Milliseconds())
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if info.Era != "legacy" || info.Version != "2025-11-25" || !info.FellBack || info.Refused != "" {
		t.Errorf("verdict %+v", info)
	}
	if len(info.Steps) != 2 || info.Steps[0].Method != "server/discover" || info.Steps[0].Status != 400 || info.Steps[1].Method != "initialize" {
		t.Errorf("steps %+v", info.Steps)
	}
	var ours []string
	for _, tool := range info.Tools {
		ours = append(ours, tool.Name)
		if !strings.HasPrefix(tool.Fingerprint, "sha256:") || tool.Tokens == 0 {
			t.Errorf("tool %+v", tool)
		}
	}
	slices.Sort(ours)
	want := sdkTools(t, endpoint)
	if len(want) < 10 || !slices.Equal(ours, want) {
		t.Errorf("agentready listed %v\nthe Go SDK lists %v", ours, want)
	}
	t.Logf("server-everything: %d tools, %d tokens (%s), catalog %s", len(info.Tools), info.Tokens, info.Tokenizer, info.CatalogFingerprint)
}

// injector stands in front of the server and answers server/discover with a
// fixed status; it records the JSON-RPC methods that reach it.
type injector struct {
	status  int
	next    http.Handler
	mu      sync.Mutex
	methods []string
}

func (p *injector) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	var msg struct{ Method string }
	_ = json.Unmarshal(body, &msg)
	p.mu.Lock()
	p.methods = append(p.methods, r.Method+" "+msg.Method+r.URL.Path)
	p.mu.Unlock()
	if msg.Method == "server/discover" {
		http.Error(w, http.StatusText(p.status), p.status)
		return
	}
	p.next.ServeHTTP(w, r)
}

func TestServerEverythingNeverDowngradedOnInjectedErrors(t *testing.T) {
	endpoint := startEverything(t)
	upstream, _ := url.Parse(endpoint)
	for _, status := range []int{http.StatusUnauthorized, http.StatusServiceUnavailable} {
		t.Run(fmt.Sprint(status), func(t *testing.T) {
			p := &injector{status: status, next: httputil.NewSingleHostReverseProxy(&url.URL{Scheme: upstream.Scheme, Host: upstream.Host})}
			proxy := httptest.NewServer(p)
			defer proxy.Close()
			info, code, _, _ := runMCP(t, proxy.URL+upstream.Path)
			if code != 3 || info.Refused == "" || info.Era != "" || info.FellBack {
				t.Errorf("exit %d, verdict %+v", code, info)
			}
			// After a 401 the client may look for the endpoint's protected
			// resource metadata (RFC 9728), with GETs; nothing else may follow
			// the probe, and above all no initialize.
			if len(p.methods) == 0 || !strings.HasPrefix(p.methods[0], "POST server/discover") {
				t.Fatalf("requests %v: the probe was not sent first", p.methods)
			}
			for _, m := range p.methods[1:] {
				if status != http.StatusUnauthorized || !strings.HasPrefix(m, "GET /.well-known/oauth-protected-resource") {
					t.Errorf("requests %v: only the probe, and after a 401 the resource metadata, may be sent", p.methods)
					break
				}
			}
		})
	}
}

// TestConformanceInitialize runs the conformance suite's client mode,
// scenario initialize, against `agentready mcp`. An empty checks.json is a
// vacuous pass and fails the test.
func TestConformanceInitialize(t *testing.T) {
	node, suite := need(t, "AGENTREADY_NODE22"), need(t, "AGENTREADY_CONFORMANCE")
	out := t.TempDir()
	args := []string{suite, "client", "--command", agentready + " mcp", "--scenario", "initialize", "-o", out, "--timeout", "30000"}
	var cmd *exec.Cmd
	if _, err := exec.LookPath("unshare"); err == nil && os.Geteuid() == 0 {
		// The scenario server listens on every interface; a private network
		// namespace with only loopback keeps it off the network.
		quoted := make([]string, len(args))
		for i, a := range args {
			quoted[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		cmd = exec.Command("unshare", "-n", "sh", "-c", "ip link set lo up && exec '"+node+"' "+strings.Join(quoted, " "))
	} else {
		t.Log("unshare unavailable: the scenario server binds every interface for the run")
		cmd = exec.Command(node, args...)
	}
	output, err := cmd.CombinedOutput()
	t.Logf("%s", output)
	if err != nil {
		t.Fatalf("conformance client run failed: %v", err)
	}
	files, _ := filepath.Glob(filepath.Join(out, "initialize-*", "checks.json"))
	if len(files) != 1 {
		t.Fatalf("checks.json files: %v", files)
	}
	raw, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	var results []struct{ ID, Status string }
	if err := json.Unmarshal(raw, &results); err != nil {
		t.Fatal(err)
	}
	if len(results) == 0 {
		t.Fatal("checks.json is empty: a vacuous pass")
	}
	ok := false
	for _, r := range results {
		if r.Status == "FAILURE" {
			t.Errorf("check %s failed", r.ID)
		}
		ok = ok || (r.ID == "mcp-client-initialization" && r.Status == "SUCCESS")
	}
	if !ok {
		t.Errorf("no mcp-client-initialization SUCCESS in %s", raw)
	}
}
