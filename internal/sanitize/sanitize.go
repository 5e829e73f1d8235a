// Package sanitize makes text from the scanned app safe for each sink. The app
// is hostile: its headers and bodies may carry terminal escapes, control
// characters, invalid UTF-8 or enormous strings.
package sanitize

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Terminal strips escape sequences and the characters Invisible reports
// (keeping newline and tab) and replaces invalid UTF-8, so printing cannot
// move the cursor, retitle the window or hide text.
func Terminal(s string) string {
	if isPlain(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			b.WriteRune('\uFFFD')
		case r == 0x1b:
			i += size + EscapeSequenceLen(s[i+size:])
			continue
		case Invisible(r):
			// dropped
		default:
			b.WriteRune(r)
		}
		i += size
	}
	return b.String()
}

// Line is Terminal plus newlines and tabs folded to spaces, for one-line fields.
func Line(s string) string {
	s = Terminal(s)
	if strings.ContainsAny(s, "\n\t\r") {
		s = strings.Map(func(r rune) rune {
			if r == '\n' || r == '\t' || r == '\r' {
				return ' '
			}
			return r
		}, s)
	}
	return s
}

// Truncate cuts s to at most max bytes on a rune boundary, marking the cut.
func Truncate(s string, max int) string {
	if max <= 0 || len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// Excerpt turns a body prefix into a one-line, safe, bounded excerpt. A
// non-positive max gives an empty excerpt: a body has no natural bound.
func Excerpt(body []byte, max int) string {
	if max <= 0 {
		return ""
	}
	if len(body) > max*4 {
		// Back off to a rune start so the cut does not leave a U+FFFD.
		cut := max * 4
		for cut > 0 && !utf8.RuneStart(body[cut]) {
			cut--
		}
		body = body[:cut]
	}
	return Truncate(strings.Join(strings.Fields(Line(string(body))), " "), max)
}

func isPlain(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 && c != '\n' && c != '\t' || c >= 0x7f {
			return false
		}
	}
	return true
}

// Invisible reports a character that Terminal drops because it shows as
// nothing yet can hide or reorder text: C0 and C1 controls other than
// newline and tab, DEL, and format characters (zero-width spaces and
// joiners, bidi overrides, isolates and marks, the soft hyphen, tag
// characters). ESC is one of them, but Terminal drops the sequence it
// begins as well (see EscapeSequenceLen).
func Invisible(r rune) bool {
	if r < utf8.RuneSelf {
		return (r < 0x20 || r == 0x7f) && r != '\n' && r != '\t'
	}
	return unicode.IsControl(r) || unicode.Is(unicode.Cf, r)
}

// EscapeSequenceLen is how many bytes of s, the text after an ESC, belong
// to the escape sequence it begins (CSI, OSC, DCS, APC, PM, SOS and
// two-byte forms), which Terminal drops with the ESC.
func EscapeSequenceLen[S ~string | ~[]byte](s S) int {
	if len(s) == 0 {
		return 0
	}
	switch s[0] {
	case '[': // CSI: parameters then a final byte in 0x40–0x7e
		for i := 1; i < len(s); i++ {
			if s[i] >= 0x40 && s[i] <= 0x7e {
				return i + 1
			}
		}
		return len(s)
	case ']', 'P', '_', '^', 'X': // OSC, DCS, APC, PM, SOS: end at BEL or ST
		for i := 1; i < len(s); i++ {
			if s[i] == 0x07 {
				return i + 1
			}
			if s[i] == 0x1b && i+1 < len(s) && s[i+1] == '\\' {
				return i + 2
			}
		}
		return len(s)
	}
	if s[0] >= utf8.RuneSelf {
		// Not an escape sequence: drop the ESC and keep the character.
		return 0
	}
	return 1
}
