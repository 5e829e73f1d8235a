package cli

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/agentready/agentready/fixtures/demo"
	"github.com/agentready/agentready/fixtures/large"
	"github.com/agentready/agentready/internal/finding"
)

// timestamps are the members of a JSON report a replay does not reproduce:
// when the checks ran.
var timestamps = regexp.MustCompile(`"(startedAt|finishedAt)": "[^"]*"`)

// TestReplayReproducesTheVerdict records `agentready demo` (two
// identities, MCP, the OpenAPI document discovered) and replays it: the
// same JSON report but for its timestamps, and the same exit code; the
// gate is the replay's own.
func TestReplayReproducesTheVerdict(t *testing.T) {
	dir := t.TempDir()
	recording, scanned, replayed := filepath.Join(dir, "scan.har"), filepath.Join(dir, "scan.json"), filepath.Join(dir, "replay.json")
	r := run(t, "demo", "--defect", "no-vary-accept", "--fail-on", "warning", "-q", "--record", recording, "-o", "json="+scanned)
	if r.code != ExitGateFailed {
		t.Fatalf("demo: code %d: %s", r.code, r.stderr)
	}
	again := run(t, "scan", "--replay", recording, "--fail-on", "warning", "-q", "-o", "json="+replayed)
	if again.code != r.code {
		t.Fatalf("replay: code %d, want the scan's %d: %s", again.code, r.code, again.stderr)
	}
	if again.stderr != "" {
		t.Errorf("a replay with nothing to ignore says %q", again.stderr)
	}
	want, got := readOutput(t, scanned), readOutput(t, replayed)
	if got == want {
		t.Error("the replay carries the scan's timestamps: it would be taken for the scan")
	}
	if timestamps.ReplaceAllString(got, "") != timestamps.ReplaceAllString(want, "") {
		t.Error("the replay's JSON report differs from the scan's beyond startedAt and finishedAt")
	}
	if passed := run(t, "scan", "--replay", recording, "--fail-on", "error", "-q"); passed.code != ExitOK {
		t.Errorf("the replay judged with --fail-on error: code %d, want 0: %s", passed.code, passed.stderr)
	}
}

// TestReplayOfPagesLeftUnread records a crawl of 607 resources, most of
// them past the first 67 pages of their path shape, which the checks read:
// a page left unread is recorded as the checks saw it, and the replay gives
// the same report.
func TestReplayOfPagesLeftUnread(t *testing.T) {
	dir := t.TempDir()
	recording, scanned, replayed := filepath.Join(dir, "scan.har"), filepath.Join(dir, "scan.json"), filepath.Join(dir, "replay.json")
	r := recordPaginated(t, recording, "-o", "json="+scanned)
	again := run(t, "scan", "--replay", recording, "-q", "-o", "json="+replayed)
	if again.code != r.code {
		t.Fatalf("replay: code %d, want the scan's %d: %s", again.code, r.code, again.stderr)
	}
	want, got := readOutput(t, scanned), readOutput(t, replayed)
	if !strings.Contains(want, "466 crawled pages were read for their links alone") {
		t.Fatal("the scan left no page unread")
	}
	if timestamps.ReplaceAllString(got, "") != timestamps.ReplaceAllString(want, "") {
		t.Error("the replay's JSON report differs from the scan's beyond startedAt and finishedAt")
	}
}

// TestReplayWithAHouseRuleOnExchanges replays a recording made without
// house rules under a configuration that has one on exchanges: the pages
// the scan left unread, recorded without most of their headers, are not
// judged, and the rule says how many it left out.
func TestReplayWithAHouseRuleOnExchanges(t *testing.T) {
	dir := t.TempDir()
	recording, replayed, cfg := filepath.Join(dir, "scan.har"), filepath.Join(dir, "replay.json"), filepath.Join(dir, ".agentready.yaml")
	recordPaginated(t, recording)
	rule := "version: 1\nrules:\n  content-type:\n    target: exchange\n    given: \"$.headers\"\n    severity: warning\n    then: {field: Content-Length, function: truthy}\n"
	if err := os.WriteFile(cfg, []byte(rule), 0o600); err != nil {
		t.Fatal(err)
	}
	run(t, "scan", "--replay", recording, "--config", cfg, "-q", "-o", "json="+replayed)
	var rep finding.Report
	if err := json.Unmarshal([]byte(readOutput(t, replayed)), &rep); err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(rep.Checks, func(r finding.CheckResult) bool { return r.ID == "custom-content-type" })
	if i < 0 || rep.Checks[i].Findings != 0 {
		t.Fatalf("the rule judged pages it could not see: %+v", rep.Checks)
	}
	if obs := rep.Checks[i].Observations; len(obs) != 1 || !strings.HasPrefix(obs[0], "466 crawled pages of the recording were left unread") {
		t.Errorf("observations %q, want the 466 pages left out", obs)
	}
}

// recordPaginated scans all of large.Paginated(600), 607 resources, into
// recording, with the extra flags given.
func recordPaginated(t *testing.T, recording string, flags ...string) result {
	t.Helper()
	srv := httptest.NewServer(large.Paginated(600))
	defer srv.Close()
	n := strconv.Itoa(large.PaginatedResources(600) + 10)
	args := []string{"scan", srv.URL + "/", "--max-pages", n, "--max-query-variants", n, "--max-links-per-page", n,
		"--concurrency", "8", "-q", "--record", recording}
	return run(t, append(args, flags...)...)
}

// demoRecording is a recording of agentready demo, for the tests that
// only read or edit a copy of it.
var demoRecording = onceWritten(nil, "demo", "-q", "--record", "{file}")

func TestReplayFlags(t *testing.T) {
	recording := copyOf(t, demoRecording, "scan.har")
	dir := filepath.Dir(recording)
	notHAR := filepath.Join(dir, "report.json")
	if err := os.WriteFile(notHAR, []byte(`{"schemaVersion": 1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"missing file", []string{"scan", "--replay", filepath.Join(dir, "nope.har")}, "no such file"},
		{"a directory", []string{"scan", "--replay", dir}, "--replay " + dir},
		{"not a HAR", []string{"scan", "--replay", notHAR}, "no log with entries"},
		{"a URL too", []string{"scan", "--replay", recording, "http://127.0.0.1:1/"}, "give no URL"},
		{"record and replay", []string{"scan", "--replay", recording, "--record", filepath.Join(dir, "again.har")}, "exclude each other"},
		{"record where nothing can be written", []string{"scan", "http://127.0.0.1:1/", "--record", filepath.Join(dir, "missing", "scan.har")}, "--record"},
		{"record over a directory", []string{"demo", "--record", dir}, "is a directory"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := run(t, tt.args...)
			if r.code != ExitUsage || !strings.Contains(r.stderr, tt.want) {
				t.Errorf("code %d, stderr %q; want %d and %q", r.code, r.stderr, ExitUsage, tt.want)
			}
		})
	}
	r := run(t, "scan", "--replay", recording, "-q", "-H", "Authorization: Bearer "+demo.AdminToken, "--max-pages", "3", "--budget", "1s")
	if r.code != ExitOK {
		t.Fatalf("replay with ignored flags: code %d: %s", r.code, r.stderr)
	}
	if !strings.Contains(r.stderr, "ignoring --budget, --header, --max-pages") {
		t.Errorf("the replay does not say which flags it ignores: %q", r.stderr)
	}
}

// TestReplayWithAnOpenAPIFile: a document given as a file is embedded, so
// the replay needs neither the file nor the server.
func TestReplayWithAnOpenAPIFile(t *testing.T) {
	target := serve(t)
	resp, err := http.Get(target + "openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	doc, recording := filepath.Join(dir, "openapi.json"), filepath.Join(dir, "scan.har")
	if err := os.WriteFile(doc, body, 0o644); err != nil {
		t.Fatal(err)
	}
	r := run(t, "scan", target, "--openapi", doc, "--format", "json", "--record", recording)
	if r.code != ExitOK || !strings.Contains(r.stdout, `"source": "`+doc+`"`) {
		t.Fatalf("code %d, the report does not name the file: %s", r.code, r.stderr)
	}
	if err := os.Remove(doc); err != nil {
		t.Fatal(err)
	}
	again := run(t, "scan", "--replay", recording, "--format", "json")
	if again.code != ExitOK || timestamps.ReplaceAllString(again.stdout, "") != timestamps.ReplaceAllString(r.stdout, "") {
		t.Errorf("code %d; the replay's report differs from the scan's: %s", again.code, again.stderr)
	}
}

// TestReplayRefusesARecordingOverTheCap: a recording over
// --max-recording-size, or limits.max-recording-size in the configuration,
// is a usage error that says how to raise the cap; a file of 1 GiB (sparse,
// so that the test writes nothing) is refused by its size before it is
// read.
func TestReplayRefusesARecordingOverTheCap(t *testing.T) {
	recording := copyOf(t, demoRecording, "scan.har")
	dir := filepath.Dir(recording)
	st, err := os.Stat(recording)
	if err != nil {
		t.Fatal(err)
	}
	huge := filepath.Join(dir, "huge.har")
	f, err := os.Create(huge)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(1 << 30); err != nil {
		t.Fatal(err)
	}
	f.Close()
	size := strconv.FormatInt(st.Size(), 10)
	under := strconv.FormatInt(st.Size()-1, 10)
	cfg := writeConfig(t, "limits:\n  max-recording-size: "+under+"\n")
	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"a file over the default cap", []string{"scan", "--replay", huge}, "the recording is 1073741824 bytes, over the cap of 536870912; raise the cap with --max-recording-size BYTES (or limits.max-recording-size in .agentready.yaml)"},
		{"a file over the flag", []string{"scan", "--replay", recording, "--max-recording-size", under}, "the recording is " + size + " bytes, over the cap of " + under},
		{"a file over the configuration", []string{"scan", "--replay", recording, "--config", cfg}, "over the cap of " + under},
		{"a cap that is not positive", []string{"scan", "--replay", recording, "--max-recording-size", "0"}, "--max-recording-size must be positive"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := run(t, append(tt.args, "-q")...)
			if r.code != ExitUsage || !strings.Contains(r.stderr, tt.want) {
				t.Errorf("code %d, stderr %q; want %d and %q", r.code, r.stderr, ExitUsage, tt.want)
			}
		})
	}
	if r := run(t, "scan", "--replay", recording, "--max-recording-size", size, "-q"); r.code != ExitOK || r.stderr != "" {
		t.Errorf("a recording of exactly the cap: code %d, stderr %q", r.code, r.stderr)
	}
}

// hostileString is what an edited recording may hold in any string: a colour, a
// hyperlink to another site and a right-to-left override.
const hostileString = "\x1b[31mevil\x1b]8;;https://evil.example/\x07link\x1b]8;;\x07\u202eeman"

// rawControls lists the escapes and overrides of hostileString found in out.
func rawControls(out string) []string {
	var found []string
	for _, c := range []string{"\x1b", "\x07", "\u202e", "\u009b"} {
		if strings.Contains(out, c) {
			found = append(found, strconv.Quote(c))
		}
	}
	return found
}

// editRecording writes a copy of the HAR at path, changed by edit, and
// returns the copy's path.
func editRecording(t *testing.T, path string, edit func(log map[string]any)) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	edit(doc["log"].(map[string]any))
	if b, err = json.Marshal(doc); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "edited.har")
	if err := os.WriteFile(out, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestReplayPrintsNoEscapeFromTheRecording: the strings of a recording,
// edited to hold escapes and overrides where a replay prints them (the
// creator, the comment, the notes, the identities' names, the URLs and
// errors of the exchanges), reach neither the report nor stderr raw; nor do
// they through the reasons a recording is refused.
func TestReplayPrintsNoEscapeFromTheRecording(t *testing.T) {
	recording := copyOf(t, demoRecording, "scan.har")
	data := func(log map[string]any) map[string]any { return log["_agentready"].(map[string]any) }
	edited := editRecording(t, recording, func(log map[string]any) {
		log["creator"] = map[string]any{"name": "agentready" + hostileString, "version": hostileString}
		log["comment"] = hostileString
		d := data(log)
		d["notes"] = append(d["notes"].([]any), hostileString)
		for _, key := range []string{"callers", "views"} {
			for _, v := range d[key].([]any) {
				v.(map[string]any)["name"] = hostileString
			}
		}
		for _, e := range log["entries"].([]any) {
			entry := e.(map[string]any)
			req := entry["request"].(map[string]any)
			req["url"] = req["url"].(string) + "?q=" + hostileString
			entry["_agentready"].(map[string]any)["error"] = hostileString
		}
	})
	for _, format := range []string{"text", "markdown"} {
		r := run(t, "scan", "--replay", edited, "-v", "--format", format, "--fail-on", "none")
		if r.code != ExitOK {
			t.Fatalf("%s: code %d: %s", format, r.code, r.stderr)
		}
		if !strings.Contains(r.stderr, "was recorded by agentready evillink") {
			t.Errorf("stderr does not name the recording's version, sanitized: %q", r.stderr)
		}
		if found := rawControls(r.stdout + r.stderr); len(found) > 0 {
			t.Errorf("the %s replay prints %s from the recording:\nstderr %q", format, strings.Join(found, ", "), r.stderr)
		}
		if !strings.Contains(r.stdout, "evillink") {
			t.Errorf("the %s report shows none of the edited strings: the test would not see them printed raw", format)
		}
	}
	for _, tt := range []struct {
		name string
		edit func(log map[string]any)
	}{
		{"a foreign creator", func(log map[string]any) {
			delete(log, "_agentready")
			log["creator"] = map[string]any{"name": hostileString, "version": hostileString}
		}},
		{"a HAR version", func(log map[string]any) { log["version"] = hostileString }},
		{"a target", func(log map[string]any) { data(log)["target"] = hostileString }},
		{"a document's source", func(log map[string]any) {
			o := data(log)["openapi"].(map[string]any)
			o["source"], o["sha256"] = hostileString, "0"
		}},
		{"a header name", func(log map[string]any) {
			req := log["entries"].([]any)[0].(map[string]any)["request"].(map[string]any)
			req["headers"] = []any{map[string]any{"name": hostileString, "value": "", "_base64": "!"}}
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := run(t, "scan", "--replay", editRecording(t, recording, tt.edit))
			if r.code != ExitUsage || !strings.Contains(r.stderr, "evil") {
				t.Fatalf("code %d, stderr %q; want %d and the refusal's reason", r.code, r.stderr, ExitUsage)
			}
			if found := rawControls(r.stderr); len(found) > 0 {
				t.Errorf("the refusal prints %s from the recording: %q", strings.Join(found, ", "), r.stderr)
			}
		})
	}
}

// TestReplayOfFlowProbes records the demo's checkout with the next_actions
// flow probes, whose verdicts pair each probe with the re-reads after it,
// and replays it: the same JSON report, the replayed second charge included.
func TestReplayOfFlowProbes(t *testing.T) {
	dir := t.TempDir()
	recording, scanned, replayed := filepath.Join(dir, "scan.har"), filepath.Join(dir, "scan.json"), filepath.Join(dir, "replay.json")
	r := run(t, "demo", "--defect", string(demo.DefectCheckoutReplayChargesTwice), "-q", "--record", recording, "-o", "json="+scanned,
		"--active", "--active-allow", "POST /checkouts/*/patch", "--active-allow", "confirm_action", "--active-allow", "recover_action", "--yes")
	if r.code != ExitGateFailed {
		t.Fatalf("demo: code %d: %s", r.code, r.stderr)
	}
	again := run(t, "scan", "--replay", recording, "-q", "-o", "json="+replayed)
	if again.code != r.code {
		t.Fatalf("replay: code %d, want the scan's %d: %s", again.code, r.code, again.stderr)
	}
	want, got := readOutput(t, scanned), readOutput(t, replayed)
	if !strings.Contains(want, `"stateful-replay-second-effect"`) || !strings.Contains(want, `"active/idempotent-replay/re-read"`) {
		t.Fatal("the scan did not judge the replay probe")
	}
	if timestamps.ReplaceAllString(got, "") != timestamps.ReplaceAllString(want, "") {
		t.Error("the replay's JSON report differs from the scan's beyond startedAt and finishedAt")
	}
}
