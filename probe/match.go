package probe

import (
	"fmt"
	"path"
	"strings"
)

// MatchPath reports whether a URL path matches a pattern in the syntax of
// Config.Include and Config.Exclude, so that other settings naming paths
// (ignores in the configuration file) mean exactly the same thing.
func MatchPath(pattern, p string) bool { return matchPattern(pattern, p) }

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

// checkPatterns is CheckPattern over every pattern of cfg.
func checkPatterns(cfg Config) error {
	for _, list := range [][]string{cfg.Include, cfg.Exclude} {
		for _, p := range list {
			if err := CheckPattern(p); err != nil {
				return err
			}
		}
	}
	return nil
}
