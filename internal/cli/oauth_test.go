package cli

import (
	"encoding/base64"
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentready/agentready/fixtures/oauthfix"
)

const (
	oauthClientID     = "ci-scanner"
	oauthClientSecret = "cli3nt-s3cret-value"
)

func oauthTarget(t *testing.T, fix *oauthfix.Server) string {
	t.Helper()
	fix.ClientID, fix.ClientSecret = oauthClientID, oauthClientSecret
	srv := httptest.NewServer(fix)
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestOAuthIdentityScanIsCompleteAndPrintsNoCredential: the token endpoint
// issues 60-second tokens and the API refuses each after 10 requests; a scan
// with a 2-minute budget reaches every item, uninterrupted, and no output
// (every format, the HAR recording, stderr with -v) holds a token, the
// client secret or the Basic credentials made of them.
func TestOAuthIdentityScanIsCompleteAndPrintsNoCredential(t *testing.T) {
	fix := &oauthfix.Server{Lifetime: time.Minute, Uses: 10, Items: 30}
	base := oauthTarget(t, fix)
	dir := t.TempDir()
	har := filepath.Join(dir, "scan.har")
	args := []string{"scan", base + "/", "-v", "--budget", "2m", "--format", "json", "--fail-on", "none", "--record", har,
		"--identity", "svc", "--oauth-for", "svc=token-url=" + base + oauthfix.TokenPath + ", client-id=env:OAUTH_ID, client-secret=env:OAUTH_SECRET"}
	formats := []string{"text", "sarif", "html", "markdown", "junit"}
	for _, f := range formats {
		args = append(args, "-o", f+"="+filepath.Join(dir, "r."+f))
	}
	r := runEnv(t, []string{"OAUTH_ID=" + oauthClientID, "OAUTH_SECRET=" + oauthClientSecret}, args...)
	if r.code != ExitOK {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var rep struct {
		Stats struct {
			Pages       int  `json:"pages"`
			Interrupted bool `json:"interrupted"`
		} `json:"stats"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Stats.Interrupted || rep.Stats.Pages < 30+3 {
		t.Errorf("scan incomplete: %d pages, interrupted %v", rep.Stats.Pages, rep.Stats.Interrupted)
	}
	issued := fix.Issued()
	if len(issued) < 3 {
		t.Fatalf("%d tokens issued: no renewal happened", len(issued))
	}
	outputs := map[string]string{"stdout": r.stdout, "stderr": r.stderr}
	for _, f := range append(formats, "har") {
		p := filepath.Join(dir, "r."+f)
		if f == "har" {
			p = har
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		outputs[f] = string(b)
	}
	basic := base64.StdEncoding.EncodeToString([]byte(oauthClientID + ":" + oauthClientSecret))
	for name, out := range outputs {
		for _, s := range append(issued, oauthClientSecret, basic) {
			if strings.Contains(out, s) {
				t.Errorf("%s holds a credential (%.6s…)", name, s)
			}
		}
	}
	if !strings.Contains(outputs["har"], "REDACTED") {
		t.Error("the debug page's echo is not in the recording")
	}
}

// TestOAuthIdentityFromConfigFile: the file's oauth: takes the client ID
// from the environment and the secret from a file next to it, and sends
// them in the body when auth is client_secret_post.
func TestOAuthIdentityFromConfigFile(t *testing.T) {
	fix := &oauthfix.Server{Items: 3}
	base := oauthTarget(t, fix)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "secret.txt"), []byte(oauthClientSecret+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(dir, ".agentready.yaml")
	yaml := "version: 1\nidentities:\n  - name: svc\n    oauth:\n      token-url: " + base + oauthfix.TokenPath +
		"\n      client-id: env:OAUTH_ID\n      client-secret: file:secret.txt\n      scope: read:items\n      auth: client_secret_post\n"
	if err := os.WriteFile(cfg, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	r := runEnv(t, []string{"OAUTH_ID=" + oauthClientID}, "scan", "--config", cfg, "-q", "--fail-on", "none", base+"/")
	if r.code != ExitOK {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if len(fix.Issued()) == 0 || fix.Refused() > 0 {
		t.Errorf("issued %d tokens, %d requests refused", len(fix.Issued()), fix.Refused())
	}
}

// TestOAuthTokenEndpointRefusalExits3: a refused grant ends the scan with
// exit 3 and the endpoint's error code, without the secret it echoed.
func TestOAuthTokenEndpointRefusalExits3(t *testing.T) {
	base := oauthTarget(t, &oauthfix.Server{})
	r := runEnv(t, []string{"OAUTH_SECRET=not-the-right-s3cret"}, "scan", base+"/", "-q",
		"--identity", "svc", "--oauth-for", "svc=token-url="+base+oauthfix.TokenPath+",client-id="+oauthClientID+",client-secret=env:OAUTH_SECRET")
	if r.code != ExitIncomplete {
		t.Fatalf("exit %d, want %d: %s", r.code, ExitIncomplete, r.stderr)
	}
	if !strings.Contains(r.stderr, "answered 401: invalid_client") {
		t.Errorf("the cause is not named: %s", r.stderr)
	}
	if strings.Contains(r.stderr, "not-the-right-s3cret") {
		t.Errorf("the secret is echoed: %s", r.stderr)
	}
}

// TestOAuthForUsageErrors: a literal secret, an unknown field, or an
// identity not named are usage errors that never echo the value.
func TestOAuthForUsageErrors(t *testing.T) {
	for _, spec := range []string{
		"svc=token-url=https://auth.example/token,client-id=x,client-secret=literal-s3cret",
		"svc=token-url=https://auth.example/token,client-id=x,client-secret=env:S,literal-s3cret",
		"other=token-url=https://auth.example/token,client-id=x,client-secret=env:S,literal-s3cret",
		"svc=token-url=http://auth.example/token,client-id=x,client-secret=env:S",
	} {
		r := runEnv(t, []string{"S=x"}, "scan", "http://127.0.0.1:1/", "--identity", "svc", "--oauth-for", spec)
		if r.code != ExitUsage {
			t.Errorf("%s: exit %d, want %d", spec, r.code, ExitUsage)
		}
		if strings.Contains(r.stderr, "literal-s3cret") {
			t.Errorf("the value is echoed: %s", r.stderr)
		}
	}
}
