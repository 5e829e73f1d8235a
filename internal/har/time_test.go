package har

import (
	"testing"
	"time"
)

// A start time int64 nanoseconds cannot hold is not known, rather than
// another time.
func TestStartTimesOutsideNanosecondRangeAreUnknown(t *testing.T) {
	for _, c := range []struct {
		in   string
		want bool // kept
	}{
		{"2026-12-02T08:00:00.123Z", true},
		{"0001-01-01T00:00:00Z", false},
		{"1600-05-01T00:00:00Z", false},
		{"2300-01-01T00:00:00Z", false},
	} {
		at, err := time.Parse(time.RFC3339Nano, c.in)
		if err != nil {
			t.Fatal(err)
		}
		got := unixNanos(at)
		if kept := got != 0; kept != c.want {
			t.Errorf("%s: %d, kept %v, want %v", c.in, got, kept, c.want)
		}
		if c.want && !time.Unix(0, got).Equal(at) {
			t.Errorf("%s: round trip gives %s", c.in, time.Unix(0, got).UTC())
		}
	}
}
