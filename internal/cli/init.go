package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/finding"
)

func newInitCmd(e *env) *cobra.Command {
	var lim limitFlags
	var output string
	var force bool
	cmd := &cobra.Command{
		Use:   "init [URL]",
		Short: "Write a commented " + config.FileName + " from a first scan of URL",
		Long: `init scans URL once and writes a commented starter configuration: the
target, the OpenAPI document and MCP endpoint it found, the families it could
assess, and the findings as commented-out ignore suggestions, each with a
placeholder reason and an expiry date three months out. Without a URL (or
AGENTREADY_TARGET) it writes the file without scanning.

An existing file is never overwritten without --force.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if _, err := os.Stat(output); err == nil && !force && output != "-" {
				return usageError("%s exists; pass --force to overwrite it", output)
			} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
				return usageError("%v", err)
			}
			raw := e.get(envPrefix + "TARGET")
			if len(args) > 0 {
				raw = args[0]
			}
			in := config.StarterInput{Target: raw, OpenAPI: lim.spec.source, MCP: lim.mcpEndpoint, Now: time.Now()}
			if raw != "" {
				rep, err := scanOnly(cmd.Context(), e, raw, &lim, nil)
				if err != nil {
					return err
				}
				in.Report = rep
			}
			return writeStarter(e, output, config.Starter(in), in.Report)
		},
	}
	cmd.Flags().StringVarP(&output, "output", "o", config.FileName, "file to write (- for stdout)")
	cmd.Flags().BoolVar(&force, "force", false, "overwrite an existing file")
	lim.register(cmd.Flags())
	return cmd
}

func writeStarter(e *env, output string, body []byte, rep *finding.Report) error {
	if output == "-" {
		_, err := e.stdout.Write(body)
		return err
	}
	if err := os.WriteFile(output, body, 0o644); err != nil {
		return usageError("%v", err)
	}
	if rep != nil {
		fmt.Fprintf(e.stderr, "wrote %s from a scan of %s: grade %s, %d finding(s), suggested as commented-out ignores\n",
			output, rep.Target, rep.Score.Grade, len(rep.Findings))
	} else {
		fmt.Fprintf(e.stderr, "wrote %s\n", output)
	}
	return nil
}
