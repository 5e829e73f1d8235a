package openapihal

import (
	"net/url"
	"testing"
)

// The plain path's shortcut must give what parsing and resolving give.
func FuzzResolvePlainMatchesResolve(f *testing.F) {
	for _, s := range []string{"/orders/1", "/a//b", "/a/./b", "/a/../b", "/.well-known/x", "/a;b=1:c@d", "/a?x", "/a#f",
		"/a%2Fb", "/a b", "//host/x", "relative", "/", "/a/", "/a.", "/~u/$&+,=", "/é", "/a/.."} {
		f.Add(s)
	}
	base, _ := url.Parse("http://api.test/base/page?q=1")
	f.Fuzz(func(t *testing.T, href string) {
		path, host, ok := resolvePlain(base, href)
		if !ok {
			return
		}
		wantPath, wantHost, wantOK := resolve(base, href)
		if !wantOK || path != wantPath || host != wantHost {
			t.Errorf("resolvePlain(%q) = %q %q, want %q %q %v", href, path, host, wantPath, wantHost, wantOK)
		}
	})
}
