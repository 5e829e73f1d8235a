package cli

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/report"
	"github.com/agentready/agentready/report/diff"
	"github.com/agentready/agentready/report/json"
	"github.com/agentready/agentready/report/markdown"
	"github.com/agentready/agentready/report/sarif"
)

// sarifFlags place SARIF results for GitHub code scanning; they belong to the
// output flags because any -o sarif=PATH uses them.
type sarifFlags struct {
	anchor, category string
}

func (s *sarifFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&s.anchor, "sarif-anchor", "",
		"repository file that SARIF results without a spec location are reported on, at line 1 (default: the OpenAPI file, else action.yml)")
	fs.StringVar(&s.category, "sarif-category", sarif.DefaultCategory,
		"SARIF category (automationDetails.id), so that scans of several targets upload side by side")
}

// options fills the SARIF fields of base. The working directory is the
// repository root that absolute paths are made relative to.
func (s *sarifFlags) options(base report.Options) report.Options {
	base.SARIFAnchor, base.SARIFCategory = s.anchor, s.category
	if wd, err := os.Getwd(); err == nil {
		base.BaseDir = wd
	}
	return base
}

// check rejects an anchor GitHub would refuse before anything is scanned.
func (s *sarifFlags) check() error {
	if strings.TrimSpace(s.anchor) == "" {
		return nil
	}
	wd, _ := os.Getwd()
	if err := sarif.ValidAnchor(s.anchor, wd); err != nil {
		return usageError("--sarif-anchor: %v", err)
	}
	return nil
}

func newReportCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:     "report",
		Short:   "Work with saved reports",
		Example: "  agentready report convert --from report.json --format html -o report.html",
		Args:    cobra.NoArgs,
	}
	cmd.AddCommand(newReportConvertCmd(e), newReportDiffCmd(e), newReportMergeCmd(e))
	return cmd
}

func newReportDiffCmd(e *env) *cobra.Command {
	var format, output string
	cmd := &cobra.Command{
		Use:   "diff OLD.json NEW.json",
		Short: "Compare two saved reports: grades, findings and the agent surface",
		Long: `diff compares two JSON reports of one target (a baseline written by 'agentready
baseline write' is one): how each family's grade moved, the findings that are new,
fixed or changed severity, and how the agent surface drifted: tools and operations
removed or renamed, inputs narrowed, tool hints changed, relations and skills gone.
It exits 1 when the surface changed in a way that breaks agents built against the
old one, 0 otherwise, and 2 on a usage error.`,
		Example: `  agentready report diff .agentready-baseline.json report.json
  agentready report diff old.json new.json --format markdown -o diff.md`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if !slices.Contains(diff.Formats, format) {
				return usageError("--format %q: want %s", format, strings.Join(diff.Formats, ", "))
			}
			before, err := readReportFile(e, args[0])
			if err != nil {
				return err
			}
			if err := interrupted(cmd.Context(), "diff"); err != nil {
				return err
			}
			after, err := readReportFile(e, args[1])
			if err != nil {
				return err
			}
			if err := interrupted(cmd.Context(), "diff"); err != nil {
				return err
			}
			d := diff.Compare(before, after)
			render := func(w io.Writer) error { return diff.Write(w, d, format) }
			if output == "" || output == "-" {
				err = e.page(format, render)
			} else {
				err = writeFile(e, output, format, render)
			}
			if err != nil {
				return &ExitError{Code: ExitIncomplete, Err: fmt.Errorf("write the diff: %w", err)}
			}
			if d.Breaking {
				return &ExitError{Code: ExitGateFailed}
			}
			return nil
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&format, "format", "text", "format to write: "+strings.Join(diff.Formats, ", "))
	fs.StringVarP(&output, "output", "o", "", "file to write (default: stdout)")
	return cmd
}

// readReportFile reads a JSON report named on the command line (- is
// stdin); a missing, foreign or oversized file is a usage error. A report
// may come from another CI job, so its size is checked before it is read,
// and jsonreport.Read bounds the read and the nesting as well.
func readReportFile(e *env, path string) (*finding.Report, error) {
	return readReportAs(e, "", path)
}

// readReport is readReportFile for a report named by --from.
func readReport(e *env, path string) (*finding.Report, error) {
	return readReportAs(e, "--from", path)
}

func readReportAs(e *env, flag, path string) (*finding.Report, error) {
	label := strings.TrimSpace(flag + " " + path)
	f := e.stdin
	if path != "-" {
		file, err := os.Open(path)
		if err != nil {
			if flag != "" {
				return nil, usageError("%s: %v", flag, err)
			}
			return nil, usageError("%v", err)
		}
		defer file.Close()
		if st, err := file.Stat(); err == nil && st.Size() > jsonreport.MaxSize {
			return nil, usageError("%s: %d bytes, larger than the %d MiB a report may have", label, st.Size(), jsonreport.MaxSize>>20)
		}
		f = file
	}
	rep, err := jsonreport.Read(f)
	if err != nil {
		return nil, usageError("%s: %v", label, err)
	}
	return rep, nil
}

// writeFile writes a document in format to the file at path (see writeAs).
func writeFile(e *env, path, format string, render func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := e.writeAs(f, format, render); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func newReportConvertCmd(e *env) *cobra.Command {
	var from, format, output, fullReport string
	var maxURLs, maxBytes int
	var colors colorFlags
	var sf sarifFlags
	cmd := &cobra.Command{
		Use:   "convert --from report.json --format FORMAT [-o PATH]",
		Short: "Re-render a saved JSON report in another format",
		Example: `  agentready scan https://api.example.com/ -q -o json=report.json
  agentready report convert --from report.json --format html -o report.html
  agentready report convert --from report.json --format sarif \
    --sarif-anchor api/openapi.yaml -o agentready.sarif
  agentready report convert --from report.json --format markdown \
    --markdown-max-bytes 60000 --markdown-full-report "$RUN_URL" -o comment.md`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if from == "" {
				return usageError("--from: the JSON report to convert is required")
			}
			if err := sf.check(); err != nil {
				return err
			}
			if maxBytes != 0 && maxBytes < markdown.MinMaxBytes {
				return usageError("--markdown-max-bytes %d: want at least %d (or 0, the step summary's bound)", maxBytes, markdown.MinMaxBytes)
			}
			if fullReport != "" {
				if err := markdown.ValidFullReport(fullReport); err != nil {
					return usageError("--markdown-full-report: %v", err)
				}
			}
			toStdout := output == "" || output == "-"
			color, err := colors.enabled(e, e.stdout)
			if err != nil {
				return err
			}
			color = color && toStdout && format == "text"
			width := 100
			if toStdout {
				width = termWidth(e.stdout)
			}
			rep, err := report.New(format, sf.options(report.Options{Color: color, Width: width, MaxURLs: maxURLs,
				MarkdownMaxBytes: maxBytes, MarkdownFullReport: fullReport}))
			if err != nil {
				return usageError("--format: %v", err)
			}
			in, err := readReport(e, from)
			if err != nil {
				return err
			}
			s := sink{format: format, path: "-", stdout: e.stdout, rep: rep}
			if !toStdout {
				s.path = output
			}
			if err := writeOne(e, s, in); err != nil {
				return &ExitError{Code: ExitIncomplete, Err: fmt.Errorf("write %s report to %s: %w", format, s.path, err)}
			}
			return nil
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&from, "from", "", "the JSON report to read (- for stdin), as written by -o json=PATH")
	fs.StringVar(&format, "format", "text", "format to write: "+strings.Join(report.Formats(), ", "))
	fs.StringVarP(&output, "output", "o", "", "file to write (default: stdout)")
	fs.IntVar(&maxURLs, "max-urls", 0, "occurrences shown per check in text and Markdown (default 3)")
	colors.register(fs)
	fs.IntVar(&maxBytes, "markdown-max-bytes", 0,
		"bytes the Markdown document may have; it is cut to fit, keeping the grade, the gate and the most severe findings (default: GitHub's 1 MiB step-summary bound)")
	fs.StringVar(&fullReport, "markdown-full-report", "", "URL where the whole report can be read, linked from a Markdown document that was cut")
	sf.register(fs)
	return cmd
}
