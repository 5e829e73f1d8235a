package text

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/golden"
	"github.com/agentready/agentready/report/internal/sample"
)

func render(t *testing.T, opts Options, r *finding.Report) string {
	t.Helper()
	var buf bytes.Buffer
	if err := New(opts).Write(&buf, r); err != nil {
		t.Fatalf("Write: %v", err)
	}
	return buf.String()
}

func TestGolden(t *testing.T) {
	tests := []struct {
		name string
		opts Options
	}{
		{"report.txt", Options{Width: 100}},
		{"report-verbose.txt", Options{Width: 100, Verbose: true}},
		{"report-narrow.txt", Options{Width: 64}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			golden.Check(t, golden.Path("sample", tt.name), []byte(render(t, tt.opts, sample.Report())))
		})
	}
}

func TestGoldenEmptyReport(t *testing.T) {
	golden.Check(t, golden.Path("empty", "report.txt"), []byte(render(t, Options{}, &finding.Report{Score: finding.Score{Grade: "N/A"}})))
}

func TestNilReportDoesNotPanic(t *testing.T) {
	if out := render(t, Options{}, nil); !strings.Contains(out, "Grade N/A") {
		t.Errorf("nil report rendered as:\n%s", out)
	}
}

func TestWidthIsRespected(t *testing.T) {
	for _, width := range []int{64, 100} {
		out := render(t, Options{Width: width}, sample.Report())
		for _, line := range strings.Split(out, "\n") {
			// Curl lines and lone URLs are kept whole to stay pasteable.
			if text := strings.TrimSpace(line); strings.HasPrefix(text, "$ curl") || !strings.Contains(text, " ") {
				continue
			}
			if n := utf8.RuneCountInString(line); n > width {
				t.Errorf("width %d: line of %d columns: %q", width, n, line)
			}
		}
	}
}

func TestMaxURLs(t *testing.T) {
	r := sample.Report()
	out := render(t, Options{MaxURLs: 2}, r)
	if got := strings.Count(out, "HEAD https://api.example.com/items/"); got != 2 {
		t.Errorf("MaxURLs 2 showed %d occurrences", got)
	}
	if !strings.Contains(out, "… and 3 more") {
		t.Errorf("missing the count of hidden occurrences:\n%s", out)
	}
	out = render(t, Options{MaxURLs: 2, Verbose: true}, r)
	if got := strings.Count(out, "HEAD https://api.example.com/items/"); got != 5 {
		t.Errorf("verbose showed %d of 5 occurrences", got)
	}
	if strings.Contains(out, "more") {
		t.Errorf("verbose still hides occurrences")
	}
}

func TestMostSevereCheckFirst(t *testing.T) {
	out := render(t, Options{}, sample.Report())
	order := []string{
		"ERROR   negotiation-head-content-length",
		"WARNING negotiation-json-default",
		"WARNING problem-json-media-type",
		"INFO    problem-json-status-member",
	}
	last := -1
	for _, s := range order {
		i := strings.Index(out, s)
		if i < 0 {
			t.Fatalf("missing %q in:\n%s", s, out)
		}
		if i < last {
			t.Errorf("%q is out of order", s)
		}
		last = i
	}
}

// hostile is text a malicious server could put in any field.
var hostile = []string{
	"\x1b]0;pwned\x07",
	"\x1b[2J\x1b[H",
	"\x1b]8;;https://evil.example/\x1b\\click\x1b]8;;\x1b\\",
	"\u009b31m C1 CSI \u0085 NEL \u009d OSC",
	"\x9b\x1b\xff\xfe invalid UTF-8",
	"\u202e bidi override",
	"\r\nGrade A+  (100/100)",
	strings.Repeat("A\x1b[31m", 100<<10/6),
}

func hostileReport() *finding.Report {
	r := sample.Report()
	bad := strings.Join(hostile, " ")
	r.Tool.Version = bad
	r.Target = bad
	r.Notes = append(r.Notes, hostile...)
	r.Stats.Sampling = append(r.Stats.Sampling, finding.ShapeSample{Shape: bad})
	r.Stats.Skipped[bad] = 1
	r.Checks[5].Reason = bad
	r.Checks[6].Reason = bad
	r.Score.Families[2].Reason = bad
	r.Rules[0].Title = bad
	r.Rules[0].DocsURL = bad
	r.Gate.Reason = bad
	for i := range r.Findings {
		f := &r.Findings[i]
		f.Message = hostile[i%len(hostile)] + bad
		f.BaselineState = bad
		f.Location = &finding.SourceLocation{File: bad, Line: 1, Pointer: bad}
		f.SpecRefs = []finding.SpecRef{{Doc: bad, Section: bad, Level: bad}}
		for j := range f.Evidence {
			e := &f.Evidence[j]
			e.Method, e.URL, e.Purpose = bad, bad, bad
			e.Header, e.Expected, e.Actual = bad, bad, bad
			e.JSONPointer, e.Excerpt, e.Curl = bad, bad, bad
			e.RequestHeaders = map[string][]string{bad: {bad}}
			e.ResponseHeaders = map[string][]string{"X": {bad}}
		}
	}
	return r
}

func TestHostileTextWithoutColorHasNoEscapes(t *testing.T) {
	for _, verbose := range []bool{false, true} {
		out := render(t, Options{Verbose: verbose}, hostileReport())
		assertInert(t, out)
		if strings.ContainsRune(out, 0x1b) {
			t.Fatalf("verbose=%v: output contains ESC", verbose)
		}
		if strings.Contains(out, "hunter2") {
			t.Errorf("verbose=%v: a password in a URL was printed", verbose)
		}
	}
}

// sgr is the only escape sequence the colored output may contain: Select
// Graphic Rendition, which changes colors and nothing else.
var sgr = regexp.MustCompile(`^\x1b\[[0-9;:]*m`)

func TestHostileTextWithColorHasOnlyStyleEscapes(t *testing.T) {
	out := render(t, Options{Color: true, Verbose: true}, hostileReport())
	assertInert(t, out)
	styled := 0
	for i := 0; i < len(out); i++ {
		if out[i] != 0x1b {
			continue
		}
		m := sgr.FindString(out[i:])
		if m == "" {
			t.Fatalf("escape that is not SGR at byte %d: %q", i, out[i:min(i+20, len(out))])
		}
		styled++
		i += len(m) - 1
	}
	if styled == 0 {
		t.Error("color output carries no styling at all")
	}
}

// assertInert checks what must hold with or without color: valid UTF-8, no
// control character but newline and ESC (judged by the callers), no bidi
// override, and bounded size despite the 100 KB fields.
func assertInert(t *testing.T, out string) {
	t.Helper()
	if !utf8.ValidString(out) {
		t.Error("output is not valid UTF-8")
	}
	for _, r := range out {
		switch {
		case r == '\n' || r == 0x1b:
		case r < 0x20 || r >= 0x7f && r <= 0x9f:
			t.Fatalf("control character %U in output", r)
		case r == '\u202e':
			t.Fatal("bidi override in output")
		}
	}
	if strings.Contains(out, "pwned\a") || strings.Contains(out, "\nGrade A+") {
		t.Error("hostile text kept its effect")
	}
	if len(out) > 2<<20 {
		t.Errorf("output is %d bytes: hostile fields are not bounded", len(out))
	}
}

func TestSharedHostileSampleIsInert(t *testing.T) {
	out := render(t, Options{Verbose: true}, sample.Hostile())
	if strings.ContainsRune(out, 0x1b) || strings.Contains(out, "hunter2") {
		t.Error("the shared hostile sample prints an escape or a password")
	}
	if !strings.Contains(out, "Active probes") {
		t.Error("the active probes section is missing")
	}
}

// TestPartialScanSaysSoOnTheFirstScreen: a scan its budget cut short, and
// one a signal stopped, say so beside the grade, not only in the notes at
// the end; the first keeps its grade, the second has none and says why.
func TestPartialScanSaysSoOnTheFirstScreen(t *testing.T) {
	r := sample.Report()
	if out := render(t, Options{Width: 100}, r); strings.Contains(out, "interrupted") || strings.Contains(out, "cut by the budget") {
		t.Fatalf("a whole scan says it was cut short:\n%s", out)
	}
	cut := sample.Report()
	cut.Stats.BudgetCut = []string{finding.CutCrawl, finding.CutProbes}
	out := render(t, Options{Width: 100}, cut)
	at := strings.Index(out, "cut by the budget during the crawl and the planned probes: graded on what was reached")
	if at < 0 || at > strings.Index(out, "Family") || !strings.Contains(out, "Grade "+cut.Score.Grade) {
		t.Errorf("the budget cut is not said before the families, beside the grade:\n%s", out)
	}
	if strings.Contains(out, "interrupted") {
		t.Errorf("a scan cut by its budget says it was interrupted:\n%s", out)
	}

	stopped := sample.Report()
	stopped.Coverage.Interrupted = "interrupted by SIGINT during the crawl"
	stopped.Stats.Interrupted = true
	stopped.Score.Grade, stopped.Score.Value = finding.GradeNotAssessed, 0
	out = render(t, Options{Width: 200}, stopped)
	for _, want := range []string{
		"Grade N/A  (interrupted by SIGINT during the crawl)",
		"interrupted by SIGINT during the crawl: no grade; the findings are on what was recorded before it stopped (12 pages, 48 requests",
	} {
		if at := strings.Index(out, want); at < 0 || at > strings.Index(out, "Family") {
			t.Errorf("the first screen does not say %q:\n%s", want, out)
		}
	}
}
