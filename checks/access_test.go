package checks_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/spec"
)

func TestMayCall(t *testing.T) {
	doc := &spec.Document{SecuritySchemes: map[string]spec.SecurityScheme{
		"bearer":  {Type: "http", Scheme: "bearer"},
		"key":     {Type: "apiKey", In: "header", Name: "x-key"},
		"session": {Type: "apiKey", In: "cookie", Name: "sid"},
		"query":   {Type: "apiKey", In: "query", Name: "api_key"},
		"oauth":   {Type: "oauth2"},
		"mtls":    {Type: "mutualTLS"},
	}}
	op := func(security ...map[string][]string) *spec.Operation {
		return &spec.Operation{OperationID: "refundOrder", Method: "POST", PathTemplate: "/orders/{id}/refund", Security: security}
	}
	bearer := map[string][]string{"bearer": nil}
	anonymous := exchange.Caller{Name: "anonymous"}
	token := exchange.Caller{Name: "user", Credentials: []string{"Authorization"}}
	withRoles := func(c exchange.Caller, roles ...string) exchange.Caller {
		c.Roles = append([]string{}, roles...)
		return c
	}
	tests := []struct {
		name  string
		rules checks.AccessRules
		op    *spec.Operation
		who   exchange.Caller
		want  checks.Access
		why   string // part of the reason
	}{
		{"no security", nil, op(), anonymous, checks.AccessAllowed, "no security requirement"},
		{"empty alternative", nil, op(bearer, map[string][]string{}), anonymous, checks.AccessAllowed, "{} alternative"},
		{"anonymous against bearer", nil, op(bearer), anonymous, checks.AccessRefused, "requires bearer; this caller sent no credentials"},
		{"bearer without roles, Authorization sent", nil, op(bearer), token, checks.AccessAllowed, "meet the declared scheme"},
		{"credential header in another case", nil, op(bearer), exchange.Caller{Name: "u", Credentials: []string{"authorization"}}, checks.AccessAllowed, ""},
		{"api key header not sent", nil, op(map[string][]string{"key": nil}), token, checks.AccessRefused, "scheme key reads X-Key, which this caller did not send"},
		{"api key header sent", nil, op(map[string][]string{"key": nil}), exchange.Caller{Name: "k", Credentials: []string{"X-Key"}}, checks.AccessAllowed, ""},
		{"cookie scheme, cookie sent", nil, op(map[string][]string{"session": nil}), exchange.Caller{Name: "c", Credentials: []string{"Cookie"}}, checks.AccessAllowed, ""},
		{"roles not configured", nil, op(map[string][]string{"bearer": {"admin"}}), token, checks.AccessUnknown, "needs admin and no roles are configured for \"user\""},
		{"roles lack the one needed", nil, op(map[string][]string{"bearer": {"admin"}}), withRoles(token, "user"), checks.AccessRefused, "needs admin and \"user\" holds role user"},
		{"roles hold the one needed", nil, op(map[string][]string{"bearer": {"admin"}}), withRoles(token, "admin"), checks.AccessAllowed, ""},
		{"empty roles hold none", nil, op(map[string][]string{"bearer": {"admin"}}), withRoles(token), checks.AccessRefused, "holds no role"},
		{"oauth scopes are not roles", nil, op(map[string][]string{"oauth": {"orders:refund"}}), withRoles(token, "support"), checks.AccessUnknown, "only the token's grant can tell"},
		{"oauth scopes, anonymous", nil, op(map[string][]string{"oauth": {"orders:refund"}}), anonymous, checks.AccessRefused, "sent no credentials"},
		{"one of two alternatives met", nil, op(map[string][]string{"key": nil}, bearer), token, checks.AccessAllowed, ""},
		{"both schemes of one alternative needed", nil, op(map[string][]string{"bearer": nil, "key": nil}), token, checks.AccessRefused, "X-Key"},
		{"query api key cannot be judged", nil, op(map[string][]string{"query": nil}), token, checks.AccessUnknown, "not read from a request header"},
		{"mutual TLS cannot be judged", nil, op(map[string][]string{"mtls": nil}), token, checks.AccessUnknown, "not read from a request header"},
		{"undeclared scheme cannot be judged", nil, op(map[string][]string{"ghost": nil}), token, checks.AccessUnknown, "scheme ghost"},
		{"undeclared scheme, anonymous", nil, op(map[string][]string{"ghost": nil}), anonymous, checks.AccessRefused, "sent no credentials"},
		{"unjudgeable scheme, roles lacking", nil, op(map[string][]string{"query": {"admin"}}), withRoles(token, "user"), checks.AccessRefused, "needs admin"},

		{"mapping by operationId wins over security", checks.AccessRules{"refundOrder": {"admin"}}, op(), withRoles(token, "user"), checks.AccessRefused, "maps refundOrder to role admin and \"user\" holds role user"},
		{"mapping by route wins over security", checks.AccessRules{"POST /orders/{id}/refund": {"admin"}}, op(bearer), withRoles(token, "admin"), checks.AccessAllowed, "maps refundOrder to role admin"},
		{"route key with other case and parameter name", checks.AccessRules{"post /orders/{orderId}/refund": {"admin"}}, op(), withRoles(token, "user"), checks.AccessRefused, "role admin"},
		{"mapping to any of several roles", checks.AccessRules{"refundOrder": {"admin", "finance"}}, op(), withRoles(token, "finance"), checks.AccessAllowed, "admin or finance"},
		{"mapping, roles not configured", checks.AccessRules{"refundOrder": {"admin"}}, op(), token, checks.AccessUnknown, "no roles are configured"},
		{"mapping, anonymous", checks.AccessRules{"refundOrder": {"admin"}}, op(), anonymous, checks.AccessRefused, "sent no credentials"},
		{"mapping to no role", checks.AccessRules{"refundOrder": {}}, op(bearer), anonymous, checks.AccessAllowed, "anyone may call it"},
		{"mapping for another operation", checks.AccessRules{"GET /orders": {"admin"}, "listOrders": {"admin"}}, op(), anonymous, checks.AccessAllowed, "no security requirement"},
		{"nil operation", checks.AccessRules{"refundOrder": {"admin"}}, nil, token, checks.AccessUnknown, "no OpenAPI operation"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, why := tt.rules.MayCall(doc, tt.op, tt.who)
			if got != tt.want {
				t.Errorf("MayCall = %v (%s), want %v", got, why, tt.want)
			}
			if why == "" || !strings.Contains(why, tt.why) {
				t.Errorf("reason %q, want it to contain %q", why, tt.why)
			}
		})
	}
}

func TestMayCallWithoutDocument(t *testing.T) {
	op := &spec.Operation{Method: "GET", PathTemplate: "/me", Security: []map[string][]string{{"bearer": nil}}}
	if got, why := checks.AccessRules(nil).MayCall(nil, op, exchange.Caller{Name: "u", Credentials: []string{"Authorization"}}); got != checks.AccessUnknown {
		t.Errorf("MayCall = %v (%s), want unknown: the scheme cannot be looked up", got, why)
	}
}

func TestSentCredentials(t *testing.T) {
	for _, tt := range []struct {
		name   string
		header http.Header
		want   bool
	}{
		{"none", http.Header{"Accept": {"application/json"}}, false},
		{"authorization", http.Header{"Authorization": {exchange.Redacted}}, true},
		{"cookie", http.Header{"Cookie": {exchange.Redacted}}, true},
		// Every --header value is redacted: redaction alone says nothing.
		{"redacted custom header", http.Header{"X-Trace": {exchange.Redacted}}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			x := &exchange.Exchange{Request: exchange.Request{Header: tt.header}}
			if got := checks.SentCredentials(x); got != tt.want {
				t.Errorf("SentCredentials = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestCredentialed(t *testing.T) {
	redacted := func(names ...string) http.Header {
		h := http.Header{"User-Agent": {"agentready/test"}}
		for _, n := range names {
			h.Set(n, exchange.Redacted)
		}
		return h
	}
	views := []checks.IdentityView{
		{Caller: exchange.Caller{Name: "anonymous"}},
		{Caller: exchange.Caller{Name: "tenant", Credentials: []string{"X-Tenant-Key"}}},
		{Caller: exchange.Caller{Name: "user", Credentials: []string{"Authorization"}}},
	}
	for _, tt := range []struct {
		name     string
		views    []checks.IdentityView
		caller   exchange.Caller
		identity string
		header   http.Header
		want     bool
	}{
		{"anonymous with a shared -H header", views, exchange.Caller{}, "anonymous", redacted("X-Trace"), false},
		{"anonymous with a shared sensitive header", views, exchange.Caller{}, "anonymous", redacted("Cookie"), true},
		{"the identity's own header", views, exchange.Caller{}, "tenant", redacted("X-Tenant-Key", "X-Trace"), true},
		{"the identity's header, not sent", views, exchange.Caller{}, "tenant", redacted("X-Trace"), false},
		{"another identity's header name", views, exchange.Caller{}, "anonymous", redacted("X-Tenant-Key"), false},
		{"authorization", views, exchange.Caller{}, "user", redacted("Authorization"), true},
		{"one identity: the judged caller's header", nil, exchange.Caller{Name: "tenant", Credentials: []string{"x-tenant-key"}}, "", redacted("X-Tenant-Key"), true},
		{"one identity, shared header only", nil, exchange.Caller{Name: "tenant", Credentials: []string{"X-Tenant-Key"}}, "", redacted("X-Trace"), false},
		{"no identity at all", nil, exchange.Caller{}, "", redacted("X-Trace"), false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			in := checks.NewInput(nil, &exchange.Recording{})
			in.Identities, in.Caller = tt.views, tt.caller
			x := &exchange.Exchange{Identity: tt.identity, Request: exchange.Request{Header: tt.header}}
			if got := in.Credentialed(x); got != tt.want {
				t.Errorf("Credentialed = %v, want %v", got, tt.want)
			}
		})
	}
}
