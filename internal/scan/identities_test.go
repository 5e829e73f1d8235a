package scan

import (
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/probe"
)

// TestTheChecksSeeTheProbesIdentityWithoutItsCredentials: the identity the
// configuration gives is the probe's, roles included, and the checks learn
// of it its name, roles and the names of its credential headers, never a
// value.
func TestTheChecksSeeTheProbesIdentityWithoutItsCredentials(t *testing.T) {
	t.Parallel()
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

// TestTheSessionCarriesWhatTheScanAdds: the scan hands the probe the
// configuration as the CLI built it, unchanged, and puts what it adds for
// its checks (reading every page to compare callers, the shard, the other
// identities' credentials to scrub) on the session.
func TestTheSessionCarriesWhatTheScanAdds(t *testing.T) {
	t.Parallel()
	start, _ := url.Parse("http://127.0.0.1:1/")
	cfg := probe.Config{Start: start, Budget: time.Minute, MaxPages: 50, Headers: http.Header{"Accept": {"application/json"}}}
	sh := finding.Shard{Index: 2, Total: 3}
	opts := Options{Probe: cfg, Shard: sh, Identities: []probe.Identity{
		{Name: "anonymous"}, {Name: "user", Header: http.Header{"Authorization": {"Bearer user-token-1234"}}}}}
	s := session(opts, nil)
	if !reflect.DeepEqual(s.Config, cfg) {
		t.Errorf("the session's configuration %+v differs from the one given %+v", s.Config, cfg)
	}
	if !s.ReadEveryPage || s.Shard != sh || s.Secrets.Get("Authorization") != "Bearer user-token-1234" {
		t.Errorf("session read every page %v, shard %v, secrets %v; want true, %v and the user's token", s.ReadEveryPage, s.Shard, s.Secrets, sh)
	}
}
