package sample

import (
	"net/http"
	"strings"

	"github.com/agentready/agentready/internal/finding"
)

// Hostile payloads a scanned app can plant in any string of a report:
// markup and script for HTML, syntax for Markdown, escapes for terminals,
// invalid UTF-8 for every encoder, and sheer size. Pwned is the global the
// script payloads set, so a browser test can tell whether any of them ran.
const (
	Pwned         = "__agentreadyPwned"
	ScriptPayload = `<script>window.` + Pwned + `=1;alert(1)</script>`
	ImgPayload    = `<img src=x onerror="window.` + Pwned + `=2;alert(2)">`
	JSURL         = `javascript:window.` + Pwned + `=3;alert(3)`
	MarkdownBreak = "| broken | table |\n|---|---|\n[click](javascript:alert(4)) `code` **bold** <!-- comment --> @everyone #1"
	TerminalEsc   = "\x1b]0;pwned\x07\x1b[2J\x1b[31mred\x1b[0m \u009b31m \u202e"
	InvalidUTF8   = "\xff\xfe\x80 bad bytes \xc3\x28"
	// XMLBreak closes a CDATA section and opens an element.
	XMLBreak = "]]><injected/><![CDATA["
)

// Huge is a 100 KB string, with markup inside so a renderer that bounds it
// by cutting through a tag would show.
var Huge = strings.Repeat("A<b>", 25<<10)

// Payloads lists every hostile string.
func Payloads() []string {
	return []string{ScriptPayload, ImgPayload, JSURL, MarkdownBreak, TerminalEsc, InvalidUTF8, XMLBreak, Huge}
}

// Hostile returns the sample report with hostile strings in every field
// that can come from the app or from an edited JSON report.
func Hostile() *finding.Report {
	r := Report()
	all := strings.Join(Payloads(), " ")
	short := ScriptPayload + " " + ImgPayload + " " + MarkdownBreak + " " + TerminalEsc + " " + InvalidUTF8 + " " + XMLBreak
	r.Target = "https://api.example.com/" + short
	r.Tool.Version = short
	r.Tool.DocsURL = JSURL
	r.Notes = append(r.Notes, Payloads()...)
	r.Stats.Sampling = append(r.Stats.Sampling, finding.ShapeSample{Shape: all, Seen: 1, Sampled: 1})
	r.Stats.Skipped[short] = 1
	r.Stats.Addresses[all] = []string{all, short}
	r.Checks[5].Reason = all
	r.Checks[6].Reason = all
	r.Score.Families[len(r.Score.Families)-1].Reason = all
	r.Gate.Reason = all

	r.Rules[0].Title = short
	r.Rules[0].Help = all
	r.Rules[0].DocsURL = JSURL
	r.Rules[0].SpecRefs = []finding.SpecRef{{Doc: ScriptPayload, Section: MarkdownBreak, URL: JSURL, Level: ImgPayload}}
	r.Rules[1].DocsURL = "https://example.com/docs)(javascript:alert(5)"

	for i := range r.Findings {
		f := &r.Findings[i]
		f.Message = all
		f.Subject = short
		f.BaselineState = ImgPayload
		f.Location = &finding.SourceLocation{File: "../../" + short, Line: 3, Pointer: short}
		for j := range f.Evidence {
			e := &f.Evidence[j]
			e.URL = JSURL
			e.Purpose = short
			e.Header = ScriptPayload
			e.Expected = all
			e.Actual = short
			e.JSONPointer = short
			e.Excerpt = all
			e.Curl = "curl '" + JSURL + "' " + short
			e.RequestHeaders = http.Header{"X-Evil": {all}, "Authorization": {"Bearer secret-token"}}
			e.ResponseHeaders = http.Header{"Content-Type": {short}, "Set-Cookie": {"session=secret"}, ScriptPayload: {"x"}}
		}
	}
	r.Active = &finding.ActiveInfo{
		Allow:     []string{short, all},
		Confirmed: short,
		Sent: []finding.ActiveRequest{{
			ExchangeID: short, Identity: short, Purpose: short, Method: short,
			URL: "https://user:hunter2@api.example.com/" + short, Status: 200, Why: all,
		}},
	}
	// One finding with a credential in the URL, which every format must
	// redact.
	r.Findings[0].Evidence[0].URL = "https://user:hunter2@api.example.com/items/1"
	return r
}
