package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/agentready/agentready/internal/config"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/har"
	"github.com/agentready/agentready/internal/sanitize"
	"github.com/agentready/agentready/internal/scan"
	"github.com/agentready/agentready/probe"
)

// recordFlags save a scan as a HAR file, and judge a saved one again.
type recordFlags struct {
	record string
	replay string
	// maxSize caps the recording a replay reads: it holds every body the
	// recording does.
	maxSize int64
}

// maxRecordingSizeFlag caps the recording --replay reads.
const maxRecordingSizeFlag = "max-recording-size"

func (f *recordFlags) registerRecord(fs *pflag.FlagSet) {
	fs.StringVar(&f.record, "record", "", "also write every exchange of the scan to this HAR file, scrubbed like every report, for --replay")
}

func (f *recordFlags) registerReplay(fs *pflag.FlagSet) {
	fs.StringVar(&f.replay, "replay", "", "judge the scan recorded in this HAR file (--record) again, offline: nothing is sent")
	fs.Int64Var(&f.maxSize, maxRecordingSizeFlag, har.DefaultMaxSize, "largest recording --replay reads, in bytes")
}

// recordTo makes the plan write its recording to path, checked now like
// every output, before anything is started or sent.
func (p *scanPlan) recordTo(path string) error {
	if path == "" {
		return nil
	}
	if err := checkWritable(path); err != nil {
		return usageError("--record %s: %v", path, err)
	}
	p.record = path
	return nil
}

// writeRecording writes the HAR file, scrubbed as a whole like every report.
func writeRecording(e *env, path string, rec *scan.Recording) error {
	if rec == nil {
		return nil
	}
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("write the recording to %s: %w", path, err)
	}
	err = e.write(f, func(w io.Writer) error { return har.Write(w, rec, har.Options{Version: version(), Secrets: e.secrets}) })
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("write the recording to %s: %w", path, err)
	}
	return nil
}

// judgingFlags are the flags that still apply to a replay: how the recorded
// scan is judged and reported. Every other scan flag decides what is sent,
// and the recording has decided that.
func judgingFlags() map[string]bool {
	fs := pflag.NewFlagSet("judging", pflag.ContinueOnError)
	var out outputFlags
	out.register(fs)
	out.gate.register(fs)
	names := map[string]bool{"config": true, trustConfig: true, "replay": true, maxRecordingSizeFlag: true, "help": true}
	fs.VisitAll(func(f *pflag.Flag) { names[f.Name] = true })
	return names
}

// planReplay checks the flags of a replay and reads the recording. A URL
// is refused: the recording names its target. Settings that decide what is
// sent, from the command line, the environment or the configuration file,
// are named on stderr as ignored.
func planReplay(cmd *cobra.Command, e *env, args []string, out *outputFlags, rf *recordFlags) (*scanPlan, error) {
	if len(args) > 0 {
		return nil, usageError("--replay judges the scan recorded in %s, whose target it names: give no URL", rf.replay)
	}
	if rf.record != "" {
		return nil, usageError("--record and --replay exclude each other: a replay sends nothing to record")
	}
	arch, err := readRecording(rf.replay, rf.maxSize)
	if err != nil {
		return nil, err
	}
	noteIgnored(cmd.Flags(), e)
	if arch.Version != version() {
		// The version is the recording's, which anyone may have edited.
		fmt.Fprintf(e.stderr, "agentready: --replay: %s was recorded by agentready %s and is judged by %s; the reports differ where the checks do\n", rf.replay, sanitize.Line(arch.Version), version())
	}
	failOn, err := finding.ParseSeverity(out.failOn)
	if err != nil {
		return nil, usageError("--fail-on: %v", err)
	}
	sinks, err := planOutputs(e, out)
	if err != nil {
		return nil, err
	}
	policy, err := out.gate.policy(e)
	if err != nil {
		return nil, err
	}
	reg, err := e.registry()
	if err != nil {
		return nil, err
	}
	rec := arch.Recording
	opts := scan.Options{Probe: probe.Config{Start: rec.Target}, Checks: reg.All(), Version: version(),
		Policy: policy, Access: e.configFile().Access, Replay: rec}
	return &scanPlan{opts: opts, sinks: sinks, failOn: failOn, gate: &out.gate, quiet: out.quiet}, nil
}

// readRecording reads a HAR file written with --record; a missing,
// unreadable or foreign file is a usage error, and so is one over maxSize
// bytes, refused before it is read when its size is known.
func readRecording(path string, maxSize int64) (*har.Archive, error) {
	if maxSize < 1 {
		return nil, usageError("--%s must be positive", maxRecordingSizeFlag)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, usageError("--replay: %v", err)
	}
	defer f.Close()
	var arch *har.Archive
	if st, serr := f.Stat(); serr == nil && st.Mode().IsRegular() && st.Size() > maxSize {
		err = &har.TooLargeError{Size: st.Size(), Max: maxSize}
	} else {
		arch, err = har.Read(f, maxSize)
	}
	var tooLarge *har.TooLargeError
	if errors.As(err, &tooLarge) {
		return nil, usageError("--replay %s: %v; raise the cap with --%s BYTES (or limits.%s in %s)",
			path, err, maxRecordingSizeFlag, maxRecordingSizeFlag, config.FileName)
	}
	if err != nil {
		// Why a recording is refused quotes what it holds (its creator, a
		// name, a key): it is as hostile as the server it recorded.
		return nil, usageError("--replay %s: %s", path, sanitize.Line(err.Error()))
	}
	return arch, nil
}

// noteIgnored names on stderr the settings a replay does not read.
func noteIgnored(fs *pflag.FlagSet, e *env) {
	judging := judgingFlags()
	var ignored []string
	fs.Visit(func(f *pflag.Flag) {
		if !judging[f.Name] {
			ignored = append(ignored, "--"+f.Name)
		}
	})
	sort.Strings(ignored)
	if e.config != nil && e.config.target != "" {
		ignored = append(ignored, "the target of the configuration or "+envPrefix+"TARGET")
	}
	if len(ignored) > 0 {
		fmt.Fprintf(e.stderr, "agentready: --replay: what was sent comes from the recording; ignoring %s\n", strings.Join(ignored, ", "))
	}
}

// runReplay is a replay's run: the checks, the reports and the exit code of
// a scan, with nothing sent.
func runReplay(ctx context.Context, cmd *cobra.Command, e *env, args []string, out *outputFlags, rf *recordFlags) error {
	plan, err := planReplay(cmd, e, args, out, rf)
	if err != nil {
		return err
	}
	return plan.run(ctx, e)
}
