package scan

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/agentready/agentready/probe"
)

// TestTheChecksSeeTheProbesIdentityWithoutItsCredentials: the identity the
// configuration gives is the probe's, roles included, and the checks learn
// of it its name, roles and the names of its credential headers, never a
// value.
func TestTheChecksSeeTheProbesIdentityWithoutItsCredentials(t *testing.T) {
	const secret = "s3cret-token-value"
	id := probe.Identity{Name: "user", Roles: []string{"reader"},
		Header: http.Header{"X-Api-Key": {secret}},
		OAuth:  &probe.OAuth{TokenURL: "https://auth.example/token", ClientID: "c", ClientSecret: secret}}
	shared := http.Header{"Cookie": {"session=" + secret}, "Accept": {"application/json"}}
	rec := &Recording{Callers: callers([]probe.Identity{{Name: "anonymous"}, id}, shared, 2), Caller: judgedCaller([]probe.Identity{id}, shared)}
	views := identityViews(rec.Callers, []probe.View{{Name: "anonymous"}, {Name: "user"}})
	got := views[1]
	if got.Name != "user" || got.Rank != 1 || !slices.Equal(got.Roles, []string{"reader"}) ||
		!slices.Equal(got.Credentials, []string{"Authorization", "Cookie", "X-Api-Key"}) {
		t.Errorf("view %+v; want user, rank 1, roles [reader], credentials Authorization, Cookie, X-Api-Key", got)
	}
	if got.Caller.Name != rec.Caller.Name || !slices.Equal(got.Caller.Credentials, rec.Caller.Credentials) {
		t.Errorf("the view's caller %+v differs from the judged caller %+v", got.Caller, rec.Caller)
	}
	if s := fmt.Sprintf("%#v %#v", views, rec.Caller); strings.Contains(s, secret) {
		t.Errorf("what the checks see holds a credential: %s", s)
	}
}
