package errorleak

import (
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Most texts of an error body match none of the patterns, and an expression
// without a literal prefix (one that starts with \b, (?i) or a class) is
// tried at every position of a text: on the demo's error bodies that was
// most of the time every scan spends here. Each expression therefore carries
// the literals any of its matches must contain, read from its syntax, and a
// text without them is not searched. The outcome is the same, since a match
// holds them; only the misses get cheaper.

// filtered is a regular expression that skips the texts it cannot match.
type filtered struct {
	*regexp.Regexp
	// need: every match contains, for each clause, one of its literals.
	need []clause
}

// clause is met by a text that contains one of its literals.
type clause []literal

// literal is a string a match contains; a folded one is matched the way
// (?i) matches it, and holds the runes foldRune gives.
type literal struct {
	s    string
	fold bool
	// wide is set on a folded literal that holds K or S, which (?i) also
	// matches to a rune past ASCII (the Kelvin sign, the long s): the text
	// is then read rune by rune, for these runes. Any other ASCII literal
	// matches ASCII bytes only, and is looked for byte by byte.
	wide  bool
	runes []rune
}

func newLiteral(runes []rune, fold bool) literal {
	l := literal{fold: fold}
	if fold {
		folded := make([]rune, len(runes))
		for i, r := range runes {
			folded[i] = foldRune(r)
			l.wide = l.wide || folded[i] >= utf8.RuneSelf || folded[i] == 'K' || folded[i] == 'S'
		}
		runes = folded
	}
	l.s = string(runes)
	if l.wide {
		l.runes = runes
	}
	return l
}

// everyFiltered lists what mustCompile made, so that a test holds each
// one to its promise.
var everyFiltered []filtered

// mustCompile compiles expr as regexp.MustCompile does, with the literals
// its matches must contain.
func mustCompile(expr string) filtered {
	re := regexp.MustCompile(expr)
	tree, err := syntax.Parse(expr, syntax.Perl) // the flags regexp.Compile parses with
	if err != nil {
		panic("errorleak: " + err.Error())
	}
	f := filtered{re, required(tree)}
	everyFiltered = append(everyFiltered, f)
	return f
}

// required returns the clauses every match of re meets; nil when nothing
// is certain. A concatenation's match holds a match of each part; an
// alternation's holds one of some branch, so it needs one clause per branch.
func required(re *syntax.Regexp) []clause {
	switch re.Op {
	case syntax.OpLiteral:
		if len(re.Rune) == 0 || slices.Contains(re.Rune, utf8.RuneError) {
			// The matcher reads an invalid byte as U+FFFD, which the text
			// does not hold as such.
			return nil
		}
		return []clause{{newLiteral(re.Rune, re.Flags&syntax.FoldCase != 0)}}
	case syntax.OpCapture, syntax.OpPlus:
		return required(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return required(re.Sub[0])
		}
	case syntax.OpConcat:
		var all []clause
		for _, sub := range re.Sub {
			all = append(all, required(sub)...)
		}
		return all
	case syntax.OpAlternate:
		var either clause
		for _, sub := range re.Sub {
			best := strongest(required(sub))
			if best == nil {
				return nil
			}
			either = append(either, best...)
		}
		return []clause{either}
	}
	return nil
}

// strongest is the clause whose shortest literal is longest: the one a
// text that cannot match is likeliest to miss.
func strongest(cs []clause) clause {
	var best clause
	bestLen := 0
	for _, c := range cs {
		shortest := len(c[0].s)
		for _, l := range c[1:] {
			shortest = min(shortest, len(l.s))
		}
		if shortest > bestLen {
			best, bestLen = c, shortest
		}
	}
	return best
}

// mayMatch reports whether s meets every clause; when it does not, no
// match is in s.
func (f filtered) mayMatch(s string) bool {
	for _, c := range f.need {
		if !c.metBy(s) {
			return false
		}
	}
	return true
}

func (c clause) metBy(s string) bool {
	for _, l := range c {
		if l.in(s) {
			return true
		}
	}
	return false
}

func (l literal) in(s string) bool {
	switch {
	case !l.fold:
		return strings.Contains(s, l.s)
	case l.wide:
		return containsFold(s, l.runes)
	}
	return containsUpperASCII(s, l.s)
}

// The methods the detectors call, each skipping what cannot match.

func (f filtered) MatchString(s string) bool {
	return f.mayMatch(s) && f.Regexp.MatchString(s)
}

func (f filtered) FindStringIndex(s string) []int {
	if !f.mayMatch(s) {
		return nil
	}
	return f.Regexp.FindStringIndex(s)
}

func (f filtered) FindStringSubmatch(s string) []string {
	if !f.mayMatch(s) {
		return nil
	}
	return f.Regexp.FindStringSubmatch(s)
}

func (f filtered) FindAllString(s string, n int) []string {
	if !f.mayMatch(s) {
		return nil
	}
	return f.Regexp.FindAllString(s, n)
}

func (f filtered) FindAllStringIndex(s string, n int) [][]int {
	if !f.mayMatch(s) {
		return nil
	}
	return f.Regexp.FindAllStringIndex(s, n)
}

func (f filtered) FindAllStringSubmatch(s string, n int) [][]string {
	if !f.mayMatch(s) {
		return nil
	}
	return f.Regexp.FindAllStringSubmatch(s, n)
}

func (f filtered) FindAllStringSubmatchIndex(s string, n int) [][]int {
	if !f.mayMatch(s) {
		return nil
	}
	return f.Regexp.FindAllStringSubmatchIndex(s, n)
}

// foldRune is the smallest rune that (?i) takes r for (the least of its
// simple case-folding orbit), so that two runes (?i) matches to each other
// fold alike: k, K and the Kelvin sign all give K.
func foldRune(r rune) rune {
	if r < utf8.RuneSelf {
		// An ASCII letter's orbit is its two cases (k and s also hold a
		// rune past ASCII): the upper case is the least.
		if 'a' <= r && r <= 'z' {
			return r - 'a' + 'A'
		}
		return r
	}
	least := r
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		least = min(least, f)
	}
	return least
}

// containsFold reports whether s holds, case-insensitively as (?i) reads
// it, the runes of folded (each from foldRune). s is read rune by rune as
// the matcher reads it, an invalid byte as U+FFFD.
func containsFold(s string, folded []rune) bool {
	for i := 0; i < len(s); {
		if foldedAt(s[i:], folded) {
			return true
		}
		_, w := utf8.DecodeRuneInString(s[i:])
		i += w
	}
	return false
}

func foldedAt(s string, folded []rune) bool {
	for _, want := range folded {
		if s == "" {
			return false
		}
		r, w := rune(s[0]), 1
		if r >= utf8.RuneSelf {
			r, w = utf8.DecodeRuneInString(s)
		}
		if foldRune(r) != want {
			return false
		}
		s = s[w:]
	}
	return true
}

// containsUpperASCII reports whether s holds upper (ASCII, upper case) in
// any case.
func containsUpperASCII(s, upper string) bool {
	for i := 0; i+len(upper) <= len(s); i++ {
		j := 0
		for j < len(upper) && upperASCII(s[i+j]) == upper[j] {
			j++
		}
		if j == len(upper) {
			return true
		}
	}
	return false
}

func upperASCII(c byte) byte {
	if 'a' <= c && c <= 'z' {
		return c - 'a' + 'A'
	}
	return c
}

// foldedClause is met by a text that holds one of words in any case.
func foldedClause(words ...string) clause {
	c := make(clause, len(words))
	for i, w := range words {
		c[i] = newLiteral([]rune(w), true)
	}
	return c
}
