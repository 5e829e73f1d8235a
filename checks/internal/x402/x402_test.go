package x402

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/agentready/agentready/internal/longtest"
)

// specV2 is the PaymentRequired example of specs/transports-v2/http.md,
// and specV1 the PaymentRequirementsResponse of specs/transports-v1/http.md.
const (
	specV2 = `{"x402Version":2,"error":"PAYMENT-SIGNATURE header is required","resource":{"url":"https://api.example.com/premium-data","description":"Access to premium market data","mimeType":"application/json"},"accepts":[{"scheme":"exact","network":"eip155:84532","amount":"10000","asset":"0x036CbD53842c5426634e7929541eC2318f3dCF7e","payTo":"0x209693Bc6afc0C5328bA36FaF03C514EF312287C","maxTimeoutSeconds":60,"extra":{"name":"USDC","version":"2"}}]}`
	specV1 = `{"x402Version":1,"error":"Payment required to access this resource","accepts":[{"scheme":"exact","network":"base-sepolia","maxAmountRequired":"10000","asset":"0x036CbD53842c5426634e7929541eC2318f3dCF7e","payTo":"0x209693Bc6afc0C5328bA36FaF03C514EF312287C","resource":"https://api.example.com/premium-data","description":"Access to premium market data","mimeType":"application/json","outputSchema":null,"maxTimeoutSeconds":60,"extra":{"name":"USDC","version":"2"}}]}`
)

func TestParse(t *testing.T) {
	for _, tt := range []struct{ body, want string }{
		{specV2, ""},
		{specV1, ""},
		{strings.Replace(specV2, `"payTo":"0x209693Bc6afc0C5328bA36FaF03C514EF312287C",`, "", 1), "payTo is missing"},
		{strings.Replace(specV2, `"x402Version":2`, `"x402Version":3`, 1), "defines 1 and 2"},
		{strings.Replace(specV2, `"x402Version":2`, `"x402Version":"2"`, 1), "not a number"},
		{strings.Replace(specV2, `"amount":"10000"`, `"amount":"0.01"`, 1), "atomic units"},
		{strings.Replace(specV2, `"eip155:84532"`, `"base-sepolia"`, 1), "CAIP-2"},
		{strings.Replace(specV2, `"maxTimeoutSeconds":60`, `"maxTimeoutSeconds":0`, 1), "positive"},
		{strings.Replace(specV2, `"extra":{"name":"USDC","version":"2"}`, `"extra":"USDC"`, 1), "extra is not an object"},
		{strings.Replace(specV2, `"url":"https://api.example.com/premium-data",`, "", 1), "url is missing"},
		{strings.Replace(specV1, `"description":"Access to premium market data",`, "", 1), "description is missing"},
		{strings.Replace(specV1, `"maxAmountRequired"`, `"amount"`, 1), "maxAmountRequired is missing"},
		{`{"x402Version":2,"resource":{"url":"/r"},"accepts":[]}`, "accepts is empty"},
		{`{"x402Version":2,"resource":{"url":"/r"},"accepts":[7]}`, "not an object"},
		{`{"x402Version":2,"resource":"/r","accepts":{}}`, "resource is missing or not an object"},
	} {
		c, err := Parse([]byte(tt.body))
		if err != nil {
			t.Fatalf("%s: %v", tt.body, err)
		}
		got := ""
		if len(c.Problems.Items) > 0 {
			got = c.Problems.Items[0].Message
		}
		if (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
			t.Errorf("%s: problem %q, want %q", tt.body, got, tt.want)
		}
	}
	c, _ := Parse([]byte(specV2))
	if c.Version != 2 || c.Resource != "https://api.example.com/premium-data" || len(c.Accepts) != 1 || c.Accepts[0].Amount != "10000" {
		t.Errorf("v2 read as %+v", c)
	}
	c, _ = Parse([]byte(specV1))
	if c.Version != 1 || c.Resource != "https://api.example.com/premium-data" || c.Accepts[0].Network != "base-sepolia" {
		t.Errorf("v1 read as %+v", c)
	}
	for _, body := range []string{``, `[]`, `null`, `"x"`} {
		if _, err := Parse([]byte(body)); err == nil {
			t.Errorf("%q parsed", body)
		}
	}
}

func TestDecodeHeader(t *testing.T) {
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		b, err := DecodeHeader(" " + enc.EncodeToString([]byte(specV2)) + " ")
		if err != nil || string(b) != specV2 {
			t.Errorf("%v: %q %v", enc, b, err)
		}
	}
	if _, err := DecodeHeader("{not base64}"); err == nil {
		t.Error("JSON decoded as base64")
	}
	if _, err := DecodeHeader(strings.Repeat("A", MaxHeaderBytes+4)); err == nil {
		t.Error("an oversized header was decoded")
	}
}

func TestClaims(t *testing.T) {
	for body, want := range map[string]bool{specV1: true, ` {"x402Version":null}`: true, `{"error":"card declined"}`: false, `[]`: false, ``: false} {
		if Claims([]byte(body)) != want {
			t.Errorf("Claims(%q) = %v", body, !want)
		}
	}
}

func TestBounds(t *testing.T) {
	longtest.Skip(t, "parses a payment challenge of 10 MB")
	item := `{"scheme":1},`
	body := `{"x402Version":2,"resource":{"url":"/r"},"accepts":[` + strings.Repeat(item, 10<<20/len(item)) + `{}]}`
	c, err := Parse([]byte(body))
	if err != nil || len(c.Accepts) != MaxAccepts || len(c.Problems.Items) != MaxProblems || c.Problems.Dropped == 0 {
		t.Errorf("accepts %d problems %d err %v", len(c.Accepts), len(c.Problems.Items), err)
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(specV2))
	f.Add([]byte(specV1))
	f.Add([]byte(`{"x402Version":1,"accepts":[{"maxTimeoutSeconds":"x","extra":[]}]}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		c, err := Parse(body)
		if err == nil && (len(c.Problems.Items) > MaxProblems || len(c.Accepts) > MaxAccepts) {
			t.Fatal("bound broken")
		}
	})
}
