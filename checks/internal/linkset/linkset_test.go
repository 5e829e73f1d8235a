package linkset

import (
	"reflect"
	"strings"
	"testing"
)

const catalog = `{"linkset":[
 {"anchor":"https://e.test/api","service-desc":[{"href":"https://e.test/openapi.json","type":"application/openapi+json"}],
  "service-doc":[{"href":"/docs","type":"text/html"}],"status":[{"href":"/health"}]},
 {"anchor":"https://e.test/v2","item":[{"href":"/v2"}]}
]}`

func TestParse(t *testing.T) {
	ls, err := Parse([]byte(catalog))
	if err != nil || len(ls.Problems) != 0 {
		t.Fatalf("err %v problems %+v", err, ls.Problems)
	}
	want := []Target{{Rel: "service-desc", Href: "https://e.test/openapi.json", Type: "application/openapi+json", Pointer: "/linkset/0/service-desc/0"}}
	if got := ls.WithRel("service-desc"); !reflect.DeepEqual(got, want) {
		t.Errorf("service-desc %+v", got)
	}
	if len(ls.Contexts) != 2 || ls.Contexts[1].Anchor != "https://e.test/v2" || len(ls.Contexts[0].Links) != 3 {
		t.Errorf("contexts %+v", ls.Contexts)
	}
}

func TestProblems(t *testing.T) {
	ls, err := Parse([]byte(`{"linkset":[1,{"anchor":2,"a/b":{"href":"x"},"item":[{"type":"t"},{"href":"/ok"},[]]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	var ptrs []string
	for _, p := range ls.Problems {
		ptrs = append(ptrs, p.Pointer)
	}
	want := []string{"/linkset/0", "/linkset/1/anchor", "/linkset/1/a~1b", "/linkset/1/item/0", "/linkset/1/item/2"}
	if !reflect.DeepEqual(ptrs, want) {
		t.Errorf("problems at %v, want %v", ptrs, want)
	}
}

func TestErrors(t *testing.T) {
	for _, body := range []string{"", "[]", `{"links":[]}`, `{"linkset":{}}`, "{" + strings.Repeat(" ", 10<<20)} {
		if _, err := Parse([]byte(body)); err == nil {
			t.Errorf("%.20q: no error", body)
		}
	}
}

func TestBounds(t *testing.T) {
	big := `{"linkset":[` + strings.Repeat(`{"item":[{"href":"/a"},{"href":"/b"}]},`, 20000) + `{}]}`
	ls, err := Parse([]byte(big))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, c := range ls.Contexts {
		n += len(c.Links)
	}
	if len(ls.Contexts) > MaxContexts || n > MaxTargets {
		t.Errorf("%d contexts, %d targets", len(ls.Contexts), n)
	}
	deep := `{"linkset":[` + strings.Repeat("[", 5000) + strings.Repeat("]", 5000) + `]}`
	if _, err := Parse([]byte(deep)); err != nil {
		t.Error(err)
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(catalog))
	f.Add([]byte(`{"linkset":[{"":[{"href":""}]}]}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		ls, err := Parse(body)
		if err != nil {
			return
		}
		if len(ls.Contexts) > MaxContexts || len(ls.Problems) > MaxProblems {
			t.Fatalf("unbounded: %d contexts, %d problems", len(ls.Contexts), len(ls.Problems))
		}
		for _, tg := range ls.WithRel("item") {
			if tg.Href == "" {
				t.Fatal("target without href kept")
			}
		}
	})
}
