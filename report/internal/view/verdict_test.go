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

// TestCheckOutcomeWords: every format names outcomes and counts findings
// in the same words; an unknown status read back has no name to borrow.
func TestCheckOutcomeWords(t *testing.T) {
	for status, want := range map[finding.CheckStatus]string{
		finding.StatusPass: "passed", finding.StatusFail: "failed",
		finding.StatusSkip: "skipped", finding.StatusError: "errored", "bogus": "",
	} {
		if got := StatusLabel(status); got != want {
			t.Errorf("StatusLabel(%q) = %q, want %q", status, got, want)
		}
	}
	for _, tt := range []struct {
		c    finding.CheckResult
		want string
	}{
		{finding.CheckResult{Findings: 1, Severity: finding.SeverityError}, "1 finding, error"},
		{finding.CheckResult{Findings: 3, Severity: finding.SeverityWarning}, "3 findings, warning"},
	} {
		if got := FailedDetail(tt.c); got != tt.want {
			t.Errorf("FailedDetail(%+v) = %q, want %q", tt.c, got, tt.want)
		}
	}
	if got := NonEmpty(" \t", "none"); got != "none" {
		t.Errorf("NonEmpty(blank) = %q", got)
	}
	if got := NonEmpty("x", "none"); got != "x" {
		t.Errorf("NonEmpty(x) = %q", got)
	}
}
