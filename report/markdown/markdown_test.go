package markdown_test

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/golden"
	"github.com/agentready/agentready/report/internal/sample"
	"github.com/agentready/agentready/report/markdown"
)

func render(t *testing.T, opts markdown.Options, r *finding.Report) string {
	t.Helper()
	var buf bytes.Buffer
	if err := markdown.New(opts).Write(&buf, r); err != nil {
		t.Fatalf("Write: %v", err)
	}
	return buf.String()
}

func TestGoldenSample(t *testing.T) {
	golden.Check(t, golden.Path("sample", "report.md"), []byte(render(t, markdown.Options{}, sample.Report())))
}

func TestMostSevereCheckFirstWithCountsAndDocs(t *testing.T) {
	out := render(t, markdown.Options{}, sample.Report())
	order := []string{
		"#### 🔴 error: `negotiation-head-content-length` HEAD Content-Length differs from GET (5)",
		"#### 🟡 warning: `negotiation-json-default`",
		"#### 🟡 warning: `problem-json-media-type`",
		"#### 🔵 info: `problem-json-status-member`",
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
	if !strings.Contains(out, "[docs](https://github.com/agentready/agentready/blob/main/docs/checks.md#negotiation-head-content-length)") {
		t.Error("no docs link for the check")
	}
	if !strings.Contains(out, "| negotiation | ") || !strings.Contains(out, "| mcp | – | – |") {
		t.Errorf("family table missing:\n%s", out)
	}
}

func TestFirstURLsThenDetails(t *testing.T) {
	out := render(t, markdown.Options{MaxURLs: 2}, sample.Report())
	open := strings.Index(out, "<details><summary>3 more occurrences</summary>")
	if open < 0 {
		t.Fatalf("no collapsed section for the rest:\n%s", out)
	}
	for i := 1; i <= 5; i++ {
		u := fmt.Sprintf("`https://api.example.com/items/%d`", i)
		at := strings.Index(out, u)
		if at < 0 {
			t.Fatalf("occurrence %s missing", u)
		}
		if (i <= 2) != (at < open) {
			t.Errorf("occurrence %d on the wrong side of <details>", i)
		}
	}
}

func TestStable(t *testing.T) {
	a := render(t, markdown.Options{}, sample.Report())
	r := sample.Report()
	r.Stats.DurationMS = 99999
	r.StartedAt = r.StartedAt.AddDate(1, 0, 0)
	r.FinishedAt = r.FinishedAt.AddDate(1, 0, 0)
	// Findings in another order render the same.
	r.Findings[0], r.Findings[len(r.Findings)-1] = r.Findings[len(r.Findings)-1], r.Findings[0]
	if b := render(t, markdown.Options{}, r); a != b {
		t.Error("output depends on time, duration or finding order")
	}
}

func TestSizeLimitCutsWithANote(t *testing.T) {
	r := sample.Report()
	base := r.Findings[0]
	for i := range 30000 {
		f := base
		f.Evidence = []finding.Evidence{base.Evidence[0]}
		f.Evidence[0].URL = fmt.Sprintf("https://api.example.com/items/%d", i+100)
		r.Findings = append(r.Findings, f)
	}
	out := render(t, markdown.Options{}, r)
	if len(out) > 1<<20 {
		t.Fatalf("%d bytes, over GitHub's 1 MiB step-summary limit", len(out))
	}
	if !strings.Contains(out, "Cut to stay under GitHub's 1 MiB summary limit") {
		t.Error("no truncation note")
	}
	if strings.Count(out, "<details>") != strings.Count(out, "</details>") {
		t.Error("unbalanced <details> after the cut")
	}
	small := render(t, markdown.Options{MaxBytes: 20 << 10}, r)
	if len(small) > 20<<10 || !strings.Contains(small, "Not shown:") {
		t.Errorf("MaxBytes 20 KiB gave %d bytes", len(small))
	}
}

// manyOccurrences is the sample report with n more occurrences of its
// error check and of its info check, the first and the last check shown.
func manyOccurrences(n int) *finding.Report {
	r := sample.Report()
	var more []finding.Finding
	base := map[string]bool{}
	for _, f := range r.Findings {
		if (f.CheckID != "negotiation-head-content-length" && f.CheckID != "problem-json-status-member") || base[f.CheckID] {
			continue
		}
		base[f.CheckID] = true
		for i := range n {
			g := f
			g.Evidence = []finding.Evidence{f.Evidence[0]}
			g.Evidence[0].URL = fmt.Sprintf("https://api.example.com/%s/%d", f.CheckID, i)
			more = append(more, g)
		}
	}
	r.Findings = append(r.Findings, more...)
	return r
}

func TestACutDocumentNamesEveryFailingCheckFirst(t *testing.T) {
	out := render(t, markdown.Options{MaxBytes: 20 << 10}, manyOccurrences(2000))
	if len(out) > 20<<10 {
		t.Fatalf("%d bytes, over MaxBytes", len(out))
	}
	last := -1
	for _, heading := range []string{
		"#### 🔴 error: `negotiation-head-content-length` HEAD Content-Length differs from GET (2005)",
		"#### 🟡 warning: `negotiation-json-default`",
		"#### 🟡 warning: `problem-json-media-type`",
		"#### 🔵 info: `problem-json-status-member` Problem status matches the response (2001)",
	} {
		i := strings.Index(out, heading)
		if i < 0 || i < last {
			t.Errorf("%q is missing or out of order:\n%s", heading, out)
		}
		last = i
	}
	// The folded occurrences fill what the headings leave, from the most
	// severe check on, and the summary says how many of them are shown.
	if !regexp.MustCompile(`<details><summary>\d+ of 2002 more occurrences</summary>`).MatchString(out) || strings.Count(out, "<details>") != strings.Count(out, "</details>") {
		t.Errorf("the error check's folded occurrences are missing or unbalanced:\n%s", out[:min(len(out), 4000)])
	}
	if strings.Contains(out, "problem-json-status-member/10`") {
		t.Error("a folded occurrence of the info check was written before the error check's were all shown")
	}
	if !regexp.MustCompile(`Not shown: 0 checks and \d+ occurrences\.`).MatchString(out) {
		t.Errorf("the note does not count what was left out:\n%s", out[max(0, len(out)-400):])
	}
}

func TestACutDocumentLinksTheFullReport(t *testing.T) {
	runs := "https://github.com/acme/api/actions/runs/42"
	for _, c := range []struct {
		name, fullReport, want string
	}{
		{"a web URL", runs, "> **Cut to stay under 10240 bytes.** Not shown: "},
		{"a long web URL", "https://github.com/" + strings.Repeat("a", 1900), "[The full report](https://github.com/aaaa"},
		{"a script URL", "javascript:alert(1)", "The JSON and HTML reports have everything.\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := render(t, markdown.Options{MaxBytes: 10 << 10, FullReport: c.fullReport}, manyOccurrences(500))
			if len(out) > 10<<10 {
				t.Fatalf("%d bytes, over MaxBytes", len(out))
			}
			if !strings.Contains(out, c.want) {
				t.Errorf("no %q in the note:\n%s", c.want, out[max(0, len(out)-600):])
			}
			if linked := strings.HasSuffix(out, "("+c.fullReport+") has everything.\n"); linked != strings.HasPrefix(c.fullReport, "https:") {
				t.Errorf("the full report linked: %v, want %v:\n%s", linked, !linked, out[max(0, len(out)-600):])
			}
		})
	}
	if out := render(t, markdown.Options{MaxBytes: 10 << 10, FullReport: runs}, sample.Report()); strings.Contains(out, runs) {
		t.Error("a document that was not cut links the full report")
	}
}

// unescaped finds Markdown or HTML syntax that an escaped string never
// produces: a tag, an HTML comment, a link, or a pipe that is not escaped.
var unescaped = []*regexp.Regexp{
	regexp.MustCompile(`<script|<img|<!--`),
	regexp.MustCompile(`(^|[^\\])\]\(javascript:`),
	regexp.MustCompile(`(^|[^\\])@everyone`),
}

// stripCodeSpans removes inline code spans, whose content GFM shows
// literally, by CommonMark's rule: a run of n backticks not preceded by a
// backslash opens a span that the next run of exactly n backticks closes.
func stripCodeSpans(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		if s[i] == '\\' && i+1 < len(s) {
			b.WriteString(s[i : i+2])
			i += 2
			continue
		}
		if s[i] != '`' {
			b.WriteByte(s[i])
			i++
			continue
		}
		n := run(s, i)
		end := -1
		for j := i + n; j < len(s); {
			if s[j] == '`' {
				m := run(s, j)
				if m == n {
					end = j + m
					break
				}
				j += m
				continue
			}
			j++
		}
		if end < 0 {
			b.WriteString(s[i : i+n])
			i += n
			continue
		}
		b.WriteString("CODE")
		i = end
	}
	return b.String()
}

func run(s string, i int) int {
	n := 0
	for i+n < len(s) && s[i+n] == '`' {
		n++
	}
	return n
}

func TestHostileReportIsSafe(t *testing.T) {
	raw := render(t, markdown.Options{}, sample.Hostile())
	if !utf8.ValidString(raw) {
		t.Error("output is not valid UTF-8")
	}
	out := stripCodeSpans(raw)
	for _, re := range unescaped {
		if loc := re.FindStringIndex(out); loc != nil {
			t.Errorf("unescaped %q at %d: %q", re, loc[0], out[max(0, loc[0]-40):min(len(out), loc[1]+40)])
		}
	}
	for _, bad := range []string{"\x1b", "\u009b", "\u202e", "hunter2", "secret-token"} {
		if strings.Contains(raw, bad) {
			t.Errorf("output contains %q", bad)
		}
	}
	// Tables keep their shape: every row of the family table has as many
	// unescaped pipes as the header.
	lines := strings.Split(out, "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "| Family |") {
			want := pipes(l)
			for _, row := range lines[i+1:] {
				if !strings.HasPrefix(row, "|") {
					break
				}
				if got := pipes(row); got != want {
					t.Errorf("table row has %d cells, header %d: %q", got, want, row)
				}
			}
		}
	}
	if len(raw) > 200<<10 {
		t.Errorf("%d bytes: the 100 KB strings were not bounded", len(out))
	}
}

func pipes(row string) int {
	n := 0
	for i := 0; i < len(row); i++ {
		if row[i] == '\\' {
			i++
			continue
		}
		if row[i] == '|' {
			n++
		}
	}
	return n
}

func TestCodeSpansSurviveBackticks(t *testing.T) {
	r := sample.Report()
	r.Findings[0].Evidence[0].URL = "https://api.example.com/``a`"
	out := render(t, markdown.Options{}, r)
	if !strings.Contains(out, "``` https://api.example.com/``a` ```") {
		t.Errorf("URL with backticks not fenced by a longer run:\n%s", out)
	}
}

func TestEmptyReport(t *testing.T) {
	out := render(t, markdown.Options{}, &finding.Report{Target: "http://127.0.0.1/"})
	if !strings.Contains(out, "grade **N/A**") || !strings.Contains(out, "No findings.") {
		t.Errorf("empty report:\n%s", out)
	}
}

func TestInterfacesNotOfferedIsNeverANumber(t *testing.T) {
	r := &finding.Report{Interfaces: &finding.Interfaces{Entries: []finding.InterfaceCost{
		{Interface: finding.InterfaceStatic, Reason: "no MCP tool catalog and no OpenAPI document"},
		{Interface: finding.InterfaceReferenced, Reason: "no references"},
		{Interface: finding.InterfaceDynamic, Reason: "no templates"},
	}}}
	md := render(t, markdown.Options{}, r)
	if !strings.Contains(md, "| A static | not offered: no MCP tool catalog and no OpenAPI document |  |  |  |  |") {
		t.Errorf("markdown:\n%s", md)
	}
	if strings.Contains(md, "| 0 |") {
		t.Errorf("a figure shown for an interface not offered:\n%s", md)
	}
}
