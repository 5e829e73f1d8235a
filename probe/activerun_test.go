package probe

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/spec"
)

// TestActiveOutcomeRecordsTheConsentWithWhatWasSent: the outcome of the
// active probes is one value, holding the allow-list and how the user
// agreed beside what was planned and sent, so that the checks, the report
// and a recording read the same.
func TestActiveOutcomeRecordsTheConsentWithWhatWasSent(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusNoContent)
	}))
	defer srv.Close()
	start, _ := url.Parse(srv.URL + "/")
	s := Session{
		Config: Config{Start: start, Budget: 30 * time.Second, MaxPages: 1},
		Active: &ActivePlan{
			Plan: func([]View, *spec.Document) []exchange.ActiveRequest {
				return []exchange.ActiveRequest{{PlannedRequest: exchange.PlannedRequest{Purpose: "active/test", Method: http.MethodDelete, URL: srv.URL + "/items/1"}}}
			},
			Confirm:   func([]exchange.ActiveRequest) error { return nil },
			Allow:     []string{"DELETE /items/{id}"},
			Confirmed: "--yes",
		},
	}
	out, err := RunSession(t.Context(), s)
	if err != nil {
		t.Fatal(err)
	}
	a := out.Active
	if a == nil || !slices.Equal(a.Allow, []string{"DELETE /items/{id}"}) || a.Confirmed != "--yes" || a.Planned != 1 || len(a.Sent) != 1 {
		t.Fatalf("active outcome %+v; want the allow-list, --yes, 1 planned and 1 sent", a)
	}
}
