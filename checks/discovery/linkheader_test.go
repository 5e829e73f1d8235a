package discovery_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/agentready/agentready/checks/checkstest"
	"github.com/agentready/agentready/checks/discovery"
)

// TestLinkHeaderDeadLinkSeverity: a dead Link target of a relation not
// known to be read may be a POST-only action, reported at info and saying
// so; a registered relation and a .well-known target stay at warning.
func TestLinkHeaderDeadLinkSeverity(t *testing.T) {
	s := conformant()
	s["root"].Header("Link", `</orders/1/payment>; rel="https://rels.example/pay"`).
		Header("Link", `</schemas/order>; rel="describedby"`).
		Header("Link", `</.well-known/agent.json>; rel="https://rels.example/agent"`)
	s["crawl-pay"] = crawl("/orders/1/payment", 404)
	s["crawl-schema"] = crawl("/schemas/order", 404)
	s["crawl-agent"] = crawl("/.well-known/agent.json", 410)
	fs, _ := checkstest.Run(t, discovery.LinkHeaderDeadLinks{}, s.input(false))
	var got []string
	for _, f := range fs {
		got = append(got, f.Subject+" "+f.Severity.String())
		if f.Severity.String() == "info" && !strings.Contains(f.Message, "may be a POST-only target") {
			t.Errorf("info finding %q does not say why", f.Message)
		}
	}
	want := []string{"https://rels.example/pay /orders/1/payment info", "describedby /schemas/order warning", "https://rels.example/agent /.well-known/agent.json warning"}
	if !slices.Equal(got, want) {
		t.Errorf("findings %q, want %q", got, want)
	}
}

// TestLinkHeader covers targets of Link header fields.
func TestLinkHeader(t *testing.T) {
	runSiteCases(t, []siteCase{
		{"Link target 404", func(s site) {
			s["root"].Header("Link", `</schemas/order>; rel="describedby"`)
			s["crawl-schema"] = crawl("/schemas/order", 404)
		}, []string{"discovery-link-header-dead-links"}},
		{"Link target 410", func(s site) {
			s["root"].Header("Link", `</schemas/order>; rel="describedby"`)
			s["crawl-schema"] = crawl("/schemas/order", 410)
		}, []string{"discovery-link-header-dead-links"}},
		{"Link target answers", func(s site) {
			s["root"].Header("Link", `</schemas/order>; rel="describedby"`)
			s["crawl-schema"] = crawl("/schemas/order", 200)
		}, nil},
		// At info: see TestLinkHeaderDeadLinkSeverity.
		{"Link target of an extension relation may be an action", func(s site) {
			s["root"].Header("Link", `</orders/1/payment>; rel="https://rels.example/pay"`)
			s["crawl-pay"] = crawl("/orders/1/payment", 404)
		}, []string{"discovery-link-header-dead-links"}},
		{"Link target 401 is there", func(s site) {
			s["root"].Header("Link", `</schemas/order>; rel="describedby"`)
			s["crawl-schema"] = crawl("/schemas/order", 401).Header("WWW-Authenticate", `Bearer realm="api"`)
		}, nil},
	})
}

func TestLinkHeaderDeadLinkIsReportedOnceWithBothExchanges(t *testing.T) {
	s := conformant()
	s["root"].Header("Link", `</schemas/order>; rel="describedby"`)
	// Recorded before the root: the first source in recording order is named.
	s["crawl-orders"] = crawl("/orders", 200).Header("Link", `<http://API.test:80/schemas/order#x>; rel="describedby"`)
	s["crawl-schema"] = crawl("/schemas/order", 404)
	fs, _ := checkstest.Run(t, discovery.LinkHeaderDeadLinks{}, s.input(false))
	if len(fs) != 1 {
		t.Fatalf("findings = %+v, want one", fs)
	}
	f := fs[0]
	if f.Subject != "describedby /schemas/order" || len(f.Evidence) != 2 ||
		f.Evidence[0].URL != origin+"/orders" || f.Evidence[1].URL != origin+"/schemas/order" || f.Evidence[1].Status != 404 {
		t.Errorf("finding = %+v", f)
	}
}
