package cli

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/agentready/agentready/fixtures/demo"
	"github.com/agentready/agentready/fixtures/hostile"
	"github.com/agentready/agentready/fixtures/mcpfix"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/har"
	"github.com/agentready/agentready/internal/sanitize"
	"github.com/agentready/agentready/report"
)

// Canaries of the redaction test: a -H value under a header whose name says
// nothing of credentials, an identity's token with characters that every
// encoding escapes, and a -H value too short to be searched for.
const (
	tenantCanary = "tenantsecret4242"
	tokenCanary  = "s3cr3t-admin/t0ken+canary"
	shortCanary  = "abc1234"
)

// sentLog keeps every header and body byte a test server sent.
type sentLog struct {
	mu  sync.Mutex
	all bytes.Buffer
}

func (l *sentLog) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(&sentWriter{ResponseWriter: w, log: l}, r)
	})
}

func (l *sentLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.all.String()
}

type sentWriter struct {
	http.ResponseWriter
	log *sentLog
}

func (w *sentWriter) WriteHeader(code int) {
	w.log.mu.Lock()
	w.ResponseWriter.Header().Write(&w.log.all)
	w.log.mu.Unlock()
	w.ResponseWriter.WriteHeader(code)
}

func (w *sentWriter) Write(p []byte) (int, error) {
	w.log.mu.Lock()
	w.log.all.Write(p)
	w.log.mu.Unlock()
	return w.ResponseWriter.Write(p)
}

// echoServer serves the demo, as its administrator to the token canary,
// and at /mcp a tool whose description is echoed into, wrapped in
// hostile.EchoEncoded: every credential comes back in every form, in links,
// pages, headers, JSON and the MCP catalog.
func echoServer(t *testing.T) (string, *sentLog) {
	t.Helper()
	tools := &mcpfix.Server{Era: mcpfix.Modern, Tools: []json.RawMessage{
		json.RawMessage(`{"name":"list_orders","description":"Lists orders.","inputSchema":{"type":"object","properties":{"status":{"type":"string"}}}}`),
	}}
	app := demo.New()
	mux := http.NewServeMux()
	mux.Handle("/mcp", tools)
	mux.Handle("/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") == "Bearer "+tokenCanary {
			r.Header.Set("Authorization", "Bearer "+demo.AdminToken)
		}
		app.ServeHTTP(w, r)
	}))
	sent := &sentLog{}
	srv := httptest.NewServer(sent.wrap(hostile.EchoEncoded(mux, "X-Tenant", "Authorization", "X-Trace")))
	t.Cleanup(srv.Close)
	return srv.URL, sent
}

// TestEchoedSecretsNeverPrinted scans, verbose and as two identities, a
// server that echoes a -H value and an identity's token in every encoding,
// writes every format and the recording (--record), and searches stdout,
// stderr, each file and each body the recording holds for every form of
// them. Each form must have been sent by the server and must show
// in some output as its marker followed by REDACTED, so that the test
// cannot pass because an echo never reached a report.
func TestEchoedSecretsNeverPrinted(t *testing.T) {
	target, sent := echoServer(t)
	dir := t.TempDir()
	args := []string{"scan", target + "/", "-v", "--max-pages", "400", "--mcp", target + "/mcp",
		"-H", "X-Tenant: " + tenantCanary, "-H", "X-Trace: " + shortCanary,
		"--identity", "anonymous", "--identity", "admin", "--header-for", "admin=Authorization: Bearer env:ADMIN_TOKEN"}
	for _, format := range report.Formats() {
		args = append(args, "-o", format+"="+filepath.Join(dir, "report."+format))
	}
	recording := filepath.Join(dir, "scan.har")
	args = append(args, "--record", recording)
	r := runEnv(t, []string{"ADMIN_TOKEN=" + tokenCanary}, args...)
	if r.code != ExitGateFailed {
		t.Fatalf("code %d: %s", r.code, r.stderr)
	}
	outputs := map[string]string{"stdout": r.stdout, "stderr": r.stderr}
	for _, format := range report.Formats() {
		outputs[format] = readOutput(t, filepath.Join(dir, "report."+format))
	}
	outputs["har"] = readOutput(t, recording)
	outputs["har bodies"] = recordedBodies(t, recording)
	if !strings.Contains(outputs["har"], "x-tenant.b64=REDACTED") || !strings.Contains(outputs["har bodies"], "authorization.b64=REDACTED") {
		t.Error("the recording holds no echo: the test would not notice a leak through it")
	}
	all := strings.Join([]string{r.stdout, r.stderr, outputs["json"], outputs["sarif"], outputs["markdown"], outputs["html"], outputs["junit"], outputs["text"]}, "\n")
	for name, secret := range map[string]string{"x-tenant": tenantCanary, "authorization": tokenCanary} {
		for label, form := range hostile.EchoForms(secret) {
			if !strings.Contains(sent.String(), form) {
				t.Errorf("the server never sent %s as %s: the test would not notice its leak", name, label)
			}
			for where, out := range outputs {
				if strings.Contains(out, form) {
					t.Errorf("%s holds %s as %s: %q", where, name, label, form)
				}
			}
			if marker := name + "." + label + "=" + "REDACTED"; !strings.Contains(all, marker) {
				t.Errorf("no output shows %s: the echo of %s as %s reached no report", marker, name, label)
			}
		}
	}
	if !strings.Contains(r.stderr, hostile.EchoPrefix+"x-tenant-b64?v=REDACTED") {
		t.Error("the -v log shows no echo page's URL: the test would not notice a leak through it")
	}
	if !strings.Contains(outputs["json"], `\"description\":\"x-tenant.b64=REDACTED`) {
		t.Error("the JSON report quotes no MCP tool description: the test would not notice a leak through it")
	}
	// Values under 8 bytes are redacted in the request's own header lines
	// only: an echo of one is ordinary text.
	if !strings.Contains(outputs["json"], "X-Trace: REDACTED") || !strings.Contains(all, "x-trace.raw="+shortCanary) {
		t.Error("the short value is not redacted in curl lines, or is scrubbed from echoes")
	}
}

// A baseline is a report too: written from a scan of the same server, it
// holds no echo of a -H value.
func TestBaselineHoldsNoSecret(t *testing.T) {
	target, sent := echoServer(t)
	path := filepath.Join(t.TempDir(), "baseline.json")
	r := run(t, "baseline", "write", target+"/", "--max-pages", "200", "-o", path,
		"-H", "X-Tenant: "+tenantCanary, "-H", "Authorization: Bearer "+tokenCanary)
	if r.code != ExitOK {
		t.Fatalf("code %d: %s", r.code, r.stderr)
	}
	written := readOutput(t, path)
	for name, secret := range map[string]string{"x-tenant": tenantCanary, "authorization": tokenCanary} {
		for label, form := range hostile.EchoForms(secret) {
			if !strings.Contains(sent.String(), form) {
				t.Errorf("the server never sent %s as %s", name, label)
			}
			if strings.Contains(written+r.stderr, form) {
				t.Errorf("the baseline or stderr holds %s as %s", name, label)
			}
		}
	}
	if !strings.Contains(written, hostile.EchoPrefix+"x-tenant-b64?v=REDACTED") {
		t.Error("the baseline lists no echo page: the test would not notice a leak through its URLs")
	}
}

// recordedBodies are the request and response bodies of every exchange a
// HAR file holds, decoded: one written in base64 hides its text from a
// search of the file.
func recordedBodies(t *testing.T, path string) string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	arch, err := har.Read(f, har.DefaultMaxSize)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	out := arch.Recording.Outcome
	recs := []*exchange.Recording{out.Recording}
	for _, v := range out.Views {
		recs = append(recs, v.Recording)
	}
	for _, rec := range recs {
		for _, x := range rec.Exchanges {
			b.WriteString(x.Request.Body + "\n")
			if x.Response != nil {
				b.Write(x.Response.Body)
				b.WriteString("\n")
			}
		}
	}
	return b.String()
}

func readOutput(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil || len(b) == 0 {
		t.Fatalf("%s: %v (%d bytes)", path, err, len(b))
	}
	return string(b)
}

// TestSplicedEchoNeverPrinted is a server that echoes a -H value into its
// llms.txt, which has no heading and so is quoted in every report, with a
// control character spliced in: printing drops the character, and text
// wrapping cuts the excerpt, yet no output may show the value, whole, cut
// or across a line break.
func TestSplicedEchoNeverPrinted(t *testing.T) {
	const secret = "t/enant secret 4242"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/llms.txt" {
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`{"links":{"llms":"/llms.txt"}}`))
			return
		}
		spliced := strings.Replace(r.Header.Get("X-Tenant"), "e", "e\x01", 1)
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		// Echoes a word of growing length apart, so that wrapping falls inside one.
		body := "no heading"
		for pad := range 8 {
			body += " " + spliced + " " + strings.Repeat("x", pad+1)
		}
		w.Write([]byte(body))
	}))
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	args := []string{"scan", srv.URL + "/", "-v", "--no-color", "--max-pages", "5", "-H", "X-Tenant: " + secret}
	for _, format := range report.Formats() {
		args = append(args, "-o", format+"="+filepath.Join(dir, "report."+format))
	}
	r := run(t, args...)
	outputs := map[string]string{"stdout": r.stdout, "stderr": r.stderr}
	for _, format := range report.Formats() {
		outputs[format] = readOutput(t, filepath.Join(dir, "report."+format))
	}
	if !strings.Contains(r.stdout, "no heading REDACTED x") {
		t.Fatalf("the text report quotes no llms.txt excerpt: the test would not notice a leak\n%s", r.stdout)
	}
	for where, out := range outputs {
		// Read as a person would: what printing drops left out, and lines
		// joined where the report wrapped them.
		shown := strings.Join(strings.Fields(sanitize.Terminal(out)), " ")
		if at := strings.Index(shown, "t/enant"); at >= 0 {
			t.Errorf("%s shows the value, or its beginning: %q", where, shown[at:min(at+40, len(shown))])
		}
	}
}

// TestExposedCredentialNeverPrinted scans a server that exposes
// credentials of well-known formats in a JSON body (the demo's
// leak-secret-in-body), a header, llms.txt and an MCP tool's description:
// each is reported, no output holds one, and a replay of the recording,
// which holds their placeholders, gives the same report. The credentials
// are joined at run time and were never issued.
func TestExposedCredentialNeverPrinted(t *testing.T) {
	aws := "AKIA" + "QYLPMN5HHHFPZAM2"
	github := "ghp_" + strings.Repeat("aB3d", 9)
	enc := base64.RawURLEncoding.EncodeToString
	jwt := enc([]byte(`{"alg":"HS256","typ":"JWT"}`)) + "." + enc([]byte(`{"sub":"svc","exp":4102444800}`)) + "." + strings.Repeat("Sig0_-", 8)
	tools := &mcpfix.Server{Era: mcpfix.Modern, Tools: []json.RawMessage{
		json.RawMessage(`{"name":"list_orders","description":"Lists orders. Send Authorization: Bearer ` + jwt + `.","inputSchema":{"type":"object","properties":{"status":{"type":"string"}}}}`),
	}}
	app := demo.New(demo.DefectLeakSecretInBody)
	mux := http.NewServeMux()
	mux.Handle("/mcp", tools)
	mux.Handle("/llms.txt", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/markdown; charset=utf-8")
		w.Write([]byte("# Orders\n\n> Try it with the token " + github + ".\n"))
	}))
	mux.Handle("/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Debug-Aws", aws)
		app.ServeHTTP(w, r)
	}))
	sent := &sentLog{}
	srv := httptest.NewServer(sent.wrap(mux))
	t.Cleanup(srv.Close)

	dir := t.TempDir()
	recording, replayed := filepath.Join(dir, "scan.har"), filepath.Join(dir, "replay.json")
	args := []string{"scan", srv.URL + "/", "-v", "--mcp", srv.URL + "/mcp", "--record", recording}
	for _, format := range report.Formats() {
		args = append(args, "-o", format+"="+filepath.Join(dir, "report."+format))
	}
	r := run(t, args...)
	if r.code != ExitGateFailed {
		t.Fatalf("code %d: %s", r.code, r.stderr)
	}
	stripe := regexp.MustCompile(`sk_live_[0-9A-Za-z]+`).FindString(sent.String())
	if stripe == "" {
		t.Fatal("the server sent no Stripe key: the test would not notice its leak")
	}
	outputs := map[string]string{"stdout": r.stdout, "stderr": r.stderr, "har": readOutput(t, recording), "har bodies": recordedBodies(t, recording)}
	for _, format := range report.Formats() {
		outputs[format] = readOutput(t, filepath.Join(dir, "report."+format))
	}
	for rule, secret := range map[string]string{"stripe-access-token": stripe, "aws-access-token": aws, "github-pat": github, "jwt": jwt} {
		if !strings.Contains(sent.String(), secret) {
			t.Errorf("the server never sent the %s credential", rule)
		}
		// The end of a credential is what a prefix never shows; nor may an
		// output encode the whole (a URL, an HTML attribute, a HAR body).
		tail := secret[len(secret)-16:]
		for where, out := range outputs {
			if strings.Contains(out, tail) {
				t.Errorf("%s holds the %s credential", where, rule)
			}
			for label, form := range hostile.EchoForms(secret) {
				if strings.Contains(out, form) {
					t.Errorf("%s holds the %s credential as %s", where, rule, label)
				}
			}
		}
		if !strings.Contains(outputs["json"], `"subject": "`+rule+` `) {
			t.Errorf("the JSON report has no leakage-secret-exposed finding for %s", rule)
		}
		if !strings.Contains(outputs["har"], "agentready-redacted:"+rule+":") {
			t.Errorf("the recording keeps no placeholder for %s", rule)
		}
	}
	again := run(t, "scan", "--replay", recording, "-q", "-o", "json="+replayed)
	if again.code != r.code {
		t.Fatalf("replay: code %d, want the scan's %d: %s", again.code, r.code, again.stderr)
	}
	if got, want := timestamps.ReplaceAllString(readOutput(t, replayed), ""), timestamps.ReplaceAllString(outputs["json"], ""); got != want {
		t.Error("the replay's JSON report differs from the scan's beyond startedAt and finishedAt")
	}
}
