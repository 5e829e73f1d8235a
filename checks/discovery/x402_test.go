package discovery_test

import (
	"strings"
	"testing"

	"github.com/agentready/agentready/checks/checkstest"
	"github.com/agentready/agentready/checks/discovery"
	"github.com/agentready/agentready/internal/spec"
)

// TestX402Challenge covers x402 challenges of 402 answers.
func TestX402Challenge(t *testing.T) {
	runSiteCases(t, []siteCase{
		{"x402 challenge without payTo", func(s site) {
			pricedWith(s, strings.Replace(paymentRequired, `"payTo":"0x209693Bc6afc0C5328bA36FaF03C514EF312287C",`, "", 1))
		}, []string{"discovery-x402-challenge"}},
		{"x402 challenge of an unknown version", func(s site) {
			pricedWith(s, strings.Replace(paymentRequired, `"x402Version":2`, `"x402Version":402`, 1))
		}, []string{"discovery-x402-challenge"}},
		{"x402 challenge header not base64", func(s site) {
			s["priced"].Build().Response.Header.Set("PAYMENT-REQUIRED", paymentRequired)
		}, []string{"discovery-x402-challenge"}},
		{"x402 challenge naming another resource", func(s site) {
			pricedWith(s, strings.Replace(paymentRequired, "/reports/monthly", "/reports", 1))
		}, []string{"discovery-x402-challenge"}},
		{"x402 version 2 challenge in the body only", func(s site) {
			s["priced"] = crawl("/reports/monthly", 402).Header("Content-Type", "application/json").Body(paymentRequired)
		}, []string{"discovery-x402-challenge"}},
		{"x402 version 1 challenge in the body", func(s site) {
			s["priced"] = crawl("/reports/monthly", 402).Header("Content-Type", "application/json").Body(`{"x402Version":1,"accepts":[` +
				`{"scheme":"exact","network":"base-sepolia","maxAmountRequired":"10000","asset":"0xA","payTo":"0xB",` +
				`"resource":"http://api.test/reports/monthly","description":"Monthly report","maxTimeoutSeconds":60}]}`)
		}, nil},
		{"a 402 of another payment scheme is not judged", func(s site) {
			s["priced"] = crawl("/reports/monthly", 402).Header("Content-Type", "application/json").Body(`{"error":{"code":"card_declined"}}`)
		}, nil},
	})
}

func TestX402Declared(t *testing.T) {
	for _, tt := range []struct {
		what      string
		responses map[string]spec.Response
		want      int
	}{
		{"402 declared", map[string]spec.Response{"200": {}, "402": {}, "4XX": {}}, 0},
		{"402 hidden in 4XX", map[string]spec.Response{"200": {}, "4XX": {}}, 1},
		{"402 hidden in default", map[string]spec.Response{"200": {}, "default": {}}, 1},
		// problem-json-undeclared-status reports this one.
		{"402 not covered", map[string]spec.Response{"200": {}}, 0},
	} {
		in := conformant().input(true)
		in.Spec.Operations = append(in.Spec.Operations, &spec.Operation{Method: "GET", PathTemplate: "/reports/{period}", OperationID: "getReport", Responses: tt.responses})
		fs, reason := checkstest.Run(t, discovery.X402Declared{}, in)
		if len(fs) != tt.want || reason != "" {
			t.Errorf("%s: findings %+v, skipped %q", tt.what, fs, reason)
		}
	}
	in := conformant().input(true)
	if fs, _ := checkstest.Run(t, discovery.X402Challenge{}, in); len(fs) != 0 || len(in.Observations("discovery-x402-challenge")) != 1 ||
		!strings.Contains(in.Observations("discovery-x402-challenge")[0], "x402 v2: exact 10000 on eip155:84532") {
		t.Errorf("findings %v, facts %v", fs, in.Observations("discovery-x402-challenge"))
	}
}
