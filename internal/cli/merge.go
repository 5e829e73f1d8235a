package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/agentready/agentready/checks/builtin"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/scan"
	"github.com/agentready/agentready/internal/score"
)

func newReportMergeCmd(e *env) *cobra.Command {
	var out outputFlags
	gate := gateFlags{failOnDrift: finding.DriftBreaking, failOnTrial: "error"}
	var allowMissing bool
	cmd := &cobra.Command{
		Use:   "merge SHARD.json... [-o FORMAT=PATH]",
		Short: "Join the JSON reports of a scan's shards (--shard i/n) into one",
		Long: `merge joins the JSON reports of the shards of one scan (scan --shard i/n, one
CI job each) into the report the scan gives whole: findings de-duplicated by
fingerprint, check results joined, statistics added, coverage and the agent surface
joined, and the grade computed again with the scan's policy. It writes every format
scan writes, and gates like scan: exit 0 passed, 1 gate failed, 2 usage error (reports
of different targets or schema versions, a report that is not a shard, a shard given
twice, or shards missing without --allow-missing; more than 1,024 shards, a report over
256 MiB or nested deeper than 64 levels, a check this version lacks, or findings that
the report's check results deny), 3 when the merged scan reached no API resource or
the merge was interrupted. Built-in checks' rules are this version's, never a shard's.`,
		Example: `  agentready report merge shard-1.json shard-2.json shard-3.json \
    -o sarif=agentready.sarif -o json=report.json --fail-under B`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			failOn, err := finding.ParseSeverity(out.failOn)
			if err != nil {
				return usageError("--fail-on: %v", err)
			}
			if _, err := gate.minimum(); err != nil {
				return err
			}
			if gate.minCoverage < 0 || gate.minCoverage > 100 {
				return usageError("--min-coverage %d: want a percentage from 0 to 100", gate.minCoverage)
			}
			if err := out.sarif.check(); err != nil {
				return err
			}
			sinks, err := planOutputs(e, &out)
			if err != nil {
				return err
			}
			if len(args) > scan.MaxShards {
				return usageError("%d reports given; a scan has at most %d shards", len(args), scan.MaxShards)
			}
			var shards []*finding.Report
			for _, path := range args {
				if err := interrupted(cmd.Context(), "merge"); err != nil {
					return err
				}
				rep, err := readReportFile(e, path)
				if err != nil {
					return err
				}
				shards = append(shards, rep)
			}
			reg, err := builtin.Registry()
			if err != nil {
				return err
			}
			rep, err := scan.Merge(cmd.Context(), shards, reg.All(), allowMissing)
			if err := interrupted(cmd.Context(), "merge"); err != nil {
				return err
			}
			if errors.Is(err, scan.ErrMissingShards) {
				return usageError("%v (pass --allow-missing to merge them anyway, as a partial report)", err)
			}
			if err != nil {
				return usageError("%v", err)
			}
			if rep.Shard != nil {
				fmt.Fprintf(e.stderr, "agentready: warning: the merged report is partial: %s\n", rep.Notes[len(rep.Notes)-1])
			}
			rep.Gate = score.Gate(rep, gate.options(failOn))
			if err := writeOutputs(e, sinks, rep); err != nil {
				return &ExitError{Code: ExitIncomplete, Err: err}
			}
			return exitFor(cmd.Context(), rep)
		},
	}
	fs := cmd.Flags()
	out.register(fs)
	fs.StringVar(&gate.failUnder, "fail-under", "", "fail when the merged grade is below this letter (B) or the score below this number (80)")
	fs.IntVar(&gate.minCoverage, "min-coverage", 0, "fail when the merged scan reached less than this percentage of the OpenAPI document's GET operations")
	fs.BoolVar(&allowMissing, "allow-missing", false, "merge although some shards of 1..n are missing; the report then says it is partial")
	return cmd
}

// interrupted ends a command that reads reports once SIGINT or SIGTERM has
// cancelled its context: it could not complete (exit 3).
func interrupted(ctx context.Context, what string) error {
	if err := ctx.Err(); err != nil {
		return &ExitError{Code: ExitIncomplete, Err: fmt.Errorf("%s interrupted: %w", what, err)}
	}
	return nil
}
