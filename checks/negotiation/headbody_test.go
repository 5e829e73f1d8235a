package negotiation_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/checkstest"
	"github.com/agentready/agentready/checks/internal/conneg"
	"github.com/agentready/agentready/checks/negotiation"
	"github.com/agentready/agentready/internal/exchange"
)

const headBase = "http://api.test"

// headBodyCases are the family's table cases for negotiation-head-body: a
// HEAD probe and what its server sent after the response's header.
var headBodyCases = []struct {
	name  string
	after string
	size  int64
	fires bool
}{
	{"content after a HEAD response", "{\"id\":1,\"token\":\"\x1b[31mred\"}", 26, true},
	{"content cut at the bound", strings.Repeat("x", exchange.MaxAfterHead), 4096, true},
	{"nothing after a HEAD response", "", 0, false},
}

func headBodyInput(after string, size int64) *checks.Input {
	get := checkstest.Exchange(exchange.PurposeCrawl, http.MethodGet, headBase+"/orders/1").Status(200).
		Header("Content-Type", "application/json").Body(`{"id":1}`).Build()
	head := checkstest.Exchange(conneg.PurposeHead, http.MethodHead, headBase+"/orders/1").BasedOn(headBase+"/orders/1").
		Status(200).Header("Content-Type", "application/json").Build()
	if after != "" {
		head.AfterHead = &exchange.AfterHead{Bytes: []byte(after), Size: size}
	}
	return checkstest.Input(headBase+"/", []string{headBase + "/orders/1"}, get, head)
}

func TestHeadBody(t *testing.T) {
	for _, tc := range headBodyCases {
		t.Run(tc.name, func(t *testing.T) {
			fs, _ := checkstest.Run(t, negotiation.HeadBody{}, headBodyInput(tc.after, tc.size))
			if (len(fs) > 0) != tc.fires {
				t.Fatalf("fired %v, want %v", fs, tc.fires)
			}
			if !tc.fires {
				return
			}
			ev := fs[0].Evidence[0]
			if ev.Expected != "no content" || !strings.HasPrefix(ev.Actual, "26 bytes") && !strings.HasPrefix(ev.Actual, "4096 bytes") {
				t.Errorf("evidence %+v", ev)
			}
			// What followed is shown sanitized: no terminal escape.
			if strings.ContainsRune(ev.Excerpt, '\x1b') || len(ev.Excerpt) > checks.ExcerptLimit+8 {
				t.Errorf("excerpt %q is not sanitized and bounded", ev.Excerpt)
			}
		})
	}
	if _, reason := checkstest.Run(t, negotiation.HeadBody{}, checkstest.Input(headBase+"/", nil)); reason == "" {
		t.Error("a scan without HEAD is judged")
	}
}

func TestNegotiationFiredBy(t *testing.T) {
	checkstest.FiredBy(t, negotiation.All(), func(t *testing.T, name string) ([]string, bool) {
		i := slices.IndexFunc(headBodyCases, func(c struct {
			name  string
			after string
			size  int64
			fires bool
		}) bool {
			return c.name == name
		})
		if i < 0 {
			return allowDeclaredFiredBy(t, name)
		}
		c := headBodyCases[i]
		fs, _ := checkstest.Run(t, negotiation.HeadBody{}, headBodyInput(c.after, c.size))
		return checkstest.IDs(fs), true
	})
}
