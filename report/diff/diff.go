// Package diff compares two saved reports of one target: how each family's
// grade moved, which findings are new, fixed or changed severity, and how
// the agent surface drifted (internal/surfacediff over the two snapshots). It
// renders the comparison as text, JSON and Markdown, the last for a
// pull-request comment. `agentready report diff` is its command.
package diff

import (
	"cmp"
	"maps"
	"slices"

	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/surfacediff"
)

// Diff is the comparison of an old report with a new one.
type Diff struct {
	Old Side `json:"old"`
	New Side `json:"new"`
	// Families are in the new report's order, then families only the old
	// one graded; empty when either report carries no score (a baseline
	// file written before baselines kept it).
	Families []FamilyDelta `json:"families"`
	// NewFindings, FixedFindings and ChangedFindings compare findings by
	// fingerprint, drift findings aside (Drift shows the surface itself).
	NewFindings     []Item    `json:"newFindings"`
	FixedFindings   []Item    `json:"fixedFindings"`
	ChangedFindings []Changed `json:"changedFindings"`
	Drift           Drift     `json:"drift"`
	// Breaking is set when the agent surface changed in a way that breaks
	// agents built against the old one; the command then exits 1.
	Breaking bool `json:"breaking"`
}

// Side identifies one report.
type Side struct {
	Target  string `json:"target"`
	Version string `json:"version,omitempty"`
	// Grade and Score are empty and 0 when the report carries no score.
	Grade string `json:"grade,omitempty"`
	Score int    `json:"score"`
}

// FamilyDelta is one family's state before and after; Old or New is nil
// when that report does not have the family.
type FamilyDelta struct {
	Family string       `json:"family"`
	Old    *FamilyState `json:"old,omitempty"`
	New    *FamilyState `json:"new,omitempty"`
	// Delta is New.Value - Old.Value when the family is graded in both.
	Delta *int `json:"delta,omitempty"`
}

// FamilyState is a family's state, value and grade in one report.
type FamilyState struct {
	State string `json:"state"`
	Value int    `json:"value"`
	Grade string `json:"grade,omitempty"`
}

// Item is one finding, by fingerprint.
type Item struct {
	Fingerprint string           `json:"fingerprint"`
	CheckID     string           `json:"checkId"`
	Severity    finding.Severity `json:"severity"`
	Message     string           `json:"message"`
	URL         string           `json:"url,omitempty"`
}

// Changed is a finding found in both reports at another severity.
type Changed struct {
	Item
	OldSeverity finding.Severity `json:"oldSeverity"`
}

// Drift is how the agent surface changed.
type Drift struct {
	// Compared is false when either report carries no surface snapshot;
	// Reason then says which.
	Compared bool     `json:"compared"`
	Reason   string   `json:"reason,omitempty"`
	Changes  []Change `json:"changes"`
}

// Change is one change to the surface (see internal/surfacediff).
type Change struct {
	Check    string        `json:"check"`
	Subject  string        `json:"subject"`
	Breaking bool          `json:"breaking"`
	Summary  string        `json:"summary"`
	Diffs    []PointerDiff `json:"diffs"`
}

// PointerDiff is one changed value in the snapshot; "" is absent.
type PointerDiff struct {
	Pointer string `json:"pointer"`
	Before  string `json:"before,omitempty"`
	After   string `json:"after,omitempty"`
}

// Compare compares two reports.
func Compare(before, after *finding.Report) *Diff {
	d := &Diff{Old: side(before), New: side(after), NewFindings: []Item{}, FixedFindings: []Item{}, ChangedFindings: []Changed{}}
	if len(before.Score.Families) > 0 && len(after.Score.Families) > 0 {
		d.Families = families(before.Score.Families, after.Score.Families)
	}
	d.NewFindings, d.FixedFindings, d.ChangedFindings = compareFindings(before.Findings, after.Findings)
	d.Drift = surfaceDrift(before.Snapshot, after.Snapshot)
	d.Breaking = slices.ContainsFunc(d.Drift.Changes, func(c Change) bool { return c.Breaking })
	return d
}

func side(r *finding.Report) Side {
	return Side{Target: r.Target, Version: r.Tool.Version, Grade: r.Score.Grade, Score: r.Score.Value}
}

func families(before, after []finding.FamilyScore) []FamilyDelta {
	byName := func(fs []finding.FamilyScore) map[string]*FamilyState {
		m := map[string]*FamilyState{}
		for _, f := range fs {
			m[f.Family] = &FamilyState{State: cmp.Or(f.State, finding.FamilyGraded), Value: f.Value, Grade: f.Grade}
		}
		return m
	}
	o, n := byName(before), byName(after)
	var order []string
	for _, f := range after {
		order = append(order, f.Family)
	}
	for _, f := range before {
		if n[f.Family] == nil {
			order = append(order, f.Family)
		}
	}
	out := make([]FamilyDelta, 0, len(order))
	for _, name := range order {
		fd := FamilyDelta{Family: name, Old: o[name], New: n[name]}
		if fd.Old != nil && fd.New != nil && fd.Old.State == finding.FamilyGraded && fd.New.State == finding.FamilyGraded {
			delta := fd.New.Value - fd.Old.Value
			fd.Delta = &delta
		}
		out = append(out, fd)
	}
	return out
}

// compareFindings pairs findings by fingerprint; a fingerprint found at
// several URLs counts once, by its most severe occurrence.
func compareFindings(before, after []finding.Finding) (added, fixed []Item, changed []Changed) {
	o, n := byFingerprint(before), byFingerprint(after)
	added, fixed, changed = []Item{}, []Item{}, []Changed{}
	for _, fp := range slices.Sorted(maps.Keys(n)) {
		switch prev, ok := o[fp]; {
		case !ok:
			added = append(added, n[fp])
		case prev.Severity != n[fp].Severity:
			changed = append(changed, Changed{Item: n[fp], OldSeverity: prev.Severity})
		}
	}
	for _, fp := range slices.Sorted(maps.Keys(o)) {
		if _, ok := n[fp]; !ok {
			fixed = append(fixed, o[fp])
		}
	}
	order := func(a, b Item) int {
		return cmp.Or(cmp.Compare(b.Severity, a.Severity), cmp.Compare(a.CheckID, b.CheckID), cmp.Compare(a.Fingerprint, b.Fingerprint))
	}
	slices.SortFunc(added, order)
	slices.SortFunc(fixed, order)
	slices.SortFunc(changed, func(a, b Changed) int { return order(a.Item, b.Item) })
	return added, fixed, changed
}

func byFingerprint(fs []finding.Finding) map[string]Item {
	out := map[string]Item{}
	for _, f := range fs {
		if f.Family == finding.DriftFamily || f.Fingerprint == "" {
			continue
		}
		if prev, ok := out[f.Fingerprint]; ok && prev.Severity >= f.Severity {
			continue
		}
		out[f.Fingerprint] = Item{Fingerprint: f.Fingerprint, CheckID: f.CheckID, Severity: f.Severity, Message: f.Message, URL: f.PrimaryURL()}
	}
	return out
}

func surfaceDrift(before, after *finding.Snapshot) Drift {
	switch {
	case before == nil && after == nil:
		return Drift{Reason: "neither report carries a surface snapshot", Changes: []Change{}}
	case before == nil:
		return Drift{Reason: "the old report carries no surface snapshot (rewrite it with this release)", Changes: []Change{}}
	case after == nil:
		return Drift{Reason: "the new report carries no surface snapshot", Changes: []Change{}}
	}
	out := Drift{Compared: true, Changes: []Change{}}
	for _, c := range surfacediff.Compare(before, after) {
		ch := Change{Check: "drift-" + string(c.Kind), Subject: c.Subject, Breaking: c.Breaking, Summary: c.Summary, Diffs: []PointerDiff{}}
		for _, pd := range c.Diffs {
			ch.Diffs = append(ch.Diffs, PointerDiff{Pointer: pd.Pointer, Before: pd.Before, After: pd.After})
		}
		out.Changes = append(out.Changes, ch)
	}
	slices.SortStableFunc(out.Changes, func(a, b Change) int {
		if a.Breaking != b.Breaking {
			if a.Breaking {
				return -1
			}
			return 1
		}
		return 0
	})
	return out
}
