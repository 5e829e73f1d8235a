package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"time"

	"github.com/spf13/cobra"

	"github.com/agentready/agentready/internal/config"
	"github.com/agentready/agentready/internal/finding"
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
		Example: `  agentready init http://127.0.0.1:8080/
  agentready init --force -o .agentready.yaml https://staging.example.com/`,
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
			in, withheld := starterInput(raw, &lim)
			if raw != "" {
				rep, err := scanOnly(cmd.Context(), e, raw, &lim, nil)
				if err != nil {
					return err
				}
				in.Report = rep
			}
			body := config.Starter(in)
			if withheld {
				body = noteWithheld(body)
			}
			return writeStarter(e, output, body, in.Report)
		},
	}
	cmd.Flags().StringVarP(&output, "output", "o", config.FileName, "file to write (- for stdout)")
	cmd.Flags().BoolVar(&force, "force", false, "overwrite an existing file")
	lim.register(cmd.Flags())
	return cmd
}

// starterInput is what init writes down: the URLs given, without their
// user-info, which a file meant to be committed must not hold; withheld says
// whether any had some.
func starterInput(target string, lim *limitFlags) (in config.StarterInput, withheld bool) {
	urls := []*string{&in.Target, &in.OpenAPI, &in.MCP}
	for i, raw := range []string{target, lim.spec.source, lim.mcpEndpoint} {
		var had bool
		*urls[i], had = withoutUserinfo(raw)
		withheld = withheld || had
	}
	in.Now = time.Now()
	return in, withheld
}

// withheldNote replaces, in the starter file, the credentials left out of
// the URLs given.
const withheldNote = `# The user and password in the URLs given are not written here: this file is
# meant to be committed. Give them on the command line instead: in the URL
# (scan URL, --openapi URL, --mcp URL), as a header
# (-H 'Authorization: Basic BASE64(user:password)'), or from an environment
# variable: --identity me --header-for 'me=Authorization: Basic env:MY_CREDENTIAL'
`

// noteWithheld puts withheldNote after the file's opening comments.
func noteWithheld(body []byte) []byte {
	at := 0
	for at < len(body) && body[at] == '#' {
		next := bytes.IndexByte(body[at:], '\n')
		if next < 0 {
			break
		}
		at += next + 1
	}
	return slices.Concat(body[:at], []byte(withheldNote), body[at:])
}

// writeStarter writes the file through the scrubber, as every report: the
// suggestions quote what the scan found.
func writeStarter(e *env, output string, body []byte, rep *finding.Report) error {
	render := func(w io.Writer) error {
		_, err := w.Write(body)
		return err
	}
	if output == "-" {
		return e.write(e.stdout, render)
	}
	f, err := os.OpenFile(output, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
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
	if rep != nil {
		fmt.Fprintf(e.stderr, "wrote %s from a scan of %s: grade %s, %d finding(s), suggested as commented-out ignores\n",
			output, rep.Target, rep.Score.Grade, len(rep.Findings))
	} else {
		fmt.Fprintf(e.stderr, "wrote %s\n", output)
	}
	return nil
}
