// Package sanitize makes text from the scanned app safe for each sink. The app
// is hostile: its headers and bodies may carry terminal escapes, control
// characters, invalid UTF-8 or enormous strings.
package sanitize

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Terminal strips escape sequences and control characters (keeping newline
// and tab) and replaces invalid UTF-8, so printing cannot move the cursor,
// retitle the window or hide text.
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
			i += escapeLen(s[i:])
			continue
		case r == '\n' || r == '\t':
			b.WriteRune(r)
		case unicode.IsControl(r), isBidiControl(r):
			// dropped: C0, C1, DEL and bidi overrides that reorder what is shown
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

func isBidiControl(r rune) bool {
	return r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 || r == 0x200e || r == 0x200f
}

// escapeLen returns the length of the escape sequence at the start of s
// (CSI, OSC, DCS and two-byte forms), so the whole sequence is removed.
func escapeLen(s string) int {
	if len(s) < 2 {
		return len(s)
	}
	switch s[1] {
	case '[': // CSI: parameters then a final byte in 0x40–0x7e
		for i := 2; i < len(s); i++ {
			if s[i] >= 0x40 && s[i] <= 0x7e {
				return i + 1
			}
		}
		return len(s)
	case ']', 'P', '_', '^', 'X': // OSC, DCS, APC, PM, SOS: end at BEL or ST
		for i := 2; i < len(s); i++ {
			if s[i] == 0x07 {
				return i + 1
			}
			if s[i] == 0x1b && i+1 < len(s) && s[i+1] == '\\' {
				return i + 2
			}
		}
		return len(s)
	}
	if s[1] >= utf8.RuneSelf {
		// Not an escape sequence: drop the ESC and keep the character.
		return 1
	}
	return 2
}
