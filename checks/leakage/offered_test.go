package leakage_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/checkstest"
	"github.com/agentready/agentready/checks/leakage"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/spec"
)

func TestOfferedRefused(t *testing.T) {
	const refundTemplate = `{"id":%s,"_links":{"self":{"href":"/orders/%s"}},"_templates":{"refund":{"method":"POST","target":"/orders/%s/refund"}}}`
	order := func(id string) *checkstest.Builder {
		return json200("/orders/"+id, strings.ReplaceAll(refundTemplate, "%s", id))
	}
	affordance := func(id, op string) *checkstest.Builder {
		return json200("/orders/"+id, `{"id":`+id+`,"affordances":[{"operation":"`+op+`","target":"/orders/`+id+`/refund"}]}`)
	}
	target := func(p string, status int, header ...string) *checkstest.Builder {
		b := checkstest.Exchange(leakage.PurposeTarget, "GET", base+p).BasedOn(base + p).Status(status)
		for i := 0; i+1 < len(header); i += 2 {
			b.Header(header[i], header[i+1])
		}
		return b
	}
	root := func(rel, href string) *checkstest.Builder {
		return json200("/", `{"_links":{"self":{"href":"/"},"`+rel+`":{"href":"`+href+`"}}}`)
	}
	challenge := []string{"WWW-Authenticate", `Bearer realm="api"`}
	bearer := map[string]spec.SecurityScheme{"bearer": {Type: "http", Scheme: "bearer"}}
	byID := func(method string) *spec.Document {
		return &spec.Document{Operations: []*spec.Operation{{Method: method, PathTemplate: "/orders/{id}/refund", OperationID: "refundOrder"}}}
	}
	onePath := func(methods ...string) *spec.Document {
		d := &spec.Document{}
		for _, m := range methods {
			d.Operations = append(d.Operations, &spec.Operation{Method: m, PathTemplate: "/orders/{id}/refund"})
		}
		return d
	}
	adminOnly := &spec.Document{SecuritySchemes: bearer, Operations: []*spec.Operation{
		{Method: "POST", PathTemplate: "/orders/{id}/refund", OperationID: "refundOrder", Security: []map[string][]string{{"bearer": nil}}},
	}}
	tests := []struct {
		what      string
		anon, top []*checkstest.Builder
		doc       *spec.Document
		want      finding.Severity
		message   string // part of the message, when it fires
		observe   bool
	}{
		{"template refused with 403, offered to the most privileged identity", []*checkstest.Builder{order("1"), target("/orders/1/refund", 403)},
			[]*checkstest.Builder{order("2")}, nil, finding.SeverityError, "offers refund (POST /orders/1/refund) but GET of the target answered 403 to this caller;", false},
		{"template refused with 401 and a challenge: state-changing, still reported", []*checkstest.Builder{order("1"), target("/orders/1/refund", 401, challenge...)},
			[]*checkstest.Builder{order("2")}, nil, finding.SeverityError, "answered 401", false},
		{"template target 405 to GET", []*checkstest.Builder{order("1"), target("/orders/1/refund", 405)},
			[]*checkstest.Builder{order("2")}, nil, finding.SeverityNone, "", false},
		{"link refused with 403", []*checkstest.Builder{root("admin", "/admin"), get("/admin").Status(403)},
			[]*checkstest.Builder{root("admin", "/admin")}, nil, finding.SeverityWarning, "offers admin (GET /admin)", false},
		{"link refused with 401, no challenge", []*checkstest.Builder{root("me", "/me"), get("/me").Status(401)},
			[]*checkstest.Builder{root("me", "/me")}, nil, finding.SeverityWarning, "answered 401", false},
		// An authentication challenge is how a server says "sign in".
		{"link refused with 401 and WWW-Authenticate", []*checkstest.Builder{root("me", "/me"), target("/me", 401, challenge...)},
			[]*checkstest.Builder{root("me", "/me")}, nil, finding.SeverityNone, "", true},
		// Nothing says the control unlocks anything for a higher caller.
		{"template refused, not offered to the most privileged identity", []*checkstest.Builder{order("1"), target("/orders/1/refund", 403)},
			[]*checkstest.Builder{json200("/orders/2", `{"id":2}`)}, nil, finding.SeverityNone, "", false},
		{"template refused, the most privileged identity offered another method there", []*checkstest.Builder{order("1"), target("/orders/1/refund", 403)},
			[]*checkstest.Builder{root("refund", "/orders/2/refund")}, nil, finding.SeverityNone, "", false},
		{"link refused, not offered to the most privileged identity", []*checkstest.Builder{root("admin", "/admin"), get("/admin").Status(403)},
			[]*checkstest.Builder{json200("/", `{}`)}, nil, finding.SeverityNone, "", false},
		{"refused GET and an operation the declared security excludes, offered to nobody higher", []*checkstest.Builder{order("1"), target("/orders/1/refund", 403)},
			[]*checkstest.Builder{json200("/", `{}`)}, adminOnly, finding.SeverityError, "answered 403 to this caller, and its OpenAPI operation POST /orders/{id}/refund requires bearer", false},
		// Affordance entries without a method.
		{"no method, the operationId names a POST", []*checkstest.Builder{affordance("1", "refundOrder"), target("/orders/1/refund", 403)},
			[]*checkstest.Builder{affordance("2", "refundOrder")}, byID("POST"), finding.SeverityError, "offers refundOrder (POST /orders/1/refund)", false},
		{"no method, the operationId names a GET", []*checkstest.Builder{affordance("1", "refundOrder"), target("/orders/1/refund", 403)},
			[]*checkstest.Builder{affordance("2", "refundOrder")}, byID("GET"), finding.SeverityWarning, "offers refundOrder (GET /orders/1/refund)", false},
		{"no method, the one operation of the path is a POST", []*checkstest.Builder{affordance("1", "refundOrder"), target("/orders/1/refund", 403)},
			[]*checkstest.Builder{affordance("2", "refundOrder")}, onePath("POST"), finding.SeverityError, "(POST /orders/1/refund)", false},
		{"no method, two operations at the path", []*checkstest.Builder{affordance("1", "refundOrder"), target("/orders/1/refund", 403)},
			[]*checkstest.Builder{affordance("2", "refundOrder")}, onePath("GET", "POST"), finding.SeverityWarning, "(/orders/1/refund, method not stated)", false},
		{"no method, no OpenAPI document", []*checkstest.Builder{affordance("1", "refundOrder"), target("/orders/1/refund", 403)},
			[]*checkstest.Builder{affordance("2", "refundOrder")}, nil, finding.SeverityWarning, "(/orders/1/refund, method not stated)", false},
	}
	for _, tt := range tests {
		t.Run(tt.what, func(t *testing.T) {
			in := input(view{name: "anon", xs: tt.anon}, view{name: "admin", auth: true, xs: tt.top})
			in.Spec = tt.doc
			fs, _ := run(t, leakage.OfferedRefused{}, in)
			got := finding.SeverityNone
			for _, f := range fs {
				got = max(got, f.Severity)
			}
			if got != tt.want {
				t.Fatalf("severity %v, want %v: %v", got, tt.want, fs)
			}
			if tt.message != "" && !strings.Contains(fs[0].Message, tt.message) {
				t.Errorf("message %q, want it to contain %q", fs[0].Message, tt.message)
			}
			obs := in.Observations(leakage.OfferedRefused{}.Meta().ID)
			if got := slices.ContainsFunc(obs, func(o string) bool {
				return strings.Contains(o, "answered 401 with WWW-Authenticate: an authentication challenge")
			}); got != tt.observe {
				t.Errorf("observations %q, want the challenge noted: %v", obs, tt.observe)
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
