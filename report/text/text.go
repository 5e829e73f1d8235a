// Package text renders a report for a terminal: the grade first, then the
// findings grouped by check with their evidence, then what ran and what was
// scanned.
//
// Every string in the report is treated as hostile, including the ones we
// produce, because a report can be read back from a JSON file: each goes
// through sanitize.Line and is bounded before it is printed. (A line that
// could pass for a CI workflow command is defused where the output is
// written, by the CLI, for every text format at once.) Styling is done
// with lipgloss and the result is written through a colorprofile.Writer, so
// the no-color output carries no escape sequence at all.
package text

import (
	"io"
	"strings"

	"github.com/charmbracelet/colorprofile"

	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/report/internal/view"
)

// Defaults for the zero Options.
const (
	DefaultWidth   = 100
	DefaultMaxURLs = 3
)

// minWidth keeps wrapping sane when the terminal reports a tiny width.
const minWidth = 40

// Options shape the output.
type Options struct {
	// Color enables ANSI colors; without it no escape sequence is written.
	Color bool
	// Width is the column at which lines wrap; 0 means DefaultWidth.
	Width int
	// Verbose lists every occurrence and every check.
	Verbose bool
	// MaxURLs is how many occurrences are shown per check; 0 means
	// DefaultMaxURLs. Verbose overrides it.
	MaxURLs int
}

// Reporter writes the terminal report.
type Reporter struct {
	opts Options
}

// New returns a terminal reporter, filling in defaults.
func New(opts Options) *Reporter {
	if opts.Width <= 0 {
		opts.Width = DefaultWidth
	}
	opts.Width = max(opts.Width, minWidth)
	if opts.MaxURLs <= 0 {
		opts.MaxURLs = DefaultMaxURLs
	}
	return &Reporter{opts: opts}
}

// Write renders r and writes it in one call, so that the color writer never
// sees an escape sequence split across writes.
func (rp *Reporter) Write(w io.Writer, r *finding.Report) error {
	if r == nil {
		r = &finding.Report{}
	}
	p := &printer{opts: rp.opts, b: &strings.Builder{}}
	groups := view.Groups(r)
	p.header(r)
	p.summary(r, groups)
	p.families(r)
	p.readiness(r)
	p.findings(groups)
	p.checks(r)
	p.unreached(r)
	p.states(r)
	p.interfaces(r)
	p.trials(r)
	p.surface(r)
	p.stats(r)
	p.verdict(r)
	return rp.emit(w, p.b.String())
}

// emit writes what a printer rendered through a colorprofile.Writer, which
// drops every escape sequence unless Color is set.
func (rp *Reporter) emit(w io.Writer, s string) error {
	profile := colorprofile.NoTTY
	if rp.opts.Color {
		profile = colorprofile.ANSI256
	}
	cw := &colorprofile.Writer{Forward: w, Profile: profile}
	_, err := io.WriteString(cw, s)
	return err
}
