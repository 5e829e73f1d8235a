// Package pipeline is the scan's post-processing: what the user's policy
// (the configuration file, the baseline, a shard of a split scan) does to
// the checks' output. It is decided here and nowhere else, in two steps:
//
//  1. Before the run, Policy.Select decides which checks run at all: a
//     check turned off sends no request.
//  2. After it, Pipeline.Run passes the findings through the stages, in the
//     order of stages (the baseline's comparison among them), and leaves the
//     report's findings, check results and notes.
//
// Grading reads what the stages leave; nothing after them reorders, rewrites
// or drops a finding. The package reads findings, the OpenAPI document and
// the configuration; it never sends a request, renders or grades.
package pipeline

import (
	"cmp"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/spec"
)

// Select drops the checks the policy turns off, and says which it dropped.
// It runs before the checks: a check turned off sends no request.
func (p *Policy) Select(cs []checks.Check) (selected []checks.Check, notes []string) {
	if p == nil {
		return cs, nil
	}
	p.renames = checks.Renames(cs)
	for _, c := range cs {
		if p.enabled(c.Meta()) {
			selected = append(selected, c)
		}
	}
	return selected, append(p.renameNotes(), p.offNotes()...)
}

func (p *Policy) enabled(m checks.Meta) bool {
	if on, ok := p.Families[string(m.Family)]; ok && !on {
		return false
	}
	sev, ok := p.severity(m.ID)
	return !ok || sev != finding.SeverityNone
}

func (p *Policy) offNotes() []string {
	var notes []string
	var off []string
	for _, id := range slices.Sorted(maps.Keys(p.Severity)) {
		if p.Severity[id] == finding.SeverityNone {
			off = append(off, p.checkID(id))
		}
	}
	if len(off) > 0 {
		notes = append(notes, "turned off by the configuration: "+strings.Join(off, ", "))
	}
	var fams []string
	for _, f := range slices.Sorted(maps.Keys(p.Families)) {
		if !p.Families[f] {
			fams = append(fams, f)
		}
	}
	if len(fams) > 0 {
		notes = append(notes, "families left out by the configuration: "+strings.Join(fams, ", "))
	}
	return notes
}

// Pipeline is what the stages share besides the findings: what they read,
// the check results and rules that severity overrides and ignores rewrite,
// and what they produce besides the findings.
type Pipeline struct {
	// Doc is the OpenAPI document, to locate findings and to match ignores
	// narrowed to an operation; nil is none.
	Doc *spec.Document
	// Policy holds severity overrides, ignores and the baseline; nil is none.
	Policy *Policy
	// Now is the instant ignores expire by.
	Now time.Time
	// Shard keeps the findings of one shard of a split scan; nil keeps all.
	Shard *ShardFilter

	// Results are the checks' outcomes and Rules their metadata.
	Results []finding.CheckResult
	Rules   []finding.RuleInfo

	// Notes say what the policy did, for the report's notes.
	Notes []string
	// Ignored are the findings the ignores took out.
	Ignored []finding.Finding
	// Baseline compares the findings with the policy's baseline, if any.
	Baseline *finding.BaselineSummary
}

// stage is one named step of post-processing.
type stage struct {
	name string
	run  func(*Pipeline, []finding.Finding) []finding.Finding
}

// Name says which step it is.
func (s stage) Name() string { return s.name }

// stages is the order of post-processing. Dedupe comes before the policy so
// that a finding two checks both report is counted once by ignores and the
// baseline; the baseline comes after ignores because an ignored finding
// still exists (it is neither new nor fixed); sorting comes last because
// severity overrides change the order.
var stages = []stage{
	{"locate", locate},
	{"fingerprint", fingerprint},
	{"dedupe", dedupe},
	{"shard", keepShard},
	{"severity", overrideSeverity},
	{"ignore", ignore},
	{"recount", recount},
	{"baseline", compareBaseline},
	{"sort", sortFindings},
}

// Run passes the findings through every stage, in order.
func (p *Pipeline) Run(fs []finding.Finding) []finding.Finding {
	for _, s := range stages {
		fs = s.run(p, fs)
	}
	return fs
}

func fingerprint(_ *Pipeline, fs []finding.Finding) []finding.Finding {
	for i := range fs {
		fs[i].Fingerprint = partsOf(fs[i]).fingerprint(fs[i].CheckID)
	}
	return fs
}

// fingerprintParts are what a finding's fingerprint hashes besides its
// check's ID: its method, the shape of its URL's path, and its subject.
type fingerprintParts struct{ method, shape, subject string }

func partsOf(f finding.Finding) fingerprintParts {
	if aboutCatalog(f) {
		// A tool of an MCP catalog is the same tool whichever endpoint
		// listed it, or whichever file holds it, and so is a tool the
		// catalog lacks: a live scan and lint of the catalog give the
		// finding one fingerprint, by its check and subject.
		return fingerprintParts{subject: f.Subject}
	}
	if aboutOpenAPIDocument(f) {
		// So is the OpenAPI document whichever URL served it: a finding
		// about it has the fingerprint it has when the document is read
		// from a file (lint, scan --openapi FILE), with no request behind.
		f.Evidence = nil
	}
	return fingerprintParts{f.PrimaryMethod(), exchange.PathShape(exchange.PathOf(f.PrimaryURL())), f.Subject}
}

// aboutCatalog reports a finding about a tools/list answer, which its
// evidence points at: one of its tools (/result/tools/N...), or the list
// as a whole (/result/tools: a tool it lacks, what it costs).
func aboutCatalog(f finding.Finding) bool {
	if len(f.Evidence) == 0 {
		return false
	}
	p := f.Evidence[0].JSONPointer
	return p == "/result/tools" || strings.HasPrefix(p, "/result/tools/")
}

// aboutOpenAPIDocument reports a finding whose evidence is the GET that
// fetched the OpenAPI document: one about the document itself.
func aboutOpenAPIDocument(f finding.Finding) bool {
	return len(f.Evidence) > 0 && f.Evidence[0].Purpose == checks.PurposeOpenAPI
}

func (p fingerprintParts) fingerprint(checkID string) string {
	return finding.Fingerprint(checkID, p.method, p.shape, p.subject)
}

// dedupe drops findings that say the same thing about the same request; two
// checks planning the same probe must not report it twice.
func dedupe(_ *Pipeline, fs []finding.Finding) []finding.Finding {
	type key struct{ check, method, url, subject, message string }
	seen := map[key]bool{}
	out := fs[:0]
	for _, f := range fs {
		k := key{f.CheckID, f.PrimaryMethod(), f.PrimaryURL(), f.Subject, f.Message}
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, f)
	}
	return out
}

// overrideSeverity applies the policy's severities to findings, rules and
// results alike, so that every output agrees.
func overrideSeverity(p *Pipeline, fs []finding.Finding) []finding.Finding {
	if p.Policy == nil {
		return fs
	}
	for i := range fs {
		if s, ok := p.Policy.severity(fs[i].CheckID); ok {
			fs[i].Severity = s
		}
	}
	for i := range p.Rules {
		if s, ok := p.Policy.severity(p.Rules[i].ID); ok {
			p.Rules[i].Severity = s
		}
	}
	for i := range p.Results {
		if s, ok := p.Policy.severity(p.Results[i].ID); ok {
			p.Results[i].Severity = s
		}
	}
	return fs
}

// sortFindings orders by severity (most severe first), then check, URL,
// method, subject and message, so the same app gives the same report. The
// ignored findings are ordered the same way.
func sortFindings(p *Pipeline, fs []finding.Finding) []finding.Finding {
	slices.SortStableFunc(fs, compareFindings)
	slices.SortStableFunc(p.Ignored, compareFindings)
	return fs
}

func compareFindings(a, b finding.Finding) int {
	return cmp.Or(
		cmp.Compare(b.Severity, a.Severity),
		cmp.Compare(a.CheckID, b.CheckID),
		cmp.Compare(a.PrimaryURL(), b.PrimaryURL()),
		cmp.Compare(a.PrimaryMethod(), b.PrimaryMethod()),
		cmp.Compare(a.Subject, b.Subject),
		cmp.Compare(a.Message, b.Message),
	)
}

// SortFindings orders findings as the pipeline's last stage does, for
// reports joined after it ran (the shards of a split scan).
func SortFindings(fs []finding.Finding) { slices.SortStableFunc(fs, compareFindings) }
