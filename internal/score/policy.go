package score

import "github.com/agentready/agentready/internal/finding"

// PolicyVersion is recorded in every report so that grades from different
// releases are only compared when they were computed the same way. Any change
// to the tables below bumps it.
const PolicyVersion = "3"

// maxScore is where every family and the overall score start.
const maxScore = 100

// penalties is what one failed check costs, by the highest severity among its
// findings. Info findings are advice and never lower the score.
var penalties = map[finding.Severity]int{
	finding.SeverityError:   20,
	finding.SeverityWarning: 5,
	finding.SeverityInfo:    0,
	finding.SeverityNone:    0,
}

// guessCost is what one readiness check's deductions cost the operation
// they name, by their highest severity, of the operationWorth it starts
// with (Readiness).
var guessCost = map[finding.Severity]int{
	finding.SeverityError:   100,
	finding.SeverityWarning: 25,
	finding.SeverityInfo:    10,
	finding.SeverityNone:    0,
}

// operationWorth is what an operation an agent can plan without a guess
// counts for.
const operationWorth = 100

// letterMinimums is the MDN HTTP Observatory chart: the lowest score that
// earns each of finding.Grades, best first (A+ 100, A 90, A- 85, B+ 80, B 70,
// B- 65, C+ 60, C 50, C- 45, D+ 40, D 30, D- 25, F 0). Scores are bucketed to
// a multiple of 5 before lookup.
var letterMinimums = []int{100, 90, 85, 80, 70, 65, 60, 50, 45, 40, 30, 25, 0}

// bucketSize is the granularity of the chart.
const bucketSize = 5

// surfaceAbsent is why a family is not present, by the surface it needs.
var surfaceAbsent = map[string]string{
	finding.SurfaceOpenAPI:         "no OpenAPI document was given (--openapi) or found",
	finding.SurfaceHypermedia:      "no response was served as HAL or HAL-FORMS, or carried affordances",
	finding.SurfaceMCP:             "no MCP endpoint was given (--mcp) or found",
	finding.SurfaceStatefulActions: "no response carried next_actions",
	finding.SurfaceBaseline:        "no baseline with a surface snapshot was given (--baseline)",
	finding.SurfaceTrial:           "no trial was played (--trial)",
}
