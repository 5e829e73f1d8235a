package exchange_test

import (
	"bytes"
	"encoding/base64"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/agentready/agentready/exchange"
)

const token = "s3cr3t-token/with+slash"

func TestSecretsScrubEchoes(t *testing.T) {
	basic := base64.StdEncoding.EncodeToString([]byte("bob:correct-horse"))
	s := exchange.NewSecrets(
		http.Header{"Authorization": {"Bearer " + token}, "X-Trace": {"1"}, "Accept": {"application/problem+json"}},
		http.Header{"Proxy-Authorization": {"Basic " + basic}, "Cookie": {`sid=session-cookie-value; theme=dark; csrf="quoted-csrf-value"`}},
	)
	for _, tt := range []struct {
		name, in, want string
	}{
		{"the whole value first", "Authorization: Bearer " + token, "Authorization: " + exchange.Redacted},
		{"the token alone", `{"detail":"token ` + token + ` expired"}`, `{"detail":"token REDACTED expired"}`},
		{"JSON with escaped slashes", `{"token":"s3cr3t-token\/with+slash"}`, `{"token":"REDACTED"}`},
		{"percent-encoded in a query", "/cb?access_token=s3cr3t-token%2Fwith%2Bslash&x=1", "/cb?access_token=REDACTED&x=1"},
		{"percent-encoded in a path", "/t/s3cr3t-token%2Fwith+slash/", "/t/REDACTED/"},
		{"the Basic token", "Basic " + basic, exchange.Redacted},
		{"decoded user:password", "login bob:correct-horse failed", "login REDACTED failed"},
		{"the password alone", "password correct-horse is wrong", "password REDACTED is wrong"},
		{"each cookie value", "sid=session-cookie-value csrf=quoted-csrf-value", "sid=REDACTED csrf=REDACTED"},
		// Short values occur in ordinary text; plain fields are no secret.
		{"short values stay", "theme=dark trace=1 user=bob", "theme=dark trace=1 user=bob"},
		{"plain header values stay", "Content-Type: application/problem+json", "Content-Type: application/problem+json"},
		{"nothing to scrub", "hello", "hello"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := s.String(tt.in); got != tt.want {
				t.Errorf("String(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestSecretsBytes(t *testing.T) {
	s := exchange.NewSecrets(http.Header{"Authorization": {"Bearer " + token}})
	body := []byte(`{"a":"` + token + `","b":"` + token + `"}`)
	orig := append([]byte(nil), body...)
	got, n := s.Bytes(body, false)
	if string(got) != `{"a":"REDACTED","b":"REDACTED"}` || n != 2 {
		t.Errorf("Bytes = %q, %d", got, n)
	}
	if !bytes.Equal(body, orig) {
		t.Error("the input was modified")
	}
	clean := []byte(`{"a":1}`)
	if got, n := s.Bytes(clean, false); &got[0] != &clean[0] || n != 0 {
		t.Error("a body without secrets was copied or counted")
	}
	var none *exchange.Secrets
	if got, n := none.Bytes(body, true); !bytes.Equal(got, body) || n != 0 || none.String("x") != "x" {
		t.Error("nil Secrets scrubbed something")
	}
	if exchange.NewSecrets(http.Header{"X-Trace": {"1"}}, nil) != nil {
		t.Error("no secret of MinSecretLen bytes, yet Secrets")
	}
}

// A body cut at the cap may end inside an echo: the part is scrubbed too,
// and only when the body was cut.
func TestSecretsCutTail(t *testing.T) {
	s := exchange.NewSecrets(http.Header{"Authorization": {"Bearer " + token}})
	for _, tt := range []struct {
		in   string
		cut  bool
		want string
	}{
		{"debug: Authorization: Bearer s3cr3t-tok", true, "debug: Authorization: REDACTED"},
		{"debug: token s3cr3t-tok", true, "debug: token REDACTED"},
		{"debug: token s3cr3t-tok", false, "debug: token s3cr3t-tok"},
		{"debug: done", true, "debug: done"},
	} {
		if got, _ := s.Bytes([]byte(tt.in), tt.cut); string(got) != tt.want {
			t.Errorf("Bytes(%q, %v) = %q, want %q", tt.in, tt.cut, got, tt.want)
		}
	}
}

func TestScrubExchange(t *testing.T) {
	s := exchange.NewSecrets(http.Header{"X-Tenant-Key": {"tenant-key-0001"}})
	body := "<pre>X-Tenant-Key: tenant-key-0001</pre>"
	x := &exchange.Exchange{
		Request: exchange.Request{Method: "POST", URL: "http://api.test/x?key=tenant-key-0001",
			Header: http.Header{"X-Tenant-Key": {exchange.Redacted}, "If-None-Match": {`"tenant-key-0001"`}},
			Body:   `{"key":"tenant-key-0001"}`},
		Err: `Get "http://api.test/x?key=tenant-key-0001": EOF`,
		Response: &exchange.Response{Status: 500, Header: http.Header{"X-Debug": {"key tenant-key-0001"}, "Content-Length": {"39"}},
			Body: []byte(body), BodySize: int64(len(body))},
	}
	s.Scrub(x)
	r := x.Response
	for what, got := range map[string]string{
		"URL": x.Request.URL, "request header": x.Request.Header.Get("If-None-Match"), "request body": x.Request.Body,
		"error": x.Err, "response header": r.Header.Get("X-Debug"), "body": string(r.Body),
	} {
		if strings.Contains(got, "tenant-key-0001") || !strings.Contains(got, exchange.Redacted) {
			t.Errorf("%s: %q", what, got)
		}
	}
	if r.BodySize != int64(len(body)) || r.Header.Get("Content-Length") != "39" || r.Redactions != 2 {
		t.Errorf("size %d, Content-Length %q, redactions %d: want what was received, and 2", r.BodySize, r.Header.Get("Content-Length"), r.Redactions)
	}
}

// A hostile body of near-matches at the cap is scrubbed in linear time.
func TestSecretsBounded(t *testing.T) {
	long := strings.Repeat("a", 4<<10)
	s := exchange.NewSecrets(http.Header{"Authorization": {"Bearer " + long}, "Cookie": {"a=" + long + "b"}})
	body := bytes.Repeat([]byte("a"), 2<<20)
	begin := time.Now()
	got, n := s.Bytes(body, true)
	if n == 0 || len(got) >= len(body) {
		t.Errorf("%d replacements, %d bytes: the body of a's holds the secret", n, len(got))
	}
	if d := time.Since(begin); d > 2*time.Second {
		t.Errorf("scrubbing 2 MiB took %s", d)
	}
}
