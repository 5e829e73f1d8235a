package webbotauth

import (
	"strings"
	"testing"

	"github.com/agentready/agentready/internal/longtest"
)

// rfc8037 is the Ed25519 public key of RFC 8037 Appendix A.2, whose
// thumbprint Appendix A.3 gives.
const (
	rfc8037X     = "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"
	rfc8037Thumb = "kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k"
)

func TestThumbprint(t *testing.T) {
	k := map[string]any{"kty": "OKP", "crv": "Ed25519", "x": rfc8037X}
	if got := Thumbprint(k, thumbprintMembers["OKP"]); got != rfc8037Thumb {
		t.Errorf("thumbprint %s, want %s", got, rfc8037Thumb)
	}
}

func TestParse(t *testing.T) {
	for _, tt := range []struct{ body, want string }{
		{`{"keys":[{"kty":"OKP","crv":"Ed25519","x":"` + rfc8037X + `","kid":"` + rfc8037Thumb + `","alg":"ed25519"}]}`, ""},
		{`{"keys":[]}`, ""},
		{`{"keys":[{"kty":"EC","crv":"P-256","x":"a","y":"b"},{"kty":"RSA","n":"n","e":"AQAB","alg":"rsa-pss-sha512"}]}`, ""},
		{`{"keys":[{"kty":"OKP","crv":"Ed25519","x":"` + rfc8037X + `","kid":"k1"}]}`, "thumbprint"},
		{`{"keys":[{"kty":"oct","k":"c2VjcmV0"}]}`, "MUST NOT use shared HMAC"},
		{`{"keys":[{"kty":"OKP","crv":"Ed25519","x":"` + rfc8037X + `","alg":"EdDSA"}]}`, "registered"},
		{`{"keys":[{"kty":"OKP","crv":"X25519","x":"` + rfc8037X + `"}]}`, "curve"},
		{`{"keys":[{"kty":"OKP","crv":"Ed25519"}]}`, `no "x"`},
		{`{"keys":[{"kty":"OKP","crv":"Ed25519","x":"a","d":"b"}]}`, "private"},
		{`{"keys":[1]}`, "not a JSON object"},
	} {
		d, err := Parse([]byte(tt.body))
		if err != nil {
			t.Fatalf("%s: %v", tt.body, err)
		}
		got := ""
		if len(d.Problems.Items) > 0 {
			got = d.Problems.Items[0].Message
		}
		if (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
			t.Errorf("%s: problem %q, want %q", tt.body, got, tt.want)
		}
	}
	for _, body := range []string{``, `[]`, `{"keys":{}}`, `{"jwks":[]}`} {
		if _, err := Parse([]byte(body)); err == nil {
			t.Errorf("%q parsed", body)
		}
	}
}

func TestBounds(t *testing.T) {
	longtest.Skip(t, "parses a key directory of 10 MB")
	key := `{"kty":"oct","k":"x"},`
	body := `{"keys":[` + strings.Repeat(key, 10<<20/len(key)) + `{}]}`
	d, err := Parse([]byte(body))
	if err != nil || d.Keys != 10<<20/len(key)+1 || len(d.Problems.Items) != MaxProblems {
		t.Errorf("keys %d problems %d err %v", d.Keys, len(d.Problems.Items), err)
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"keys":[{"kty":"OKP","crv":"Ed25519","x":"` + rfc8037X + `","kid":"x","alg":1}]}`))
	f.Add([]byte(`{"keys":[{"kty":"EC","crv":7,"x":"a","y":"b"},{"kty":"RSA"}]}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		d, err := Parse(body)
		if err == nil && len(d.Problems.Items) > MaxProblems {
			t.Fatal("problem bound broken")
		}
	})
}
