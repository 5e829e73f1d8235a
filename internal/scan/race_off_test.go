//go:build !race

package scan_test

const raceDetector = false
