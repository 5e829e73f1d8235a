package view

import (
	"testing"

	"github.com/agentready/agentready/internal/finding"
)

// TestThrottlingOnTheFirstScreen: the throttled requests are counted in
// one line, and a crawl throttled too much is named as why there is no
// grade.
func TestThrottlingOnTheFirstScreen(t *testing.T) {
	for _, tt := range []struct {
		name    string
		cov     *finding.Coverage
		line    string
		noGrade string
	}{
		{"not measured", nil, "", "nothing could be assessed"},
		{"never throttled", &finding.Coverage{APIResources: 1}, "", "nothing could be assessed"},
		{"throttled, then answered", &finding.Coverage{APIResources: 1, Throttling: &finding.Throttling{Requests: 40, Throttled: 12}},
			"12 of 40 requests throttled, 0 still throttled after retrying", "nothing could be assessed"},
		{"the crawl throttled", &finding.Coverage{APIResources: 1, Throttling: &finding.Throttling{Requests: 40, Throttled: 12, StillThrottled: 3, CrawlGETs: 4, CrawlThrottled: 3}},
			"12 of 40 requests throttled, 3 still throttled after retrying (3 of the crawl's 4 GET requests)", "the server throttled the crawl"},
		{"nothing reached", &finding.Coverage{}, "", "the scan reached no API resource"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := &finding.Report{Coverage: tt.cov}
			if got := ThrottlingLine(r); got != tt.line {
				t.Errorf("line %q, want %q", got, tt.line)
			}
			if got := NoGrade(r); got != tt.noGrade {
				t.Errorf("no grade: %q, want %q", got, tt.noGrade)
			}
		})
	}
}
