package sarif

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/report/internal/view"
)

// results converts every finding, ordered by check as in the other formats
// and then most severe first.
func (rp *Reporter) results(r *finding.Report, index map[string]int, anchor string) []Result {
	var out []Result
	var sev []finding.Severity
	for _, g := range view.Groups(r) {
		for i := range g.Findings {
			f := &g.Findings[i]
			out = append(out, rp.result(f, index, anchor))
			sev = append(sev, f.Severity)
		}
	}
	sortResults(out, sev)
	if out == nil {
		out = []Result{}
	}
	return out
}

func (rp *Reporter) result(f *finding.Finding, index map[string]int, anchor string) Result {
	loc, placed := rp.location(f.Location, anchor)
	res := Result{
		RuleID:              view.NonEmpty(view.Line(f.CheckID, 200), "unknown-check"),
		RuleIndex:           index[f.CheckID],
		Level:               level(f.Severity),
		Message:             Message{Text: message(f, placed, anchor)},
		Locations:           []Location{loc},
		PartialFingerprints: fingerprints(f),
		BaselineState:       baselineState(f.BaselineState),
		Properties:          resultProperties(f, placed),
	}
	if len(f.Evidence) > 0 {
		res.WebRequest, res.WebResponse = web(&f.Evidence[0])
	}
	return res
}

// location is the finding's spec region, or the anchor at line 1 when the
// finding has none the repository can hold.
func (rp *Reporter) location(l *finding.SourceLocation, anchor string) (Location, bool) {
	if l != nil && l.Line > 0 {
		if uri, ok := repoURI(l.File, rp.opts.BaseDir); ok {
			reg := Region{StartLine: l.Line, StartColumn: max(l.Column, 1)}
			if l.EndLine >= l.Line {
				reg.EndLine = l.EndLine
				if l.EndColumn > 0 && (l.EndLine > l.Line || l.EndColumn > reg.StartColumn) {
					reg.EndColumn = l.EndColumn
				}
			}
			return Location{PhysicalLocation: PhysicalLocation{ArtifactLocation: ArtifactLocation{URI: uri}, Region: reg}}, true
		}
	}
	return Location{PhysicalLocation: PhysicalLocation{
		ArtifactLocation: ArtifactLocation{URI: anchor},
		Region:           Region{StartLine: 1, StartColumn: 1},
	}}, false
}

// message is the finding's own message followed by the exchange that shows
// it; a finding reported on the anchor says so, since line 1 is not where
// the problem is.
func message(f *finding.Finding, placed bool, anchor string) string {
	msg := view.NonEmpty(view.Line(f.Message, maxMessage), f.CheckID)
	if len(f.Evidence) > 0 {
		e := &f.Evidence[0]
		target := strings.TrimSpace(view.Line(e.Method, 20) + " " + view.Line(view.URL(e.URL), maxValue))
		switch {
		case target == "":
		case e.Status > 0:
			msg += fmt.Sprintf(" (%s answered %d)", target, e.Status)
		default:
			msg += " (" + target + ")"
		}
	}
	if !placed {
		where := "no place in the spec file"
		if f.Location != nil && f.Location.File != "" {
			where = "a spec location outside the repository (" + view.Line(f.Location.File, 500) + ")"
		}
		msg += fmt.Sprintf(". Reported on %s line 1: this finding has %s.", view.Line(anchor, 500), where)
	}
	return msg
}

// fingerprints carries agentready's fingerprint, which hashes the check, the
// method, the path shape and the subject: no line number and no port, so an
// alert keeps its identity when the spec is edited or the server moves.
func fingerprints(f *finding.Finding) map[string]string {
	fp := f.Fingerprint
	if strings.TrimSpace(fp) == "" {
		fp = finding.Fingerprint(f.CheckID, f.PrimaryMethod(), urlPath(f.PrimaryURL()), f.Subject)
	}
	fp = view.Line(fp, 200)
	return map[string]string{
		"primaryLocationLineHash":  fp,
		"agentreadyFingerprint/v1": fp,
	}
}

func urlPath(raw string) string {
	if u, err := url.Parse(raw); err == nil {
		return u.EscapedPath()
	}
	return raw
}

// baselineState maps agentready's states onto SARIF's.
func baselineState(s string) string {
	switch s {
	case "new":
		return "new"
	case "existing":
		return "unchanged"
	}
	return ""
}

func resultProperties(f *finding.Finding, placed bool) map[string]any {
	p := map[string]any{"family": view.NonEmpty(view.Line(f.Family, 100), "unknown")}
	if !placed {
		p["anchored"] = true
	}
	if f.Location != nil && f.Location.Pointer != "" {
		p["specPointer"] = view.Line(f.Location.Pointer, maxValue)
	}
	if s := view.Line(f.Subject, maxValue); s != "" {
		p["subject"] = s
	}
	if len(f.Evidence) > 0 {
		e := &f.Evidence[0]
		if e.JSONPointer != "" {
			p["jsonPointer"] = view.Line(e.JSONPointer, maxValue)
		}
		if e.Expected != "" {
			p["expected"] = view.Line(e.Expected, maxValue)
		}
		if e.Actual != "" {
			p["actual"] = view.Line(e.Actual, maxValue)
		}
		if e.Curl != "" {
			p["curl"] = view.Line(view.Curl(e.Curl), 4*maxValue)
		}
	}
	if n := len(f.Evidence); n > 1 {
		p["exchanges"] = n
	}
	return p
}

// web converts the first piece of evidence. Headers were redacted when the
// exchange was recorded and are redacted again here.
func web(e *finding.Evidence) (*WebRequest, *WebResponse) {
	target := view.Line(view.URL(e.URL), maxValue)
	method := view.Line(e.Method, 20)
	if target == "" && method == "" {
		return nil, nil
	}
	u, err := url.Parse(e.URL)
	overHTTP := err == nil && (u.Scheme == "http" || u.Scheme == "https")
	if !overHTTP && e.Status == 0 {
		// Nothing was sent: the evidence names a file lint read (the
		// tools/list answer of --mcp-tools), which is no web request.
		return nil, nil
	}
	req := &WebRequest{Target: target, Method: method, Headers: headers(e.RequestHeaders)}
	if overHTTP {
		req.Protocol = u.Scheme
	}
	resp := &WebResponse{StatusCode: e.Status, Headers: headers(e.ResponseHeaders)}
	if ex := view.Line(e.Excerpt, maxExcerpt); ex != "" {
		resp.Body = &Content{Text: ex}
	}
	if e.Status == 0 {
		resp.NoResponseReceived = true
	}
	return req, resp
}

func headers(h map[string][]string) map[string]string {
	lines := view.Headers(h)
	if len(lines) == 0 {
		return nil
	}
	out := make(map[string]string, len(lines))
	for _, l := range lines {
		name := view.Line(l.Name, 200)
		v := view.Line(l.Value, maxValue)
		if prev, ok := out[name]; ok {
			v = prev + ", " + v
		}
		out[name] = v
	}
	return out
}
