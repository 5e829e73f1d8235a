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
//     errored) is "not assessed": it has no subscore, and it never counts
//     as a pass. Its reason names what kept its checks from running: the
//     skip reason most of them gave (the first by check ID on a tie), how
//     many it covers when they differ, and how many errored.
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
	"fmt"
	"slices"
	"sort"
	"strings"

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
	// skipReasons counts the checks skipped for each reason, in the order
	// the reasons were first met.
	skipReasons []reasonCount
}

type reasonCount struct {
	reason string
	checks int
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
		t.countSkip(res.Reason)
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

// skipPrefix starts the skip reasons of checks that say themselves they
// were not assessed; the family's reason says so once.
const skipPrefix = "not assessed: "

func (t *tally) countSkip(reason string) {
	reason = strings.TrimPrefix(reason, skipPrefix)
	if reason == "" {
		return
	}
	for i := range t.skipReasons {
		if t.skipReasons[i].reason == reason {
			t.skipReasons[i].checks++
			return
		}
	}
	t.skipReasons = append(t.skipReasons, reasonCount{reason: reason, checks: 1})
}

// notAssessedReason says why no check of the family reached a verdict: the
// reason most of its checks were skipped for (the first met on a tie, by
// check ID), how many checks it covers when not all, and how many errored.
func (t *tally) notAssessedReason() string {
	if t.skipped == 0 && t.errored > 0 {
		return "every check of the family errored"
	}
	var main reasonCount
	for _, rc := range t.skipReasons {
		if rc.checks > main.checks {
			main = rc
		}
	}
	why := "no check of the family ran"
	if main.reason != "" {
		why += " because " + main.reason
		if all := t.skipped + t.errored; main.checks < all {
			why += fmt.Sprintf(" (%d of %d checks; the others for other reasons)", main.checks, all)
		}
	}
	if t.errored > 0 {
		why += fmt.Sprintf("; %d errored", t.errored)
	}
	return why
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

// sortedByID makes the family's reason independent of the order in which
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
