package leakage_test

import (
	"strings"
	"testing"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/checkstest"
	"github.com/agentready/agentready/checks/leakage"
	"github.com/agentready/agentready/internal/spec"
)

func TestUnavailableAffordances(t *testing.T) {
	doc := func(offered, unavailable string) *checkstest.Builder {
		return json200("/orders/1", `{"id":1,"affordances":[`+offered+`],"unavailableAffordances":[`+unavailable+`]}`)
	}
	pay := `{"operation":"payOrder","target":"/orders/1/pay"}`
	tests := []struct {
		what   string
		anon   []*checkstest.Builder
		policy bool
		info   bool
	}{
		{"policy reason for an operation never offered", []*checkstest.Builder{doc(pay, `{"operation":"refundOrder","reason":"requires_role_admin"}`)}, true, false},
		{"camel-case permission reason", []*checkstest.Builder{doc(pay, `{"operation":"refundOrder","reason":"missingRefundPermission"}`)}, true, false},
		{"spring role reason", []*checkstest.Builder{doc(pay, `{"operation":"refundOrder","reason":"ROLE_ADMIN"}`)}, true, false},
		{"quoted permission reason", []*checkstest.Builder{doc(pay, `{"operation":"refundOrder","reason":"missing permission 'orders:refund'"}`)}, true, false},
		{"generic refusal reason", []*checkstest.Builder{doc(pay, `{"operation":"refundOrder","reason":"insufficient permissions"}`)}, false, true},
		{"privileged role in prose", []*checkstest.Builder{doc(pay, `{"operation":"refundOrder","reason":"refunds require the admin role"}`)}, true, false},
		{"plan in prose", []*checkstest.Builder{doc(pay, `{"operation":"refundOrder","reason":"requires the Pro plan"}`)}, true, false},
		{"refusal naming nobody", []*checkstest.Builder{doc(pay, `{"operation":"refundOrder","reason":"you are not allowed to do this"}`)}, false, true},
		{"bare entry for an operation never offered", []*checkstest.Builder{doc(pay, `{"operation":"refundOrder"}`)}, false, true},
		{"state reason, offered in another state", []*checkstest.Builder{
			doc(pay, `{"operation":"shipOrder","reason":"order is placed"}`),
			json200("/orders/2", `{"id":2,"affordances":[{"operation":"shipOrder","target":"/orders/2/ship"}]}`),
		}, false, false},
		// The page that would show the offer failed: the states seen are not
		// all the states, so nothing is judged never offered.
		{"offer on a page that answered 500", []*checkstest.Builder{
			doc(pay, `{"operation":"refundOrder","reason":"requires_role_admin"}`),
			get("/orders/3").Status(500).Header("Content-Type", "text/plain").Body("boom"),
		}, false, false},
		{"a 500 the same page answered 200 to later", []*checkstest.Builder{
			doc(pay, `{"operation":"refundOrder"}`),
			get("/orders/2").Status(500).Header("Content-Type", "text/plain").Body("boom"),
			json200("/orders/2", `{"id":2}`),
		}, false, true},
		{"policy word in a state reason of an offered operation", []*checkstest.Builder{
			doc(pay, `{"operation":"shipOrder","reason":"shipping rule: order is placed"}`),
			json200("/orders/2", `{"id":2,"affordances":[{"operation":"shipOrder","target":"/orders/2/ship"}]}`),
		}, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.what, func(t *testing.T) {
			mk := func() *checks.Input {
				return input(view{name: "anon", xs: tt.anon}, view{name: "admin", auth: true, xs: []*checkstest.Builder{doc(pay, "")}})
			}
			fs, _ := run(t, leakage.PolicyReason{}, mk())
			if got := len(fs) > 0; got != tt.policy {
				t.Errorf("policy: fired %v, want %v", got, tt.policy)
			}
			if tt.policy && fs[0].Evidence[0].JSONPointer != "/unavailableAffordances/0" {
				t.Errorf("pointer %q", fs[0].Evidence[0].JSONPointer)
			}
			fs, _ = run(t, leakage.NeverOffered{}, mk())
			if got := len(fs) > 0; got != tt.info {
				t.Errorf("never offered: fired %v, want %v", got, tt.info)
			}
		})
	}
}

// TestUnavailableReasons: a holder or offer word reveals policy inside a
// requirement phrase only; the same words in a state reason do not.
func TestUnavailableReasons(t *testing.T) {
	policy := []string{
		"requires the Pro plan",
		"admin only",
		"refunds require the admin role",
		"available on the Enterprise tier",
		"requiresPremium",
		"enterprise_plan_required",
		"only the owner can refund an order",
		"reserved for administrators",
		"upgrade to the Business tier",
		"you must be an admin",
		"not available on your plan",
		"admin role required",
		"requires an active subscription",
		"denied by ACL",
		"requires_role_admin",
		"missing permission 'orders:refund'",
	}
	state := []string{
		"subscription is cancelled",
		"awaiting admin approval",
		"owner has not confirmed",
		"plan expired on 2026-01-01",
		"requires admin approval",
		"requires the owner to confirm",
		"the owner's confirmation is pending",
		"requires the subscription to be active",
		"subscription must be active",
		"only after owner confirms",
		"cancelled by an administrator",
		"staff member is reviewing the refund",
		"plan upgrade in progress",
		"order is shipped",
		"insufficient permissions",
	}
	doc := func(reason string) *checkstest.Builder {
		return json200("/subs/1", `{"id":1,"affordances":[],"unavailableAffordances":[{"operation":"resumeSubscription","reason":`+quote(reason)+`}]}`)
	}
	for _, tt := range []struct {
		reasons []string
		policy  bool
	}{{policy, true}, {state, false}} {
		for _, reason := range tt.reasons {
			t.Run(reason, func(t *testing.T) {
				mk := func() *checks.Input {
					return input(view{name: "anon", xs: []*checkstest.Builder{doc(reason)}}, view{name: "admin", auth: true, xs: []*checkstest.Builder{json200("/", `{}`)}})
				}
				fs, _ := run(t, leakage.PolicyReason{}, mk())
				if got := len(fs) > 0; got != tt.policy {
					t.Errorf("policy reason: fired %v, want %v", got, tt.policy)
				}
				// Without policy, the entry is still for an operation never
				// offered: the info check reports it instead.
				fs, _ = run(t, leakage.NeverOffered{}, mk())
				if got := len(fs) > 0; got == tt.policy {
					t.Errorf("never offered: fired %v, want %v", got, !tt.policy)
				}
			})
		}
	}
}

func quote(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}

// TestUnavailableOfferedAsLinkOrTemplate: an operation offered in another
// state as a HAL-FORMS template or a link, not only as an affordance, is
// offered; its unavailableAffordances entry reveals nothing.
func TestUnavailableOfferedAsLinkOrTemplate(t *testing.T) {
	doc := &spec.Document{Operations: []*spec.Operation{
		{Method: "POST", PathTemplate: "/orders/{id}/cancellation", OperationID: "cancelOrder"},
		{Method: "POST", PathTemplate: "/orders/{id}/refund", OperationID: "refundOrder", HALRels: []string{"refund"}},
		{Method: "GET", PathTemplate: "/orders/{id}/invoice", OperationID: "getInvoice", HALRels: []string{"invoice"}},
	}}
	entry := func(op string) *checkstest.Builder {
		return json200("/orders/1", `{"id":1,"affordances":[],"unavailableAffordances":[{"operation":"`+op+`","reason":"requires the admin role"}]}`)
	}
	other := func(body string) *checkstest.Builder { return json200("/orders/2", body) }
	tests := []struct {
		what    string
		op      string
		offered string // the other order's document
		doc     *spec.Document
		want    bool
	}{
		{"template keyed by the operation", "refundOrder", `{"_templates":{"refundOrder":{"method":"POST","target":"/orders/2/refund"}}}`, nil, false},
		{"template matched by the OpenAPI method and target", "cancelOrder", `{"_templates":{"default":{"method":"POST","target":"/orders/2/cancellation"}}}`, doc, false},
		{"template whose key x-hal-rel names", "refundOrder", `{"_templates":{"refund":{"method":"POST","target":"/orders/2/refund"}}}`, doc, false},
		{"link whose relation x-hal-rel names", "getInvoice", `{"_links":{"invoice":{"href":"/orders/2/invoice"}}}`, doc, false},
		{"link relation equal to the operation", "getInvoice", `{"_links":{"getInvoice":{"href":"/orders/2/invoice"}}}`, nil, false},
		{"link relation as a compact URI", "getInvoice", `{"_links":{"acme:getInvoice":{"href":"/orders/2/invoice"}}}`, nil, false},
		{"affordance without a target", "refundOrder", `{"affordances":[{"operation":"refundOrder"}]}`, nil, false},
		// Still never offered.
		{"no control at all", "refundOrder", `{"_links":{"self":{"href":"/orders/2"}}}`, doc, true},
		{"template for another operation", "refundOrder", `{"_templates":{"default":{"method":"POST","target":"/orders/2/cancellation"}}}`, doc, true},
		{"relation x-hal-rel names, at another path", "refundOrder", `{"_links":{"refund":{"href":"/orders/2/invoice"}}}`, doc, true},
		{"template with the relation, no OpenAPI document", "refundOrder", `{"_templates":{"refund":{"method":"POST","target":"/orders/2/refund"}}}`, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.what, func(t *testing.T) {
			in := input(view{name: "anon", xs: []*checkstest.Builder{entry(tt.op), other(tt.offered)}},
				view{name: "admin", auth: true, xs: []*checkstest.Builder{json200("/", `{}`)}})
			in.Spec = tt.doc
			fs, _ := run(t, leakage.PolicyReason{}, in)
			if got := len(fs) > 0; got != tt.want {
				t.Errorf("fired %v, want %v", got, tt.want)
			}
		})
	}
}
