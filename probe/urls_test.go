package probe

import (
	"net/url"
	"testing"
)

// The crawl's shortcut for plain paths must name the URL that parsing,
// resolving and normalizing name.
func FuzzPlainKeyMatchesNormalize(f *testing.F) {
	for _, s := range [][2]string{
		{"http://api.test/a/b?q=1#f", "/orders/1"}, {"HTTP://API.test:80/", "/x"}, {"https://h:443", "/"},
		{"https://u:p@h:8443/x", "/a;b=1:c@d"}, {"http://[::1]:8080/", "/v6"}, {"http://h/", "/a/../b"},
		{"http://h/", "//other/x"}, {"http://h/", "/a%2Fb"}, {"http://h/", "/a?x"}, {"ftp://h/", "/x"},
		{"http://h%41/", "/x"}, {"http:///p", "/x"}, {"http://h/", "/.well-known/x"}, {"http://h/", "/a/."},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, rawBase, ref string) {
		base, err := url.Parse(rawBase)
		if err != nil || ref == "" {
			return
		}
		key, ok := plainKey(base, ref)
		if !ok {
			return
		}
		u, err := url.Parse(ref)
		if err != nil {
			t.Fatalf("plainKey(%q, %q) = %q, but the reference does not parse: %v", rawBase, ref, key, err)
		}
		if want := normalize(base.ResolveReference(u)).String(); key != want {
			t.Errorf("plainKey(%q, %q) = %q, want %q", rawBase, ref, key, want)
		}
	})
}
