package bounded

import (
	"slices"
	"testing"
)

func TestList(t *testing.T) {
	l := List[int]{Max: 3}
	for i := range 10 {
		l.Add(i)
	}
	if !slices.Equal(l.Items, []int{0, 1, 2}) || l.Dropped != 7 {
		t.Errorf("items %v dropped %d, want the first 3 kept and 7 counted", l.Items, l.Dropped)
	}
	empty := List[int]{}
	empty.Add(1)
	if len(empty.Items) != 0 || empty.Dropped != 1 {
		t.Errorf("a list of no room kept %v", empty.Items)
	}
}
