// Package textdist measures how far apart two short strings are: the "did
// you mean" hints of the configuration and the CLI, and the renamed
// operations the surface family matches. Its inputs can come from the
// scanned app, so the work is bounded by the largest distance of interest.
package textdist

// Distance returns the Levenshtein distance between a and b, counted in
// runes, when it is at most limit, and limit+1 when it is larger. Only the
// cells within limit of the diagonal are computed and it stops at the first
// row where all of them exceed limit, so two long strings cost
// O(len × limit), not O(len²). A negative limit counts as 0.
func Distance(a, b string, limit int) int {
	limit = max(limit, 0)
	over := limit + 1
	ra, rb := []rune(a), []rune(b)
	if len(ra)-len(rb) > limit || len(rb)-len(ra) > limit {
		return over
	}
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = min(j, over)
	}
	for i := 1; i <= len(ra); i++ {
		lo, hi := max(1, i-limit), min(len(rb), i+limit)
		cur[0] = min(i, over)
		if lo > 1 {
			cur[lo-1] = over
		}
		best := cur[0]
		for j := lo; j <= hi; j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost, over)
			best = min(best, cur[j])
		}
		if hi < len(rb) {
			cur[hi+1] = over
		}
		if best > limit {
			return over
		}
		prev, cur = cur, prev
	}
	return min(prev[len(rb)], over)
}
