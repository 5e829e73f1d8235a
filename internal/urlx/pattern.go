package urlx

import (
	"fmt"
	"path"
	"strings"
)

// MatchPath reports whether a URL path matches an Include/Exclude pattern,
// so that every setting naming paths (the crawl's scope, ignores in the
// configuration file) means exactly the same thing:
// path.Match syntax, where a trailing "/**" matches the directory and anything
// below it and a trailing "*" matches any suffix, slashes included. Callers have
// refused malformed patterns (CheckPattern), the only error path.Match
// returns, so the errors ignored here cannot occur.
func MatchPath(pattern, p string) bool {
	if ok, _ := path.Match(pattern, p); ok {
		return true
	}
	var base string
	switch {
	case strings.HasSuffix(pattern, "/**"):
		base = strings.TrimSuffix(pattern, "/**")
		if ok, _ := path.Match(base, p); ok {
			return true
		}
	case strings.HasSuffix(pattern, "*"):
		base = pattern
	default:
		return false
	}
	// A star cannot cross a slash, so if any prefix matches, the longest
	// prefix before the next slash matches too: only those need trying.
	for i := 0; i < len(p); i++ {
		if p[i] != '/' {
			continue
		}
		if ok, _ := path.Match(base, p[:i]); ok {
			return true
		}
	}
	return false
}

// CheckPattern reports a malformed Include or Exclude pattern. path.Match
// only says so when it gets that far, and a malformed pattern matches
// nothing: a mistyped Exclude would let the crawl into what it names.
func CheckPattern(pattern string) error {
	for _, p := range []string{pattern, strings.TrimSuffix(pattern, "/**")} {
		if _, err := path.Match(p, ""); err != nil {
			return fmt.Errorf("%q: %w", pattern, err)
		}
	}
	return nil
}
