package leakage_test

import (
	"strings"
	"testing"

	"github.com/agentready/agentready/checks/checkstest"
	"github.com/agentready/agentready/checks/leakage"
	"github.com/agentready/agentready/internal/finding"
)

func TestSharedCache(t *testing.T) {
	order := func(status int, body, cc, vary string) func() *checkstest.Builder {
		return func() *checkstest.Builder {
			b := get("/orders/1").Status(status).Header("Content-Type", "application/json").Body(body)
			if cc != "" {
				b.Header("Cache-Control", cc)
			}
			if vary != "" {
				b.Header("Vary", vary)
			}
			return b
		}
	}
	ok := func(body, cc string) func() *checkstest.Builder { return order(200, body, cc, "") }
	notFound := order(404, `{"type":"about:blank","status":404}`, "", "")
	cancel := `{"operation":"cancelOrder","target":"/orders/1/cancellation","method":"POST"}`
	pay := `{"operation":"payOrder","target":"/orders/1/payment","method":"POST"}`
	tests := []struct {
		what       string
		anon, user func() *checkstest.Builder
		want       string // subject and message part; "" for no finding
	}{
		{"same body to both", ok(`{"a":1}`, "max-age=60"), ok(`{"a":1}`, "max-age=60"), ""},
		// Noise: values that change on every fetch.
		{"a timestamp differs, public to both", ok(`{"id":1,"servedAt":1767225600123}`, "public, max-age=60"), ok(`{"id":1,"servedAt":1767225600456}`, "public, max-age=60"), ""},
		{"a request ID differs, the anonymous one cacheable", ok(`{"id":1,"requestId":"9f1c"}`, "max-age=60"), ok(`{"id":1,"requestId":"77ab"}`, "private"), ""},
		{"numbers differ only", ok(`{"a":1}`, "max-age=60"), ok(`{"a":2}`, "private"), ""},
		{"a per-request string differs", ok(`{"id":1,"nonce":"x1","trace":"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01","at":"2026-01-01T10:00:01Z"}`, "public, max-age=60"),
			ok(`{"id":1,"nonce":"x2","trace":"00-5bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01","at":"2026-01-01T10:00:02Z"}`, "public, max-age=60"), ""},
		{"arrays of other lengths are not compared by value", ok(`{"items":["a"]}`, "public, max-age=60"), ok(`{"items":["a","b"]}`, "public, max-age=60"), ""},
		{"identifier-like keys differ", ok(`{"byDay":{"2026-01-01":3}}`, "max-age=60"), ok(`{"byDay":{"2026-01-02":3}}`, "private"), ""},
		{"bodies that are not JSON differ", func() *checkstest.Builder {
			return get("/orders/1").Status(200).Header("Content-Type", "text/plain").Header("Cache-Control", "public").Body("served at 10:01")
		}, func() *checkstest.Builder {
			return get("/orders/1").Status(200).Header("Content-Type", "text/plain").Header("Cache-Control", "public").Body("served at 10:02")
		}, ""},
		// The 404 that hides a resource (leakage-existence-oracle's advice).
		{"plain 404 to anonymous, private 200 to the user", notFound, ok(`{"id":1}`, "private"), ""},
		{"anonymous public 200, the user refused", ok(`{"id":1}`, "public"), order(403, `{}`, "no-store", ""), ""},
		{"anonymous cacheable 200, the user's 500", ok(`{"id":1}`, "max-age=60"), order(500, `{}`, "no-store", ""), ""},
		// Content that differs per caller.
		{"a member only the anonymous view has (leak-cache-public)", ok(`{"id":1,"viewer":"anonymous"}`, "public, max-age=60"), ok(`{"id":1}`, "private"),
			`anon: member /viewer only in the response to "anon"`},
		{"a member only the user's view has, anonymous cacheable", ok(`{"id":1}`, "max-age=60"), ok(`{"id":1,"email":"u@example.com"}`, "private"),
			`anon: member /email only in the response to "user"`},
		{"the user's public view lists items, anonymous none", ok(`{"items":[]}`, "private"), ok(`{"items":[{"id":1}]}`, "public, max-age=60"),
			`user: member /items/*/id only in the response to "user"`},
		{"a control offered to the user only", ok(`{"affordances":[`+pay+`]}`, "private"), ok(`{"affordances":[`+pay+`,`+cancel+`]}`, "public"),
			`user: control cancelOrder (POST /orders/{id}/cancellation) only in the response to "user"`},
		{"a public per-user body (/me)", ok(`{"name":"alice","plan":"pro"}`, "public, max-age=600"), ok(`{"name":"root","plan":"pro"}`, "public, max-age=600"),
			`anon: the value of /name differs between the responses to "anon" and "user"`},
		{"the user's public 200, anonymous refused", notFound, ok(`{"id":1}`, "public"), `user: 200 to "user", 404 to "anon"`},
		{"another media type per caller", func() *checkstest.Builder {
			return get("/orders/1").Status(200).Header("Content-Type", "text/html").Header("Cache-Control", "max-age=60").Body("<p>sign in</p>")
		}, ok(`{"id":1}`, "private"), `anon: text/html to "anon", application/json to "user"`},
		// Responses no shared cache reuses for another caller.
		{"per-caller body, private and no-store", ok(`{"a":1}`, "no-store"), ok(`{"a":1,"b":2}`, "private"), ""},
		{"authorized response without public is not stored (RFC 9111 §3.5)", ok(`{"a":1}`, "no-store"), ok(`{"a":1,"b":2}`, "max-age=60"), ""},
		{"Vary: Authorization", order(200, `{"a":1}`, "public", "Authorization"), order(200, `{"a":1,"b":2}`, "public", "Accept, Authorization"), ""},
		{"different Accept", func() *checkstest.Builder { return ok(`{"a":1}`, "public")().ReqHeader("Accept", "application/json") }, ok(`{"a":1,"b":2}`, "public"), ""},
	}
	for _, tt := range tests {
		t.Run(tt.what, func(t *testing.T) {
			fs, reason := run(t, leakage.SharedCache{}, input(
				view{name: "anon", xs: []*checkstest.Builder{tt.anon()}},
				view{name: "user", auth: true, xs: []*checkstest.Builder{tt.user()}}))
			if tt.want == "" {
				if len(fs) > 0 {
					t.Fatalf("fired: %v", fs[0].Message)
				}
				return
			}
			subject, part, _ := strings.Cut(tt.want, ": ")
			if len(fs) != 1 {
				t.Fatalf("findings %d (skip %q), want 1", len(fs), reason)
			}
			f := fs[0]
			if f.Subject != subject || f.Severity != finding.SeverityError || !f.Security || !strings.Contains(f.Message, part) {
				t.Errorf("finding %q %v security %v: %s\nwant subject %q, error, security, message with %q", f.Subject, f.Severity, f.Security, f.Message, subject, part)
			}
		})
	}
}

// TestSharedCacheHostileBody: a body with more members than are collected
// is not judged, so that where the list was cut cannot make a difference.
func TestSharedCacheHostileBody(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"id":1`)
	for i := range 5000 {
		b.WriteString(`,"m` + string(rune('a'+i%26)) + strings.Repeat("y", i/26) + `":1`)
	}
	b.WriteString(`}`)
	fs, _ := run(t, leakage.SharedCache{}, input(
		view{name: "anon", xs: []*checkstest.Builder{json200("/orders/1", b.String()).Header("Cache-Control", "public")}},
		view{name: "user", auth: true, xs: []*checkstest.Builder{json200("/orders/1", `{"id":1}`).Header("Cache-Control", "private")}}))
	if len(fs) != 0 {
		t.Errorf("fired on a body too large to list: %v", fs[0].Message)
	}
}
