package cli

import (
	"errors"
	"slices"

	"github.com/spf13/pflag"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/builtin"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/pipeline"
	"github.com/agentready/agentready/internal/spec"
)

// lintBaselineFlags are lint's drift gate without a live app: --baseline
// compares the document's agent surface with an earlier one, so that a pull
// request that changes only the document is gated on breaking changes
// before any deploy; --write-baseline saves the document's surface for it.
type lintBaselineFlags struct {
	baseline, write string
}

func (l *lintBaselineFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&l.baseline, "baseline", "", "compare the document's agent surface with an earlier one: a file 'lint --write-baseline' (or 'baseline write') wrote, or another OpenAPI document; exit 1 on a breaking change (docs/drift.md)")
	fs.StringVar(&l.write, "write-baseline", "", "also write the document's surface and findings to this file (- for stdout), for a later 'lint --baseline'")
}

// surface reads --baseline and says what lint does with the surface.
func (l *lintBaselineFlags) surface(maxSize int64) (LintSurface, error) {
	s := LintSurface{Record: l.write != ""}
	if l.write != "" && l.write != "-" {
		if err := checkWritable(l.write); err != nil {
			return s, usageError("--write-baseline %s: %v", l.write, err)
		}
	}
	if l.baseline == "" {
		return s, nil
	}
	b, reportErr := pipeline.LoadBaseline(l.baseline)
	if reportErr == nil {
		if b.Snapshot == nil || b.Snapshot.OpenAPI == nil {
			return s, usageError("--baseline %s records no OpenAPI surface; write one with 'agentready lint --write-baseline'", l.baseline)
		}
		s.Baseline = b
		return s, nil
	}
	doc, err := loadSpecFileWith(spec.LoadFile, "--baseline", l.baseline, maxSize)
	var exit *ExitError
	if errors.As(err, &exit) {
		return s, err
	}
	if err != nil {
		return s, usageError("--baseline: neither a baseline nor an OpenAPI document: %v", reportErr)
	}
	// Of another document only the surface is compared: its findings
	// would carry fingerprints of another file, and none would match.
	b = pipeline.BaselineFromFindings(nil)
	b.Path = l.baseline
	rep := &finding.Report{}
	LintSurface{Record: true}.annotate(checks.NewStaticInput(documentURL(doc.Source), doc), rep, builtin.All())
	b.Snapshot = rep.Snapshot
	s.Baseline = b
	return s, nil
}

// writeIfAsked writes the report as a baseline to --write-baseline.
func (l *lintBaselineFlags) writeIfAsked(e *env, rep *finding.Report) error {
	if l.write == "" {
		return nil
	}
	return writeBaseline(e, l.write, rep)
}

// LintSurface says what lint does with the document's agent surface, which
// the drift family snapshots: Record puts it in the report (so that the
// report can serve as a baseline); Baseline compares it with an earlier
// one, running the drift family's checks, whose breaking findings fail the
// run as in a scan (--fail-on-drift's default). The zero value does neither.
type LintSurface struct {
	Record   bool
	Baseline *pipeline.Baseline
}

// checks are the drift family's checks among cs when there is a baseline.
func (s LintSurface) checks(cs []checks.Check) []checks.Check {
	if s.Baseline == nil {
		return nil
	}
	return driftOf(cs)
}

// driftOf is the drift family's checks among cs.
func driftOf(cs []checks.Check) []checks.Check {
	return slices.DeleteFunc(slices.Clone(cs), func(c checks.Check) bool { return c.Meta().Family != checks.FamilyDrift })
}

func (s LintSurface) snapshot() *finding.Snapshot {
	if s.Baseline == nil {
		return nil
	}
	return s.Baseline.Snapshot
}

// annotate puts the surface in the report through the drift family's part,
// as a scan does. The report then carries a snapshot and, with a baseline,
// the baseline's summary, which is how the drift gate knows that lint's
// report (which measures no coverage) compared the surface.
func (s LintSurface) annotate(in *checks.Input, rep *finding.Report, cs []checks.Check) {
	if !s.Record && s.Baseline == nil {
		return
	}
	for _, p := range checks.PartsOf(driftOf(cs)) {
		if a, ok := p.(checks.Annotator); ok {
			a.Annotate(in, rep)
		}
	}
}
