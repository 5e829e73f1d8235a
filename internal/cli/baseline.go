package cli

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/pipeline"
	"github.com/agentready/agentready/internal/score"
)

// gateFlags add the baseline and the minimum grade to --fail-on.
type gateFlags struct {
	baseline       string
	strictBaseline bool
	failUnder      string
	minCoverage    int
	failOnDrift    string
	failOnTrial    string
}

func (g *gateFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&g.baseline, "baseline", "", "JSON report of an earlier scan: its findings are 'existing' and do not fail the run; only new ones do")
	fs.BoolVar(&g.strictBaseline, "strict-baseline", false, "fail when the baseline lists a finding that is no longer found (rewrite it with 'agentready baseline write')")
	fs.StringVar(&g.failUnder, "fail-under", "", "fail when the grade is below this letter (B) or the score below this number (80)")
	fs.StringVar(&g.failOnDrift, "fail-on-drift", finding.DriftBreaking, "with a --baseline that records a surface: fail on breaking changes to it (removed or renamed tools and operations, narrowed inputs, read-only hints turned off, relations and skills gone), on any change, or none")
	fs.StringVar(&g.failOnTrial, "fail-on-trial", "error", "after a played --trial: fail on trial findings (what an operation did against what it declared) of this severity or worse: error, warning, info or none; they never count toward --fail-on")
	fs.IntVar(&g.minCoverage, "min-coverage", 0, "fail when the scan reached less than this percentage of the OpenAPI document's GET operations, or had no document to count them in")
}

// policy combines the configuration's check policy with the baseline.
func (g *gateFlags) policy(e *env) (*pipeline.Policy, error) {
	if _, err := g.minimum(); err != nil {
		return nil, err
	}
	if _, err := finding.ParseFailOnDrift(g.failOnDrift); err != nil {
		return nil, usageError("--fail-on-drift: %v", err)
	}
	if _, err := finding.ParseSeverity(g.failOnTrial); err != nil {
		return nil, usageError("--fail-on-trial: %v", err)
	}
	if g.minCoverage < 0 || g.minCoverage > 100 {
		return nil, usageError("--min-coverage %d: want a percentage from 0 to 100", g.minCoverage)
	}
	p, err := e.config.policy()
	if err != nil {
		return nil, err
	}
	if g.baseline == "" {
		if g.strictBaseline {
			return nil, usageError("--strict-baseline needs --baseline")
		}
		return p, nil
	}
	b, err := pipeline.LoadBaseline(g.baseline)
	if err != nil {
		return nil, usageError("--baseline: %v", err)
	}
	if p == nil {
		p = &pipeline.Policy{}
	}
	p.Baseline = b
	return p, nil
}

func (g *gateFlags) minimum() (*finding.FailUnder, error) {
	if g.failUnder == "" {
		return nil, nil
	}
	m, err := finding.ParseFailUnder(g.failUnder)
	if err != nil {
		return nil, usageError("--fail-under: %v", err)
	}
	return &m, nil
}

// options are the gate's: --fail-on, and the minimum grade and the
// stale-baseline rule (the baseline itself is in the report). The flags were
// validated by policy before the scan.
func (g *gateFlags) options(failOn finding.Severity) score.GateOptions {
	m, _ := g.minimum()
	drift, _ := finding.ParseFailOnDrift(g.failOnDrift)
	trial, _ := finding.ParseSeverity(g.failOnTrial)
	return score.GateOptions{FailOn: failOn, Minimum: m, StrictBaseline: g.strictBaseline, MinCoverage: g.minCoverage, FailOnDrift: drift, FailOnTrial: trial}
}

func newBaselineCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "baseline",
		Short: "Write a baseline: the findings later scans compare with",
		Example: `  agentready baseline write -o .agentready-baseline.json https://staging.example.com/
  agentready scan --baseline .agentready-baseline.json https://staging.example.com/`,
	}
	cmd.AddCommand(newBaselineWriteCmd(e))
	return cmd
}

func newBaselineWriteCmd(e *env) *cobra.Command {
	var lim limitFlags
	var from, output string
	cmd := &cobra.Command{
		Use:   "write [URL]",
		Short: "Scan URL (or read --from REPORT) and write a baseline",
		Long: `write scans the target (or reads a JSON report with --from) and writes a
baseline: a JSON report trimmed to one finding per fingerprint, sorted, without
timings, so that a committed baseline changes only when findings do. The
configuration's severity overrides and ignores apply, so ignored findings are
not baselined. The scan is the one scan runs, with the same identities
(--identity, --header-for, or the configuration's identities) and access, so
that fingerprints match; it never sends active probes (--active is refused).`,
		Example: `  agentready baseline write -o .agentready-baseline.json https://staging.example.com/
  agentready baseline write --from report.json -o .agentready-baseline.json`,
		Args:        cobra.MaximumNArgs(1),
		Annotations: map[string]string{usesConfig: "true"},
		RunE: func(cmd *cobra.Command, args []string) error {
			if output != "-" {
				if err := checkWritable(output); err != nil {
					return usageError("-o %s: %v", output, err)
				}
			}
			rep, err := baselineSource(cmd.Context(), e, from, args, &lim)
			if err != nil {
				return err
			}
			return writeBaseline(e, output, rep)
		},
	}
	cmd.Flags().StringVar(&from, "from", "", "JSON report to take the findings from, instead of scanning")
	cmd.Flags().StringVarP(&output, "output", "o", "agentready-baseline.json", "file to write (- for stdout)")
	lim.register(cmd.Flags())
	registerTrustConfig(cmd.Flags())
	return cmd
}

func baselineSource(ctx context.Context, e *env, from string, args []string, lim *limitFlags) (*finding.Report, error) {
	if from != "" {
		if len(args) > 0 {
			return nil, usageError("give a URL to scan or --from REPORT, not both")
		}
		return readReport(e, from)
	}
	raw, err := targetArg(e, args)
	if err != nil {
		return nil, err
	}
	policy, err := e.config.policy()
	if err != nil {
		return nil, err
	}
	return scanOnly(ctx, e, raw, lim, policy)
}

// scanOnly runs a scan for commands that need the report but not the
// outputs or the gate (baseline write, init): the scan's identities and
// access apply, but no active probe is sent, since what these commands
// record must not change state on the target.
func scanOnly(ctx context.Context, e *env, raw string, lim *limitFlags, policy *pipeline.Policy) (*finding.Report, error) {
	if lim.act.on || len(lim.act.allow) > 0 || lim.act.yes || lim.trial.on || lim.trial.planOnly || lim.trial.reset != "" {
		return nil, usageError("--active, --trial and their flags do not apply here: this command records a passive scan and sends nothing that changes state")
	}
	start, err := parseTarget(raw)
	if err != nil {
		return nil, err
	}
	opts, err := scanOptions(e, start, lim, policy)
	if err != nil {
		return nil, err
	}
	rep, err := runScan(ctx, e, opts, false)
	if err != nil {
		return nil, &ExitError{Code: ExitIncomplete, Err: fmt.Errorf("scan failed: %w", err)}
	}
	if ctx.Err() != nil {
		return nil, &ExitError{Code: ExitIncomplete, Err: fmt.Errorf("interrupted; nothing was written")}
	}
	return rep, nil
}

func writeBaseline(e *env, output string, rep *finding.Report) error {
	render := func(w io.Writer) error { return pipeline.WriteBaseline(w, rep) }
	if output == "-" {
		return e.write(e.stdout, render)
	}
	f, err := os.Create(output)
	if err != nil {
		return usageError("%v", err)
	}
	if err := e.write(f, render); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "wrote %s: %d finding(s) with %d fingerprint(s) from %s\n", output, len(rep.Findings), len(pipeline.BaselineFromFindings(rep.Findings).Entries), rep.Target)
	return nil
}
