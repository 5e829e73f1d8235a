package leakage_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/checkstest"
	"github.com/agentready/agentready/checks/leakage"
	"github.com/agentready/agentready/exchange"
	"github.com/agentready/agentready/finding"
	"github.com/agentready/agentready/mcp"
	"github.com/agentready/agentready/spec"
)

const base = "http://api.test"

// view is one identity's exchanges; auth marks requests sent with a
// credential (redacted, as the probe records them), roles the roles the
// configuration gives the identity, snap the MCP catalog it was listed.
type view struct {
	name  string
	auth  bool
	roles []string
	xs    []*checkstest.Builder
	snap  *mcp.Snapshot
}

func input(vs ...view) *checks.Input {
	var all []*exchange.Exchange
	views := make([]checks.IdentityView, len(vs))
	for i, v := range vs {
		rec := &exchange.Recording{Target: base + "/"}
		for _, b := range v.xs {
			if v.auth {
				b.ReqHeader("Authorization", exchange.Redacted)
			}
			x := b.Build()
			x.Identity = v.name
			rec.Exchanges = append(rec.Exchanges, x)
			all = append(all, x)
		}
		views[i] = checks.IdentityView{Name: v.name, Rank: i, Recording: rec, Roles: v.roles, MCP: v.snap}
		if v.auth {
			views[i].Credentials = []string{"Authorization"}
		}
	}
	in := checkstest.Input(base+"/", nil, all...)
	if len(vs) > 1 {
		in.Identities = views
	}
	return in
}

func get(path string) *checkstest.Builder {
	return checkstest.Exchange(exchange.PurposeCrawl, "GET", base+path)
}

func json200(path, body string) *checkstest.Builder {
	return get(path).Status(200).Header("Content-Type", "application/json").Body(body)
}

func run(t *testing.T, c checks.Check, in *checks.Input) ([]finding.Finding, string) {
	t.Helper()
	return checkstest.Run(t, c, in)
}

func TestOneIdentityIsNotAssessed(t *testing.T) {
	in := input(view{name: "only", xs: []*checkstest.Builder{json200("/", `{}`)}})
	for _, c := range leakage.All() {
		fs, reason := run(t, c, in)
		if len(fs) != 0 || !strings.HasPrefix(reason, "not assessed") {
			t.Errorf("%s: findings %d, skip %q; want not assessed", c.Meta().ID, len(fs), reason)
		}
	}
}

func TestSharedCache(t *testing.T) {
	order := func(body, cc, vary string) *checkstest.Builder {
		b := json200("/orders/1", body)
		if cc != "" {
			b.Header("Cache-Control", cc)
		}
		if vary != "" {
			b.Header("Vary", vary)
		}
		return b
	}
	tests := []struct {
		what          string
		anon, user    *checkstest.Builder
		want          bool
		wantIdentitiy string
	}{
		{"same body to both", order(`{"a":1}`, "max-age=60", ""), order(`{"a":1}`, "max-age=60", ""), false, ""},
		{"per-caller body, anonymous one cacheable", order(`{"a":1}`, "max-age=60", ""), order(`{"a":2}`, "private", ""), true, "anon"},
		{"per-caller body, public", order(`{"a":1}`, "private", ""), order(`{"a":2}`, "public, max-age=60", ""), true, "user"},
		{"per-caller body, private and no-store", order(`{"a":1}`, "no-store", ""), order(`{"a":2}`, "private", ""), false, ""},
		{"authorized response without public is not stored (RFC 9111 §3.5)", order(`{"a":1}`, "no-store", ""), order(`{"a":2}`, "max-age=60", ""), false, ""},
		{"Vary: Authorization", order(`{"a":1}`, "public", "Authorization"), order(`{"a":2}`, "public", "Accept, Authorization"), false, ""},
		{"different Accept", order(`{"a":1}`, "public", "").ReqHeader("Accept", "application/json"), order(`{"a":2}`, "public", ""), false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.what, func(t *testing.T) {
			fs, reason := run(t, leakage.SharedCache{}, input(
				view{name: "anon", xs: []*checkstest.Builder{tt.anon}},
				view{name: "user", auth: true, xs: []*checkstest.Builder{tt.user}}))
			if got := len(fs) > 0; got != tt.want {
				t.Fatalf("fired %v (skip %q), want %v: %v", got, reason, tt.want, fs)
			}
			if tt.want && (fs[0].Subject != tt.wantIdentitiy || fs[0].Severity != finding.SeverityError || !fs[0].Security) {
				t.Errorf("finding %+v, want subject %q, error, security", fs[0], tt.wantIdentitiy)
			}
		})
	}
}

func TestExistenceOracle(t *testing.T) {
	pair := func(found, missing int) []*checkstest.Builder {
		return []*checkstest.Builder{
			checkstest.Exchange("leakage/cross-fetch", "GET", base+"/orders/1").BasedOn(base + "/orders/1").Status(found),
			checkstest.Exchange("leakage/missing-sibling", "GET", base+"/orders/agentready-missing-7f3c").BasedOn(base + "/orders/1").Status(missing),
		}
	}
	admin := view{name: "admin", auth: true, xs: []*checkstest.Builder{json200("/orders/1", `{}`)}}
	tests := []struct {
		what           string
		found, missing int
		want           bool
	}{
		{"403 against 404", 403, 404, true},
		{"404 for both", 404, 404, false},
		{"readable by both", 200, 404, false},
		{"401 for both", 401, 401, false},
	}
	for _, tt := range tests {
		t.Run(tt.what, func(t *testing.T) {
			fs, reason := run(t, leakage.ExistenceOracle{}, input(view{name: "anon", xs: pair(tt.found, tt.missing)}, admin))
			if got := len(fs) > 0; got != tt.want {
				t.Fatalf("fired %v (skip %q), want %v", got, reason, tt.want)
			}
			if tt.want && len(fs[0].Evidence) != 2 {
				t.Errorf("evidence %d, want both requests", len(fs[0].Evidence))
			}
		})
	}
	if _, reason := run(t, leakage.ExistenceOracle{}, input(view{name: "anon"}, admin)); reason == "" {
		t.Error("no cross-fetch: want a skip")
	}
}

const trace = `{"type":"about:blank","status":404,"detail":"java.lang.NullPointerException\n\tat com.example.orders.OrderService.find(OrderService.java:42)\n\tat com.example.Api.handle(Api.java:7)"}`

func TestErrorDetail(t *testing.T) {
	problem := func(body string) *checkstest.Builder {
		return get("/orders/9").Status(404).Header("Content-Type", "application/problem+json").Body(body)
	}
	clean := `{"type":"about:blank","status":404,"title":"Not Found"}`
	role := `{"type":"about:blank","status":404,"title":"Not Found","detail":"denied by requires_role_admin"}`
	prose := `{"type":"about:blank","status":404,"title":"Not Found","detail":"refunds require the admin role"}`
	host := `{"type":"about:blank","status":404,"detail":"dial tcp 10.0.3.7:5432: connect: connection refused"}`
	tests := []struct {
		what       string
		anon, user string
		want       string // message part; "" for no finding
	}{
		{"stack trace to the lower identity only", trace, clean, "carries a Java stack trace (at com.example.orders.OrderService.find(OrderService.java:42))"},
		{"stack trace to both (problem-json-leak's)", trace, trace, ""},
		{"clean for both", clean, clean, ""},
		{"role named to the lower identity only", role, clean, "names a role (requires_role_admin)"},
		{"role named to both", role, role, ""},
		{"role in prose", prose, clean, ""},
		{"internal host to the lower identity only", host, clean, "names a private IP address (10.0.3.x:5432)"},
		{"a kind the privileged view does not show", trace[:len(trace)-2] + ` requires_role_admin"}`, trace, "names a role (requires_role_admin)"},
	}
	for _, tt := range tests {
		t.Run(tt.what, func(t *testing.T) {
			fs, _ := run(t, leakage.ErrorDetail{}, input(
				view{name: "anon", xs: []*checkstest.Builder{problem(tt.anon)}},
				view{name: "user", auth: true, xs: []*checkstest.Builder{problem(tt.user)}}))
			if tt.want == "" {
				if len(fs) > 0 {
					t.Fatalf("fired: %v", fs)
				}
				return
			}
			if len(fs) != 1 || !strings.Contains(fs[0].Message, tt.want) {
				t.Fatalf("findings %v, want one whose message has %q", fs, tt.want)
			}
		})
	}
}

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

func TestOfferedRefused(t *testing.T) {
	order := json200("/orders/1", `{"id":1,"_links":{"self":{"href":"/orders/1"}},"_templates":{"refund":{"method":"POST","target":"/orders/1/refund"}}}`)
	target := func(status int) *checkstest.Builder {
		return checkstest.Exchange(leakage.PurposeTarget, "GET", base+"/orders/1/refund").BasedOn(base + "/orders/1/refund").Status(status)
	}
	admin := view{name: "admin", auth: true, xs: []*checkstest.Builder{json200("/orders/1", `{}`)}}
	tests := []struct {
		what string
		xs   []*checkstest.Builder
		want finding.Severity
	}{
		{"template refused with 403", []*checkstest.Builder{order, target(403)}, finding.SeverityError},
		{"template refused with 401", []*checkstest.Builder{order, target(401)}, finding.SeverityError},
		{"template target 405 to GET", []*checkstest.Builder{order, target(405)}, finding.SeverityNone},
		{"link refused", []*checkstest.Builder{
			json200("/", `{"_links":{"self":{"href":"/"},"admin":{"href":"/admin"}}}`),
			get("/admin").Status(403),
		}, finding.SeverityWarning},
	}
	for _, tt := range tests {
		t.Run(tt.what, func(t *testing.T) {
			fs, _ := run(t, leakage.OfferedRefused{}, input(view{name: "anon", xs: tt.xs}, admin))
			got := finding.SeverityNone
			for _, f := range fs {
				got = max(got, f.Severity)
			}
			if got != tt.want {
				t.Fatalf("severity %v, want %v: %v", got, tt.want, fs)
			}
		})
	}
}

func TestOfferedRefusedBySecurityRequirement(t *testing.T) {
	doc := &spec.Document{Operations: []*spec.Operation{
		{Method: "POST", PathTemplate: "/orders/{id}/refund", Security: []map[string][]string{{"bearer": nil}}},
		{Method: "POST", PathTemplate: "/orders/{id}/pay", Security: []map[string][]string{{"bearer": nil}, {}}},
	}}
	body := `{"affordances":[{"operation":"refundOrder","target":"/orders/1/refund"},{"operation":"payOrder","target":"/orders/1/pay"}]}`
	for _, tt := range []struct {
		what string
		auth bool
		want []string
	}{
		{"anonymous", false, []string{"anon refundOrder"}},
		{"with credentials (scopes cannot be judged)", true, nil},
	} {
		t.Run(tt.what, func(t *testing.T) {
			in := input(view{name: "anon", auth: tt.auth, xs: []*checkstest.Builder{json200("/orders/1", body)}},
				view{name: "admin", auth: true, xs: []*checkstest.Builder{json200("/", `{}`)}})
			in.Spec = doc
			fs, _ := run(t, leakage.OfferedRefused{}, in)
			var got []string
			for _, f := range fs {
				got = append(got, f.Subject)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("subjects %v, want %v", got, tt.want)
			}
		})
	}
}

// TestOfferedRefusedByAccessRules: the configuration's access mapping and
// the identity's roles decide, through MayCall, when no GET was refused.
func TestOfferedRefusedByAccessRules(t *testing.T) {
	doc := &spec.Document{
		SecuritySchemes: map[string]spec.SecurityScheme{"bearer": {Type: "http", Scheme: "bearer"}},
		Operations: []*spec.Operation{
			{Method: "POST", PathTemplate: "/orders/{id}/refund", OperationID: "refundOrder", Security: []map[string][]string{{"bearer": {"admin"}}}},
			{Method: "POST", PathTemplate: "/orders/{id}/pay", OperationID: "payOrder"},
		},
	}
	body := `{"affordances":[{"operation":"refundOrder","target":"/orders/1/refund"},{"operation":"payOrder","target":"/orders/1/pay"}]}`
	for _, tt := range []struct {
		what   string
		roles  []string
		access checks.AccessRules
		want   []string
	}{
		{"role in the security requirement, not held", []string{"user"}, nil, []string{"user refundOrder"}},
		{"role in the security requirement, held", []string{"admin"}, nil, nil},
		{"roles not configured: undecided", nil, nil, nil},
		{"access mapping by operationId", []string{"user"}, checks.AccessRules{"payOrder": {"billing"}}, []string{"user payOrder", "user refundOrder"}},
		{"access mapping by METHOD /path", []string{"billing"}, checks.AccessRules{"POST /orders/{id}/pay": {"billing"}, "refundOrder": {"billing"}}, nil},
		{"access mapping wins over the requirement", []string{"user"}, checks.AccessRules{"refundOrder": {"user"}}, nil},
	} {
		t.Run(tt.what, func(t *testing.T) {
			in := input(view{name: "user", auth: true, roles: tt.roles, xs: []*checkstest.Builder{json200("/orders/1", body)}},
				view{name: "admin", auth: true, roles: []string{"admin"}, xs: []*checkstest.Builder{json200("/", `{}`)}})
			in.Spec, in.Access = doc, tt.access
			fs, _ := run(t, leakage.OfferedRefused{}, in)
			var got []string
			for _, f := range fs {
				got = append(got, f.Subject)
			}
			slices.Sort(got)
			if !slices.Equal(got, tt.want) {
				t.Errorf("subjects %v, want %v", got, tt.want)
			}
			for _, f := range fs {
				if !strings.Contains(f.Message, "role") {
					t.Errorf("message does not say which role: %s", f.Message)
				}
			}
		})
	}
}

func TestPlanTargets(t *testing.T) {
	crawled := []*exchange.Exchange{
		json200("/orders/1", `{"_links":{"self":{"href":"/orders/1"},"items":{"href":"/orders/1/items"},"ext":{"href":"http://other.test/x"}},"_templates":{"default":{"method":"PUT"}},"affordances":[{"operation":"payOrder","target":"/orders/1/pay"}]}`).Build(),
		json200("/orders/1/items", `{}`).Build(),
	}
	var got []string
	for _, p := range leakage.PlanTargets(crawled) {
		if p.Method != "GET" {
			t.Errorf("planned %s", p.Method)
		}
		got = append(got, exchange.PathOf(p.URL))
	}
	// self, the crawled items link and the other origin are not fetched.
	if want := []string{"/orders/1/pay"}; !slices.Equal(got, want) {
		t.Errorf("planned %v, want %v", got, want)
	}
}
