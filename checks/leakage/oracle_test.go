package leakage_test

import (
	"path"
	"strings"
	"testing"

	"github.com/agentready/agentready/checks/checkstest"
	"github.com/agentready/agentready/checks/leakage"
	"github.com/agentready/agentready/internal/spec"
)

func TestExistenceOracle(t *testing.T) {
	pair := func(p string, found, missing int) []*checkstest.Builder {
		sibling := path.Join(path.Dir(p), "agentready-missing-7f3c")
		return []*checkstest.Builder{
			checkstest.Exchange("leakage/cross-fetch", "GET", base+p).BasedOn(base + p).Status(found),
			checkstest.Exchange("leakage/missing-sibling", "GET", base+sibling).BasedOn(base + p).Status(missing),
		}
	}
	articles := &spec.Document{Operations: []*spec.Operation{{Method: "GET", PathTemplate: "/articles/{slug}"}, {Method: "GET", PathTemplate: "/admin/settings"}}}
	tests := []struct {
		what           string
		path           string
		doc            *spec.Document
		found, missing int
		want           bool
	}{
		{"403 against 404", "/orders/1", nil, 403, 404, true},
		{"403 against 404, a UUID", "/orders/3f2b9c1e-8d4a-4f6b-9c2d-1a2b3c4d5e6f", nil, 403, 404, true},
		{"403 against 404, a mixed token", "/orders/ord_8f3k2", nil, 403, 404, true},
		{"403 against 404, a slug the OpenAPI document templates", "/articles/hello-world", articles, 403, 404, true},
		{"404 for both", "/orders/1", nil, 404, 404, false},
		{"readable by both", "/orders/1", nil, 200, 404, false},
		{"401 for both", "/orders/1", nil, 401, 401, false},
		// A fixed path names nothing to enumerate.
		{"a fixed path, no OpenAPI document", "/admin/settings", nil, 403, 404, false},
		{"a fixed path the OpenAPI document names literally", "/admin/settings", articles, 403, 404, false},
		{"a slug, no OpenAPI document", "/articles/hello-world", nil, 403, 404, false},
	}
	for _, tt := range tests {
		t.Run(tt.what, func(t *testing.T) {
			admin := view{name: "admin", auth: true, xs: []*checkstest.Builder{json200(tt.path, `{}`)}}
			in := input(view{name: "anon", xs: pair(tt.path, tt.found, tt.missing)}, admin)
			in.Spec = tt.doc
			fs, reason := run(t, leakage.ExistenceOracle{}, in)
			if got := len(fs) > 0; got != tt.want {
				t.Fatalf("fired %v (skip %q), want %v", got, reason, tt.want)
			}
			if tt.want && len(fs[0].Evidence) != 2 {
				t.Errorf("evidence %d, want both requests", len(fs[0].Evidence))
			}
			obs := in.Observations(leakage.ExistenceOracle{}.Meta().ID)
			fixed := !tt.want && tt.found == 403 && tt.missing == 404
			if got := len(obs) == 1 && strings.Contains(obs[0], tt.path+" answers 403 and a missing sibling 404, not judged"); got != fixed {
				t.Errorf("observations %q, want one for the fixed path: %v", obs, fixed)
			}
			if fixed && !strings.HasPrefix(reason, "no resource named by an identifier") {
				t.Errorf("skip %q, want one saying no identified resource was compared", reason)
			}
		})
	}
	admin := view{name: "admin", auth: true, xs: []*checkstest.Builder{json200("/orders/1", `{}`)}}
	if _, reason := run(t, leakage.ExistenceOracle{}, input(view{name: "anon"}, admin)); reason == "" {
		t.Error("no cross-fetch: want a skip")
	}
}
