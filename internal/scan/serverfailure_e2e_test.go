package scan_test

import (
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/scan"
)

// htmlFailingApp is a JSON API that crashes on every GET asking for HTML
// (the Markdown twin's probe sends Accept: text/html) and on its API
// catalog, whose first catalogFailures answers are 500 and the rest 200.
func htmlFailingApp(catalogFailures int32) http.Handler {
	var catalog atomic.Int32
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.Header.Get("Accept"), "text/html") {
			http.Error(w, "template not found", http.StatusInternalServerError)
			return
		}
		switch r.URL.Path {
		case "/.well-known/api-catalog":
			if catalog.Add(1) <= catalogFailures {
				http.Error(w, "catalog store down", http.StatusInternalServerError)
				return
			}
			w.Header().Set("Content-Type", "application/linkset+json")
			_, _ = w.Write([]byte(`{"linkset":[{"anchor":"/","item":[{"href":"/orders/1"}]}]}`))
		case "/", "/orders/1":
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"id":1,"links":{"self":"/orders/1"}}`))
		default:
			w.Header().Set("Content-Type", "application/problem+json")
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write([]byte(`{"title":"Not Found","status":404}`))
		}
	})
}

func serverErrorMessages(rep *finding.Report) []string {
	var out []string
	for _, f := range rep.Findings {
		if f.CheckID == "problem-json-server-error" {
			out = append(out, f.Message)
		}
	}
	return out
}

func TestEveryProbeIsJudgedForServerErrors(t *testing.T) {
	t.Parallel()
	rep, err := runOn(t, htmlFailingApp(1<<30), scan.Options{})
	if err != nil {
		t.Fatal(err)
	}
	msgs := strings.Join(serverErrorMessages(rep), "\n")
	for _, want := range []string{"(discovery/markdown-html probe)", "GET /.well-known/api-catalog answered 500"} {
		if !strings.Contains(msgs, want) {
			t.Errorf("problem-json-server-error does not say %q:\n%s", want, msgs)
		}
	}
}

func TestOneFailureAtRandomIsNotAServerError(t *testing.T) {
	t.Parallel()
	rep, err := runOn(t, htmlFailingApp(1), scan.Options{})
	if err != nil {
		t.Fatal(err)
	}
	msgs := strings.Join(serverErrorMessages(rep), "\n")
	if strings.Contains(msgs, "api-catalog") {
		t.Errorf("a catalog that failed once and then answered is reported:\n%s", msgs)
	}
	if !strings.Contains(msgs, "(discovery/markdown-html probe)") {
		t.Errorf("the failure that holds is not reported:\n%s", msgs)
	}
}
