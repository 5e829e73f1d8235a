// Package report turns a finding.Report into the formats users read. Each
// format is a subpackage; this package only maps format names to them, so the
// CLI and `report convert` share one list.
package report

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/report/html"
	"github.com/agentready/agentready/report/internal/view"
	"github.com/agentready/agentready/report/json"
	"github.com/agentready/agentready/report/junit"
	"github.com/agentready/agentready/report/markdown"
	"github.com/agentready/agentready/report/sarif"
	"github.com/agentready/agentready/report/text"
)

// Reporter renders one report in one format.
type Reporter interface {
	Write(w io.Writer, r *finding.Report) error
}

// The reports of several targets scanned in one run are one document in
// the formats that have a form for it; report/targets asks the format's
// reporter which form, through these, and knows no format by name.

// SectionWriter is a format whose document of several targets is each
// target's report in turn under a heading, then a summary of them all
// (text, Markdown), so that it can be written as the targets finish.
type SectionWriter interface {
	Reporter
	WriteTargetHeading(w io.Writer, i, n int, t view.Target) error
	WriteTargetsSummary(w io.Writer, targets []view.Target) error
}

// TargetsWriter is a format that writes the reports of several targets as
// one document at the end of the run (JSON, SARIF).
type TargetsWriter interface {
	Reporter
	WriteTargets(w io.Writer, targets []view.Target) error
}

// Options are the knobs shared by the formats; each format uses the ones
// that make sense for it and ignores the rest.
type Options struct {
	// Color enables ANSI colors in terminal output.
	Color bool
	// Width is where terminal output wraps; 0 means 100.
	Width int
	// Verbose shows every occurrence and every check.
	Verbose bool
	// MaxURLs is how many occurrences are shown per check; 0 means 3.
	MaxURLs int
	// SARIF places findings: see sarif.Options.
	SARIFAnchor, SARIFCategory string
	// BaseDir is the repository root that SARIF paths are made relative to.
	BaseDir string
	// MarkdownMaxBytes bounds a Markdown document (a pull-request comment),
	// and MarkdownFullReport is where a cut one links: see markdown.Options.
	MarkdownMaxBytes   int
	MarkdownFullReport string
}

// formats is the one list of output formats. A new format adds its line here.
var formats = map[string]func(Options) Reporter{
	"text": func(o Options) Reporter {
		return text.New(text.Options{Color: o.Color, Width: o.Width, Verbose: o.Verbose, MaxURLs: o.MaxURLs})
	},
	"json": func(Options) Reporter { return jsonreport.New() },
	"sarif": func(o Options) Reporter {
		return sarif.New(sarif.Options{Anchor: o.SARIFAnchor, Category: o.SARIFCategory, BaseDir: o.BaseDir})
	},
	"markdown": func(o Options) Reporter {
		return markdown.New(markdown.Options{MaxURLs: o.MaxURLs, MaxBytes: o.MarkdownMaxBytes, FullReport: o.MarkdownFullReport})
	},
	"html":  func(Options) Reporter { return html.New(html.Options{}) },
	"junit": func(Options) Reporter { return junit.New() },
}

// New returns the reporter for format.
func New(format string, opts Options) (Reporter, error) {
	build, ok := formats[format]
	if !ok {
		return nil, fmt.Errorf("unknown report format %q (valid: %s)", format, strings.Join(Formats(), ", "))
	}
	return build(opts), nil
}

// Formats lists the format names, sorted.
func Formats() []string {
	names := make([]string, 0, len(formats))
	for name := range formats {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}
