package cli

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/agentready/agentready/fixtures/activefix"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
)

func TestActiveFlagErrors(t *testing.T) {
	url := serve(t)
	tests := []struct {
		name    string
		environ []string
		args    []string
		want    string
	}{
		{"allow without active", nil, []string{"--active-allow", "POST /orders/*"}, "only apply with --active"},
		{"yes without active", nil, []string{"--yes"}, "only apply with --active"},
		{"no allow-list", nil, []string{"--active", "--yes"}, "--active needs an allow-list"},
		{"bad rule", nil, []string{"--active", "--yes", "--active-allow", "POST orders"}, "must start with /"},
		{"no terminal, no --yes", nil, []string{"--active", "--active-allow", "POST /orders/*/cancellation"}, "pass --yes"},
		{"CI without consent", []string{"CI=true"}, []string{"--active", "--yes", "--active-allow", "POST /orders/*/cancellation"}, "does not set active.ci: true"},
		{"active from the environment is ignored", []string{"AGENTREADY_ACTIVE=true", "AGENTREADY_YES=true"}, []string{"--active-allow", "POST /orders/*/cancellation"}, "only apply with --active"},
		{"--yes from the environment is ignored", []string{"AGENTREADY_YES=true"}, []string{"--active", "--active-allow", "POST /orders/*/cancellation"}, "pass --yes"},
		{"Jenkins without consent", []string{"JENKINS_URL=http://ci.example/"}, []string{"--active", "--yes", "--active-allow", "POST /orders/*/cancellation"}, "does not set active.ci: true"},
		{"Azure Pipelines without consent", []string{"TF_BUILD=True"}, []string{"--active", "--yes", "--active-allow", "POST /orders/*/cancellation"}, "does not set active.ci: true"},
	}
	for _, tt := range tests {
		r := runEnv(t, tt.environ, append([]string{"scan", url}, tt.args...)...)
		if r.code != ExitUsage || !strings.Contains(r.stderr, tt.want) {
			t.Errorf("%s: code %d, stderr %q; want %d and %q", tt.name, r.code, r.stderr, ExitUsage, tt.want)
		}
	}
}

func TestActiveInCIWithConsentFromConfig(t *testing.T) {
	url := serveHandler(t, activefix.New(activefix.IfMatchIgnored))
	dir := t.TempDir()
	cfg := filepath.Join(dir, ".agentready.yaml")
	if err := os.WriteFile(cfg, []byte("version: 1\nactive:\n  ci: true\n  allow:\n    - POST /things/*/close\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := runEnv(t, []string{"CI=true", "USER_AUTH=" + activefix.UserAuth}, "scan", url, "--config", cfg, "--format", "json",
		"--identity", "anonymous", "--identity", "user", "--header-for", "user=Authorization: env:USER_AUTH",
		"--active", "--yes")
	if r.code != ExitGateFailed {
		t.Fatalf("code %d: %s", r.code, r.stderr)
	}
	var rep finding.Report
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Active == nil || len(rep.Active.Sent) != 2 || rep.Active.Confirmed != "--yes" || rep.Active.Allow[0] != "POST /things/*/close" {
		t.Fatalf("active section %+v", rep.Active)
	}
	if !strings.Contains(r.stderr, "1. POST "+url+"things/2/close  as user  [active/stale-version]") ||
		!strings.Contains(r.stderr, `If-Match: "agentready-stale-version"`) || !strings.Contains(r.stderr, "Authorization: REDACTED") ||
		!strings.Contains(r.stderr, "User-Agent: agentready/") || !strings.Contains(r.stderr, `body: {"note":"agentready active probe"}`) ||
		strings.Contains(r.stderr, "activefix-user") {
		t.Errorf("the printed plan is not the exact requests, or shows a credential:\n%s", r.stderr)
	}
	fired := false
	for _, f := range rep.Findings {
		fired = fired || f.CheckID == "affordance-stale-version-executed"
	}
	if !fired {
		t.Error("the ignored If-Match was not reported")
	}
}

func TestConfirmAnswers(t *testing.T) {
	for answer, ok := range map[string]bool{"y\n": true, "YES\n": true, "n\n": false, "\n": false, "": false, "yess\n": false} {
		var out strings.Builder
		err := confirm(strings.NewReader(answer), &out, 2)
		if (err == nil) != ok || !strings.Contains(out.String(), "Send these 2 request(s)? [y/N]") {
			t.Errorf("answer %q: err %v, prompt %q", answer, err, out.String())
		}
	}
}

// A password in the target URL is sent as Basic credentials and never
// printed: the URL the scan records has no user-info.
func TestUserInfoInTargetBecomesARedactedHeader(t *testing.T) {
	var mu sync.Mutex
	var got string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if user, pass, ok := r.BasicAuth(); ok {
			mu.Lock()
			got = user + ":" + pass
			mu.Unlock()
		}
		http.NotFound(w, r)
	}))
	t.Cleanup(srv.Close)
	target := strings.Replace(srv.URL, "http://", "http://bob:pa55w0rd@", 1) + "/"
	dir := t.TempDir()
	args := []string{"scan", target, "-v", "--format", "json"}
	for _, f := range []string{"text", "sarif", "html", "markdown", "junit"} {
		args = append(args, "-o", f+"="+filepath.Join(dir, "r."+f))
	}
	r := runEnv(t, nil, args...)
	mu.Lock()
	defer mu.Unlock()
	if got != "bob:pa55w0rd" {
		t.Errorf("the server got Basic credentials %q", got)
	}
	outputs := []string{r.stdout, r.stderr}
	for _, f := range []string{"text", "sarif", "html", "markdown", "junit"} {
		b, _ := os.ReadFile(filepath.Join(dir, "r."+f))
		outputs = append(outputs, string(b))
	}
	for i, out := range outputs {
		if strings.Contains(out, "pa55w0rd") {
			t.Errorf("output %d prints the password", i)
		}
	}
}

// The plan says how many of its requests change state: the re-reads flow
// probes send are GETs, shown with the rest but not counted as changes.
func TestPlanCountsTheRereadsApart(t *testing.T) {
	post := exchange.ActiveRequest{PlannedRequest: exchange.PlannedRequest{Purpose: "active/patch-outside", Method: "POST", URL: "http://a/c/2/patch", Body: []byte(`{}`)}}
	get := exchange.ActiveRequest{PlannedRequest: exchange.PlannedRequest{Purpose: "active/patch-outside/re-read", Method: "GET", URL: "http://a/c/2"}}
	var b strings.Builder
	printPlan(&b, []exchange.ActiveRequest{post})
	if !strings.HasPrefix(b.String(), "Active probes: 1 state-changing request(s) will be sent") {
		t.Errorf("without re-reads: %q", b.String())
	}
	b.Reset()
	printPlan(&b, []exchange.ActiveRequest{post, get})
	if !strings.HasPrefix(b.String(), "Active probes: 2 request(s) will be sent to the target, 1 state-changing and 1 re-read(s)") ||
		!strings.Contains(b.String(), "2. GET http://a/c/2") {
		t.Errorf("with a re-read: %q", b.String())
	}
}
