// Package uritemplate validates URI Templates against the syntax of RFC 6570
// §2. Only validation is needed here: the checks ask "would a conforming
// client accept this template?", and expansion stays with the crawler.
package uritemplate

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Error locates a syntax error.
type Error struct {
	Offset int // byte offset in the template
	Reason string
}

func (e *Error) Error() string { return fmt.Sprintf("at byte %d: %s", e.Offset, e.Reason) }

// operators of RFC 6570 §2.2, levels 2 and 3.
const operators = "+#./;?&"

// reservedOperators are set aside for future extensions (§2.2); a template
// using one is not valid today.
const reservedOperators = "=,!@|"

// maxPrefix is the largest prefix modifier (§2.4.1: max-length < 10000).
const maxPrefix = 9999

// Validate returns nil when t is a valid URI Template of any level.
func Validate(t string) error {
	for i := 0; i < len(t); {
		switch c := t[i]; {
		case c == '{':
			end := strings.IndexByte(t[i+1:], '}')
			if end < 0 {
				return &Error{i, "unclosed expression"}
			}
			if err := expression(t[i+1:i+1+end], i+1); err != nil {
				return err
			}
			i += end + 2
		case c == '}':
			return &Error{i, "'}' outside an expression"}
		default:
			n, err := literal(t, i)
			if err != nil {
				return err
			}
			i += n
		}
	}
	return nil
}

// Variables lists the variable names of a valid template in order of
// appearance, without modifiers; it returns nil for an invalid one.
func Variables(t string) []string {
	if Validate(t) != nil {
		return nil
	}
	var out []string
	for rest := t; ; {
		open := strings.IndexByte(rest, '{')
		if open < 0 {
			return out
		}
		closing := strings.IndexByte(rest[open:], '}') + open
		body := strings.TrimLeft(rest[open+1:closing], operators)
		for _, spec := range strings.Split(body, ",") {
			name, _, _ := strings.Cut(strings.TrimSuffix(spec, "*"), ":")
			out = append(out, name)
		}
		rest = rest[closing+1:]
	}
}

// literal validates one literal character (§2.1) at t[i] and returns its
// length in bytes.
func literal(t string, i int) (int, error) {
	c := t[i]
	if c == '%' {
		if i+2 >= len(t) || !isHex(t[i+1]) || !isHex(t[i+2]) {
			return 0, &Error{i, "'%' not followed by two hex digits"}
		}
		return 3, nil
	}
	if c >= utf8.RuneSelf {
		r, n := utf8.DecodeRuneInString(t[i:])
		if r == utf8.RuneError && n <= 1 {
			return 0, &Error{i, "invalid UTF-8"}
		}
		return n, nil // ucschar and iprivate
	}
	if c <= ' ' || c == 0x7f || strings.IndexByte("\"'<>\\^`{|}", c) >= 0 {
		return 0, &Error{i, fmt.Sprintf("character %q is not allowed in a literal", c)}
	}
	return 1, nil
}

// expression validates the inside of {...}; off is its offset in the template.
func expression(body string, off int) error {
	if body == "" {
		return &Error{off, "empty expression"}
	}
	switch c := body[0]; {
	case strings.IndexByte(reservedOperators, c) >= 0:
		return &Error{off, fmt.Sprintf("operator %q is reserved for future extensions", c)}
	case strings.IndexByte(operators, c) >= 0:
		body, off = body[1:], off+1
	}
	if body == "" {
		return &Error{off, "operator without a variable"}
	}
	for _, spec := range strings.Split(body, ",") {
		if err := varspec(spec, off); err != nil {
			return err
		}
		off += len(spec) + 1
	}
	return nil
}

// varspec validates varname [ ":" max-length / "*" ] (§2.3, §2.4).
func varspec(spec string, off int) error {
	name, modifier := spec, ""
	if i := strings.IndexAny(spec, ":*"); i >= 0 {
		name, modifier = spec[:i], spec[i:]
	}
	if err := varname(name, off); err != nil {
		return err
	}
	switch {
	case modifier == "" || modifier == "*":
		return nil
	case modifier[0] == ':':
		digits := modifier[1:]
		n := 0
		for _, d := range []byte(digits) {
			if d < '0' || d > '9' {
				return &Error{off + len(name), fmt.Sprintf("prefix %q is not a number", digits)}
			}
			n = n*10 + int(d-'0')
			if n > maxPrefix {
				break
			}
		}
		if digits == "" || digits[0] == '0' || n > maxPrefix || len(digits) > 4 {
			return &Error{off + len(name), fmt.Sprintf("prefix length %q must be 1 to %d", digits, maxPrefix)}
		}
		return nil
	}
	return &Error{off + len(name), fmt.Sprintf("invalid modifier %q", modifier)}
}

// varname: varchar *( ["."] varchar ), varchar = ALPHA / DIGIT / "_" / pct-encoded.
func varname(name string, off int) error {
	if name == "" {
		return &Error{off, "empty variable name"}
	}
	prevDot := true // a name may not start with "."
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c == '.':
			if prevDot {
				return &Error{off + i, "misplaced '.' in variable name"}
			}
			prevDot = true
			continue
		case c == '%':
			if i+2 >= len(name) || !isHex(name[i+1]) || !isHex(name[i+2]) {
				return &Error{off + i, "'%' not followed by two hex digits"}
			}
			i += 2
		case c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
		default:
			return &Error{off + i, fmt.Sprintf("character %q is not allowed in a variable name", c)}
		}
		prevDot = false
	}
	if prevDot {
		return &Error{off + len(name) - 1, "variable name ends with '.'"}
	}
	return nil
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}
