package probe

import (
	"fmt"
	"sync"

	"github.com/agentready/agentready/internal/exchange"
)

// Body retention: the recording must stay bounded on large crawls, and on
// pages built to be large.
const (
	keepCrawlBody = 16 << 10 // larger bodies of unsampled pages are released
	keepErrorBody = 64 << 10 // error bodies are cut here
	// keepLargeBodies bounds the bytes of bodies over keepCrawlBody that one
	// run keeps whole, samples and probes together: checks decode what is
	// kept, so this bounds their memory and time as well.
	keepLargeBodies = 8 << 20
)

func releaseBody(r *exchange.Response) {
	if len(r.Body) > keepCrawlBody {
		r.Body, r.Dropped = nil, true
	}
}

// bodyKeeper decides which large bodies stay whole within keepLargeBodies:
// the least exchanges in recording order, so crawled samples before probes,
// and the same ones whatever order the responses arrive in.
type bodyKeeper struct {
	mu  sync.Mutex
	set leastSet[*exchange.Exchange]
}

func newBodyKeeper() *bodyKeeper {
	return &bodyKeeper{set: leastSet[*exchange.Exchange]{
		less:   exchangeLess,
		weight: func(x *exchange.Exchange) int64 { return int64(len(x.Response.Body)) },
		limit:  keepLargeBodies,
	}}
}

// keep releases x's body, or bodies kept before it, when x's large body does
// not fit in the bound.
func (k *bodyKeeper) keep(x *exchange.Exchange) {
	if x.Response == nil || len(x.Response.Body) <= keepCrawlBody {
		return
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	kept, evicted := k.set.admit(x)
	if !kept {
		releaseBody(x.Response)
	}
	for _, e := range evicted {
		releaseBody(e.Response)
	}
}

// release releases x's body and gives its room back.
func (k *bodyKeeper) release(x *exchange.Exchange) {
	k.mu.Lock()
	k.set.remove(x)
	k.mu.Unlock()
	releaseBody(x.Response)
}

// drop releases x's body whatever its size, and gives its room back.
func (k *bodyKeeper) drop(x *exchange.Exchange) {
	k.release(x)
	if len(x.Response.Body) > 0 {
		x.Response.Body, x.Response.Dropped = nil, true
	}
}

// note says how many large bodies the bound released, or "".
func (k *bodyKeeper) note() string {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.set.refused == 0 {
		return ""
	}
	return fmt.Sprintf("%d response bodies over %d KiB were released unjudged: a scan keeps %d MiB of such bodies whole, the crawled pages first, in URL order",
		k.set.refused, keepCrawlBody>>10, keepLargeBodies>>20)
}
