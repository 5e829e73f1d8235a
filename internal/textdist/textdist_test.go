package textdist

import (
	"math/rand/v2"
	"strings"
	"testing"
)

func TestDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b  string
		limit int
		want  int
	}{
		{"", "", 0, 0},
		{"kitten", "sitting", 5, 3},
		{"kitten", "sitting", 3, 3},
		{"kitten", "sitting", 2, 3},
		{"kitten", "sitting", 0, 1},
		{"vary-acept", "vary-accept", 2, 1},
		{"", "abc", 5, 3},
		{"abc", "", 1, 2},
		{"flaw", "lawn", 4, 2},
		{"accépt", "accept", 3, 1}, // one rune, two bytes
		{"日本語", "日本", 2, 1},
		{"same", "same", -1, 0},
		{"a", "b", -1, 1},
		{strings.Repeat("x", 100_000), strings.Repeat("x", 99_999) + "y", 2, 1},
		{strings.Repeat("x", 100_000), strings.Repeat("y", 100_000), 2, 3},
	} {
		if got := Distance(tc.a, tc.b, tc.limit); got != tc.want {
			t.Errorf("Distance(%.20q, %.20q, %d) = %d, want %d", tc.a, tc.b, tc.limit, got, tc.want)
		}
	}
}

// TestDistanceAgreesWithTheFullTable compares the banded computation with
// the whole dynamic-programming table on random strings over a small
// alphabet, where edits collide often.
func TestDistanceAgreesWithTheFullTable(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	word := func() string {
		var b strings.Builder
		for range rng.IntN(9) {
			b.WriteRune([]rune("abcé")[rng.IntN(4)])
		}
		return b.String()
	}
	for range 5000 {
		a, b, limit := word(), word(), rng.IntN(6)
		want := min(full(a, b), limit+1)
		if got := Distance(a, b, limit); got != want {
			t.Fatalf("Distance(%q, %q, %d) = %d, want %d", a, b, limit, got, want)
		}
	}
}

func full(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
		}
	}
	return d[len(ra)][len(rb)]
}
