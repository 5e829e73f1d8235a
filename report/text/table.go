package text

import (
	"regexp"
	"slices"
	"strings"

	"charm.land/lipgloss/v2"
	"charm.land/lipgloss/v2/table"
	"github.com/charmbracelet/x/ansi"
)

// grid is a table of the report: lipgloss lays it out without borders, its
// columns columnGap apart. Its last column is free text: it takes the room
// the others leave, and its cells wrap within it.
type grid struct {
	// header is the first row, in bold; nil for none.
	header []string
	rows   [][]string
	// right lists the columns aligned right (counts).
	right map[int]bool
	// cut keeps each row on one line: the last column's cells are cut to
	// the room left, with an ellipsis, instead of wrapped.
	cut bool
	// whole is a grid whose last column is no free text (a matrix): it
	// fits with that column whole, or not at all.
	whole bool
}

// columnGap separates table columns.
const columnGap = 2

// grid writes g at indent and reports whether it fits the width: when the
// columns before the last leave that one less than minText (or, for a
// whole grid, less than its widest cell), nothing is written, and the
// caller says the same in lines of its own.
func (p *printer) grid(indent int, g grid) bool {
	all := g.rows
	if g.header != nil {
		all = append([][]string{g.header}, g.rows...)
	}
	if len(all) == 0 {
		return true
	}
	last := len(all[0]) - 1
	fixed, lastWidth := indent, 0
	for col := range last + 1 {
		w := 0
		for _, row := range all {
			if col < len(row) {
				w = max(w, lipgloss.Width(row[col]))
			}
		}
		if col == last {
			lastWidth = w
		} else {
			fixed += w + columnGap
		}
	}
	room := p.opts.Width - fixed
	if lastWidth > room && (room < minText || g.whole) {
		return false
	}
	rows := g.rows
	if g.cut && lastWidth > room {
		rows = make([][]string, len(g.rows))
		for i, row := range g.rows {
			rows[i] = slices.Clone(row)
			rows[i][last] = cutTo(row[last], room)
		}
	}
	if g.header != nil {
		// The header is a row like the others: lipgloss keeps a header
		// cell to one line, and a column's header may take two.
		rows = append([][]string{g.header}, rows...)
	}
	t := table.New().
		BorderTop(false).BorderBottom(false).BorderLeft(false).BorderRight(false).
		BorderColumn(false).BorderHeader(false).BorderRow(false).
		StyleFunc(func(row, col int) lipgloss.Style {
			st := lipgloss.NewStyle()
			if row == 0 && g.header != nil {
				st = st.Inherit(styleHeading)
			}
			if col < last {
				st = st.PaddingRight(columnGap)
			} else {
				st = st.Width(max(min(lastWidth, room), 1))
			}
			if g.right[col] {
				st = st.Align(lipgloss.Right)
			}
			return st
		}).
		Rows(rows...)
	for _, line := range strings.Split(t.Render(), "\n") {
		p.raw(indent, trimEnd(line))
	}
	return true
}

// trailing is what ends a line without showing: spaces, and the style
// sequences among them (lipgloss styles the padding of an empty cell).
var trailing = regexp.MustCompile(`(?: |\x1b\[[0-9;:]*m)+$`)

// trimEnd removes the spaces that end line, keeping the style sequences
// among them, which may close a style opened before.
func trimEnd(line string) string {
	return trailing.ReplaceAllStringFunc(line, func(tail string) string { return strings.ReplaceAll(tail, " ", "") })
}

// cutTo cuts s to width columns, an ellipsis in place of what is cut, at
// the end of a word when one ends in the last third.
func cutTo(s string, width int) string {
	if ansi.StringWidth(s) <= width {
		return s
	}
	cut := ansi.Truncate(s, width-1, "")
	if i := strings.LastIndexByte(cut, ' '); i > 0 && ansi.StringWidth(cut[:i]) >= (width-1)*2/3 {
		cut = cut[:i]
	}
	return strings.TrimRight(cut, " ") + "…"
}
