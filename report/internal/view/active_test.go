package view

import (
	"testing"

	"github.com/agentready/agentready/internal/finding"
)

func TestActiveSentCountsTheRereadsApart(t *testing.T) {
	post, get := finding.ActiveRequest{Method: "POST"}, finding.ActiveRequest{Method: "GET"}
	if got := ActiveSent([]finding.ActiveRequest{post, post}, "requests"); got != "2 state-changing requests" {
		t.Errorf("POSTs only: %q", got)
	}
	if got := ActiveSent([]finding.ActiveRequest{post, get, post, get}, "request(s)"); got != "4 request(s) (2 state-changing, 2 re-read(s))" {
		t.Errorf("with re-reads: %q", got)
	}
}
