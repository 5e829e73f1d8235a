package text

import (
	"image/color"
	"strings"

	"charm.land/lipgloss/v2"

	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/sanitize"
)

// Bounds on what one field may occupy: the JSON report keeps everything, the
// terminal shows enough to recognise the problem. Curl lines get more room
// because a cut command cannot be pasted.
const (
	maxField = 1000
	maxCurl  = 4096
)

var (
	styleHeading = lipgloss.NewStyle().Bold(true)
	styleStrong  = lipgloss.NewStyle().Bold(true)
	styleDim     = lipgloss.NewStyle().Faint(true)
	styleGood    = lipgloss.NewStyle().Foreground(lipgloss.Color("10"))
	styleBad     = lipgloss.NewStyle().Bold(true).Foreground(lipgloss.Color("9"))
	// Help text's code spans and emphasis.
	styleCode     = lipgloss.NewStyle().Foreground(lipgloss.Color("6"))
	styleEmphasis = lipgloss.NewStyle().Italic(true)
)

var severityStyles = map[finding.Severity]lipgloss.Style{
	finding.SeverityError:   lipgloss.NewStyle().Bold(true).Foreground(lipgloss.Color("9")),
	finding.SeverityWarning: lipgloss.NewStyle().Bold(true).Foreground(lipgloss.Color("11")),
	finding.SeverityInfo:    lipgloss.NewStyle().Foreground(lipgloss.Color("12")),
}

// gradeColors is keyed by the letter alone; the +/- modifiers share a color.
var gradeColors = map[byte]color.Color{
	'A': lipgloss.Color("10"),
	'B': lipgloss.Color("2"),
	'C': lipgloss.Color("11"),
	'D': lipgloss.Color("208"),
	'F': lipgloss.Color("9"),
}

func severityLabel(s finding.Severity) string {
	label := strings.ToUpper(s.String())
	if st, ok := severityStyles[s]; ok {
		return st.Render(label)
	}
	return label
}

func gradeLabel(grade string) string {
	st := lipgloss.NewStyle().Bold(true)
	if grade != "" {
		if c, ok := gradeColors[grade[0]]; ok {
			st = st.Foreground(c)
		}
	}
	return st.Render(grade)
}

// clean makes an untrusted string safe and bounded for one line.
func clean(s string) string { return sanitize.Truncate(sanitize.Line(s), maxField) }

// pad right-pads s to w display columns; it measures after styling, so
// styled cells line up with plain ones.
func pad(s string, w int) string {
	if n := lipgloss.Width(s); n < w {
		return s + strings.Repeat(" ", w-n)
	}
	return s
}
