package leakage_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/checkstest"
	"github.com/agentready/agentready/checks/leakage"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/mcp"
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
		views[i] = checks.IdentityView{Caller: exchange.Caller{Name: v.name, Rank: i, Roles: v.roles}, Recording: rec, MCP: v.snap}
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

// TestOneIdentityIsNotAssessed: every check compares callers but
// leakage-secret-exposed, which judges what anyone is shown.
func TestOneIdentityIsNotAssessed(t *testing.T) {
	in := input(view{name: "only", xs: []*checkstest.Builder{json200("/", `{}`)}})
	for _, c := range leakage.All() {
		if _, anyCaller := c.(leakage.SecretExposed); anyCaller {
			continue
		}
		fs, reason := run(t, c, in)
		if len(fs) != 0 || !strings.HasPrefix(reason, "not assessed") {
			t.Errorf("%s: findings %d, skip %q; want not assessed", c.Meta().ID, len(fs), reason)
		}
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
