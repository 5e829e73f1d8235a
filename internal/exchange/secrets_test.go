package exchange_test

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/agentready/agentready/fixtures/hostile"
	"github.com/agentready/agentready/internal/exchange"
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

// tenant is a value under a header whose name says nothing of credentials.
const tenant = "tenantsecret4242"

func TestSecretsScrubEveryForm(t *testing.T) {
	s := exchange.NewSecrets(http.Header{"X-Tenant": {tenant}, "Authorization": {"Bearer " + token}})
	for _, secret := range []string{tenant, token} {
		for name, form := range hostile.EchoForms(secret) {
			in := `{"detail":"caller ` + form + ` refused"}`
			want := `{"detail":"caller REDACTED refused"}`
			if got, n := s.Bytes([]byte(in), false); string(got) != want || n != 1 {
				t.Errorf("%s %s: Bytes(%q) = %q, %d; want %q, 1", secret, name, in, got, n, want)
			}
		}
	}
}

// An echo with characters spliced in that print as nothing (controls,
// escape sequences, zero-width and bidi characters, raw or escaped), or
// with its spaces changed or wrapped, reads as the secret once printed:
// it is scrubbed whole, splices included.
func TestSecretsScrubSplicedEchoes(t *testing.T) {
	const spaced = "t/enant secret 4242"
	s := exchange.NewSecrets(http.Header{"X-Tenant": {spaced}, "X-Key": {tenant}})
	for _, tt := range []struct{ name, echo string }{
		{"C0 control", "t/e\x01nant secret 4242"},
		{"NUL and DEL", "t/e\x00nant secret 42\x7f42"},
		{"carriage return", "t/enant secret\r 4242"},
		{"C1 control", "t/enant\u0085 secret 4242"},
		{"CSI sequence", "t/e\x1b[31mnant secret\x1b[0m 4242"},
		{"OSC sequence", "t/enant \x1b]0;title\x07secret 4242"},
		{"zero-width space", "t/enant\u200b secret 4242"},
		{"bidi override", "t/ena\u202ent secret 4242"},
		{"soft hyphen and tag", "t/en\u00adant secret \U000E0041 4242"},
		{"JSON-escaped control", `t/e\u0001nant secret 4242`},
		{"JSON-escaped ESC sequence", `t/e\u001b[1mnant secret 4242`},
		{"HTML zero-width reference", "t/enant&#x200B; secret 4242"},
		{"wrapped", "t/enant secret\n      4242"},
		{"tab and no-break space", "t/enant\tsecret\u00a04242"},
		{"space runs", "t/enant   secret  +4242"},
	} {
		in := "caller " + tt.echo + " refused"
		if got := s.String(in); got != "caller REDACTED refused" {
			t.Errorf("%s: String(%q) = %q", tt.name, in, got)
		}
	}
	if in := "ten\x01ant\u200bsecret\x1b[0m4242"; s.String(in) != exchange.Redacted {
		t.Errorf("String(%q) = %q: several splices in one echo", in, s.String(in))
	}
	// A space is not invisible: a secret without one is not found in text
	// that holds one, as excerpts print it.
	if got := s.String("tenant secret4242"); got != "tenant secret4242" {
		t.Errorf("a space inside was taken as a splice: %q", got)
	}
}

// Inside a longer base64 value, the secret's encoding depends on its
// offset modulo 3; the characters that encode only its bits are replaced,
// at any offset.
func TestSecretsScrubEmbeddedBase64(t *testing.T) {
	s := exchange.NewSecrets(http.Header{"X-Tenant": {tenant}})
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding} {
		for offset := range 6 {
			blob := enc.EncodeToString([]byte(strings.Repeat("{", offset) + tenant + `","exp":1}`))
			got := s.String(blob)
			at := strings.Index(got, exchange.Redacted)
			if at < 0 {
				t.Errorf("offset %d: %q not scrubbed", offset, blob)
				continue
			}
			end := len(blob) - (len(got) - at - len(exchange.Redacted))
			first, last := (8*offset+5)/6, 8*(offset+len(tenant))/6
			if at > first || end < last {
				t.Errorf("offset %d: %q became %q; the characters [%d, %d) encode the secret alone", offset, blob, got, first, last)
			}
		}
	}
}

// A secret's hex is scrubbed in either case, a mix of both, and inside a
// longer hex value, where each byte is two digits whatever surrounds it.
func TestSecretsScrubHex(t *testing.T) {
	s := exchange.NewSecrets(http.Header{"Authorization": {"Bearer " + token}})
	lower := hex.EncodeToString([]byte(token))
	mixed := strings.ToUpper(lower[:len(lower)/2]) + lower[len(lower)/2:]
	longer := hex.EncodeToString([]byte("id:" + token + ":end"))
	for in, want := range map[string]string{
		"sig=" + lower:                  "sig=REDACTED",
		"sig=" + strings.ToUpper(lower): "sig=REDACTED",
		"sig=" + mixed:                  "sig=REDACTED",
		"sig=" + longer:                 "sig=" + hex.EncodeToString([]byte("id:")) + "REDACTED" + hex.EncodeToString([]byte(":end")),
		"sig=" + lower[:len(lower)-2]:   "sig=" + lower[:len(lower)-2],
	} {
		if got := s.String(in); got != want {
			t.Errorf("String(%q) = %q, want %q", in, got, want)
		}
	}
}

// Values under MinSecretLen are not searched for: they occur in ordinary
// text. Their own header line is redacted by name. Their encodings are not
// searched for either, however long: the 14 hex digits of a 7-byte value
// may be part of any hash.
func TestSecretsShortValues(t *testing.T) {
	s := exchange.NewSecrets(http.Header{"X-Region": {"eu-west1"}, "X-Trace": {"abc1234"}})
	if got := s.String("region eu-west1, EU-WEST1, trace abc1234"); got != "region REDACTED, REDACTED, trace abc1234" {
		t.Errorf("got %q: want the 8-byte value scrubbed in any case, the 7-byte one kept", got)
	}
	if in := "etag 61626331323334ff, " + hex.EncodeToString([]byte("eu-west1")); s.String(in) != "etag 61626331323334ff, REDACTED" {
		t.Errorf("got %q: want the 8-byte value's hex scrubbed, the 7-byte one's kept", s.String(in))
	}
	red := exchange.RedactHeader(http.Header{"X-Trace": {"abc1234"}}, map[string]bool{"X-Trace": true})
	if red.Get("X-Trace") != exchange.Redacted {
		t.Errorf("header line %v: want the short value redacted by name", red)
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
		// The cap may also fall inside an escape, or a base64 form.
		{"debug: token s3cr3t-token%2", true, "debug: token REDACTED"},
		{"debug: token S3CR3T\\u002", true, "debug: token REDACTED"},
		{"debug: token s3cr3t-token&#x2", true, "debug: token REDACTED"},
		{"debug: &s3cr3t-tok", true, "debug: &REDACTED"},
		{"debug: " + base64.StdEncoding.EncodeToString([]byte(token))[:12], true, "debug: REDACTED"},
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

// A hostile body of near-matches at the cap is scrubbed whole and right;
// BenchmarkSecretsBounded shows the cost growing linearly with the body
// (eight times the body, about eight times the time, never the 64 a
// quadratic search would take), measured rather than asserted, since a
// loaded machine makes any timing flaky.
func TestSecretsBounded(t *testing.T) {
	whole, near, body := boundedSecrets()
	if got, n := whole.Bytes(body, true); n == 0 || len(got) >= len(body) {
		t.Errorf("%d replacements, %d bytes: the body of a's holds the secret", n, len(got))
	}
	if _, n := near.Bytes(body, false); n != 0 {
		t.Errorf("%d replacements in a body without the secret", n)
	}
}

// boundedSecrets are a secret of 4 KiB a's, near-matches of it, and a
// 2 MiB body of a's.
func boundedSecrets() (whole, near *exchange.Secrets, body []byte) {
	long := strings.Repeat("a", 4<<10)
	whole = exchange.NewSecrets(http.Header{"Authorization": {"Bearer " + long}, "Cookie": {"a=" + long + "b"}})
	near = exchange.NewSecrets(http.Header{"Cookie": {"a=" + long + "b"}})
	return whole, near, bytes.Repeat([]byte("a"), 2<<20)
}

// BenchmarkSecretsBounded scrubs the hostile body at 256 KiB and at 2 MiB:
// go test ./internal/exchange -bench SecretsBounded -run '^$'
func BenchmarkSecretsBounded(b *testing.B) {
	whole, near, body := boundedSecrets()
	for _, s := range []struct {
		name    string
		secrets *exchange.Secrets
	}{{"secret", whole}, {"near-matches", near}} {
		for _, size := range []int{256 << 10, 2 << 20} {
			b.Run(fmt.Sprintf("%s/%dKiB", s.name, size>>10), func(b *testing.B) {
				for b.Loop() {
					s.secrets.Bytes(body[:size], true)
				}
			})
		}
	}
}

// A header whose name a hostile server made of an echo is renamed.
func TestScrubHeaderNames(t *testing.T) {
	s := exchange.NewSecrets(http.Header{"X-Tenant": {tenant}})
	x := &exchange.Exchange{Response: &exchange.Response{Header: http.Header{"X-Echo-" + tenant: {"1"}}}}
	s.Scrub(x)
	if x.Response.Header.Get("X-Echo-Redacted") != "1" || len(x.Response.Header) != 1 || x.Response.Redactions != 1 {
		t.Errorf("header %v, %d redactions", x.Response.Header, x.Response.Redactions)
	}
}

// BenchmarkSecretsBytes scrubs bodies that hold no secret, the common case,
// with the secrets of a typical scan: a bearer token, a tenant and a cookie.
func BenchmarkSecretsBytes(b *testing.B) {
	s := exchange.NewSecrets(http.Header{
		"Authorization": {"Bearer " + token}, "X-Tenant": {tenant}, "Cookie": {"sid=session-cookie-value; theme=dark"},
	})
	item := `{"id":"0001","name":"Widget Pro","href":"/items/0001?fields=name%2Cprice","price":"12.50","note":"A&amp;B \u00e9"},`
	for _, size := range []int{2 << 10, 2 << 20} {
		body := []byte(strings.Repeat(item, size/len(item)))
		b.Run(fmt.Sprintf("%dKiB", size>>10), func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			for b.Loop() {
				if _, n := s.Bytes(body, false); n != 0 {
					b.Fatal("scrubbed a body without secrets")
				}
			}
		})
	}
}
