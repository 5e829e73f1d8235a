package exchange

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Throttled reports an answer that asks the client to slow down rather than
// one about the resource: 429 Too Many Requests (RFC 6585 §4), or 503 with a
// valid Retry-After (RFC 9110 §15.6.4, §10.2.3). A 503 without one is an
// ordinary server error. The probe waits such an answer out and sends the
// request again; one still throttled after that says nothing about the
// resource, and coverage counts it apart.
func (r *Response) Throttled() bool {
	if r == nil {
		return false
	}
	switch r.Status {
	case http.StatusTooManyRequests:
		return true
	case http.StatusServiceUnavailable:
		_, ok := RetryAfter(r.Header.Get("Retry-After"), time.Now())
		return ok
	}
	return false
}

// maxRetryAfterDigits bounds the delay-seconds read: more digits than this
// is a delay of over 300 years, which is as good as never, and would
// overflow a time.Duration.
const maxRetryAfterDigits = 10

// RetryAfter reads a Retry-After field value (RFC 9110 §10.2.3): either
// delay-seconds, or an HTTP-date, whose delay is counted from now (a date
// already past is no delay). ok is false for an empty or invalid value,
// which counts as no Retry-After at all.
func RetryAfter(value string, now time.Time) (delay time.Duration, ok bool) {
	v := strings.TrimSpace(value)
	if v == "" {
		return 0, false
	}
	if v[0] >= '0' && v[0] <= '9' {
		if strings.TrimLeft(v, "0123456789") != "" {
			return 0, false
		}
		if digits := strings.TrimLeft(v, "0"); len(digits) > maxRetryAfterDigits {
			return time.Duration(1<<63 - 1), true
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return 0, false
		}
		return time.Duration(n) * time.Second, true
	}
	at, err := http.ParseTime(v)
	if err != nil {
		return 0, false
	}
	return max(at.Sub(now), 0), true
}
