package cli

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentready/agentready/fixtures/demo"
	"github.com/agentready/agentready/fixtures/oauthfix"
)

// tlsTarget serves h over TLS with httptest's own certificate, which no
// system trusts, and returns its root URL and a PEM file of that
// certificate, the CA to give --cacert. A non-nil clientCA makes the server
// require a client certificate it signed.
func tlsTarget(t *testing.T, h http.Handler, clientCA *x509.Certificate) (root, caFile string) {
	t.Helper()
	srv := httptest.NewUnstartedServer(h)
	if clientCA != nil {
		pool := x509.NewCertPool()
		pool.AddCert(clientCA)
		srv.TLS = &tls.Config{ClientAuth: tls.RequireAndVerifyClientCert, ClientCAs: pool}
	}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	caFile = filepath.Join(t.TempDir(), "ca.pem")
	writePEM(t, caFile, "CERTIFICATE", srv.Certificate().Raw)
	return srv.URL, caFile
}

func writePEM(t *testing.T, path, kind string, der []byte) {
	t.Helper()
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: kind, Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
}

// clientCertificate makes a self-signed client certificate and writes it
// and its key as PEM files.
func clientCertificate(t *testing.T) (cert *x509.Certificate, certFile, keyFile string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "scanner"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
		BasicConstraintsValid: true, IsCA: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	if cert, err = x509.ParseCertificate(der); err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	certFile, keyFile = filepath.Join(dir, "client.pem"), filepath.Join(dir, "client.key")
	writePEM(t, certFile, "CERTIFICATE", der)
	writePEM(t, keyFile, "EC PRIVATE KEY", keyDER)
	return cert, certFile, keyFile
}

// TestPrivateCAFailsWithAHintAndPassesWithCACert: a server whose CA the
// machine does not trust is unreachable (exit 3) with the option to use
// named; with --cacert the same scan completes.
func TestPrivateCAFailsWithAHintAndPassesWithCACert(t *testing.T) {
	root, ca := tlsTarget(t, demo.New(), nil)
	r := run(t, "scan", root+"/", "-q", "--max-pages", "5")
	if r.code != ExitIncomplete || !strings.Contains(r.stderr, "x509") || !strings.Contains(r.stderr, "--cacert FILE") {
		t.Fatalf("without --cacert: exit %d, want %d with a hint naming --cacert: %s", r.code, ExitIncomplete, r.stderr)
	}
	r = run(t, "scan", root+"/", "-q", "--max-pages", "5", "--fail-on", "none", "--cacert", ca)
	if r.code != ExitOK {
		t.Fatalf("with --cacert: exit %d: %s", r.code, r.stderr)
	}
}

// TestInsecureWarnsInEveryFormat: --insecure reaches the untrusted server,
// and every report says the certificates were not verified.
func TestInsecureWarnsInEveryFormat(t *testing.T) {
	root, _ := tlsTarget(t, demo.New(), nil)
	dir := t.TempDir()
	args := []string{"scan", root + "/", "--max-pages", "5", "--fail-on", "none", "--insecure", "--format", "json"}
	formats := []string{"text", "markdown", "html", "sarif", "junit"}
	for _, f := range formats {
		args = append(args, "-o", f+"="+filepath.Join(dir, "r."+f))
	}
	r := run(t, args...)
	if r.code != ExitOK {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if !strings.Contains(r.stdout, `"tlsUnverified": true`) {
		t.Error("the JSON report does not say TLS was not verified")
	}
	for _, f := range formats {
		b, err := os.ReadFile(filepath.Join(dir, "r."+f))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), "TLS not verified (--insecure)") {
			t.Errorf("the %s report does not warn that TLS was not verified", f)
		}
	}
	// Without --insecure, a verified scan says nothing of it.
	plain := serve(t)
	r = run(t, "scan", plain, "--max-pages", "5", "--fail-on", "none", "--format", "json")
	if r.code != ExitOK || strings.Contains(r.stdout, "tlsUnverified") {
		t.Errorf("exit %d; a verified scan's report mentions tlsUnverified: %v", r.code, strings.Contains(r.stdout, "tlsUnverified"))
	}
}

// TestClientCertificate: a server that requires a client certificate
// refuses the scan without --cert and --key (the hint names them) and
// completes with them.
func TestClientCertificate(t *testing.T) {
	cert, certFile, keyFile := clientCertificate(t)
	root, ca := tlsTarget(t, demo.New(), cert)
	r := run(t, "scan", root+"/", "-q", "--max-pages", "5", "--cacert", ca)
	if r.code != ExitIncomplete || !strings.Contains(r.stderr, "--cert FILE --key FILE") {
		t.Fatalf("without a client certificate: exit %d, want %d with a hint naming --cert: %s", r.code, ExitIncomplete, r.stderr)
	}
	r = run(t, "scan", root+"/", "-q", "--max-pages", "5", "--fail-on", "none", "--cacert", ca, "--cert", certFile, "--key", keyFile)
	if r.code != ExitOK {
		t.Fatalf("with --cert and --key: exit %d: %s", r.code, r.stderr)
	}
}

// TestOAuthTokenEndpointOverPrivateCA: the token endpoint is reached with
// the scan's TLS settings.
func TestOAuthTokenEndpointOverPrivateCA(t *testing.T) {
	fix := &oauthfix.Server{Items: 3, ClientID: oauthClientID, ClientSecret: oauthClientSecret}
	root, ca := tlsTarget(t, fix, nil)
	r := runEnv(t, []string{"OAUTH_SECRET=" + oauthClientSecret}, "scan", root+"/", "-q", "--fail-on", "none", "--cacert", ca,
		"--identity", "svc", "--oauth-for", "svc=token-url="+root+oauthfix.TokenPath+",client-id="+oauthClientID+",client-secret=env:OAUTH_SECRET")
	if r.code != ExitOK {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if len(fix.Issued()) == 0 {
		t.Error("no token was issued over TLS")
	}
}

// TestTLSFlagUsageErrors: files that give no certificate, and a
// certificate without its key, are usage errors.
func TestTLSFlagUsageErrors(t *testing.T) {
	dir := t.TempDir()
	notPEM := filepath.Join(dir, "not.pem")
	if err := os.WriteFile(notPEM, []byte("hello"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, certFile, _ := clientCertificate(t)
	for _, args := range [][]string{
		{"--cacert", notPEM},
		{"--cacert", filepath.Join(dir, "missing.pem")},
		{"--cert", certFile},
		{"--cert", certFile, "--key", notPEM},
	} {
		r := run(t, append([]string{"scan", "https://127.0.0.1:1/"}, args...)...)
		if r.code != ExitUsage {
			t.Errorf("%v: exit %d, want %d: %s", args, r.code, ExitUsage, r.stderr)
		}
	}
}

func TestTLSHint(t *testing.T) {
	for msg, want := range map[string]string{
		"Get \"https://x/\": tls: failed to verify certificate: x509: certificate signed by unknown authority": "--cacert FILE",
		"x509: certificate is valid for a.example, not b.example":                                              "--insecure",
		"remote error: tls: certificate required":                                                              "--cert FILE --key FILE",
		"dial tcp 127.0.0.1:1: connect: connection refused":                                                    "",
	} {
		got := tlsHint(msg)
		if (want == "") != (got == "") || !strings.Contains(got, want) {
			t.Errorf("tlsHint(%q) = %q, want one naming %q", msg, got, want)
		}
	}
}

// TestTLSFromConfigFile: tls.cacert, relative to the file, trusts the
// private CA as --cacert does.
func TestTLSFromConfigFile(t *testing.T) {
	root, ca := tlsTarget(t, demo.New(), nil)
	dir := filepath.Dir(ca)
	cfg := filepath.Join(dir, ".agentready.yaml")
	if err := os.WriteFile(cfg, []byte("version: 1\ntls:\n  cacert: ca.pem\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := run(t, "scan", "--config", cfg, root+"/", "-q", "--max-pages", "5", "--fail-on", "none")
	if r.code != ExitOK {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
}

// TestInsecureScanReplaysWithItsWarning: a recording of a scan that did not
// verify TLS says so, and its replay warns in every report as the scan
// did, with the same JSON report but for the timestamps.
func TestInsecureScanReplaysWithItsWarning(t *testing.T) {
	root, _ := tlsTarget(t, demo.New(), nil)
	dir := t.TempDir()
	recording := filepath.Join(dir, "scan.har")
	formats := []string{"text", "markdown", "html", "sarif", "junit"}
	outputs := func(prefix string) []string {
		var args []string
		for _, f := range formats {
			args = append(args, "-o", f+"="+filepath.Join(dir, prefix+"."+f))
		}
		return append(args, "-o", "json="+filepath.Join(dir, prefix+".json"))
	}
	r := run(t, append([]string{"scan", root + "/", "-q", "--max-pages", "5", "--fail-on", "none", "--insecure", "--record", recording}, outputs("scan")...)...)
	if r.code != ExitOK {
		t.Fatalf("scan: exit %d: %s", r.code, r.stderr)
	}
	again := run(t, append([]string{"scan", "--replay", recording, "-q", "--fail-on", "none"}, outputs("replay")...)...)
	if again.code != ExitOK || again.stderr != "" {
		t.Fatalf("replay: exit %d: %s", again.code, again.stderr)
	}
	for _, f := range formats {
		if got := readOutput(t, filepath.Join(dir, "replay."+f)); !strings.Contains(got, "TLS not verified (--insecure)") {
			t.Errorf("the replay's %s report does not warn that TLS was not verified", f)
		}
	}
	want, got := readOutput(t, filepath.Join(dir, "scan.json")), readOutput(t, filepath.Join(dir, "replay.json"))
	if !strings.Contains(got, `"tlsUnverified": true`) {
		t.Error("the replay's JSON report does not say TLS was not verified")
	}
	if timestamps.ReplaceAllString(got, "") != timestamps.ReplaceAllString(want, "") {
		t.Error("the replay's JSON report differs from the scan's beyond startedAt and finishedAt")
	}
}

// ownCATarget serves h over TLS with a certificate of its own for
// 127.0.0.1, self-signed, so that two such servers have different CAs
// (httptest's servers all share one), and returns its root URL and the
// PEM file of that certificate.
func ownCATarget(t *testing.T, h http.Handler) (root, caFile string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	serial, err := rand.Int(rand.Reader, big.NewInt(1<<62))
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial, Subject: pkix.Name{CommonName: "staging CA " + serial.String()},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage:    x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
		BasicConstraintsValid: true, IsCA: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(h)
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key}}}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	caFile = filepath.Join(t.TempDir(), "ca.pem")
	writePEM(t, caFile, "CERTIFICATE", der)
	return srv.URL, caFile
}

// TestTLSPerTarget: two targets behind two private CAs, each trusted by
// its own tls.cacert or by the top-level one it inherits, both verify; a
// target left with the other's CA does not.
func TestTLSPerTarget(t *testing.T) {
	rootA, caA := ownCATarget(t, demo.New())
	rootB, caB := ownCATarget(t, demo.New())
	dir := t.TempDir()
	cfg := filepath.Join(dir, ".agentready.yaml")
	write := func(body string) {
		t.Helper()
		if err := os.WriteFile(cfg, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	scan := func() result {
		return run(t, "scan", "--config", cfg, "-q", "--max-pages", "5", "--fail-on", "none")
	}
	write("version: 1\ntls:\n  cacert: " + caA + "\ntargets:\n  - name: a\n    url: " + rootA + "/\n  - name: b\n    url: " + rootB + "/\n    tls:\n      cacert: " + caB + "\n")
	if r := scan(); r.code != ExitOK {
		t.Fatalf("each target with its CA: exit %d: %s", r.code, r.stderr)
	}
	write("version: 1\ntls:\n  cacert: " + caA + "\ntargets:\n  - name: a\n    url: " + rootA + "/\n  - name: b\n    url: " + rootB + "/\n")
	if r := scan(); r.code != ExitIncomplete || !strings.Contains(r.stderr, "target b:") || strings.Contains(r.stderr, "target a:") {
		t.Errorf("target b with target a's CA: exit %d, want %d with b alone failing: %s", r.code, ExitIncomplete, r.stderr)
	}
	// A target's tls: wins over the flag of the same setting, as its other
	// keys do.
	write("version: 1\ntargets:\n  - name: a\n    url: " + rootA + "/\n    tls: {cacert: " + caA + "}\n  - name: b\n    url: " + rootB + "/\n    tls: {cacert: " + caB + "}\n")
	if r := run(t, "scan", "--config", cfg, "-q", "--max-pages", "5", "--fail-on", "none", "--cacert", caB); r.code != ExitOK {
		t.Errorf("targets' own CAs over --cacert: exit %d: %s", r.code, r.stderr)
	}
}

// TestTLSConfigCheck: a client certificate without its key, at the top
// level or in a target, is refused where it is written.
func TestTLSConfigCheck(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, ".agentready.yaml")
	body := "version: 1\ntls:\n  cert: client.pem\ntargets:\n  - url: https://a.example/\n    tls:\n      key: client.key\n  - url: https://b.example/\n    tls:\n      cert: b.pem\n      key: b.key\n"
	if err := os.WriteFile(cfg, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	r := run(t, "--config", cfg, "config", "check")
	if r.code != ExitUsage {
		t.Fatalf("exit %d, want %d: %s", r.code, ExitUsage, r.stderr)
	}
	for _, want := range []string{"tls: cert and key go together", "targets[0]: tls: cert and key go together"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("config check does not say %q: %s", want, r.stderr)
		}
	}
	if strings.Contains(r.stderr, "targets[1]") {
		t.Errorf("a target with both cert and key is refused: %s", r.stderr)
	}
}
