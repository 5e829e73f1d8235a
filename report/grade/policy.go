package grade

import "github.com/agentready/agentready/finding"

// PolicyVersion is recorded in every report so that grades from different
// releases are only compared when they were computed the same way. Any change
// to the tables below bumps it.
const PolicyVersion = "1"

// maxScore is where every family and the overall score start.
const maxScore = 100

// NotAssessed is the grade of a report in which no check passed or failed.
const NotAssessed = "N/A"

// penalties is what one failed check costs, by the highest severity among its
// findings. Info findings are advice and never lower the score.
var penalties = map[finding.Severity]int{
	finding.SeverityError:   20,
	finding.SeverityWarning: 5,
	finding.SeverityInfo:    0,
	finding.SeverityNone:    0,
}

// letter is one row of the grade chart: scores from Min upwards (down to the
// previous row) earn Grade.
type letter struct {
	Min   int
	Grade string
}

// letters is the MDN HTTP Observatory chart, best first. Scores are bucketed
// to a multiple of 5 before lookup.
var letters = []letter{
	{100, "A+"},
	{90, "A"},
	{85, "A-"},
	{80, "B+"},
	{70, "B"},
	{65, "B-"},
	{60, "C+"},
	{50, "C"},
	{45, "C-"},
	{40, "D+"},
	{30, "D"},
	{25, "D-"},
	{0, "F"},
}

// bucketSize is the granularity of the chart.
const bucketSize = 5
