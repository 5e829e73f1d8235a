package probe

import (
	"slices"
	"sort"
)

// leastSet keeps, of the items offered to it, the least ones (by less) whose
// weights fit within limit. Offers come in whatever order concurrent
// requests finish; to keep the same items whatever that order, an item let
// go sets a frontier, and nothing at or after the frontier is admitted
// again. Without removals, what is kept is exactly the longest prefix, in
// less order, of everything offered that fits within limit.
type leastSet[T comparable] struct {
	less   func(a, b T) bool
	weight func(T) int64
	limit  int64

	items    []T // sorted by less
	total    int64
	frontier *T  // the least item let go, if any
	refused  int // offers refused or let go
}

// admit offers x. It reports whether x is kept, and returns the items let go
// to make room, which the caller releases.
func (s *leastSet[T]) admit(x T) (kept bool, evicted []T) {
	if s.frontier != nil && !s.less(x, *s.frontier) {
		s.refused++
		return false, nil
	}
	at := sort.Search(len(s.items), func(i int) bool { return s.less(x, s.items[i]) })
	s.items = append(s.items, x)
	copy(s.items[at+1:], s.items[at:])
	s.items[at] = x
	s.total += s.weight(x)
	kept = true
	for s.total > s.limit {
		last := s.items[len(s.items)-1]
		s.items = s.items[:len(s.items)-1]
		s.total -= s.weight(last)
		s.frontier = &last
		s.refused++
		if last == x {
			kept = false
		} else {
			evicted = append(evicted, last)
		}
	}
	return kept, evicted
}

// remove forgets x when its owner gives it up for another reason; the
// frontier stays where it is.
func (s *leastSet[T]) remove(x T) {
	if i := slices.Index(s.items, x); i >= 0 {
		s.total -= s.weight(x)
		s.items = slices.Delete(s.items, i, i+1)
	}
}
