package uritemplate

import (
	"slices"
	"testing"
)

func TestValidate(t *testing.T) {
	valid := []string{
		"", "/orders", "/orders{?id}", "/orders{?state,page}", "{+path}/here", "{#frag}",
		"{.dom*}", "{/list*,path:4}", "{;x,y}", "{&x}", "https://docs.acme.com/relations/{rel}",
		"{var:9999}", "{a.b}", "{a%20b}", "/caf\u00e9/{x}", "/a%2Fb", "{X_1}",
	}
	for _, tpl := range valid {
		if err := Validate(tpl); err != nil {
			t.Errorf("Validate(%q) = %v, want valid", tpl, err)
		}
	}
	invalid := []string{
		"{", "}", "/orders{?id", "/orders?id}", "{}", "{?}", "{=x}", "{,x}", "{!x}", "{@x}", "{|x}",
		"{x:0}", "{x:10000}", "{x:}", "{x:a}", "{x*y}", "{.}", "{a..b}", "{..a}", "{a.}", "{a-b}",
		"{a b}", "/a b", "/a%zz", "/a%2", `/"q"`, "/a|b", "{x}}", "{{x}}", "\xff",
	}
	for _, tpl := range invalid {
		if err := Validate(tpl); err == nil {
			t.Errorf("Validate(%q) = nil, want an error", tpl)
		}
	}
}

func TestVariables(t *testing.T) {
	if got := Variables("/o/{id}{?state,page:3}{&x*}"); !slices.Equal(got, []string{"id", "state", "page", "x"}) {
		t.Errorf("Variables = %v", got)
	}
	if Variables("{") != nil {
		t.Error("variables of an invalid template")
	}
}

func FuzzValidate(f *testing.F) {
	for _, s := range []string{"/orders{?id}", "{+x:3}", "{=x}", "%4"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if Validate(s) == nil {
			_ = Variables(s)
		}
	})
}
