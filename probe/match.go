package probe

// MatchPath reports whether a URL path matches a pattern in the syntax of
// Config.Include and Config.Exclude, so that other settings naming paths
// (ignores in the configuration file) mean exactly the same thing.
func MatchPath(pattern, p string) bool { return matchPattern(pattern, p) }
