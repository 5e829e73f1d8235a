package har_test

import (
	"bytes"
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/agentready/agentready/checks/builtin"
	"github.com/agentready/agentready/internal/har"
	"github.com/agentready/agentready/internal/scan"
	"github.com/agentready/agentready/report"
)

// hostileText is a string that, printed raw, colours the terminal, opens
// a hyperlink to another site and turns the rest of the line around.
func hostileText(name string, n int) string {
	return fmt.Sprintf("\x1b[31m%s\x1b]8;;https://evil.example/\x07#%d\x1b]8;;\x07\u202e", name, n)
}

// rawControls lists the escapes and bidi overrides of hostileText found in
// out.
func rawControls(out string) []string {
	var found []string
	for _, c := range []string{"\x1b", "\x07", "\u202e", "\x9b"} {
		if strings.Contains(out, c) {
			found = append(found, fmt.Sprintf("%q", c))
		}
	}
	return found
}

// TestReplayOfAHostileRecordingPrintsNoEscape replays a recording whose
// every string, read back from the HAR, holds escapes and an override: the
// terminal reports print none of them.
func TestReplayOfAHostileRecordingPrintsNoEscape(t *testing.T) {
	f := &recordingFiller{t: t, text: hostileText}
	var rec scan.Recording
	f.fill(reflect.ValueOf(&rec).Elem(), "recording")
	var buf bytes.Buffer
	if err := har.Write(&buf, &rec, har.Options{Version: hostileText("version", 0)}); err != nil {
		t.Fatal(err)
	}
	arch, err := har.Read(&buf, har.DefaultMaxSize)
	if err != nil {
		t.Fatal(err)
	}
	reg, err := builtin.Registry()
	if err != nil {
		t.Fatal(err)
	}
	rep, err := scan.Run(context.Background(), scan.Options{Checks: reg.All(), Version: "test", Now: fixedClock, Replay: arch.Recording})
	if err != nil {
		t.Fatal(err)
	}
	for _, format := range []string{"text", "markdown"} {
		r, err := report.New(format, report.Options{Verbose: true})
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		if err := r.Write(&out, rep); err != nil {
			t.Fatal(err)
		}
		if found := rawControls(out.String()); len(found) > 0 {
			for _, line := range strings.Split(out.String(), "\n") {
				if len(rawControls(line)) > 0 {
					t.Logf("%q", line)
				}
			}
			t.Errorf("the %s report prints %s from the recording", format, strings.Join(found, ", "))
		}
	}
}
