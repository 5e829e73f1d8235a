package checks

import "sync"

// Key names a value that checks compute once per Input (or PlanInput) and
// share through Memo. T is the value's type, so every reader gets it back
// typed. Declare each key once, as a package variable (NewKey): a key is
// the same key only as a copy of that variable, so two families cannot
// collide however they name theirs.
type Key[T any] struct {
	id *keyID
	// part tells apart the values of one kind, one per document say.
	part string
}

// keyID is never empty, so that each NewKey allocates a distinct pointer.
type keyID struct{ _ byte }

// NewKey returns a key of its own for values of type T.
func NewKey[T any]() Key[T] { return Key[T]{id: new(keyID)} }

// With returns the key of one value of k's kind, named by part: the same
// part gives the same key.
func (k Key[T]) With(part string) Key[T] {
	k.part = part
	return k
}

// MemoScope is what Memo keeps values in: an Input, for the checks' runs,
// or a PlanInput, for their planning.
type MemoScope interface{ memoTable() *memos }

func (in *Input) memoTable() *memos     { return &in.memos }
func (in *PlanInput) memoTable() *memos { return &in.memos }

// Memo returns compute's result for key, computing it once per scope, so
// that the checks of one family share one analysis of the recording (or,
// when planning, one derivation of their requests). compute must be pure
// like the checks themselves. Safe for concurrent use; a caller that asks
// while another computes waits for its result.
func Memo[T any](in MemoScope, key Key[T], compute func() T) T {
	m := in.memoTable().entry(key)
	m.once.Do(func() { m.value = compute() })
	// The table is keyed by the Key itself, whose dynamic type carries T, so
	// the entry of key holds a T or nothing yet computed.
	v, _ := m.value.(T)
	return v
}

// memos holds the values of Memo for one scope.
type memos struct {
	mu sync.Mutex
	m  map[any]*memo
}

type memo struct {
	once  sync.Once
	value any
}

// entry returns key's entry, made on first use.
func (ms *memos) entry(key any) *memo {
	ms.mu.Lock()
	defer ms.mu.Unlock()
	if ms.m == nil {
		ms.m = map[any]*memo{}
	}
	m := ms.m[key]
	if m == nil {
		m = &memo{}
		ms.m[key] = m
	}
	return m
}
