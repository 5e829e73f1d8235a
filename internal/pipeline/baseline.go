package pipeline

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/agentready/agentready/internal/finding"
)

// A baseline compares a scan with an earlier one by finding fingerprint, so
// that a team can gate on new problems only, see what it fixed, and keep the
// baseline shrinking; the pipeline's baseline stage marks each finding new
// or existing.
//
// A baseline is a JSON report (the json format), so any saved report can
// serve as one; WriteBaseline produces a trimmed report without timings or
// evidence bodies, so that a committed baseline changes only when findings
// do. Fingerprints ignore ports, IDs in paths and message wording.

// maxBaselineSize bounds the file read: a baseline of this size is already
// absurd.
const maxBaselineSize = 64 << 20

// Baseline is the set of findings of an earlier scan.
type Baseline struct {
	// Path is where it was read from, for the report.
	Path string
	// Entries are sorted by check, then fingerprint, one per fingerprint.
	Entries []finding.BaselineEntry
	// Snapshot is the agent surface the earlier scan saw, nil when its
	// report carries none (one written before reports did).
	Snapshot *finding.Snapshot
	byFP     map[string]bool
	// parts are what each entry's fingerprint hashes besides the check ID,
	// by fingerprint, to give a renamed check's entries the fingerprints
	// its findings have now (renamed).
	parts map[string]fingerprintParts
}

// LoadBaseline reads a JSON report as a baseline.
func LoadBaseline(path string) (*Baseline, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := ReadBaseline(io.LimitReader(f, maxBaselineSize))
	if err != nil {
		return nil, fmt.Errorf("baseline %s: %w", path, err)
	}
	b.Path = path
	return b, nil
}

// ReadBaseline decodes a JSON report as a baseline.
func ReadBaseline(r io.Reader) (*Baseline, error) {
	var rep struct {
		SchemaVersion *int              `json:"schemaVersion"`
		Findings      []finding.Finding `json:"findings"`
		Snapshot      *finding.Snapshot `json:"snapshot"`
	}
	if err := json.NewDecoder(r).Decode(&rep); err != nil {
		return nil, fmt.Errorf("not a JSON report: %w", err)
	}
	if rep.SchemaVersion == nil {
		return nil, errors.New("not a JSON report (no schemaVersion); write one with 'agentready baseline write' or --format json")
	}
	if *rep.SchemaVersion > finding.SchemaVersion {
		return nil, fmt.Errorf("report schema version %d is newer than this release reads (%d)", *rep.SchemaVersion, finding.SchemaVersion)
	}
	for i, f := range rep.Findings {
		if f.Fingerprint == "" {
			return nil, fmt.Errorf("finding %d (%s) has no fingerprint", i, f.CheckID)
		}
	}
	b := BaselineFromFindings(rep.Findings)
	b.Snapshot = rep.Snapshot
	return b, nil
}

// BaselineFromFindings builds a baseline from findings.
func BaselineFromFindings(fs []finding.Finding) *Baseline {
	b := &Baseline{byFP: map[string]bool{}, parts: map[string]fingerprintParts{}}
	for _, f := range fs {
		b.add(finding.BaselineEntry{
			Fingerprint: f.Fingerprint, CheckID: f.CheckID, Severity: f.Severity,
			Message: f.Message, URL: f.PrimaryURL(),
		}, partsOf(f))
	}
	b.sortEntries()
	return b
}

// add lists e unless an entry of its fingerprint is listed.
func (b *Baseline) add(e finding.BaselineEntry, parts fingerprintParts) {
	if b.byFP[e.Fingerprint] {
		return
	}
	b.byFP[e.Fingerprint] = true
	b.parts[e.Fingerprint] = parts
	b.Entries = append(b.Entries, e)
}

func (b *Baseline) sortEntries() {
	slices.SortFunc(b.Entries, func(x, y finding.BaselineEntry) int {
		return cmp.Or(cmp.Compare(x.CheckID, y.CheckID), cmp.Compare(x.Fingerprint, y.Fingerprint))
	})
}

// renamed is the baseline with the entries of a check's former ID
// (checks.Meta.Aliases) moved to its ID now, under the fingerprints its
// findings have now: a baseline written before a rename keeps matching the
// renamed check. It is b itself when no entry names a former ID.
func (b *Baseline) renamed(renames map[string]string) *Baseline {
	if !slices.ContainsFunc(b.Entries, func(e finding.BaselineEntry) bool { return renames[e.CheckID] != "" }) {
		return b
	}
	out := &Baseline{Path: b.Path, Snapshot: b.Snapshot, byFP: map[string]bool{}, parts: map[string]fingerprintParts{}}
	for _, e := range b.Entries {
		parts := b.parts[e.Fingerprint]
		if now := renames[e.CheckID]; now != "" {
			e.CheckID, e.Fingerprint = now, parts.fingerprint(now)
		}
		out.add(e, parts)
	}
	out.sortEntries()
	return out
}

// Has reports whether the baseline lists the fingerprint.
func (b *Baseline) Has(fingerprint string) bool { return b.byFP[fingerprint] }

// BaselineComparison is the outcome of comparing findings with a baseline.
type BaselineComparison struct {
	// States holds "new" or "existing" for each finding, in order.
	States []string
	// Fixed and Unverified are the baseline entries not found: fixed when
	// their check was assessed, unverified when it was not.
	Fixed, Unverified []finding.BaselineEntry
}

// Compare classifies findings against the baseline. assessed says whether a
// check ran and passed or failed this time; an entry whose check was not
// assessed (turned off, skipped, errored, or not in this build) is
// unverified rather than fixed, so an unreachable MCP endpoint cannot make a
// baseline look stale.
func (b *Baseline) Compare(fs []finding.Finding, assessed func(checkID string) bool) BaselineComparison {
	var c BaselineComparison
	found := map[string]bool{}
	for _, f := range fs {
		found[f.Fingerprint] = true
		if b.byFP[f.Fingerprint] {
			c.States = append(c.States, finding.BaselineExisting)
		} else {
			c.States = append(c.States, finding.BaselineNew)
		}
	}
	for _, e := range b.Entries {
		switch {
		case found[e.Fingerprint]:
		case assessed(e.CheckID):
			c.Fixed = append(c.Fixed, e)
		default:
			c.Unverified = append(c.Unverified, e)
		}
	}
	return c
}

// WriteBaseline writes rep as a baseline: a JSON report trimmed to what comparing
// needs and what a reviewer reads: one finding per fingerprint (the first
// URL of each), sorted so that it diffs well, and the surface snapshot the
// drift family compares with, and the score, so that `report diff` shows
// how each family moved since. Drift findings are left out: they compare
// rep with its own baseline, and this one replaces it.
func WriteBaseline(w io.Writer, rep *finding.Report) error {
	out := struct {
		SchemaVersion int               `json:"schemaVersion"`
		Tool          finding.ToolInfo  `json:"tool"`
		Target        string            `json:"target"`
		Score         *finding.Score    `json:"score,omitempty"`
		Findings      []finding.Finding `json:"findings"`
		Snapshot      *finding.Snapshot `json:"snapshot,omitempty"`
	}{SchemaVersion: finding.SchemaVersion, Tool: rep.Tool, Target: rep.Target, Findings: []finding.Finding{}, Snapshot: rep.Snapshot}
	if len(rep.Score.Families) > 0 {
		out.Score = &rep.Score
	}
	for _, f := range rep.Findings {
		if f.Family == finding.DriftFamily {
			continue
		}
		t := finding.Finding{
			CheckID: f.CheckID, Family: f.Family, Severity: f.Severity, Message: f.Message,
			Subject: f.Subject, Fingerprint: f.Fingerprint,
		}
		if len(f.Evidence) > 0 {
			t.Evidence = []finding.Evidence{{Method: f.Evidence[0].Method, URL: f.Evidence[0].URL}}
		}
		out.Findings = append(out.Findings, t)
	}
	slices.SortStableFunc(out.Findings, func(x, y finding.Finding) int {
		return cmp.Or(cmp.Compare(x.CheckID, y.CheckID), cmp.Compare(x.Fingerprint, y.Fingerprint),
			cmp.Compare(x.PrimaryURL(), y.PrimaryURL()))
	})
	out.Findings = slices.CompactFunc(out.Findings, func(x, y finding.Finding) bool { return x.Fingerprint == y.Fingerprint })
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
