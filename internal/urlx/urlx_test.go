package urlx

import (
	"net/url"
	"testing"
)

func TestSameOrigin(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want bool
	}{
		{"http://api/", "http://api/", true},
		{"http://api:80/mcp", "http://api/", true},
		{"http://api:80", "http://api", true},
		{"HTTPS://API:443/x", "https://api", true},
		{"https://api:443", "https://api:443/", true},
		{"http://api:", "http://api", true},
		{"http://Api.Example/a?q=1#f", "http://api.example/b", true},
		{"http://user:secret@api/", "http://api/", true},
		{"http://other@api:80/", "http://user@api/", true},
		{"http://api:8080/", "http://api/", false},
		{"http://api:8080/", "http://api:8081/", false},
		{"http://api:443/", "https://api/", false},
		{"https://api:80/", "http://api/", false},
		{"https://api/", "http://api/", false},
		{"http://api/", "http://api.example/", false},
		{"http://[::1]:80/", "http://[::1]/", true},
		{"http://[::1]:8080/", "http://[::1]/", false},
		{"http://[2001:DB8::1]/", "http://[2001:db8::1]:80/", true},
		{"http://[::1]/", "http://[::2]/", false},
		{"http://[::1]/", "http://127.0.0.1/", false},
		{"ws://api/", "ws://api:80/", false},
		{"ftp://api/", "ftp://api/", true},
	} {
		a, err := url.Parse(tc.a)
		if err != nil {
			t.Fatal(err)
		}
		b, err := url.Parse(tc.b)
		if err != nil {
			t.Fatal(err)
		}
		if got := SameOrigin(a, b); got != tc.want {
			t.Errorf("SameOrigin(%s, %s) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
		if got := SameOrigin(b, a); got != tc.want {
			t.Errorf("SameOrigin(%s, %s) = %v, want %v (not symmetric)", tc.b, tc.a, got, tc.want)
		}
	}
}

func TestSameOriginNil(t *testing.T) {
	u, _ := url.Parse("http://api/")
	if SameOrigin(nil, u) || SameOrigin(u, nil) || SameOrigin(nil, nil) {
		t.Error("a missing URL has no origin")
	}
}
