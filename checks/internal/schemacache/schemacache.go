// Package schemacache remembers, for the life of the process, what
// compiling a JSON Schema text gave. The checks compile the same tool and
// response schemas for each identity, and again in each check that reads
// them (a scan of the demo compiles 68 schema texts, 14 of them distinct),
// and a process that scans more than once (several targets, a test binary)
// meets the same documents again. Each family compiles with a loader that
// fetches nothing, so what compiling gives is a function of the text alone,
// and what is remembered is what compiling again would give.
package schemacache

import "sync"

// Bounds on what a cache holds, so that a hostile server's thousands of
// schemas, or one huge schema, do not stay in memory: past them, the text
// is compiled each time, as it would be without the cache.
const (
	maxEntries  = 1024
	maxTextSize = 64 << 10
)

// Cache maps a schema text to what compiling it gave. The zero value is
// ready to use, and safe for concurrent use; what it holds must be safe to
// share between goroutines (a compiled schema that validates without
// changing itself, an error).
type Cache[V any] struct {
	mu   sync.Mutex
	done map[string]V
}

// Get returns what compile gave for text, calling it only when text is not
// held. Two goroutines may compile the same text at once; both results are
// the same, and the first is kept.
func (c *Cache[V]) Get(text string, compile func() V) V {
	if len(text) > maxTextSize {
		return compile()
	}
	c.mu.Lock()
	v, ok := c.done[text]
	c.mu.Unlock()
	if ok {
		return v
	}
	v = compile()
	c.mu.Lock()
	defer c.mu.Unlock()
	if held, ok := c.done[text]; ok {
		return held
	}
	if c.done == nil {
		c.done = map[string]V{}
	}
	if len(c.done) < maxEntries {
		c.done[text] = v
	}
	return v
}
