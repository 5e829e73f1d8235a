package exchange

import (
	"unicode/utf8"
)

// folded is text as a secret echoed in it reads once one layer of escapes
// is decoded and its case folded: JSON (\u0041, \/), percent (%2F, %2f)
// and HTML character references (&#x2F;, &#47;, &sol;) become the character
// they stand for, ASCII letters are lower-cased, and "+" reads as a space,
// as a query string encodes it. Searching this form for the secrets folded
// the same way finds every mix of these encodings in one pass over the
// text, which enumerating the variants could not.
type folded struct {
	text []byte
	// from is, for each byte of text, where in the original the character
	// it came from begins; nil unless asked for.
	from []int
	// open is where in text an escape cut short by the end of the original
	// begins (a truncated body may end inside one), or len(text).
	open int
}

// maxEscape is the longest escape decoded: a JSON surrogate pair.
const maxEscape = len(`\uD83D\uDE00`)

// fold folds b. With origins, it also records where each byte came from,
// which only the text that holds a secret needs.
func fold(b []byte, origins bool) folded {
	f := folded{text: make([]byte, len(b)), open: -1}
	if origins {
		f.from = make([]int, len(b))
	}
	var buf [utf8.UTFMax]byte
	n := 0
	for i := 0; i < len(b); {
		run, runAt := i, n
		for ; i < len(b) && !escapeStart[b[i]]; i++ {
			f.text[n] = foldTable[b[i]]
			n++
		}
		if origins {
			for k := range i - run {
				f.from[runAt+k] = run + k
			}
		}
		if i == len(b) {
			break
		}
		out, used := unescape(b[i:], &buf)
		if used == 0 {
			if f.open < 0 && len(b)-i < maxEscape && escapePrefix(b[i:]) {
				f.open = n
			}
			out, used = b[i:i+1], 1
		}
		// A decoded escape is never longer than the escape itself.
		for _, c := range out {
			f.text[n] = foldTable[c]
			if origins {
				f.from[n] = i
			}
			n++
		}
		i += used
	}
	f.text = f.text[:n]
	if origins {
		f.from = f.from[:n]
	}
	if f.open < 0 {
		f.open = n
	}
	return f
}

// foldTable is foldByte of every byte, and escapeStart marks the bytes an
// escape begins with: the loop over every byte of every body reads them.
var foldTable, escapeStart = func() (t [256]byte, e [256]bool) {
	for c := range t {
		t[c] = foldByte(byte(c))
	}
	e['%'], e['\\'], e['&'] = true, true, true
	return t, e
}()

func foldByte(c byte) byte {
	switch {
	case c >= 'A' && c <= 'Z':
		return c + 'a' - 'A'
	case c == '+':
		return ' '
	}
	return c
}

// original is where in the original, of size bytes, the folded bytes of m
// came from, whole escapes included.
func (f folded) original(m span, size int) span {
	end := size
	for k := m.end; k < len(f.text); k++ {
		if f.from[k] != f.from[m.end-1] {
			end = f.from[k]
			break
		}
	}
	return span{f.from[m.start], end}
}

// unescape decodes the escape b begins with into buf, and says how many
// bytes of b it took; 0 when b does not begin with one.
func unescape(b []byte, buf *[utf8.UTFMax]byte) ([]byte, int) {
	if len(b) < 2 {
		return nil, 0
	}
	switch b[0] {
	case '%':
		if len(b) >= 3 {
			if hi, lo := unhex(b[1]), unhex(b[2]); hi >= 0 && lo >= 0 {
				buf[0] = byte(hi<<4 | lo)
				return buf[:1], 3
			}
		}
	case '\\':
		r, n := unescapeJSON(b)
		if n > 0 {
			return buf[:utf8.EncodeRune(buf[:], r)], n
		}
	case '&':
		r, n := unescapeHTML(b)
		if n > 0 {
			return buf[:utf8.EncodeRune(buf[:], r)], n
		}
	}
	return nil, 0
}

// jsonEscapes are the one-letter escapes of JSON strings.
var jsonEscapes = map[byte]rune{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

func unescapeJSON(b []byte) (rune, int) {
	if r, ok := jsonEscapes[b[1]]; ok {
		return r, 2
	}
	r, ok := hexRune(b, 2)
	switch {
	case !ok:
		return 0, 0
	case r >= 0xD800 && r < 0xDC00:
		if len(b) >= 12 && b[6] == '\\' && b[7] == 'u' {
			if lo, ok := hexRune(b[6:], 2); ok && lo >= 0xDC00 && lo < 0xE000 {
				return 0x10000 + (r-0xD800)<<10 + (lo - 0xDC00), 12
			}
		}
		return 0, 0
	case r >= 0xDC00 && r < 0xE000:
		return 0, 0
	}
	return r, 6
}

// hexRune reads the four hex digits after b[:at] of a \uXXXX escape.
func hexRune(b []byte, at int) (rune, bool) {
	if len(b) < at+4 || b[1] != 'u' {
		return 0, false
	}
	var r rune
	for _, c := range b[at : at+4] {
		d := unhex(c)
		if d < 0 {
			return 0, false
		}
		r = r<<4 | rune(d)
	}
	return r, true
}

// htmlNames are the named character references of the ASCII characters that
// escaping functions and templates write.
var htmlNames = map[string]rune{
	"amp": '&', "AMP": '&', "lt": '<', "LT": '<', "gt": '>', "GT": '>', "quot": '"', "QUOT": '"',
	"apos": '\'', "sol": '/', "bsol": '\\', "colon": ':', "semi": ';', "equals": '=', "plus": '+',
	"percnt": '%', "num": '#', "excl": '!', "quest": '?', "commat": '@', "dollar": '$', "comma": ',',
	"period": '.', "lowbar": '_', "ast": '*', "lpar": '(', "rpar": ')', "lsqb": '[', "rsqb": ']',
	"lcub": '{', "rcub": '}', "verbar": '|', "grave": '`', "Hat": '^', "tilde": '~', "hyphen": '-',
}

// maxHTMLRef bounds the characters between & and ; that are read.
const maxHTMLRef = 8

func unescapeHTML(b []byte) (rune, int) {
	end := -1
	for k := 1; k < len(b) && k <= maxHTMLRef+1; k++ {
		if b[k] == ';' {
			end = k
			break
		}
	}
	if end < 2 {
		return 0, 0
	}
	name := b[1:end]
	if name[0] != '#' {
		r, ok := htmlNames[string(name)]
		if !ok {
			return 0, 0
		}
		return r, end + 1
	}
	digits, base := name[1:], 10
	if len(digits) > 0 && (digits[0] == 'x' || digits[0] == 'X') {
		digits, base = digits[1:], 16
	}
	if len(digits) == 0 {
		return 0, 0
	}
	var r rune
	for _, c := range digits {
		d := unhex(c)
		if d < 0 || d >= base {
			return 0, 0
		}
		r = r*rune(base) + rune(d)
	}
	if r == 0 || r > utf8.MaxRune || (r >= 0xD800 && r < 0xE000) {
		return 0, 0
	}
	return r, end + 1
}

// escapePrefix reports whether b, the end of a text, could be the beginning
// of an escape that the end cut short.
func escapePrefix(b []byte) bool {
	switch b[0] {
	case '%':
		return len(b) < 3 && (len(b) == 1 || unhex(b[1]) >= 0)
	case '\\':
		return len(b) == 1 || b[1] == 'u'
	case '&':
		for _, c := range b[1:] {
			if !(c == '#' || unhex(c) >= 0 || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
				return false
			}
		}
		return len(b) <= maxHTMLRef+1
	}
	return false
}

func unhex(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}
