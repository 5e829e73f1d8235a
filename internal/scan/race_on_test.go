//go:build race

package scan_test

// raceDetector is set when the tests run under -race, whose instrumentation
// makes the checks' CPU work several times slower: wall-clock bounds are
// then checked by the plain run only.
const raceDetector = true
