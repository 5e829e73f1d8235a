package exchange

import (
	"unicode"
	"unicode/utf8"

	"github.com/agentready/agentready/internal/sanitize"
)

// folded is text as a secret echoed in it reads once one layer of escapes
// is decoded and its case folded: JSON (\u0041, \/), percent (%2F, %2f)
// and HTML character references (&#x2F;, &#47;, &sol;) become the character
// they stand for, ASCII letters are lower-cased, and "+" reads as a space,
// as a query string encodes it. It also reads as the text is printed: what
// sanitize.Terminal drops (controls, escape sequences, zero-width and bidi
// characters) is left out, and each run of spaces reads as one, as excerpts
// join words and the text report wraps them. Searching this form for the
// secrets folded the same way finds every mix of these encodings and
// splices in one pass over the text, which enumerating the variants could
// not.
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
	return (&folder{decode: true, origins: origins}).run(b)
}

// foldAll is b folded with no escape decoded.
func foldAll(b []byte) []byte {
	return (&folder{}).run(b).text
}

// folder writes one folded text.
type folder struct {
	decode, origins bool
	f               folded
	n               int
	// space says the last byte written is the space a run of them reads as.
	space bool
}

func (fo *folder) run(b []byte) folded {
	fo.f = folded{text: make([]byte, len(b)), open: -1}
	if fo.origins {
		fo.f.from = make([]int, len(b))
	}
	var buf [utf8.UTFMax]byte
	for i := 0; i < len(b); {
		run, runAt := i, fo.n
		// Locals keep the loop over every byte of every body in registers.
		text, n := fo.f.text, fo.n
		for ; i < len(b) && plain[b[i]]; i++ {
			text[n] = foldTable[b[i]]
			n++
		}
		if i > run {
			fo.n, fo.space = n, false
			if fo.origins {
				for k := range i - run {
					fo.f.from[runAt+k] = run + k
				}
			}
		}
		if i == len(b) {
			break
		}
		if b[i] == ' ' {
			// The one special byte of most text.
			fo.char(b[i:i+1], ' ', i)
			i++
			continue
		}
		i += fo.special(b, i, &buf)
	}
	fo.f.text = fo.f.text[:fo.n]
	if fo.origins {
		fo.f.from = fo.f.from[:fo.n]
	}
	if fo.f.open < 0 {
		fo.f.open = fo.n
	}
	return fo.f
}

// special folds the character at b[i], which is not plain, and says how
// many bytes it took.
func (fo *folder) special(b []byte, i int, buf *[utf8.UTFMax]byte) int {
	c := b[i]
	if c == 0x1b {
		return 1 + sanitize.EscapeSequenceLen(b[i+1:])
	}
	if fo.decode && escapeStart[c] {
		out, used := unescape(b[i:], buf)
		if used > 0 {
			r, _ := utf8.DecodeRune(out)
			if r == 0x1b {
				// An escaped ESC prints as one once decoded.
				return used + sanitize.EscapeSequenceLen(b[i+used:])
			}
			fo.char(out, r, i)
			return used
		}
		if fo.f.open < 0 && len(b)-i < maxEscape && escapePrefix(b[i:]) {
			fo.f.open = fo.n
		}
	}
	if c < utf8.RuneSelf {
		fo.char(b[i:i+1], rune(c), i)
		return 1
	}
	r, size := utf8.DecodeRune(b[i:])
	fo.char(b[i:i+size], r, i)
	return size
}

// char writes the character r, encoded as enc, that begins at at in the
// original.
func (fo *folder) char(enc []byte, r rune, at int) {
	invisible, space := false, false
	if r < utf8.RuneSelf {
		invisible, space = asciiInvisible[r], asciiSpace[r]
	} else {
		invisible, space = sanitize.Invisible(r), unicode.IsSpace(r)
	}
	switch {
	case invisible:
	case space:
		if !fo.space {
			fo.write(' ', at)
			fo.space = true
		}
	default:
		for _, c := range enc {
			fo.write(foldTable[c], at)
		}
		fo.space = false
	}
}

// write appends c; a folded character is never longer than the bytes it
// came from.
func (fo *folder) write(c byte, at int) {
	fo.f.text[fo.n] = c
	if fo.origins {
		fo.f.from[fo.n] = at
	}
	fo.n++
}

// asciiInvisible and asciiSpace are sanitize.Invisible and a space (or the
// "+" a query string writes for one) of the ASCII characters, which most
// escapes decode to.
var asciiInvisible, asciiSpace = func() (inv, sp [utf8.RuneSelf]bool) {
	for c := range rune(utf8.RuneSelf) {
		inv[c] = sanitize.Invisible(c)
		sp[c] = c == '+' || unicode.IsSpace(c)
	}
	return inv, sp
}()

// foldTable is foldByte of every byte. plain marks the bytes that fold on
// their own: printable ASCII that begins no escape and is no space, which
// the loop over every byte of every body copies; escapeStart marks the
// bytes an escape begins with.
var foldTable, plain, escapeStart = func() (t [256]byte, p, e [256]bool) {
	for c := range t {
		t[c] = foldByte(byte(c))
	}
	e['%'], e['\\'], e['&'] = true, true, true
	for c := byte(0x21); c < 0x7f; c++ {
		p[c] = !e[c] && c != '+'
	}
	return t, p, e
}()

func foldByte(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
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
