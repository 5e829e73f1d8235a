package pipeline

import (
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/internal/config"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/spec"
	"github.com/agentready/agentready/internal/urlx"
)

// Policy is the user's tuning of a scan: which checks run, at which
// severity, which findings are accepted, and the baseline to compare with.
// Select applies it before the checks and the pipeline after them, before
// grading, so that the grade reflects it (pipeline.go). The zero value (and
// nil) changes nothing.
type Policy struct {
	// Severity overrides the severity of every finding of a check;
	// SeverityNone turns the check off.
	Severity map[string]finding.Severity
	// Families maps a family to false to leave it out.
	Families map[string]bool
	// Ignores leave matching findings out of the grade and the gate.
	Ignores []config.Ignore
	// Baseline marks each finding new or existing, and lists the fixed ones.
	Baseline *Baseline
	// Now is the clock ignores expire by; nil means time.Now.
	Now func() time.Time

	// renames map the checks' former IDs to their IDs now, learnt by
	// Select, so that what the user names by a former ID applies to the
	// renamed check.
	renames map[string]string
}

// checkID is the ID now of the check the user named id, an ID or a former
// one.
func (p *Policy) checkID(id string) string {
	if now := p.renames[id]; now != "" {
		return now
	}
	return id
}

// severity is the override of check id, named by its ID or a former one;
// the one that names its ID wins, then the first former ID in sorted order.
func (p *Policy) severity(id string) (finding.Severity, bool) {
	if s, ok := p.Severity[id]; ok || len(p.renames) == 0 {
		return s, ok
	}
	for _, named := range slices.Sorted(maps.Keys(p.Severity)) {
		if p.renames[named] == id {
			return p.Severity[named], true
		}
	}
	return finding.SeverityNone, false
}

// renameNotes say which checks the configuration names by a former ID.
func (p *Policy) renameNotes() []string {
	named := slices.Collect(maps.Keys(p.Severity))
	for _, ig := range p.Ignores {
		named = append(named, ig.Check)
	}
	slices.Sort(named)
	var renamed []string
	for _, id := range slices.Compact(named) {
		if now := p.renames[id]; now != "" {
			renamed = append(renamed, fmt.Sprintf("%s (now %s)", id, now))
		}
	}
	if len(renamed) == 0 {
		return nil
	}
	return []string{"the configuration names checks by their former IDs, which apply to the checks as renamed: " + strings.Join(renamed, ", ")}
}

// PolicyFromConfig turns the file's check settings into a Policy.
func PolicyFromConfig(f *config.File) (*Policy, error) {
	p := &Policy{Severity: map[string]finding.Severity{}, Families: maps.Clone(f.Families), Ignores: f.Ignores}
	for id, s := range f.Checks {
		sev, err := finding.ParseSeverity(s)
		if err != nil {
			return nil, fmt.Errorf("checks.%s: %w", id, err)
		}
		p.Severity[id] = sev
	}
	return p, nil
}

// BaselineSnapshot is the surface the baseline recorded, which the checks
// compare this scan's with; nil without a baseline or when it has none.
func (p *Policy) BaselineSnapshot() *finding.Snapshot {
	if p == nil || p.Baseline == nil {
		return nil
	}
	return p.Baseline.Snapshot
}

// Clock is the time ignores expire by.
func (p *Policy) Clock() time.Time {
	if p == nil || p.Now == nil {
		return time.Now()
	}
	return p.Now()
}

// ignore keeps the findings no ignore matches and moves the others to
// Ignored, with the reason; it notes what each ignore did, expired and
// unused ones included.
func ignore(p *Pipeline, fs []finding.Finding) []finding.Finding {
	if p.Policy == nil {
		return fs
	}
	kept, ignored, notes := p.Policy.ignore(fs, p.Doc, p.Now)
	p.Ignored = append(p.Ignored, ignored...)
	p.Notes = append(p.Notes, notes...)
	return kept
}

func (p *Policy) ignore(fs []finding.Finding, doc *spec.Document, now time.Time) (kept, ignored []finding.Finding, notes []string) {
	hits := make([]int, len(p.Ignores))
	expiredHits := make([]int, len(p.Ignores))
	for _, f := range fs {
		matched := false
		for i, ig := range p.Ignores {
			ig.Check = p.checkID(ig.Check)
			if !matches(ig, f, doc) {
				continue
			}
			if ig.Expired(now) {
				expiredHits[i]++
				continue
			}
			hits[i]++
			if !matched {
				matched = true
				f.Suppression = &finding.Suppression{Reason: ig.Reason, Expires: ig.Expires}
				ignored = append(ignored, f)
			}
		}
		if !matched {
			kept = append(kept, f)
		}
	}
	for i, ig := range p.Ignores {
		ig.Check = p.checkID(ig.Check)
		switch {
		case ig.Expired(now):
			notes = append(notes, fmt.Sprintf("the ignore of %s expired on %s; %d finding(s) it matched count again (reason was: %s)",
				describe(ig), ig.Expires, expiredHits[i], ig.Reason))
		case hits[i] == 0:
			notes = append(notes, fmt.Sprintf("the ignore of %s matched no finding; remove it if the problem is gone", describe(ig)))
		default:
			notes = append(notes, fmt.Sprintf("%d finding(s) of %s ignored by the configuration: %s", hits[i], describe(ig), ig.Reason))
		}
	}
	return kept, ignored, notes
}

func describe(ig config.Ignore) string {
	s := ig.Check
	var narrow []string
	for _, x := range []string{ig.URL, ig.Operation, ig.Tool} {
		if x != "" {
			narrow = append(narrow, x)
		}
	}
	if len(narrow) > 0 {
		s += " (" + strings.Join(narrow, ", ") + ")"
	}
	return s
}

// matches reports whether every field the ignore sets matches the finding.
func matches(ig config.Ignore, f finding.Finding, doc *spec.Document) bool {
	if ig.Check != f.CheckID {
		return false
	}
	if ig.URL != "" && !urlMatches(ig.URL, f.PrimaryURL()) {
		return false
	}
	if ig.Operation != "" && !operationMatches(ig.Operation, f, doc) {
		return false
	}
	if ig.Tool != "" && toolOf(f) != ig.Tool {
		return false
	}
	return true
}

func urlMatches(pattern, raw string) bool {
	u, err := url.Parse(raw)
	if err != nil || raw == "" {
		return false
	}
	pathPattern := pattern
	if strings.Contains(pattern, "://") {
		pu, err := url.Parse(pattern)
		if err != nil || !strings.EqualFold(pu.Scheme, u.Scheme) || !strings.EqualFold(pu.Host, u.Host) {
			return false
		}
		pathPattern = pu.Path
	}
	p := u.Path
	if p == "" {
		p = "/"
	}
	return urlx.MatchPath(pathPattern, p)
}

// operationMatches accepts an operationId or "METHOD /template". The
// operation is found from the finding's request through the OpenAPI
// document, or from a subject that names the operation (MCP parity checks).
func operationMatches(want string, f finding.Finding, doc *spec.Document) bool {
	if doc != nil && f.PrimaryURL() != "" {
		if op := doc.Index().Match(f.PrimaryMethod(), f.PrimaryURL()); op != nil {
			return op.OperationID == want || op.Key() == want
		}
	}
	if doc != nil {
		for _, op := range doc.Operations {
			if (op.OperationID == want || op.Key() == want) && subjectNames(f.Subject, op.Key()) {
				return true
			}
		}
	}
	return false
}

// toolOf is the MCP tool a finding is about: MCP checks put the tool's name
// first in the subject ("name", "name|...", "name#duplicate").
func toolOf(f finding.Finding) string {
	if f.Family != string(checks.FamilyMCP) {
		return ""
	}
	name, _, _ := strings.Cut(f.Subject, "|")
	name, _, _ = strings.Cut(name, "#")
	return name
}

func subjectNames(subject, key string) bool {
	for _, part := range strings.Split(subject, "|") {
		if part == key {
			return true
		}
	}
	return false
}

// compareBaseline marks each finding new or existing and summarizes the
// comparison. Ignored findings still exist: compared with the baseline they
// are neither new nor fixed.
func compareBaseline(p *Pipeline, fs []finding.Finding) []finding.Finding {
	if p.Policy == nil || p.Policy.Baseline == nil {
		return fs
	}
	b := p.Policy.Baseline.renamed(p.Policy.renames)
	assessed := map[string]bool{}
	for _, r := range p.Results {
		assessed[r.ID] = r.Status == finding.StatusPass || r.Status == finding.StatusFail
	}
	all := append(slices.Clone(fs), p.Ignored...)
	cmp := b.Compare(all, func(id string) bool { return assessed[id] })
	sum := &finding.BaselineSummary{File: b.Path, Fixed: cmp.Fixed, Unverified: cmp.Unverified, Stale: len(cmp.Fixed) > 0}
	for i := range fs {
		if b.Has(fs[i].Fingerprint) {
			fs[i].BaselineState = finding.BaselineExisting
			sum.Existing++
		} else {
			fs[i].BaselineState = finding.BaselineNew
			sum.New++
		}
	}
	p.Baseline = sum
	p.Notes = append(p.Notes, baselineNote(sum))
	return fs
}

// recount makes each failed check's result agree with the findings left:
// a check all of whose findings are ignored passes, and its severity is the
// highest left.
func recount(p *Pipeline, fs []finding.Finding) []finding.Finding {
	left := map[string][]finding.Finding{}
	for _, f := range fs {
		left[f.CheckID] = append(left[f.CheckID], f)
	}
	ignored := map[string]int{}
	for _, f := range p.Ignored {
		ignored[f.CheckID]++
	}
	for i := range p.Results {
		r := &p.Results[i]
		n := ignored[r.ID]
		if r.Status != finding.StatusFail || n == 0 {
			continue
		}
		kept := left[r.ID]
		r.Observations = append(r.Observations, fmt.Sprintf("%d finding(s) ignored by the configuration", n))
		r.Findings = len(kept)
		if len(kept) == 0 {
			r.Status = finding.StatusPass
			continue
		}
		r.Severity = finding.SeverityNone
		for _, f := range kept {
			r.Severity = max(r.Severity, f.Severity)
		}
	}
	return fs
}

func baselineNote(b *finding.BaselineSummary) string {
	s := fmt.Sprintf("baseline %s: %d new, %d existing, %d fixed", b.File, b.New, b.Existing, len(b.Fixed))
	if len(b.Unverified) > 0 {
		s += fmt.Sprintf(", %d not verified (their checks did not run or were skipped)", len(b.Unverified))
	}
	if b.Stale {
		s += "; the baseline lists fixed findings: rewrite it with 'agentready baseline write'"
	}
	return s
}
