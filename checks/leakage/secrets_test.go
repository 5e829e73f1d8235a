package leakage_test

import (
	"encoding/base64"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentready/agentready/checks/checkstest"
	"github.com/agentready/agentready/checks/leakage"
	"github.com/agentready/agentready/internal/exchange"
)

// Credentials are joined at run time so that no scanner of this source
// takes them for leaks; none was ever issued.
var (
	stripeLive = "sk_" + "live_" + strings.Repeat("a1B2", 6)
	awsKeyID   = "AKIA" + "QYLPMN5HHHFPZAM2"
)

// scanStart is the recorded start of the scans below.
var scanStart = time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC)

func signedJWT(exp time.Time) string {
	enc := base64.RawURLEncoding.EncodeToString
	return enc([]byte(`{"alg":"RS256","typ":"JWT"}`)) + "." + enc([]byte(`{"sub":"user-7","exp":`+strconv.FormatInt(exp.Unix(), 10)+`}`)) + "." + strings.Repeat("Sig0_-", 8)
}

func TestSecretExposed(t *testing.T) {
	redacted := func(s string) string { b, _ := exchange.RedactCredentials([]byte(s)); return string(b) }
	tests := []struct {
		name string
		xs   []*checkstest.Builder
		want []string // subjects
		says string
	}{
		{"clean order", []*checkstest.Builder{json200("/orders/1", `{"id":1,"total":"12.00"}`)}, nil, ""},
		{"stripe key in a 200 body", []*checkstest.Builder{json200("/orders/1", `{"id":1,"psp":"`+stripeLive+`"}`)},
			[]string{"stripe-access-token GET /orders/{id}"}, "GET /orders/1 (200) exposes a credential, Stripe live secret or restricted key (sk_live_…, 32 characters), in its body"},
		{"the placeholder a recording keeps", []*checkstest.Builder{json200("/orders/1", redacted(`{"id":1,"psp":"`+stripeLive+`"}`))},
			[]string{"stripe-access-token GET /orders/{id}"}, "(sk_live_…, 32 characters)"},
		{"one finding per path shape", []*checkstest.Builder{json200("/orders/1", `"`+stripeLive+`"`), json200("/orders/2", `"`+stripeLive+`"`)},
			[]string{"stripe-access-token GET /orders/{id}"}, ""},
		{"aws key in a header of a 500", []*checkstest.Builder{get("/boom").Status(500).Header("X-Debug-Aws", awsKeyID).Body("oops")},
			[]string{"aws-access-token GET /boom"}, "GET /boom (500) exposes a credential, AWS access key ID (AKIA…, 20 characters), in its X-Debug-Aws header"},
		{"token in llms.txt", []*checkstest.Builder{checkstest.Exchange("discovery/llms-txt", "GET", base+"/llms.txt").Status(200).
			Header("Content-Type", "text/markdown").Body("# Shop\nUse token ghp_" + strings.Repeat("aB3d", 9) + " to try it.\n")},
			[]string{"github-pat GET /llms.txt"}, "(ghp_…, 40 characters)"},
		{"unexpired jwt", []*checkstest.Builder{json200("/session", `{"token":"`+signedJWT(scanStart.Add(time.Hour))+`"}`)},
			[]string{"jwt GET /session"}, "signed JSON Web Token (eyJ…"},
		{"unexpired jwt as a placeholder", []*checkstest.Builder{json200("/session", redacted(`{"token":"`+signedJWT(scanStart.Add(time.Hour))+`"}`))},
			[]string{"jwt GET /session"}, ""},
		{"jwt expired before the scan", []*checkstest.Builder{json200("/session", `{"token":"`+signedJWT(scanStart.Add(-time.Hour))+`"}`)}, nil, ""},
		{"expired jwt as a placeholder", []*checkstest.Builder{json200("/session", redacted(`{"token":"`+signedJWT(scanStart.Add(-time.Hour))+`"}`))}, nil, ""},
		{"test key", []*checkstest.Builder{json200("/orders/1", `{"psp":"sk_`+`test_`+strings.Repeat("a1B2", 6)+`"}`)}, nil, ""},
	}
	for _, tt := range tests {
		in := input(view{name: "anonymous", xs: tt.xs})
		for _, x := range in.Recording.Exchanges {
			x.Started = scanStart.UnixNano()
		}
		fs, skip := run(t, leakage.SecretExposed{}, in)
		if skip != "" {
			t.Errorf("%s: skipped: %s", tt.name, skip)
			continue
		}
		var got []string
		for _, f := range fs {
			got = append(got, f.Subject)
			if tt.says != "" && !strings.Contains(f.Message, tt.says) {
				t.Errorf("%s: message %q, want it to say %q", tt.name, f.Message, tt.says)
			}
			if strings.Contains(f.Message, stripeLive[8:]) || strings.Contains(f.Message, awsKeyID[4:]) {
				t.Errorf("%s: the message shows the credential: %s", tt.name, f.Message)
			}
		}
		if strings.Join(got, "|") != strings.Join(tt.want, "|") {
			t.Errorf("%s: findings %q, want %q", tt.name, got, tt.want)
		}
	}
}

// TestSecretExposedNeedsAStartForJWTs: a recording without times cannot
// tell an unexpired token from an expired one, and judges neither.
func TestSecretExposedNeedsAStartForJWTs(t *testing.T) {
	in := input(view{name: "anonymous", xs: []*checkstest.Builder{
		json200("/session", `{"token":"`+signedJWT(time.Now().Add(24*time.Hour))+`","psp":"`+stripeLive+`"}`)}})
	fs, _ := run(t, leakage.SecretExposed{}, in)
	if len(fs) != 1 || !strings.HasPrefix(fs[0].Subject, "stripe-access-token") {
		t.Errorf("findings %v, want the Stripe key alone", fs)
	}
}
