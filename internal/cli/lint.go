package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"path/filepath"
	"slices"
	"time"

	"github.com/spf13/cobra"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/pipeline"
	"github.com/agentready/agentready/internal/scan"
	"github.com/agentready/agentready/internal/score"
	"github.com/agentready/agentready/internal/spec"
)

func newLintCmd(e *env) *cobra.Command {
	var out outputFlags
	var maxSize int64
	var base lintBaselineFlags
	cmd := &cobra.Command{
		Use:   "lint SPEC",
		Short: "Check an OpenAPI document offline (fast enough for pre-commit)",
		Long: `lint runs every check that needs only the OpenAPI document: that it loads
(syntax, $refs, one OpenAPI version), operationId uniqueness, path-template
validity, x-hal-rel well-formedness and relation collisions. Findings point at
the file, line and column. Reports and exit codes are those of scan.`,
		Example: `  agentready lint openapi.yaml
  agentready lint --format sarif openapi.yaml > agentready.sarif`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runLint(cmd.Context(), e, args[0], maxSize, &out, &base)
		},
	}
	out.register(cmd.Flags())
	base.register(cmd.Flags())
	registerMaxSpecSize(cmd.Flags(), &maxSize)
	return cmd
}

func runLint(ctx context.Context, e *env, path string, maxSize int64, out *outputFlags, base *lintBaselineFlags) error {
	failOn, err := finding.ParseSeverity(out.failOn)
	if err != nil {
		return usageError("--fail-on: %v", err)
	}
	if err := checkMaxSpecSize(maxSize); err != nil {
		return err
	}
	sinks, err := planOutputs(e, out)
	if err != nil {
		return err
	}
	reg, err := e.registry()
	if err != nil {
		return err
	}
	surface, err := base.surface(maxSize)
	if err != nil {
		return err
	}
	started := time.Now()
	load := spec.LoadFile
	if checks.NeedsOf(reg.All()).Has(checks.NeedsSpecText) {
		load = spec.LoadFileKeeping
	}
	doc, err := loadSpecFileWith(load, "lint", path, maxSize)
	var exit *ExitError
	if errors.As(err, &exit) {
		return err
	}
	if pe := (*fs.PathError)(nil); errors.As(err, &pe) {
		// A file that cannot be read is a mistyped argument, as with
		// scan --openapi; one that reads but is no OpenAPI document is not.
		return usageError("lint: %v", err)
	}
	if err != nil {
		if errors.Is(err, spec.ErrNotOpenAPI) {
			err = fmt.Errorf("%s has no openapi or swagger field: %w", path, err)
		}
		return &ExitError{Code: ExitIncomplete, Err: fmt.Errorf("lint %s: %w", path, err)}
	}
	rep := Lint(ctx, doc, reg.All(), version(), surface)
	rep.StartedAt = started.UTC()
	rep.Gate = score.Gate(rep, score.GateOptions{FailOn: failOn})
	if err := writeOutputs(e, sinks, rep); err != nil {
		return &ExitError{Code: ExitIncomplete, Err: err}
	}
	if err := base.writeIfAsked(e, rep); err != nil {
		return &ExitError{Code: ExitIncomplete, Err: err}
	}
	return exitFor(ctx, rep)
}

// Lint evaluates the static checks among cs over a loaded document, and
// what surface asks of its agent surface, and returns the report, graded
// like a scan's.
func Lint(ctx context.Context, doc *spec.Document, cs []checks.Check, toolVersion string, surface LintSurface) *finding.Report {
	static := append(checks.StaticOnly(cs), surface.checks(cs)...)
	target := documentURL(doc.Source)
	in := checks.NewStaticInput(target, doc)
	in.Baseline = surface.snapshot()
	results, findings := checks.Evaluate(context.WithoutCancel(ctx), in, static)
	post := &pipeline.Pipeline{Doc: doc, Policy: surface.policy(), Results: results, Rules: scan.RuleInfos(static)}
	findings = post.Run(findings)
	now := time.Now().UTC()
	rep := &finding.Report{
		SchemaVersion: finding.SchemaVersion,
		Tool:          finding.ToolInfo{Name: "agentready", Version: toolVersion, DocsURL: "https://github.com/agentready/agentready"},
		Target:        doc.Source,
		StartedAt:     now,
		FinishedAt:    now,
		Rules:         post.Rules,
		Checks:        post.Results,
		Findings:      findings,
		Baseline:      post.Baseline,
		Notes:         slices.Concat(doc.Notices, post.Notes),
		Spec:          doc.Info(finding.SpecLint),
	}
	surface.annotate(in, rep, cs)
	rep.Score = scan.Grade(rep)
	return rep
}

// documentURL names the linted file as a file: URL, which is what checks see
// as the target.
func documentURL(path string) *url.URL {
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	return &url.URL{Scheme: "file", Path: filepath.ToSlash(path)}
}
