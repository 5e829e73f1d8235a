package cli

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/agentready/agentready/fixtures/demo"
	"github.com/agentready/agentready/fixtures/hostile"
	"github.com/agentready/agentready/internal/config"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/probe"
	"github.com/agentready/agentready/report"
)

func runEnv(t *testing.T, environ []string, args ...string) result {
	t.Helper()
	var out, errb strings.Builder
	code := Run(t.Context(), args, strings.NewReader(""), &out, &errb, append([]string{"NO_COLOR="}, environ...))
	return result{code, out.String(), errb.String()}
}

func TestIdentitiesFromFlagsFindLeaks(t *testing.T) {
	url := serve(t, demo.DefectLeakPolicyReason)
	r := runEnv(t, []string{"USER_TOKEN=" + demo.UserToken},
		"scan", url, "--format", "json", "--identity", "anonymous", "--identity", "user",
		"--header-for", "user=Authorization: Bearer env:USER_TOKEN")
	if r.code != ExitGateFailed || !strings.Contains(r.stdout, `"checkId": "leakage-unavailable-policy-reason"`) {
		t.Fatalf("code %d, stderr %s; want the policy-reason error", r.code, r.stderr)
	}
	if !strings.Contains(r.stdout, "scanned as 2 identities (anonymous, user, least privileged first)") {
		t.Error("the report does not say how the budget was split")
	}
}

// TestSecretFromFileNeverPrinted writes every format, verbose, and greps
// stdout, stderr and each file for the secret.
func TestSecretFromFileNeverPrinted(t *testing.T) {
	const secret = "s3cr3t-agentready-canary"
	dir := t.TempDir()
	tokenFile := filepath.Join(dir, "token")
	if err := os.WriteFile(tokenFile, []byte(secret+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// The secret stands for the demo's user token, so that the views differ
	// and findings quote the requests of both identities. The server echoes
	// the credentials it gets into debug pages, JSON descriptions and
	// headers, so that findings quote them back.
	app := demo.New(demo.DefectLeakCachePublic, demo.DefectProblemJavaTrace)
	srv := httptest.NewServer(hostile.EchoCredentials(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") == "Bearer "+secret {
			r.Header.Set("Authorization", "Bearer "+demo.UserToken)
		}
		app.ServeHTTP(w, r)
	}), "Authorization", "X-Tenant"))
	t.Cleanup(srv.Close)
	args := []string{"scan", srv.URL + "/", "-v",
		"--identity", "anonymous", "--identity", "admin",
		"--header-for", "admin=Authorization: Bearer file:" + tokenFile,
		"--header-for", "admin=X-Tenant: env:TENANT_SECRET",
		// Active probes are sent with the identity's credentials too, and
		// their plan is printed before sending.
		"--active", "--active-allow", "POST /orders/*/cancellation", "--yes"}
	var files []string
	for _, format := range report.Formats() {
		path := filepath.Join(dir, "report."+format)
		files = append(files, path)
		args = append(args, "-o", format+"="+path)
	}
	r := runEnv(t, []string{"TENANT_SECRET=" + secret + "-tenant"}, args...)
	if r.code != ExitGateFailed {
		t.Fatalf("code %d: %s", r.code, r.stderr)
	}
	outputs := map[string]string{"stdout": r.stdout, "stderr": r.stderr}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil || len(b) == 0 {
			t.Fatalf("%s: %v (%d bytes)", f, err, len(b))
		}
		outputs[f] = string(b)
	}
	for where, s := range outputs {
		if strings.Contains(s, "s3cr3t") {
			t.Errorf("%s contains the secret", where)
		}
	}
	if !strings.Contains(r.stderr, "Active probes: ") || !strings.Contains(outputs[filepath.Join(dir, "report.json")], `"purpose": "active/stale-version"`) {
		t.Error("no active probe was planned and sent: the test would not notice a leak through them")
	}
	if !strings.Contains(outputs[filepath.Join(dir, "report.json")], "X-Tenant: REDACTED") {
		t.Error("the JSON report quotes no redacted X-Tenant header: the test would not notice a leak")
	}
	if !strings.Contains(outputs[filepath.Join(dir, "report.json")], "Authorization: REDACTED X-Tenant: REDACTED") ||
		!strings.Contains(outputs[filepath.Join(dir, "report.json")], `x-caller=\"Authorization: REDACTED; X-Tenant: REDACTED\"`) {
		t.Error("the JSON report quotes no debug page or header that echoed the credentials: the test would not notice a leak through them")
	}
}

func TestIdentityFlagErrors(t *testing.T) {
	url := serve(t)
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"header for unknown identity", []string{"--identity", "a", "--header-for", "ghost=Authorization: Bearer s3cr3t"}, `identity "ghost"`},
		{"NAME= forgotten before a base64 value", []string{"--identity", "a", "--header-for", "Authorization: Basic dXNlcjpzM2NyM3Q="}, "(not shown: it may hold a credential)"},
		{"unset variable", []string{"--identity", "a", "--header-for", "a=Authorization: Bearer env:NOPE_TOKEN"}, "NOPE_TOKEN is unset"},
		{"missing file", []string{"--identity", "a", "--header-for", "a=Authorization: file:/nonexistent/token"}, "reading /nonexistent/token"},
		{"bad header", []string{"--identity", "a", "--header-for", "a=no colon s3cr3t"}, "want 'Header: value'"},
		{"duplicate identity", []string{"--identity", "a", "--identity", "a"}, "given twice"},
		{"unknown least privileged", []string{"--identity", "a", "--identity", "b", "--least-privileged", "c"}, "names no identity"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := run(t, append([]string{"scan", url}, tt.args...)...)
			if r.code != ExitUsage || !strings.Contains(r.stderr, tt.want) {
				t.Errorf("code %d, stderr %q; want usage error with %q", r.code, r.stderr, tt.want)
			}
			if strings.Contains(r.stderr+r.stdout, "s3cr3t") || strings.Contains(r.stderr+r.stdout, "dXNlcjpzM2NyM3Q") {
				t.Error("the error echoes the secret")
			}
		})
	}
}

func TestRankAndConfigIdentities(t *testing.T) {
	ids := []probe.Identity{{Caller: exchange.Caller{Name: "admin"}}, {Caller: exchange.Caller{Name: "anon"}}, {Caller: exchange.Caller{Name: "user"}}}
	got, err := rank(ids, "anon")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, id := range got {
		names = append(names, id.Name)
	}
	if strings.Join(names, ",") != "anon,admin,user" {
		t.Errorf("rank = %v", names)
	}
	env := map[string]string{"READER_TOKEN": "r"}
	fromFile, err := fromConfig([]config.Identity{{Name: "reader", Env: "READER_TOKEN", Scheme: "Bearer"}, {Name: "key", Env: "READER_TOKEN", Header: "x-api-key"}}, func(k string) string { return env[k] }, nil)
	if err != nil || fromFile[0].Header.Get("Authorization") != "Bearer r" || fromFile[1].Header.Get("X-Api-Key") != "r" {
		t.Errorf("fromConfig = %+v, %v", fromFile, err)
	}
	if _, err := fromConfig([]config.Identity{{Name: "reader", Env: "UNSET"}}, func(string) string { return "" }, nil); err == nil || !strings.Contains(err.Error(), "UNSET is unset") {
		t.Errorf("unset variable: %v", err)
	}
}

// TestIdentitiesAreDescribedOnceWhereTheyAreBuilt: the identities the scan
// gets carry their final rank (after --least-privileged) and the names,
// never the values, of every credential header they send, shared ones
// included.
func TestIdentitiesAreDescribedOnceWhereTheyAreBuilt(t *testing.T) {
	f := identityFlags{names: []string{"admin", "anon"}, headers: []string{"admin=X-Api-Key: env:ADMIN_KEY"}, leastPrivileged: "anon"}
	e := &env{vars: map[string]string{"ADMIN_KEY": "k3y-value"}}
	shared := http.Header{"Cookie": {"session=c00kie"}, "Accept": {"application/json"}}
	ids, err := f.resolve(e, shared)
	if err != nil {
		t.Fatal(err)
	}
	want := []exchange.Caller{
		{Name: "anon", Rank: 0, Credentials: []string{"Cookie"}},
		{Name: "admin", Rank: 1, Credentials: []string{"Cookie", "X-Api-Key"}},
	}
	if len(ids) != len(want) {
		t.Fatalf("%d identities, want %d", len(ids), len(want))
	}
	for i, id := range ids {
		if !reflect.DeepEqual(id.Caller, want[i]) {
			t.Errorf("identity %d: %+v, want %+v", i, id.Caller, want[i])
		}
		if s := fmt.Sprintf("%#v", id.Caller); strings.Contains(s, "k3y-value") || strings.Contains(s, "c00kie") {
			t.Errorf("the caller holds a credential: %s", s)
		}
	}
	if ids[1].Header.Get("X-Api-Key") != "k3y-value" {
		t.Errorf("admin sends %v, want its key", ids[1].Header)
	}
	if none, err := (&identityFlags{}).resolve(&env{vars: map[string]string{}}, shared); err != nil || none != nil {
		t.Errorf("no identity: %v, %v; want nil, the single-identity scan", none, err)
	}
}

func TestDemoScansAsTwoIdentities(t *testing.T) {
	r := run(t, "demo", "--format", "json")
	if r.code != ExitOK || !strings.Contains(r.stdout, "scanned as 2 identities (anonymous, user") {
		t.Errorf("code %d; want the demo scanned as anonymous and user: %s", r.code, r.stderr)
	}
	var rep finding.Report
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatal(err)
	}
	for _, c := range rep.Checks {
		active := strings.HasPrefix(c.ID, "leakage-hidden-operation-")
		if c.Family == "leakage" && !active && c.Status != finding.StatusPass {
			t.Errorf("%s: %s %s; want every passive leakage check assessed and passing on the demo", c.ID, c.Status, c.Reason)
		}
		if active && c.Status != finding.StatusSkip {
			t.Errorf("%s: %s without --active", c.ID, c.Status)
		}
	}
}

func TestSecretValueForms(t *testing.T) {
	e := &env{vars: map[string]string{"TOKEN": "t0k", "SESSION": "s3ss"}}
	tests := map[string]string{
		"env:TOKEN":             "t0k",
		"Bearer env:TOKEN":      "Bearer t0k",
		"session=env:SESSION":   "session=s3ss",
		"plain value":           "plain value",
		"a=b; session=env:NOPE": "a=b; session=env:NOPE", // only a single cookie is resolved
	}
	for in, want := range tests {
		got, err := secretValue(in, e)
		if err != nil || got != want {
			t.Errorf("secretValue(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := secretValue("session=env:UNSET", e); err == nil {
		t.Error("an unset variable in a cookie was not reported")
	}
}
