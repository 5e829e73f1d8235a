package probe

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

// Link extraction reads a document one level at a time (see walkHAL). Once
// the document is known to be valid JSON, each level is split here, in one
// pass over its bytes and without copying them, to what json.Unmarshal into
// a map[string]json.RawMessage or a []json.RawMessage gives: encoding/json
// would validate and copy every level again, which was most of the crawl's
// CPU time on a large HAL API.

// validMembers splits valid, a valid JSON value, into its members when it is
// an object (a later duplicate key wins, as with json.Unmarshal), and nil
// otherwise.
func validMembers(valid []byte) map[string]json.RawMessage {
	i := skipSpace(valid, 0)
	if i >= len(valid) || valid[i] != '{' {
		return nil
	}
	m := map[string]json.RawMessage{}
	i = skipSpace(valid, i+1)
	for i < len(valid) && valid[i] == '"' {
		end := skipString(valid, i)
		key := validString(valid[i:end])
		i = skipSpace(valid, end)
		i = skipSpace(valid, i+1) // the colon
		end = skipValue(valid, i)
		m[key] = valid[i:end:end]
		i = skipSpace(valid, end)
		if i < len(valid) && valid[i] == ',' {
			i = skipSpace(valid, i+1)
		}
	}
	return m
}

// validElements splits valid, a valid JSON value, into its elements when it
// is an array, and nil otherwise.
func validElements(valid []byte) []json.RawMessage {
	i := skipSpace(valid, 0)
	if i >= len(valid) || valid[i] != '[' {
		return nil
	}
	out := []json.RawMessage{}
	i = skipSpace(valid, i+1)
	for i < len(valid) && valid[i] != ']' {
		end := skipValue(valid, i)
		out = append(out, valid[i:end:end])
		i = skipSpace(valid, end)
		if i < len(valid) && valid[i] == ',' {
			i = skipSpace(valid, i+1)
		}
	}
	return out
}

// eachElement calls fn with each element of valid, a valid JSON array, in
// order, at most limit of them, and stops at the first call that returns
// false. Unlike validElements it splits no more of a large array than it
// reads.
func eachElement(valid []byte, limit int, fn func(json.RawMessage) bool) {
	i := skipSpace(valid, 0)
	if i >= len(valid) || valid[i] != '[' {
		return
	}
	i = skipSpace(valid, i+1)
	for n := 0; n < limit && i < len(valid) && valid[i] != ']'; n++ {
		end := skipValue(valid, i)
		if !fn(valid[i:end:end]) {
			return
		}
		i = skipSpace(valid, end)
		if i < len(valid) && valid[i] == ',' {
			i = skipSpace(valid, i+1)
		}
	}
}

// validString decodes a valid JSON string token. One without escapes in
// valid UTF-8 is its bytes; anything else goes through encoding/json, which
// replaces invalid UTF-8 as json.Unmarshal always has.
func validString(token []byte) string {
	inner := token[1 : len(token)-1]
	if bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
		return string(inner)
	}
	var s string
	_ = json.Unmarshal(token, &s)
	return s
}

// stringValue is a valid JSON value decoded as a string, and whether it was
// one.
func stringValue(valid []byte) (string, bool) {
	i := skipSpace(valid, 0)
	if i >= len(valid) || valid[i] != '"' {
		return "", false
	}
	return validString(valid[i:skipString(valid, i)]), true
}

func skipSpace(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\r', '\n':
			i++
		default:
			return i
		}
	}
	return i
}

// skipString returns the index past the string token that starts at i.
func skipString(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return len(b)
}

// skipValue returns the index past the valid JSON value that starts at i.
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return i
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for ; i < len(b); i++ {
			switch b[i] {
			case '"':
				i = skipString(b, i) - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
		}
		return len(b)
	}
	for i < len(b) {
		switch b[i] {
		case ',', '}', ']', ' ', '\t', '\r', '\n':
			return i
		}
		i++
	}
	return i
}
