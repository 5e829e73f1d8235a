// Package score grades a scan and decides its gate. Both are pure: the same
// report and options always give the same Score and Gate. It imports only
// finding, so anything that has a report can grade it.
//
// # Policy v1
//
// Each check that ran ends as passed, failed, skipped or errored.
//
//   - A failed check counts once, at the highest severity among its findings,
//     however many URLs it fired on: a systemic problem on 500 URLs is one
//     failed check. A failed check without findings counts at the severity of
//     its result.
//   - Penalty per failed check: error 20, warning 5, info 0.
//   - Skipped and errored checks count neither as passed nor as failed.
//   - Family subscore = max(0, 100 − sum of the penalties of the family's
//     failed checks).
//   - A family in which no check passed or failed (every check skipped or
//     errored) is "not assessed": it has no subscore, its reason is the first
//     skip reason (by check ID), and it never counts as a pass.
//   - Overall score = max(0, 100 − sum of the penalties of every assessed
//     family). When nothing at all was assessed the grade is
//     finding.GradeNotAssessed ("N/A") and the score 0.
//   - Letter grades follow the MDN HTTP Observatory chart (the score is
//     rounded down to a multiple of 5 and capped at 100): 100 A+, 90–99 A,
//     85–89 A-, 80–84 B+, 70–79 B, 65–69 B-, 60–64 C+, 50–59 C, 45–49 C-,
//     40–44 D+, 30–39 D, 25–29 D-, 0–24 F.
//
// Fixing a finding never lowers the score: penalties only add up, and
// removing a finding can only lower the highest severity of its check.
//
// Families are reported in the order the caller gives (the checks' report
// order), and only those with at least one check among the rules of the
// report.
package score

import (
	"slices"
	"sort"

	"github.com/agentready/agentready/internal/finding"
)

// Compute grades a scan. families is the order to report families in; rules
// are the checks that ran, results their outcomes and findings the
// occurrences of the failed ones. A result whose family has no rule is left
// out, as is any finding of a check without a failed result: the result, not
// the finding, says whether a check failed.
func Compute(families []string, rules []finding.RuleInfo, results []finding.CheckResult, findings []finding.Finding) finding.Score {
	worst := worstSeverityByCheck(findings)
	ruleFamily := make(map[string]string, len(rules))
	tallies := map[string]*tally{}
	for _, r := range rules {
		ruleFamily[r.ID] = r.Family
		if tallies[r.Family] == nil {
			tallies[r.Family] = &tally{}
		}
	}

	for _, res := range sortedByID(results) {
		family := res.Family
		if family == "" {
			family = ruleFamily[res.ID]
		}
		if t := tallies[family]; t != nil {
			t.add(res, worst)
		}
	}

	score := finding.Score{PolicyVersion: PolicyVersion, Grade: finding.GradeNotAssessed}
	total, assessed := 0, false
	for _, family := range familyOrder(families, tallies) {
		fs := tallies[family].familyScore(family)
		if fs.Assessed {
			assessed = true
			total += tallies[family].penalty
		}
		score.Families = append(score.Families, fs)
	}
	if assessed {
		score.Value = max(0, maxScore-total)
		score.Grade = Letter(score.Value)
	}
	return score
}

// Penalty is what one failed check of severity s costs.
func Penalty(s finding.Severity) int { return penalties[s] }

// tally accumulates one family's results.
type tally struct {
	passed, failed, skipped, errored int
	penalty                          int
	skipReason                       string
}

func (t *tally) add(res finding.CheckResult, worst map[string]finding.Severity) {
	switch res.Status {
	case finding.StatusPass:
		t.passed++
	case finding.StatusFail:
		t.failed++
		sev, ok := worst[res.ID]
		if !ok {
			sev = res.Severity
		}
		t.penalty += Penalty(sev)
	case finding.StatusSkip:
		t.skipped++
		if t.skipReason == "" {
			t.skipReason = res.Reason
		}
	case finding.StatusError:
		t.errored++
	}
}

func (t *tally) familyScore(family string) finding.FamilyScore {
	fs := finding.FamilyScore{
		Family: family, Passed: t.passed, Failed: t.failed, Skipped: t.skipped, Errored: t.errored,
	}
	if t.passed+t.failed == 0 {
		fs.Reason = t.notAssessedReason()
		return fs
	}
	fs.Assessed = true
	fs.Value = max(0, maxScore-t.penalty)
	fs.Grade = Letter(fs.Value)
	return fs
}

func (t *tally) notAssessedReason() string {
	switch {
	case t.skipReason != "":
		return t.skipReason
	case t.skipped > 0:
		return "every check was skipped"
	case t.errored > 0:
		return "every check errored"
	}
	return "no check ran"
}

func worstSeverityByCheck(findings []finding.Finding) map[string]finding.Severity {
	worst := map[string]finding.Severity{}
	for _, f := range findings {
		if cur, ok := worst[f.CheckID]; !ok || f.Severity > cur {
			worst[f.CheckID] = f.Severity
		}
	}
	return worst
}

// sortedByID makes "the first skip reason" independent of the order in which
// checks finished.
func sortedByID(results []finding.CheckResult) []finding.CheckResult {
	out := slices.Clone(results)
	sort.SliceStable(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// familyOrder lists the present families in the given order, then any
// family the order does not name (a report from a newer release)
// alphabetically.
func familyOrder(families []string, present map[string]*tally) []string {
	order := make([]string, 0, len(present))
	known := map[string]bool{}
	for _, f := range families {
		known[f] = true
		if present[f] != nil {
			order = append(order, f)
		}
	}
	var unknown []string
	for f := range present {
		if !known[f] {
			unknown = append(unknown, f)
		}
	}
	sort.Strings(unknown)
	return append(order, unknown...)
}

// Letter maps a score to its letter grade; scores outside 0–100 are clamped.
func Letter(score int) string {
	bucket := min(max(score, 0), maxScore) / bucketSize * bucketSize
	grades := finding.Grades()
	for i, least := range letterMinimums {
		if bucket >= least {
			return grades[i]
		}
	}
	return grades[len(grades)-1]
}
