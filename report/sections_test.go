package report

import (
	"bytes"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/report/internal/sample"
)

// section is one top-level field of finding.Report, the formats that show
// it (space-separated) and, when text or HTML does not, why.
type section struct{ field, formats, why string }

// sections says, for each top-level field of finding.Report, which formats
// show it: CONTRIBUTING's "Adding a report section" adds its line. JSON is
// the report itself and shows every field. Text and HTML are the complete
// reports a person reads, so a field either of them leaves out says why;
// Markdown, a summary for pull requests, and SARIF and JUnit, read by CI
// systems, show what serves their reader.
var sections = []section{
	{"SchemaVersion", "json", "the version of the JSON format itself"},
	{"Tool", "html json sarif text", ""},
	{"Target", "html json junit markdown sarif text", ""},
	{"StartedAt", "html json junit sarif", "the terminal shows how long the scan took, not when it started"},
	{"FinishedAt", "json sarif", "when the scan started and how long it took say when it ended"},
	{"Score", "html json junit markdown sarif text", ""},
	{"Rules", "html json junit markdown sarif text", ""},
	{"Checks", "html json junit markdown text", ""},
	{"Findings", "html json junit markdown sarif text", ""},
	{"Stats", "html json junit markdown text", ""},
	{"TLSUnverified", "html json junit markdown sarif text", ""},
	{"Notes", "html json markdown sarif text", ""},
	{"States", "html json text", ""},
	{"Interfaces", "html json markdown text", ""},
	{"Trials", "html json markdown text", ""},
	{"Gate", "html json markdown text", ""},
	{"Surface", "html json text", ""},
	{"MCP", "json", "the mcp family's findings judge the endpoint; `agentready mcp` prints what it learnt of it"},
	{"Spec", "json", "shown through what it leads to: the GET operations reached, and the file and line of the findings about it"},
	{"Readiness", "html json text", ""},
	{"Baseline", "json", "each finding says whether it is new, and the gate's reason whether the baseline is stale; the counts serve tools"},
	{"Ignored", "json", "ignored findings count nowhere; the JSON keeps them so that each ignore can be audited"},
	{"App", "json", "how the scan started the app (--start), for whoever debugs the run"},
	{"Active", "html json junit markdown sarif text", ""},
	{"Coverage", "html json junit markdown sarif text", ""},
	{"Snapshot", "json", "read by tools: a later scan's --baseline and report diff"},
	{"Shard", "html json junit markdown sarif text", ""},
}

// TestEachSectionShowsWhereItSays renders sample.Full, which fills every
// field, in every format, then again without each field in turn: a format
// shows a field when its output changes. A new field fails here until it
// is filled in sample.Full, given its line in sections, and rendered by
// each format that line names, which must include text and HTML unless
// the line says why not.
func TestEachSectionShowsWhereItSays(t *testing.T) {
	full := sample.Full()
	render := func(format string, r *finding.Report) []byte {
		t.Helper()
		rep, err := New(format, Options{})
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := rep.Write(&b, r); err != nil {
			t.Fatalf("%s: %v", format, err)
		}
		return b.Bytes()
	}
	whole := map[string][]byte{}
	for _, f := range Formats() {
		whole[f] = render(f, full)
	}
	fields := reflect.TypeFor[finding.Report]()
	for i := range fields.NumField() {
		name := fields.Field(i).Name
		at := slices.IndexFunc(sections, func(s section) bool { return s.field == name })
		if at < 0 {
			t.Errorf("finding.Report.%s has no line in sections: say which formats show it", name)
			continue
		}
		s := sections[at]
		want := strings.Fields(s.formats)
		if s.why == "" && !(slices.Contains(want, "text") && slices.Contains(want, "html")) {
			t.Errorf("%s: text and HTML show every section, or its line says why not", name)
		}
		if reflect.ValueOf(full).Elem().Field(i).IsZero() {
			t.Errorf("sample.Full leaves %s empty: fill it, so that every format is asked to show it", name)
			continue
		}
		without := *full
		reflect.ValueOf(&without).Elem().Field(i).SetZero()
		for _, f := range Formats() {
			shown := !bytes.Equal(whole[f], render(f, &without))
			switch listed := slices.Contains(want, f); {
			case listed && !shown:
				t.Errorf("%s: the %s report does not show it, but sections says it does", name, f)
			case !listed && shown:
				t.Errorf("%s: the %s report shows it; add %s to its line in sections", name, f, f)
			}
		}
	}
	for _, s := range sections {
		if _, ok := fields.FieldByName(s.field); !ok {
			t.Errorf("sections lists %s, which finding.Report does not have", s.field)
		}
	}
}

// The Trials section totals what the trial created, cleaned and left, and
// lists what it left, in every format; without anything created, none says
// so.
func TestTrialCleanupInEveryFormat(t *testing.T) {
	render := func(format string, r *finding.Report) string {
		t.Helper()
		rep, err := New(format, Options{})
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := rep.Write(&b, r); err != nil {
			t.Fatalf("%s: %v", format, err)
		}
		return b.String()
	}
	full := sample.Full()
	for _, f := range []string{"text", "markdown", "html"} {
		out := render(f, full)
		for _, want := range []string{"created 2, cleaned 1, left 1", "https://api.example.com/items/8 (task 2, C): the DELETE was refused with 405", "created /items/7, cleaned"} {
			if !strings.Contains(out, want) {
				t.Errorf("%s: no %q", f, want)
			}
		}
	}
	if out := render("json", full); !strings.Contains(out, `"leftBehind"`) || !strings.Contains(out, `"cleanup": "cleaned"`) {
		t.Errorf("json: no leftBehind or cleanup state")
	}
	none := *full
	trials := *full.Trials
	trials.Created, trials.Cleaned, trials.Left, trials.LeftBehind = 0, 0, 0, nil
	none.Trials = &trials
	for _, f := range []string{"text", "markdown", "html"} {
		if out := render(f, &none); strings.Contains(out, "Resources the trial created") {
			t.Errorf("%s: a trial that created nothing has a cleanup line", f)
		}
	}
}
