// Package score grades a scan and decides its gate. Both are pure: the same
// report and options always give the same Score and Gate. It imports only
// finding, so anything that has a report can grade it.
//
// # Policy v3
//
// Each check that ran ends as passed, failed, skipped or errored.
//
//   - A failed check counts once, at the highest severity among its findings,
//     however many URLs it fired on: a systemic problem on 500 URLs is one
//     failed check. A failed check without findings counts at the severity of
//     its result.
//   - Penalty per failed check: error 20, warning 5, info 0.
//   - Skipped and errored checks count neither as passed nor as failed.
//   - A family whose surface the app does not have (no OpenAPI document, no
//     HAL, no MCP endpoint; Input.Needs and the coverage's surfaces) is "not
//     present" unless one of its checks failed: checks that pass without the
//     surface have nothing to judge. A family in which no check passed or
//     failed is "not assessed". Its reason names what kept its checks from
//     running: the skip reason most of them gave (the first by check ID on a
//     tie), how many it covers when they differ, and how many errored.
//     Neither has a subscore, and neither counts as a pass.
//   - Family subscore = max(0, 100 − sum of the penalties of the family's
//     failed checks). Reporters show how many of its checks were judged
//     when not all were.
//   - Overall score = the lowest subscore among the graded families, so
//     the grade never contradicts the family table: it is the weakest
//     family's. Score.Basis says which family that is.
//   - A failed security check that rests on a MUST or MUST NOT clause and
//     failed at error severity caps the overall score at 59 (C), whatever
//     the families score: one such defect (an MCP endpoint that serves any
//     foreign Origin, a per-caller response a shared cache may serve to
//     another caller) costs 20 in its family like any MUST, which alone
//     would leave a B+. Score.Basis names the checks that capped it.
//   - No grade (finding.GradeNotAssessed, "N/A", score 0) when a signal or
//     a fatal error stopped the scan before its end (finding.Coverage.Stopped;
//     a scan its budget cut is graded on what it reached), when more than
//     half of the crawl's GET requests stayed throttled after retrying
//     (finding.Coverage.Throttled), when the scan reached no API resource
//     (finding.Coverage.Reached), or when no family was graded.
//   - Letter grades follow the MDN HTTP Observatory chart (the score is
//     rounded down to a multiple of 5 and capped at 100): 100 A+, 90–99 A,
//     85–89 A-, 80–84 B+, 70–79 B, 65–69 B-, 60–64 C+, 50–59 C, 45–49 C-,
//     40–44 D+, 30–39 D, 25–29 D-, 0–24 F.
//
// Fixing a finding never lowers the score: penalties only add up, removing a
// finding can only lower the highest severity of its check, and a family
// that stops being graded leaves a minimum over fewer families, which is no
// lower. The one exception is a scan whose only graded family is one that
// stops being graded: it has no grade.
//
// How much of the API the scan reached does not move the grade; it is shown
// beside it, and the gate's minimum coverage turns it into a failure.
//
// Families are reported in the order the caller gives (the checks' report
// order), and only those with at least one check among the rules of the
// report.
//
// The OpenAPI document's own agent readiness is graded apart, with the same
// letters, on the share of its operations an agent could plan without a
// guess rather than on penalties per failed check: see Readiness.
package score

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/agentready/agentready/internal/finding"
)

// Input is what a scan is graded on.
type Input struct {
	// Families is the order to report families in.
	Families []string
	// Rules are the checks that ran, Results their outcomes and Findings the
	// occurrences of the failed ones.
	Rules    []finding.RuleInfo
	Results  []finding.CheckResult
	Findings []finding.Finding
	// Needs maps a family to the surface it judges (a finding.Surface
	// constant); a family whose surface Coverage does not list is not
	// present.
	Needs map[string]string
	// Coverage is what the scan reached; nil grades on the checks alone, as
	// for an OpenAPI document linted offline.
	Coverage *finding.Coverage
}

// Compute grades checks alone, with no coverage and no surfaces: see Grade.
func Compute(families []string, rules []finding.RuleInfo, results []finding.CheckResult, findings []finding.Finding) finding.Score {
	return Grade(Input{Families: families, Rules: rules, Results: results, Findings: findings})
}

// tallyByFamily tallies each result under its family (its own, else its
// rule's); a family with no rule is left out. ruleFamily is each rule's
// family, by check ID.
func tallyByFamily(rules []finding.RuleInfo, results []finding.CheckResult, worst map[string]finding.Severity) (tallies map[string]*tally, ruleFamily map[string]string) {
	ruleFamily = make(map[string]string, len(rules))
	tallies = map[string]*tally{}
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
	return tallies, ruleFamily
}

// Grade grades a scan. A result whose family has no rule is left out, as is
// any finding of a check without a failed result: the result, not the
// finding, says whether a check failed.
func Grade(in Input) finding.Score {
	worst := worstSeverityByCheck(in.Findings)
	tallies, _ := tallyByFamily(in.Rules, in.Results, worst)

	score := finding.Score{PolicyVersion: PolicyVersion}
	for _, family := range familyOrder(in.Families, tallies) {
		score.Families = append(score.Families, tallies[family].familyScore(family, absence(in, family)))
	}
	overall(&score, in.Coverage)
	capForSecurity(&score, securityMustFailures(in, worst))
	return score
}

// securityCap is the highest overall score a scan with a failed security
// MUST can get: the top of C, below every C+.
const securityCap = 59

// mustLevels are the clause levels that make a failed security check cap
// the grade; a SHOULD or advice does not.
var mustLevels = map[string]bool{"MUST": true, "MUST NOT": true}

// securityMustFailures lists, by check ID, the failed checks marked security
// that rest on a MUST or MUST NOT clause and failed at error severity: a
// security check that only fired at a lower severity found no violation of
// the requirement.
func securityMustFailures(in Input, worst map[string]finding.Severity) []string {
	rules := make(map[string]finding.RuleInfo, len(in.Rules))
	for _, r := range in.Rules {
		rules[r.ID] = r
	}
	var ids []string
	for _, res := range sortedByID(in.Results) {
		r, ok := rules[res.ID]
		if res.Status != finding.StatusFail || !ok || !r.Security || !restsOnMust(r.SpecRefs) {
			continue
		}
		sev, found := worst[res.ID]
		if !found {
			sev = res.Severity
		}
		if sev == finding.SeverityError {
			ids = append(ids, res.ID)
		}
	}
	return ids
}

func restsOnMust(refs []finding.SpecRef) bool {
	return slices.ContainsFunc(refs, func(r finding.SpecRef) bool { return mustLevels[strings.ToUpper(r.Level)] })
}

// capForSecurity lowers a graded score to securityCap when a security MUST
// failed, and says so in the basis; a score already at or below it, or no
// grade, is left as it is.
func capForSecurity(score *finding.Score, failed []string) {
	if len(failed) == 0 || score.Grade == finding.GradeNotAssessed || score.Value <= securityCap {
		return
	}
	score.Value = securityCap
	score.Grade = Letter(securityCap)
	score.Basis += fmt.Sprintf("; capped at %d (%s): security MUST failed (%s)", securityCap, score.Grade, strings.Join(failed, ", "))
}

// absence says why the family's surface is missing, or "" when it is there
// or the family needs none.
func absence(in Input, family string) string {
	surface, ok := in.Needs[family]
	if !ok || in.Coverage == nil || in.Coverage.Has(surface) {
		return ""
	}
	if why, ok := surfaceAbsent[surface]; ok {
		return why
	}
	return "the scan saw no " + surface
}

// overall sets the grade from the graded families: the lowest subscore.
func overall(score *finding.Score, cov *finding.Coverage) {
	var lowest *finding.FamilyScore
	counts := map[string]int{}
	for i, f := range score.Families {
		counts[f.State]++
		if f.State == finding.FamilyGraded && (lowest == nil || f.Value < lowest.Value) {
			lowest = &score.Families[i]
		}
	}
	score.Grade, score.Value = finding.GradeNotAssessed, 0
	switch {
	case cov.Stopped():
		score.Basis = interruptedBasis(cov, counts[finding.FamilyGraded])
		return
	case cov.Throttled():
		score.Basis = throttledBasis(cov)
		return
	case !cov.Reached():
		score.Basis = "no grade: the scan reached no API resource"
		return
	case lowest == nil:
		score.Basis = "no grade: no family could be graded"
		return
	}
	score.Value = lowest.Value
	score.Grade = Letter(score.Value)
	which := lowest.Family + ", " + strconv.Itoa(lowest.Value)
	if lowest.Value == maxScore {
		which = "all " + strconv.Itoa(maxScore)
	}
	score.Basis = fmt.Sprintf("overall = the lowest of %d graded %s (%s)", counts[finding.FamilyGraded], plural(counts[finding.FamilyGraded], "family", "families"), which)
	if n := counts[finding.FamilyNotPresent]; n > 0 {
		score.Basis += fmt.Sprintf("; %d not present", n)
	}
	if n := counts[finding.FamilyNotAssessed]; n > 0 {
		score.Basis += fmt.Sprintf("; %d not assessed", n)
	}
}

// throttledBasis is why a crawl the server throttled too much has no
// grade (finding.Coverage.Throttled): more than half of its GET requests
// stayed throttled after retrying, so the grade would rest on the rate
// limit rather than the API.
func throttledBasis(cov *finding.Coverage) string {
	t := cov.Throttling
	return fmt.Sprintf("no grade: the server throttled %d of the crawl's %d GET requests", t.CrawlThrottled, t.CrawlGETs)
}

// interruptedBasis says why a scan stopped before its end has no grade, and
// what it had reached: its letter would rest on a part of the API nobody
// chose, and a second run could grade it lower.
func interruptedBasis(cov *finding.Coverage, graded int) string {
	pages := 0
	for _, n := range cov.Pages {
		pages += n
	}
	return fmt.Sprintf("no grade: %s; it had crawled %d %s, reached %d API %s and graded %d %s",
		cov.Interrupted, pages, plural(pages, "page", "pages"), cov.APIResources, plural(cov.APIResources, "resource", "resources"),
		graded, plural(graded, "family", "families"))
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
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

// familyScore grades one family; absent is why its surface is missing, if
// it is. A failed check is graded even then: it found a real defect.
func (t *tally) familyScore(family, absent string) finding.FamilyScore {
	fs := finding.FamilyScore{
		Family: family, Passed: t.passed, Failed: t.failed, Skipped: t.skipped, Errored: t.errored,
	}
	switch {
	case absent != "" && t.failed == 0:
		fs.State, fs.Reason = finding.FamilyNotPresent, absent
		return fs
	case t.passed+t.failed == 0:
		fs.State, fs.Reason = finding.FamilyNotAssessed, t.notAssessedReason()
		return fs
	}
	fs.State, fs.Assessed = finding.FamilyGraded, true
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
