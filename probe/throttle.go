package probe

import (
	"context"
	"math/rand/v2"
	"net/http"
	"net/url"
	"sync/atomic"
	"time"

	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
)

// Throttled answers (exchange.Response.Throttled) are waited out and the
// request sent again, within these bounds: a scan must neither give up on
// a server that asks it to pause for a second, nor hang on one that asks
// for an hour.
const (
	// maxThrottleRetries bounds the sends of one request after its first.
	maxThrottleRetries = 2
	// maxThrottleWait is the longest Retry-After waited out; a server that
	// asks for longer keeps its throttled answer.
	maxThrottleWait = 30 * time.Second
	// throttleBackoff is the first wait when the server names none, doubled
	// for each retry after it and jittered down to half, so that the
	// workers a shared limit throttled together do not return together.
	throttleBackoff = 500 * time.Millisecond
)

// throttle waits out throttled answers and counts them. Its clock and its
// sleep are fields, so that tests neither wait for real seconds nor depend
// on the wall clock.
type throttle struct {
	now    func() time.Time
	sleep  func(ctx context.Context, d time.Duration) error
	jitter func(n int64) int64 // uniform in [0, n)

	requests, throttled, still atomic.Int64
}

func newThrottle(sleep func(context.Context, time.Duration) error) *throttle {
	if sleep == nil {
		sleep = sleepContext
	}
	return &throttle{now: time.Now, sleep: sleep, jitter: rand.Int64N}
}

// sleepContext waits d, or until ctx ends.
func sleepContext(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// delay is how long to wait before sending again a request throttled by
// r, after retry earlier retries; ok is false when it must not be sent
// again: its retries are spent, the wait the server asks for is over
// maxThrottleWait, or it would end past ctx's deadline (the phase's).
func (t *throttle) delay(ctx context.Context, r *exchange.Response, retry int) (d time.Duration, ok bool) {
	if retry >= maxThrottleRetries {
		return 0, false
	}
	now := t.now()
	if asked, given := exchange.RetryAfter(r.Header.Get("Retry-After"), now); given {
		d = asked
	} else {
		full := int64(throttleBackoff) << retry
		d = time.Duration(full/2 + t.jitter(full/2+1))
	}
	if d > maxThrottleWait {
		return 0, false
	}
	if deadline, has := ctx.Deadline(); has && !now.Add(d).Before(deadline) {
		return 0, false
	}
	return d, true
}

// attemptThrottled is c.attempt, sent again after a throttled answer as
// long as delay allows. The scan's rate limit applies to each send, since
// each goes through the client's transport. What it returns is the last
// answer, with the first throttled one (Response.Replaced) when a retry
// got another, so that what the server said before it is judged too; the
// counts say how many requests were throttled and how many stayed so.
func (c *client) attemptThrottled(ctx context.Context, method, rawURL string, header http.Header, body []byte) (x *exchange.Exchange, final *url.URL) {
	t := c.throttle
	t.requests.Add(1)
	var first *exchange.ThrottledAnswer
	for retry := 0; ; retry++ {
		x, final = c.attempt(ctx, method, rawURL, header, body)
		if !x.Response.Throttled() {
			if x.Response != nil {
				x.Response.Replaced = first
			}
			return x, final
		}
		if retry == 0 {
			t.throttled.Add(1)
			first = exchange.KeepThrottled(x.Response)
		}
		d, ok := t.delay(ctx, x.Response, retry)
		if !ok {
			t.still.Add(1)
			return x, final
		}
		c.logf("%s %s: %d, sending again in %s", method, rawURL, x.Response.Status, d.Round(time.Millisecond))
		if t.sleep(ctx, d) != nil {
			t.still.Add(1)
			return x, final
		}
	}
}

// counts are the throttled answers so far, nil when there were none.
func (t *throttle) counts() *finding.Throttling {
	if t.throttled.Load() == 0 {
		return nil
	}
	return &finding.Throttling{Requests: int(t.requests.Load()), Throttled: int(t.throttled.Load()), StillThrottled: int(t.still.Load())}
}

// sumThrottling adds the counts of another identity's run to a; either may
// be nil.
func sumThrottling(a, b *finding.Throttling) *finding.Throttling {
	if b == nil {
		return a
	}
	if a == nil {
		return b
	}
	return &finding.Throttling{Requests: a.Requests + b.Requests, Throttled: a.Throttled + b.Throttled, StillThrottled: a.StillThrottled + b.StillThrottled}
}
