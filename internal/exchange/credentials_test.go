package exchange_test

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/agentready/agentready/internal/exchange"
)

// The credentials below are made of parts joined at run time, so that no
// scanner of this repository's own source mistakes a fixture for a leak.
// None was ever issued.

func fakeJWT(header, claims string) string {
	enc := base64.RawURLEncoding.EncodeToString
	return enc([]byte(header)) + "." + enc([]byte(claims)) + "." + strings.Repeat("Sig0_-", 8)
}

func TestFindCredentials(t *testing.T) {
	rep := strings.Repeat
	tests := []struct {
		name, text string
		rule       string // "" when nothing must be found
		prefix     string
		length     int
	}{
		{"stripe live secret", `{"key":"` + "sk_" + "live_" + rep("a1B2", 6) + `"}`, "stripe-access-token", "sk_live_", 32},
		{"stripe live restricted", "rk_" + "live_" + rep("Z9y8", 10), "stripe-access-token", "rk_live_", 48},
		{"stripe live key in a list", "[sk_" + "live_" + rep("a1B2", 6) + ",x]", "stripe-access-token", "sk_live_", 32},
		{"stripe test key is not live", "sk_" + "test_" + rep("a1B2", 6), "", "", 0},
		{"stripe publishable key is public", "pk_" + "live_" + rep("a1B2", 6), "", "", 0},
		{"aws access key id", "id=" + "AKIA" + "QYLPMN5HHHFPZAM2" + "&", "aws-access-token", "AKIA", 20},
		{"aws temporary key id", "ASIA" + "QYLPMN5HHHFPZAM2", "aws-access-token", "ASIA", 20},
		{"aws documentation example", "AKIA" + "IOSFODNN7EXAMPLE", "", "", 0},
		{"aws inside a longer word", "XAKIA" + "QYLPMN5HHHFPZAM2", "", "", 0},
		{"github classic pat", "token " + "ghp_" + rep("aB3d", 9), "github-pat", "ghp_", 40},
		{"github fine-grained pat", "github_" + "pat_" + rep("aB3d_", 16) + "xy", "github-fine-grained-pat", "github_pat_", 93},
		{"github oauth", "gho_" + rep("aB3d", 9), "github-oauth", "gho_", 40},
		{"github app", "ghs_" + rep("aB3d", 9), "github-app-token", "ghs_", 40},
		{"github refresh", "ghr_" + rep("aB3d", 9), "github-refresh-token", "ghr_", 40},
		{"github too short", "ghp_" + rep("aB3d", 8), "", "", 0},
		{"gitlab pat", `"glpat-` + rep("x_Y-", 5) + `"`, "gitlab-pat", "glpat-", 26},
		{"slack bot", "xoxb-" + "1234567890-1234567890123-" + rep("AbCd", 6), "slack-bot-token", "xoxb-", 54},
		{"slack user", "xoxp-" + "1234567890-1234567890-1234567890-" + rep("AbCd", 8), "slack-user-token", "xoxp-", 70},
		{"slack webhook", "https://" + "hooks.slack.com/services/" + "T00000000/B00000000/" + rep("XxYy", 6), "slack-webhook-url", "hooks.slack.com/services/", 69},
		{"slack docs webhook is too short", "https://" + "hooks.slack.com/services/" + "T000/B000/XXXX", "", "", 0},
		{"google api key", "AIza" + rep("Sy_B-", 7), "gcp-api-key", "AIza", 39},
		{"openai project key", "sk-" + "proj-" + rep("Ab1_", 14) + "Ab" + "T3Blbk" + "FJ" + rep("Cd2-", 14) + "Cd" + " ", "openai-api-key", "sk-proj-", 132},
		{"openai project key of another length", "sk-" + "proj-" + rep("Ab1_", 5) + "T3Blbk" + "FJ" + rep("Cd2-", 5) + " ", "", "", 0},
		{"openai key in markup", "<code>sk-" + "proj-" + rep("Ab1_", 14) + "Ab" + "T3Blbk" + "FJ" + rep("Cd2-", 14) + "Cd" + "</code>", "openai-api-key", "sk-proj-", 132},
		{"anthropic key", "sk-" + "ant-api03-" + rep("a", 93) + "AA", "anthropic-api-key", "sk-ant-api03-", 108},
		{"anthropic admin key", "(sk-" + "ant-admin01-" + rep("a", 93) + "AA)", "anthropic-admin-api-key", "sk-ant-admin01-", 110},
		{"sendgrid key", "SG." + rep("a", 22) + "." + rep("b", 43), "sendgrid-api-token", "SG.", 69},
		{"npm token", "npm_" + rep("aB3d", 9), "npm-access-token", "npm_", 40},
		{"pem private key", "-----BEGIN RSA " + "PRIVATE KEY-----\n" + rep("MIIEowIBAAKCAQEA0Z3VS5JJcds3xfn/ygWyF8PbnGy0AHB7MhgHcTz6sE2I2yPB\n", 3) + "-----END RSA " + "PRIVATE KEY-----",
			"private-key", "-----BEGIN RSA PRIVATE KEY-----", 256},
		{"pem private key in a JSON string", `{"pem":"-----BEGIN ` + `PRIVATE KEY-----\n` + rep("MIIEvQIBADANBgkqhkiG9w0BAQEFAASC", 3) + `\n-----END ` + `PRIVATE KEY-----"}`, "private-key", "-----BEGIN PRIVATE KEY-----", 152},
		{"pem armour around an ellipsis", "-----BEGIN " + "PRIVATE KEY-----\n...\n-----END " + "PRIVATE KEY-----", "", "", 0},
		{"pem public key", "-----BEGIN PUBLIC KEY-----\n" + rep("MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8A", 3) + "\n-----END PUBLIC KEY-----", "", "", 0},
		{"signed jwt with exp", fakeJWT(`{"alg":"HS256","typ":"JWT"}`, `{"sub":"42","exp":4102444800}`), "jwt", "eyJ", 125},
		{"unsigned jwt", fakeJWT(`{"alg":"none"}`, `{"sub":"42","exp":4102444800}`), "", "", 0},
		{"jwt without exp", fakeJWT(`{"alg":"HS256","typ":"JWT"}`, `{"sub":"1234567890","name":"John Doe"}`), "", "", 0},
		{"ordinary text", "order 42 shipped; see https://api.example/orders/42 and sha256 9f86d081884c7d659a2feaa0c55ad015", "", "", 0},
	}
	for _, tt := range tests {
		found := exchange.FindCredentials([]byte(tt.text))
		if tt.rule == "" {
			if len(found) != 0 {
				t.Errorf("%s: found %+v, want nothing", tt.name, found)
			}
			continue
		}
		if len(found) != 1 {
			t.Errorf("%s: found %+v, want one %s", tt.name, found, tt.rule)
			continue
		}
		if c := found[0]; c.Rule != tt.rule || c.Prefix != tt.prefix || c.Length != tt.length || c.Placeholder {
			t.Errorf("%s: found %+v, want rule %s prefix %q length %d", tt.name, c, tt.rule, tt.prefix, tt.length)
		}
		// The placeholder keeps what was found, and nothing else.
		red, n := exchange.RedactCredentials([]byte(tt.text))
		again := exchange.FindCredentials(red)
		if n != 1 || len(again) != 1 || !again[0].Placeholder || again[0].Rule != tt.rule || again[0].Prefix != tt.prefix ||
			again[0].Length != tt.length || again[0].Expires != found[0].Expires {
			t.Errorf("%s: redacted to %q (%d), read back as %+v", tt.name, red, n, again)
		}
		if twice, m := exchange.RedactCredentials(red); m != 0 || string(twice) != string(red) {
			t.Errorf("%s: redacting the placeholder again changed it: %q", tt.name, twice)
		}
		start := strings.Index(tt.text, tt.prefix)
		if end := tt.text[start+tt.length-12 : start+tt.length]; tt.rule != "private-key" && strings.Contains(string(red), end) {
			t.Errorf("%s: the redacted text keeps the credential's end: %q", tt.name, red)
		}
	}
}

func TestRedactResponseCredentialsKeepsTheRequest(t *testing.T) {
	key := "sk_" + "live_" + strings.Repeat("a1B2", 6)
	aws := "AKIA" + "QYLPMN5HHHFPZAM2"
	x := &exchange.Exchange{
		Request: exchange.Request{Method: "GET", URL: "http://api.test/keys?mine=" + key, Header: http.Header{}},
		Response: &exchange.Response{Status: 200, Header: http.Header{"X-Debug-Key": {aws}},
			Body: []byte(`{"stripe":"` + key + `","again":"` + key + `"}`)},
	}
	if n := exchange.RedactResponseCredentials(x); n != 3 {
		t.Errorf("replaced %d credentials, want 3", n)
	}
	got := fmt.Sprint(x.Response.Header, string(x.Response.Body))
	if strings.Contains(got, key) || strings.Contains(got, aws) {
		t.Errorf("the response still holds a credential: %s", got)
	}
	want := `{"stripe":"agentready-redacted:stripe-access-token:sk_live_:32","again":"agentready-redacted:stripe-access-token:sk_live_:32"}`
	if string(x.Response.Body) != want {
		t.Errorf("body %s, want %s", x.Response.Body, want)
	}
	if h := x.Response.Header.Get("X-Debug-Key"); h != "agentready-redacted:aws-access-token:AKIA:20" {
		t.Errorf("header %q", h)
	}
	if !strings.Contains(x.Request.URL, key) {
		t.Errorf("the request the user gave changed: %s", x.Request.URL)
	}
}

func TestFindCredentialsIsBounded(t *testing.T) {
	key := "ghp_" + strings.Repeat("aB3d", 9)
	body := strings.Repeat(key+" ", 10000)
	if got := len(exchange.FindCredentials([]byte(body))); got > 64 {
		t.Errorf("found %d credentials in one text, want at most 64", got)
	}
}

// BenchmarkRedactCredentials measures the redaction every recorded
// response goes through: an ordinary JSON body, which holds no rule's
// prefix, and a hostile one of the size --max-body allows that holds every
// prefix again and again without a credential.
func BenchmarkRedactCredentials(b *testing.B) {
	ordinary := []byte(strings.Repeat(`{"id":42,"status":"shipped","total":"12.00","_links":{"self":{"href":"/orders/42"}}},`, 1000))
	var near strings.Builder
	for near.Len() < 2<<20 {
		near.WriteString("sk_live_x AKIA ghp_ github_pat_ gho_ ghu_ glpat- xoxb- xoxp- hooks.slack.com/ AIza T3BlbkFJ sk-ant- SG. npm_ PRIVATE KEY eyJhbGciOi.eyJzdWIi. ")
	}
	for _, bc := range []struct {
		name string
		body []byte
	}{{"ordinary-85KB", ordinary}, {"every-prefix-2MB", []byte(near.String())}} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(bc.body)))
			for b.Loop() {
				if _, n := exchange.RedactCredentials(bc.body); n != 0 {
					b.Fatal(n)
				}
			}
		})
	}
}

// TestRulesAreGitleaksPinnedSubset: every rule is one of the generated
// gitleaks rules, under its ID, and every generated rule is used, so that
// the pinned list in gitleaksgen and the rules searched for cannot drift
// apart; the generated file names its source and licence.
func TestRulesAreGitleaksPinnedSubset(t *testing.T) {
	rules, generated := exchange.CredentialRuleIDs(), exchange.GitleaksRuleIDs()
	if !slices.Equal(rules, generated) {
		t.Errorf("credential rules %v, generated gitleaks rules %v", rules, generated)
	}
	src, err := os.ReadFile("credentials_gitleaks.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Code generated by gitleaksgen", "config/gitleaks.toml", "MIT License", "Zachary Rice",
		"commit " + exchange.GitleaksCommit, exchange.GitleaksVersion} {
		if !strings.Contains(string(src), want) {
			t.Errorf("credentials_gitleaks.go does not say %q", want)
		}
	}
	notice, err := os.ReadFile("../../NOTICE")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(notice), "gitleaks "+exchange.GitleaksVersion) {
		t.Errorf("NOTICE does not name gitleaks %s", exchange.GitleaksVersion)
	}
}
