package scan_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/agentready/agentready/fixtures/demo"
)

// TestAFailedPageIsNoEvidenceOfANeverOfferedOperation scans the demo with
// its flaky order, drawn the way that hides it: order 3, the only shipped
// order and so the only page that offers what a shipped order allows, answers
// every GET of the user with 500. No page the user saw offers those
// operations, yet the page that would have did not answer: the scan must not
// say the user is never offered them.
func TestAFailedPageIsNoEvidenceOfANeverOfferedOperation(t *testing.T) {
	t.Parallel()
	app := demo.New(demo.DefectFlakyOrder)
	failing := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/orders/3" && r.Header.Get("Authorization") == userAuth {
			http.Error(w, "injected fault", http.StatusInternalServerError)
			return
		}
		app.ServeHTTP(w, r)
	})
	rep := scanAs(t, failing, anonAndUser(userAuth))
	for _, f := range rep.Findings {
		if f.CheckID == "leakage-unavailable-never-offered" || f.CheckID == "leakage-unavailable-policy-reason" {
			t.Errorf("%s: %s", f.CheckID, f.Message)
		}
	}
	obs := strings.Join(checkStatus(rep, "leakage-unavailable-never-offered").Observations, "\n")
	if !strings.Contains(obs, `as "user", /orders/3 answered 500 and never 200`) {
		t.Errorf("observations %q do not say why nothing was judged", obs)
	}
}
