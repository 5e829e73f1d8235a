package scan

import "time"

// WithChecksGrace lets a test of an interruption give the checks less time
// than the 3 s a user's scan gives them.
func WithChecksGrace(opts Options, grace time.Duration) Options {
	opts.checksGrace = grace
	return opts
}

// ChecksGrace is the time the checks get once a user's scan is interrupted.
const ChecksGrace = checksGrace
