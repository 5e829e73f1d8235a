package exchange

import (
	"fmt"
	"testing"
)

// The assignment is part of the CI contract: jobs of one matrix may run
// different builds of the same version, and a report merged from shards
// assigned differently would lose and double findings. These values are
// pinned; changing the hash is a breaking change.
func TestShapeShardIsPinned(t *testing.T) {
	for _, c := range []struct {
		shape string
		total int
		want  int
	}{
		{"/", 2, 1},
		{"/orders", 2, 2},
		{"/orders/{id}", 2, 2},
		{"/orders/{id}", 3, 2},
		{"/robots.txt", 3, 1},
		{"/anything", 1, 1},
		{"/anything", 0, 1},
	} {
		if got := ShapeShard(c.shape, c.total); got != c.want {
			t.Errorf("ShapeShard(%q, %d) = %d, want %d", c.shape, c.total, got, c.want)
		}
	}
}

func TestShardAssignmentIsStable(t *testing.T) {
	shapes := map[string]bool{}
	for i := range 200 {
		shapes[fmt.Sprintf("/r%d/{id}/items", i)] = true
	}
	first := map[string]int{}
	for s := range shapes {
		first[s] = ShapeShard(s, 4)
	}
	counts := map[int]int{}
	for range 5 {
		for s := range shapes { // another map order each time
			if got := ShapeShard(s, 4); got != first[s] {
				t.Fatalf("%s: shard %d, then %d", s, first[s], got)
			}
		}
	}
	for _, n := range first {
		counts[n]++
	}
	for i := 1; i <= 4; i++ {
		if counts[i] < 25 {
			t.Errorf("shard %d owns %d of 200 shapes: the hash does not spread them", i, counts[i])
		}
	}
}

func TestURLShardFollowsThePathShape(t *testing.T) {
	a := URLShard("http://h/orders/17?x=1", 5)
	b := URLShard("https://other:8443/orders/18", 5)
	if a != b || a != ShapeShard("/orders/{id}", 5) {
		t.Errorf("URLs of one shape in shards %d and %d, shape in %d", a, b, ShapeShard("/orders/{id}", 5))
	}
}
