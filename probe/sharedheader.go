package probe

import (
	"maps"
	"net/http"
	"slices"
	"sync"

	"github.com/agentready/agentready/internal/exchange"
)

// maxSharedHeaders bounds the distinct request headers kept for sharing:
// the crawl sends one, planned probes a few more each.
const maxSharedHeaders = 64

// sharedHeaders records the header of each request redacted and scrubbed
// once per distinct header, shared by every exchange that sent it: the
// crawl sends the same header tens of thousands of times, and a copy per
// request was a fifth of a large crawl's memory.
type sharedHeaders struct {
	mu   sync.Mutex
	byID map[string]sharedHeader
}

type sharedHeader struct{ sent, recorded http.Header }

// recorded is h as an exchange records it. A shared copy is scrubbed
// already, and only shared when scrubbing it again changes nothing, so that
// scrubbing the exchanges that hold it never writes to it.
func (s *sharedHeaders) recorded(h http.Header, redact map[string]bool, secrets *exchange.Secrets) http.Header {
	id := headerKey(h)
	s.mu.Lock()
	defer s.mu.Unlock()
	if got, ok := s.byID[id]; ok && maps.EqualFunc(got.sent, h, slices.Equal) {
		return got.recorded
	}
	out := exchange.RedactHeader(h, redact)
	if _, taken := s.byID[id]; taken || len(s.byID) >= maxSharedHeaders {
		return out
	}
	secrets.ScrubHeader(out)
	if secrets.ScrubHeader(out.Clone()) != 0 {
		return exchange.RedactHeader(h, redact)
	}
	if s.byID == nil {
		s.byID = map[string]sharedHeader{}
	}
	s.byID[id] = sharedHeader{sent: h.Clone(), recorded: out}
	return out
}
