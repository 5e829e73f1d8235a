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

	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/probe"
)

// TestTheChecksSeeTheProbesIdentityWithoutItsCredentials: the identity the
// configuration gives is the probe's, roles included, and the checks read
// the very Caller the probe carried onto its view: its name, rank, roles and
// the names of its credential headers, never a value.
func TestTheChecksSeeTheProbesIdentityWithoutItsCredentials(t *testing.T) {
	t.Parallel()
	const secret = "s3cret-token-value"
	shared := http.Header{"Cookie": {"session=" + secret}, "Accept": {"application/json"}}
	ids := probe.Describe([]probe.Identity{{Caller: exchange.Caller{Name: "anonymous"}}, {Caller: exchange.Caller{Name: "user", Roles: []string{"reader"}},
		Header: http.Header{"X-Api-Key": {secret}},
		OAuth:  &probe.OAuth{TokenURL: "https://auth.example/token", ClientID: "c", ClientSecret: secret}}}, shared)
	views := identityViews([]probe.View{{Caller: ids[0].Caller}, {Caller: ids[1].Caller}})
	got := views[1]
	if got.Name != "user" || got.Rank != 1 || !slices.Equal(got.Roles, []string{"reader"}) ||
		!slices.Equal(got.Credentials, []string{"Authorization", "Cookie", "X-Api-Key"}) {
		t.Errorf("view %+v; want user, rank 1, roles [reader], credentials Authorization, Cookie, X-Api-Key", got)
	}
	if !reflect.DeepEqual(got.Caller, ids[1].Caller) {
		t.Errorf("the view's caller %+v differs from the identity's %+v", got.Caller, ids[1].Caller)
	}
	if views[0].Rank != 0 || !slices.Equal(views[0].Credentials, []string{"Cookie"}) {
		t.Errorf("view %+v; want rank 0 and the shared Cookie alone", views[0])
	}
	if s := fmt.Sprintf("%#v", views); strings.Contains(s, secret) {
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
	opts := Options{Probe: cfg, Shard: sh, Identities: probe.Describe([]probe.Identity{
		{Caller: exchange.Caller{Name: "anonymous"}}, {Caller: exchange.Caller{Name: "user"}, Header: http.Header{"Authorization": {"Bearer user-token-1234"}}}}, cfg.Headers),
		Progress: &probe.Progress{}}
	s := session(opts, nil)
	if !reflect.DeepEqual(s.Config, cfg) {
		t.Errorf("the session's configuration %+v differs from the one given %+v", s.Config, cfg)
	}
	if !s.ReadEveryPage || s.Shard != sh || s.Secrets.Get("Authorization") != "Bearer user-token-1234" || s.Progress != opts.Progress {
		t.Errorf("session read every page %v, shard %v, secrets %v, progress %p; want true, %v, the user's token and %p", s.ReadEveryPage, s.Shard, s.Secrets, s.Progress, sh, opts.Progress)
	}
	if !reflect.DeepEqual(s.Identities, opts.Identities) {
		t.Errorf("the session's identities %+v differ from the ones given %+v", s.Identities, opts.Identities)
	}
}
