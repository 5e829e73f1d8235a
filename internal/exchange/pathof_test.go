package exchange

import (
	"net/url"
	"testing"
)

// pathOfParsed is PathOf without its fast path.
func pathOfParsed(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return rawURL
	}
	if u.Path == "" {
		return "/"
	}
	return u.Path
}

// The fast path must give what url.Parse gives, for any string.
func FuzzPathOfMatchesURLParse(f *testing.F) {
	for _, s := range []string{
		"http://api.test/orders/1?x=1#f", "https://API.test:8443", "http://h?q", "http://h#f", "http://h/a%2Fb",
		"http://h:/x", "http://h:x/y", "http://[::1]:80/v6", "http://u:p@h/x", "http://h/a b", "http://h/é",
		"http://h/a\\b", "ftp://h/x", "/relative", "", "http://", "http:///x", "http://h//double", "http://h.-x/;p=1",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := PathOf(s), pathOfParsed(s); got != want {
			t.Errorf("PathOf(%q) = %q, want %q", s, got, want)
		}
	})
}
