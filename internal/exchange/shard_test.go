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
		{"/", 2, 2},
		{"/orders", 2, 1},
		{"/orders/{id}", 2, 1},
		{"/orders/{id}", 3, 1},
		{"/robots.txt", 3, 3},
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

// A shape and its children must be assigned independently: a hash whose
// low bits follow the bytes' parity put /x and /x/{id} in one shard of two
// every time, and the few shapes of a small site all in one.
func TestShapeAndChildSplitIndependently(t *testing.T) {
	together := 0
	const n = 400
	for i := range n {
		base := fmt.Sprintf("/c%d", i)
		if ShapeShard(base, 2) == ShapeShard(base+"/{id}", 2) {
			together++
		}
	}
	if together < n*2/5 || together > n*3/5 {
		t.Errorf("%d of %d shapes share their child's shard of two, want about half", together, n)
	}
	// The bookshop internal/interop scans: its shapes are split.
	seen := map[int]bool{}
	for _, s := range []string{"/", "/books", "/books/{id}", "/authors", "/authors/{id}"} {
		seen[ShapeShard(s, 2)] = true
	}
	if len(seen) != 2 {
		t.Errorf("the bookshop's shapes all fall in shard %v of two", seen)
	}
}

func TestURLShardFollowsThePathShape(t *testing.T) {
	a := URLShard("http://h/orders/17?x=1", 5)
	b := URLShard("https://other:8443/orders/18", 5)
	if a != b || a != ShapeShard("/orders/{id}", 5) {
		t.Errorf("URLs of one shape in shards %d and %d, shape in %d", a, b, ShapeShard("/orders/{id}", 5))
	}
}
