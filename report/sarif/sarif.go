// Package sarif writes a report as SARIF 2.1.0 for GitHub code scanning.
//
// GitHub shows a result only when it has a file location in the repository,
// and a live-API scanner's findings are about URLs. So each result is placed
// on the spec file's region when the finding has one, and otherwise on a
// configurable anchor file (the OpenAPI document, else action.yml) at line 1,
// with the URL in the message; the HTTP exchange itself goes in webRequest and
// webResponse. Rules list every check that ran, results are cut at GitHub's
// limit after sorting by severity, and partialFingerprints carry agentready's
// own fingerprint, which ignores line numbers, so alerts survive reruns.
package sarif

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/report/internal/view"
)

// Fixed values of the format.
const (
	SchemaURI = "https://json.schemastore.org/sarif-2.1.0.json"
	Version   = "2.1.0"
	// MaxResults is GitHub's limit of results per run; above it the upload
	// is rejected.
	MaxResults = 25000
	// DefaultCategory separates agentready's uploads from other tools'.
	DefaultCategory = "agentready"
	// FallbackAnchor receives findings without a spec location when the
	// report names no OpenAPI file: every repository using the GitHub
	// Action has one.
	FallbackAnchor = "action.yml"
	// maxDescription is GitHub's limit on short and full descriptions, in
	// characters; we cut a little earlier so the ellipsis fits.
	maxDescription = 1000
	maxMessage     = 2000
	maxHelp        = 16 << 10
	maxValue       = 2000
	maxExcerpt     = 4000
)

// Options shape the SARIF output.
type Options struct {
	// Anchor is the repository-relative file that findings without a spec
	// location are reported on; empty means the report's OpenAPI file, else
	// FallbackAnchor.
	Anchor string
	// Category becomes automationDetails.id, so that scans of several
	// targets upload side by side; empty means DefaultCategory.
	Category string
	// BaseDir is the repository root (the working directory) against which
	// absolute paths are made relative.
	BaseDir string
	// MaxResults caps the results; 0 means MaxResults.
	MaxResults int
}

// Reporter writes SARIF.
type Reporter struct{ opts Options }

// New returns a SARIF reporter.
func New(opts Options) *Reporter {
	if opts.MaxResults <= 0 || opts.MaxResults > MaxResults {
		opts.MaxResults = MaxResults
	}
	if strings.TrimSpace(opts.Category) == "" {
		opts.Category = DefaultCategory
	}
	return &Reporter{opts: opts}
}

// Write encodes r as one SARIF log with one run.
func (rp *Reporter) Write(w io.Writer, r *finding.Report) error {
	if r == nil {
		return errors.New("sarif report: nil report")
	}
	log, err := rp.Build(r)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	if err := enc.Encode(log); err != nil {
		return fmt.Errorf("sarif report: %w", err)
	}
	_, err = w.Write(buf.Bytes())
	return err
}

// Build converts r without encoding it, for tests and for callers that merge
// runs.
func (rp *Reporter) Build(r *finding.Report) (*Log, error) {
	anchor, err := rp.anchor(r)
	if err != nil {
		return nil, err
	}
	rules, index := buildRules(r)
	results := rp.results(r, index, anchor)
	total := len(results)
	if total > rp.opts.MaxResults {
		results = results[:rp.opts.MaxResults]
	}
	run := Run{
		Tool: Tool{Driver: Driver{
			Name:            toolName(r),
			Version:         view.Line(r.Tool.Version, 100),
			SemanticVersion: semver(r.Tool.Version),
			InformationURI:  webURL(r.Tool.DocsURL),
			Rules:           rules,
		}},
		Invocations:       []Invocation{invocation(r, total, len(results))},
		AutomationDetails: &AutomationDetails{ID: automationID(rp.opts.Category)},
		Results:           results,
		Properties:        runProperties(r, anchor, total, len(results)),
	}
	return &Log{Schema: SchemaURI, Version: Version, Runs: []Run{run}}, nil
}

// ValidAnchor reports whether anchor can be used as --sarif-anchor: a file
// path inside the repository rooted at baseDir.
func ValidAnchor(anchor, baseDir string) error {
	if _, ok := repoURI(anchor, baseDir); !ok {
		return fmt.Errorf("%q is not a file path inside the repository (want a relative path such as openapi.yaml)", anchor)
	}
	return nil
}

func (rp *Reporter) anchor(r *finding.Report) (string, error) {
	a := rp.opts.Anchor
	if strings.TrimSpace(a) == "" {
		a = defaultAnchor(r, rp.opts.BaseDir)
	}
	uri, ok := repoURI(a, rp.opts.BaseDir)
	if !ok {
		return "", fmt.Errorf("sarif report: anchor %q is not a file path inside the repository", a)
	}
	return uri, nil
}

// defaultAnchor is the OpenAPI file the scan used, when the report names one
// the repository can contain (not a URL, not outside it), else action.yml.
func defaultAnchor(r *finding.Report, baseDir string) string {
	if r.Spec != nil {
		if _, ok := repoURI(r.Spec.Source, baseDir); ok {
			return r.Spec.Source
		}
	}
	for _, f := range r.Findings {
		// Findings placed in the spec all name the same document.
		if f.Location != nil && f.Location.File != "" {
			if _, ok := repoURI(f.Location.File, baseDir); ok {
				return f.Location.File
			}
		}
	}
	return FallbackAnchor
}

func toolName(r *finding.Report) string {
	if n := view.Line(r.Tool.Name, 100); strings.TrimSpace(n) != "" {
		return n
	}
	return "agentready"
}

// semanticVersionPattern is Semantic Versioning 2.0.0's own regular
// expression (semver.org, "Is there a suggested regular expression"):
// MAJOR.MINOR.PATCH without leading zeros, then an optional pre-release and
// build metadata.
var semanticVersionPattern = regexp.MustCompile(`^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)` +
	`(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?` +
	`(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$`)

// maxSemanticVersion bounds what is copied from the report: a longer
// version is left out rather than cut, which could leave an invalid one.
const maxSemanticVersion = 100

// semver returns v without a Go-style leading "v" when the rest is a
// semantic version, which GitHub prefers over the free-form version, and ""
// otherwise: SARIF 2.1.0 §3.19.9 requires semanticVersion to be one, so a
// "dev" build writes none.
func semver(v string) string {
	v = strings.TrimPrefix(v, "v")
	if len(v) > maxSemanticVersion || !semanticVersionPattern.MatchString(v) {
		return ""
	}
	return v
}

// automationID makes the category GitHub derives from the id (everything up
// to the last slash) equal to the category given.
func automationID(category string) string {
	c := view.Line(strings.TrimSpace(category), 200)
	if strings.HasSuffix(c, "/") {
		return c
	}
	return c + "/"
}

func invocation(r *finding.Report, total, kept int) Invocation {
	inv := Invocation{ExecutionSuccessful: !r.Stats.Interrupted}
	if !r.StartedAt.IsZero() {
		inv.StartTimeUTC = r.StartedAt.UTC().Format(time.RFC3339)
	}
	if !r.FinishedAt.IsZero() {
		inv.EndTimeUTC = r.FinishedAt.UTC().Format(time.RFC3339)
	}
	if partial := view.PartialLine(r); partial != "" {
		// A run that did not end is a failed execution; one its budget
		// cut ended, but judged less than the API.
		level := "warning"
		if r.Stats.Interrupted {
			level = "error"
		}
		inv.Notifications = append(inv.Notifications, Notification{Level: level, Message: Message{Text: partial}})
	}
	if warning := view.TLSUnverifiedLine(r); warning != "" {
		inv.Notifications = append(inv.Notifications, Notification{Level: "warning", Message: Message{Text: warning}})
	}
	for _, n := range r.Notes {
		inv.Notifications = append(inv.Notifications, Notification{Level: "note", Message: Message{Text: view.NonEmpty(view.Line(n, maxMessage), "note")}})
	}
	if kept < total {
		inv.Notifications = append(inv.Notifications, Notification{Level: "warning", Message: Message{
			Text: fmt.Sprintf("%d results exceed the limit of %d per run; the %d most severe are included, see the JSON report for all", total, kept, kept),
		}})
	}
	return inv
}

func runProperties(r *finding.Report, anchor string, total, kept int) map[string]any {
	p := map[string]any{
		"target": view.Line(view.URL(r.Target), maxValue),
		"grade":  view.Line(view.Grade(r), 10),
		"score":  r.Score.Value,
		"anchor": anchor,
	}
	if b := view.Basis(r); b != "" {
		p["gradeBasis"] = b
	}
	if sh := view.ShardLabel(r); sh != "" {
		p["shard"] = sh
	}
	if c := coverageProperties(r); c != nil {
		p["coverage"] = c
	}
	if kept < total {
		p["resultsTotal"] = total
		p["resultsTruncated"] = true
	}
	if a := r.Active; a != nil {
		p["activeProbes"] = activeProbes(a)
	}
	return p
}

// coverageProperties say what the grade rests on: what the scan reached,
// the share of GET operations, the count per reason for the rest, and the
// likely cause when it reached nothing.
func coverageProperties(r *finding.Report) map[string]any {
	c := r.Coverage
	if c == nil {
		return nil
	}
	pages := map[string]int{}
	for class, n := range c.Pages {
		pages[view.Line(class, 10)] = n
	}
	p := map[string]any{"summary": view.CoverageLine(r), "pages": pages, "apiResources": c.APIResources}
	if ops := c.Operations; ops != nil {
		reasons := map[string]int{}
		for _, rc := range view.ReasonCounts(ops) {
			reasons[rc.Reason] = rc.Count
		}
		p["operations"] = map[string]any{"declared": ops.Declared, "reached": ops.Reached, "notReached": reasons}
	}
	if pct := c.Percent(); pct >= 0 {
		p["percent"] = pct
	}
	if cause := view.Cause(r); cause != "" {
		p["cause"] = cause
	}
	if c.Stopped() {
		p["interrupted"] = view.Line(c.Interrupted, maxValue)
	}
	if cut := r.Stats.BudgetCut; len(cut) > 0 {
		phases := make([]string, len(cut))
		for i, phase := range cut {
			phases[i] = view.Line(phase, 20)
		}
		p["budgetCut"] = phases
	}
	return p
}

// activeProbes tells code scanning that the scan changed state on the
// target, and exactly how.
func activeProbes(a *finding.ActiveInfo) map[string]any {
	allow := make([]string, len(a.Allow))
	for i, s := range a.Allow {
		allow[i] = view.Line(s, maxValue)
	}
	sent := make([]map[string]any, len(a.Sent))
	for i, s := range a.Sent {
		sent[i] = map[string]any{
			"exchangeId": view.Line(s.ExchangeID, 20), "identity": view.Line(s.Identity, 100), "purpose": view.Line(s.Purpose, 100),
			"method": view.Line(s.Method, 20), "url": view.Line(view.URL(s.URL), maxValue), "status": s.Status,
		}
	}
	return map[string]any{"allow": allow, "confirmed": view.Line(a.Confirmed, 20), "sent": sent}
}

// level maps a severity to a SARIF level.
func level(s finding.Severity) string {
	switch s {
	case finding.SeverityError:
		return "error"
	case finding.SeverityWarning:
		return "warning"
	case finding.SeverityInfo:
		return "note"
	}
	return "none"
}

// webURL returns s when it is an http(s) URL, else "": helpUri and
// informationUri must be absolute URIs, and nothing else is worth linking.
func webURL(s string) string {
	if view.IsWebURL(s) && len(s) <= maxValue {
		return s
	}
	return ""
}

// repoURI turns a file path into a repository-relative URI reference: forward
// slashes, cleaned, percent-encoded per segment. Absolute paths are made
// relative to baseDir; paths that leave the repository or are web URLs are
// refused, because GitHub rejects them.
func repoURI(p, baseDir string) (string, bool) {
	p = strings.TrimSpace(p)
	if p == "" || strings.Contains(p, "://") || strings.ContainsAny(p, "\x00\r\n") {
		return "", false
	}
	if filepath.IsAbs(p) || path.IsAbs(filepath.ToSlash(p)) {
		if baseDir == "" {
			return "", false
		}
		rel, err := filepath.Rel(baseDir, p)
		if err != nil {
			return "", false
		}
		p = rel
	}
	p = path.Clean(filepath.ToSlash(p))
	if p == "." || p == ".." || strings.HasPrefix(p, "../") || path.IsAbs(p) {
		return "", false
	}
	segs := strings.Split(p, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	uri := strings.Join(segs, "/")
	if strings.Contains(segs[0], ":") {
		// "c:foo" would read as a URI scheme.
		uri = "./" + uri
	}
	return uri, true
}

// sortResults orders results most severe first, keeping the check grouping
// within one severity, so cutting at the limit drops the least severe.
func sortResults(results []Result, sev []finding.Severity) {
	idx := make([]int, len(results))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return sev[idx[a]] > sev[idx[b]] })
	sorted := make([]Result, len(results))
	for i, j := range idx {
		sorted[i] = results[j]
	}
	copy(results, sorted)
}
