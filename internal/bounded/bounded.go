// Package bounded keeps the first items of a list that hostile input could
// grow without end (problems of a generated document, findings of one
// check) and counts the rest, so that what is held stays small and what is
// reported stays readable.
package bounded

// List keeps at most Max items; Dropped counts those refused.
type List[T any] struct {
	Max     int
	Items   []T
	Dropped int
}

// Add keeps v while there is room, and counts it otherwise.
func (l *List[T]) Add(v T) {
	if len(l.Items) >= l.Max {
		l.Dropped++
		return
	}
	l.Items = append(l.Items, v)
}
