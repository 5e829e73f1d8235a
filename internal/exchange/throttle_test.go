package exchange

import (
	"net/http"
	"testing"
)

// TestThrottled: 429 always asks to slow down; 503 only with a valid
// Retry-After, an invalid one counting as none.
func TestThrottledAnswers(t *testing.T) {
	for _, tt := range []struct {
		status     int
		retryAfter string
		want       bool
	}{
		{429, "", true},
		{429, "garbage", true},
		{503, "2", true},
		{503, "Fri, 02 Jan 2026 03:04:17 GMT", true},
		{503, "", false},
		{503, "later", false},
		{500, "2", false},
		{200, "2", false},
	} {
		h := http.Header{}
		if tt.retryAfter != "" {
			h.Set("Retry-After", tt.retryAfter)
		}
		r := &Response{Status: tt.status, Header: h}
		if got := r.Throttled(); got != tt.want {
			t.Errorf("%d with Retry-After %q: throttled %v, want %v", tt.status, tt.retryAfter, got, tt.want)
		}
	}
}
