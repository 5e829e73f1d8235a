package probe

import (
	"hash/maphash"
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

// maxSharedResponseHeaders bounds the distinct response headers kept for
// sharing. A crawl's pages mostly answer with a few header sets (the same
// type, caching and Vary; a Date per second; a Content-Length per body
// size); a server that makes every header set unique (an ETag per
// resource) gains nothing from sharing and keeps this many at most.
const maxSharedResponseHeaders = 4096

// responseHeaders holds one map per distinct response header of a run,
// which every exchange that received that very header shares: a header map
// per page was the largest part of a large crawl's memory. A header is
// shared once it is final (redacted and scrubbed), and nothing writes to a
// recorded header after that.
type responseHeaders struct {
	mu     sync.Mutex
	seed   maphash.Seed
	byHash map[uint64][]http.Header
	held   int
}

func newResponseHeaders() *responseHeaders {
	return &responseHeaders{seed: maphash.MakeSeed(), byHash: map[uint64][]http.Header{}}
}

// shared is a held header equal to h, or h, held from now on while there
// is room. A client without a table (made for one purpose) shares nothing.
func (s *responseHeaders) shared(h http.Header) http.Header {
	if s == nil || len(h) == 0 {
		return h
	}
	sum := s.sum(h)
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, held := range s.byHash[sum] {
		if equalHeader(held, h) {
			return held
		}
	}
	if s.held < maxSharedResponseHeaders {
		s.byHash[sum] = append(s.byHash[sum], h)
		s.held++
	}
	return h
}

// sum hashes h whatever order its map iterates in.
func (s *responseHeaders) sum(h http.Header) uint64 {
	var mh maphash.Hash
	mh.SetSeed(s.seed)
	var sum uint64
	for name, vs := range h {
		mh.Reset()
		mh.WriteString(name)
		for _, v := range vs {
			mh.WriteByte(0)
			mh.WriteString(v)
		}
		sum += mh.Sum64()
	}
	return sum
}

// equalHeader: the same names with the same values, a nil list only where
// the other's is nil too, so a shared header reads and encodes as h would.
func equalHeader(a, b http.Header) bool {
	if len(a) != len(b) {
		return false
	}
	for name, vs := range a {
		ws, ok := b[name]
		if !ok || (vs == nil) != (ws == nil) || !slices.Equal(vs, ws) {
			return false
		}
	}
	return true
}
