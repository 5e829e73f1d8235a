package score

import (
	"fmt"
	"slices"

	"github.com/agentready/agentready/internal/finding"
)

// ReadinessInput is what the document's readiness is graded on.
type ReadinessInput struct {
	// Families is the order to report families in.
	Families []string
	// Rules are the readiness checks that ran, Results their outcomes.
	Rules   []finding.RuleInfo
	Results []finding.CheckResult
	// Operations is how many operations the document declares.
	Operations int
	// ByOperation holds, for each operation with any, the guesses its
	// deductions leave; Document those of the deductions that name no
	// operation.
	ByOperation [][]Guess
	Document    []Guess
}

// A Guess is what the deductions of one readiness check leave an agent to
// guess on one operation (or the whole document): the check, its family,
// and the highest severity among them.
type Guess struct {
	CheckID, Family string
	Severity        finding.Severity
}

// AddGuess adds a deduction to the guesses of one operation: a check's
// first, or a more severe one than it had.
func AddGuess(gs []Guess, g Guess) []Guess {
	for i := range gs {
		if gs[i].CheckID == g.CheckID {
			gs[i].Severity = max(gs[i].Severity, g.Severity)
			return gs
		}
	}
	return append(gs, g)
}

// Readiness grades the document's readiness.
//
// The OpenAPI document's own agent readiness is graded on the share of its
// operations an agent could plan from the document without a guess, not on
// the failed checks: a check that fires on one operation of 500 and one
// that fires on all 500 are not the same gap.
//
//   - Each operation is worth 100 points. Each readiness check that deducts
//     from it costs it guessCost at the highest severity of that check's
//     deductions there (error 100, warning 25, info 10), and an operation
//     loses at most its 100: a guess the agent cannot get past (an error)
//     leaves nothing, four warnings leave nothing, one warning leaves 75.
//   - A deduction that names no operation (the document as a whole, such as
//     a security scheme it never declares) is a guess on every operation, and
//     counts once on each, beside the operation's own deductions.
//   - Readiness score = the operations' points, summed, divided by the
//     number of operations, rounded down; the letter is the report's chart
//     (Letter). Only a document in which every operation keeps its 100
//     scores 100 (A+).
//   - Each family of the readiness checks is scored the same way over its
//     own checks' deductions, as a reading aid; the overall readiness is
//     over them all, not the lowest family.
//   - No grade (N/A) when the document declares no operation, or when no
//     readiness check passed or failed.
func Readiness(in ReadinessInput) finding.Score {
	worst := map[string]finding.Severity{}
	note := func(gs []Guess) {
		for _, g := range gs {
			worst[g.CheckID] = max(worst[g.CheckID], g.Severity)
		}
	}
	for _, gs := range in.ByOperation {
		note(gs)
	}
	note(in.Document)
	tallies, ruleFamily := tallyByFamily(in.Rules, in.Results, worst)
	operations := max(in.Operations, len(in.ByOperation))
	score := finding.Score{PolicyVersion: PolicyVersion, Grade: finding.GradeNotAssessed}
	graded := 0
	for _, family := range familyOrder(in.Families, tallies) {
		fs := tallies[family].familyScore(family, "")
		if fs.State == finding.FamilyGraded {
			if operations == 0 {
				fs.State, fs.Assessed, fs.Reason = finding.FamilyNotAssessed, false, noOperations
			} else {
				fs.Value, _ = plannable(in, operations, func(g Guess) bool { return familyOf(g, ruleFamily) == family })
				fs.Grade = Letter(fs.Value)
				graded++
			}
		}
		score.Families = append(score.Families, fs)
	}
	switch {
	case operations == 0:
		score.Basis = "no grade: " + noOperations
	case graded == 0:
		score.Basis = "no grade: no readiness check passed or failed"
	default:
		value, clear := plannable(in, operations, func(Guess) bool { return true })
		score.Value, score.Grade = value, Letter(value)
		score.Basis = fmt.Sprintf("%d of %d %s without a guess; each check that deducts from an operation costs it %d (error), %d (warning) or %d (info) of its %d",
			clear, operations, plural(operations, "operation", "operations"),
			guessCost[finding.SeverityError], guessCost[finding.SeverityWarning], guessCost[finding.SeverityInfo], operationWorth)
	}
	return score
}

const noOperations = "the document declares no operation"

// plannable is the readiness score over the guesses keep accepts, and
// how many operations keep their whole worth.
func plannable(in ReadinessInput, operations int, keep func(Guess) bool) (value, clear int) {
	everywhere := guessesCost(in.Document, nil, keep)
	lost := 0
	for _, gs := range in.ByOperation {
		cost := guessesCost(gs, in.Document, keep)
		if cost == 0 {
			clear++
		}
		lost += cost
	}
	// The operations no deduction names carry the document's guesses alone.
	rest := operations - len(in.ByOperation)
	if everywhere > 0 {
		lost += rest * everywhere
	} else {
		clear += rest
	}
	return (operations*operationWorth - lost) / operations, clear
}

// guessesCost is what an operation loses to its own guesses and the
// document's, each check counted once at its highest severity, and at
// most the operation's worth.
func guessesCost(own, document []Guess, keep func(Guess) bool) int {
	cost := 0
	for _, g := range own {
		if !keep(g) {
			continue
		}
		sev := g.Severity
		for _, d := range document {
			if d.CheckID == g.CheckID {
				sev = max(sev, d.Severity)
			}
		}
		cost += guessCost[sev]
	}
	for _, d := range document {
		if keep(d) && !slices.ContainsFunc(own, func(g Guess) bool { return g.CheckID == d.CheckID }) {
			cost += guessCost[d.Severity]
		}
	}
	return min(cost, operationWorth)
}

// familyOf is the family of a guess's check, by its rule when the guess
// does not say.
func familyOf(g Guess, ruleFamily map[string]string) string {
	if family, ok := ruleFamily[g.CheckID]; ok {
		return family
	}
	return g.Family
}
