package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"golang.org/x/term"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/internal/config"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/pipeline"
	"github.com/agentready/agentready/internal/scan"
	"github.com/agentready/agentready/internal/score"
	"github.com/agentready/agentready/internal/urlx"
	"github.com/agentready/agentready/probe"
	"github.com/agentready/agentready/report"
)

// outputFlags are shared by scan and demo: what to write and when to fail.
type outputFlags struct {
	format  string
	outputs []string
	failOn  string
	color   colorFlags // --color, --no-color; see color.go
	quiet   bool
	verbose bool
	sarif   sarifFlags // --sarif-anchor, --sarif-category; see report.go
	gate    gateFlags  // --baseline, --strict-baseline, --fail-under; see baseline.go
}

func (o *outputFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&o.format, "format", "text", "format of the report on stdout: "+strings.Join(report.Formats(), ", "))
	fs.StringArrayVarP(&o.outputs, "output", "o", nil, "also write FORMAT=PATH (repeatable; PATH - is stdout)")
	fs.StringVar(&o.failOn, "fail-on", "error", "fail (exit 1) on findings of this severity or worse: error, warning, info or none")
	o.color.register(fs)
	fs.BoolVarP(&o.quiet, "quiet", "q", false, "print no report on stdout and no progress on stderr; -o outputs are still written")
	fs.BoolVarP(&o.verbose, "verbose", "v", false, "log every request on stderr, with its time and latency, and list every occurrence, every check and the surface matrix")
	o.sarif.register(fs)
}

// limitFlags bound the crawl.
type limitFlags struct {
	headers          []string
	maxPages         int
	maxDepth         int
	concurrency      int
	rate             float64
	timeout, budget  time.Duration
	maxBody          int64
	maxLinksPerPage  int
	maxQueryVariants int
	respectRobots    bool
	include, exclude []string
	mcpEndpoint      string
	spec             specFlags     // --openapi and friends; see openapi.go
	ids              identityFlags // --identity and friends; see identities.go
	act              activeFlags   // --active and friends; see active.go
	trial            trialFlags    // --trial and friends; see trial.go
	tls              tlsFlags      // --cacert, --cert, --key, --insecure; see tls.go
}

func (l *limitFlags) register(fs *pflag.FlagSet) {
	fs.StringArrayVarP(&l.headers, "header", "H", nil, "send 'Name: value' on every request to the target (repeatable; redacted in reports unless the field carries no credential, like Accept)")
	fs.IntVar(&l.maxPages, "max-pages", 200, "crawl at most this many pages")
	fs.IntVar(&l.maxDepth, "max-depth", 5, "follow links at most this deep")
	fs.IntVar(&l.concurrency, "concurrency", 4, "requests in flight at once")
	fs.Float64Var(&l.rate, "rate", 0, "requests per second (0 means unlimited)")
	fs.DurationVar(&l.timeout, "timeout", 10*time.Second, "timeout per request")
	fs.DurationVar(&l.budget, "budget", 2*time.Minute, "time budget for the whole scan")
	fs.Int64Var(&l.maxBody, "max-body", 2<<20, "read at most this many bytes of each body")
	fs.IntVar(&l.maxLinksPerPage, "max-links-per-page", 1000, "take at most this many links from one page, in the order they are read")
	fs.IntVar(&l.maxQueryVariants, "max-query-variants", 5, "crawl at most this many distinct query strings of one path")
	fs.BoolVar(&l.respectRobots, "respect-robots", false, "skip the paths /robots.txt disallows for agentready (or *); by default it is not read")
	fs.StringArrayVar(&l.include, "include", nil, "crawl only paths matching this pattern (repeatable, e.g. '/orders/*')")
	fs.StringArrayVar(&l.exclude, "exclude", nil, "never crawl paths matching this pattern (repeatable)")
	l.spec.register(fs)
	l.ids.register(fs)
	l.act.register(fs)
	l.trial.register(fs)
	l.tls.register(fs)
	fs.StringVar(&l.mcpEndpoint, "mcp", "", "MCP endpoint to examine (default: the one the target advertises, else /mcp on its origin)")
}

func (l *limitFlags) config(start *url.URL) (probe.Config, error) {
	h := http.Header{}
	for _, raw := range l.headers {
		name, value, ok := strings.Cut(raw, ":")
		name = strings.TrimSpace(name)
		if !ok || name == "" || strings.ContainsAny(name, " \t") {
			return probe.Config{}, usageError("--header %q: want 'Name: value'", raw)
		}
		h.Add(name, strings.TrimSpace(value))
	}
	switch {
	case l.maxPages < 1, l.maxDepth < 0, l.concurrency < 1, l.rate < 0, l.timeout <= 0, l.budget <= 0, l.maxBody < 1, l.maxLinksPerPage < 1,
		l.maxQueryVariants < 1, math.IsNaN(l.rate), math.IsInf(l.rate, 0):
		return probe.Config{}, usageError("limits must be positive (--max-pages, --concurrency, --timeout, --budget, --max-body, --max-links-per-page, --max-query-variants; --max-depth and --rate may be 0)")
	}
	if err := checkPatterns("include", l.include); err != nil {
		return probe.Config{}, err
	}
	if err := checkPatterns("exclude", l.exclude); err != nil {
		return probe.Config{}, err
	}
	cfg := probe.Config{
		Start: start, Headers: h, MaxPages: l.maxPages, MaxDepth: l.maxDepth,
		Concurrency: l.concurrency, Rate: l.rate, Timeout: l.timeout, Budget: l.budget,
		MaxBody: l.maxBody, MaxLinksPerPage: l.maxLinksPerPage, MaxQueryVariants: l.maxQueryVariants, RespectRobots: l.respectRobots,
		Include: l.include, Exclude: l.exclude,
		Version:   version(),
		UserAgent: "agentready/" + version() + " (+https://github.com/agentready/agentready)",
	}
	tlsConfig, err := l.tls.config()
	if err != nil {
		return probe.Config{}, err
	}
	cfg.TLS = tlsConfig
	sendUserinfo(start, &cfg)
	if err := l.spec.apply(&cfg); err != nil {
		return probe.Config{}, err
	}
	if err := l.takeURLCredentials(&cfg); err != nil {
		return probe.Config{}, err
	}
	return cfg, nil
}

// checkPatterns refuses a malformed --include or --exclude, which would
// match nothing: a mistyped exclude would crawl what it meant to leave out.
func checkPatterns(flag string, patterns []string) error {
	for _, p := range patterns {
		if err := urlx.CheckPattern(p); err != nil {
			return usageError("--%s %v", flag, err)
		}
	}
	return nil
}

// takeURLCredentials checks the --mcp URL, and takes the user-info of it and
// of the --openapi URL into cfg.Credentials (see ownUserinfo). The flags
// keep the URLs without it, for the scan options built from them.
func (l *limitFlags) takeURLCredentials(cfg *probe.Config) error {
	if l.mcpEndpoint != "" {
		u, err := parseMCPURL(l.mcpEndpoint)
		if err != nil {
			return err
		}
		l.mcpEndpoint = ownUserinfo(u, cfg)
	}
	if u, err := url.Parse(cfg.Spec.URL); err == nil && cfg.Spec.URL != "" {
		cfg.Spec.URL = ownUserinfo(u, cfg)
	}
	return nil
}

func newScanCmd(e *env) *cobra.Command {
	var out outputFlags
	var lim limitFlags
	var app harnessFlags
	var rf recordFlags
	var shard string
	cmd := &cobra.Command{
		Use:   "scan [URL...]",
		Short: "Crawl a live API, probe it, check it and print a graded report",
		Long: `scan crawls a live API, probes it, runs the checks and prints a graded report.

Several URLs, or none and targets: in the configuration file, scan several
targets one after another, each with its own budget and report, then print a
summary; the exit code is the worst target's (0, then 1, then 3). In an -o or
--baseline path, {target} is replaced by each target's name; a path without it
holds every target (text, markdown, json, sarif).`,
		Example: `  agentready scan http://127.0.0.1:8080/
  agentready scan --openapi openapi.yaml -H "Authorization: Bearer $TOKEN" \
    https://staging.example.com/
  agentready scan -q -o sarif=agentready.sarif --fail-on warning \
    https://staging.example.com/
  agentready scan --start 'go run ./cmd/server' \
    --ready http://127.0.0.1:8080/healthz http://127.0.0.1:8080/
  agentready scan -o json=all.json -o html=report-{target}.html \
    https://orders.example.com/ https://billing.example.com/`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if list, ok := severalTargets(e, args); ok {
				return runTargets(cmd.Context(), e, list, &targetFlags{out: &out, lim: &lim, app: &app, rf: &rf})
			}
			if rf.replay != "" {
				return runReplay(cmd.Context(), cmd, e, args, &out, &rf)
			}
			raw, err := targetArg(e, args)
			if err != nil {
				return err
			}
			start, err := parseTarget(raw)
			if err != nil {
				return err
			}
			out.nameTarget(config.TargetName(start.String()))
			if err := app.check(); err != nil {
				return err
			}
			lim.spec.keepRaw = rf.record != "" || checks.NeedsOf(e.customChecks()).Has(checks.NeedsSpecText)
			if app.command != "" {
				lim.trial.restart = app.restartApp // a trial restarts the app between runs
			}
			plan, err := planScan(e, start, &out, &lim)
			if err != nil {
				return err
			}
			if err := plan.splitInto(shard); err != nil {
				return err
			}
			if err := plan.recordTo(rf.record); err != nil {
				return err
			}
			started, err := app.start(cmd.Context(), e, start.String())
			if err != nil {
				return err
			}
			return started.finish(e, plan.run(started.cancelOnExit(cmd.Context()), e))
		},
	}
	out.register(cmd.Flags())
	out.gate.register(cmd.Flags())
	lim.register(cmd.Flags())
	app.register(cmd.Flags())
	rf.registerRecord(cmd.Flags())
	rf.registerReplay(cmd.Flags())
	cmd.Flags().StringVar(&shard, "shard", "",
		"scan shard i of n (1/4, 2/4, ...): the path shapes it owns, and the site-wide checks in shard 1; join the JSON reports with 'agentready report merge'")
	return cmd
}

// splitInto makes the scan shard raw ("i/n") of a split scan, or leaves it
// whole when raw is empty.
func (p *scanPlan) splitInto(raw string) error {
	if raw == "" {
		return nil
	}
	sh, err := finding.ParseShard(raw)
	if err != nil {
		return usageError("--shard: %v", err)
	}
	if p.opts.Active != nil && sh.Split() {
		return usageError("--shard and --active exclude each other: state-changing probes are sent by one whole scan")
	}
	if p.opts.Trial != nil && sh.Split() {
		return usageError("--shard and --trial exclude each other: a trial is played by one whole scan")
	}
	p.opts.Shard = sh
	return nil
}

func parseTarget(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, usageError("target %s: want an absolute http or https URL", shownURL(raw))
	}
	if u.Path == "" {
		u.Path = "/"
	}
	return u, nil
}

// scanPlan is a scan whose flags have all been checked: every usage error
// is found before an app is started or a request is sent.
type scanPlan struct {
	opts   scan.Options
	sinks  []sink
	failOn finding.Severity
	gate   *gateFlags
	quiet  bool
	// record is the HAR file the recording goes to (--record), or "".
	record string
}

// planScan checks every flag of scan and demo and prepares the scan.
func planScan(e *env, start *url.URL, out *outputFlags, lim *limitFlags) (*scanPlan, error) {
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
	opts, err := scanOptions(e, start, lim, policy)
	if err != nil {
		return nil, err
	}
	if out.verbose {
		opts.Probe.Log = e.stderr
	}
	if opts.Trial, err = lim.trial.options(e, lim.act.allow, lim.act.yes); err != nil {
		return nil, err
	}
	if opts.Active, err = lim.act.options(e, opts.Trial != nil); err != nil {
		return nil, err
	}
	return &scanPlan{opts: opts, sinks: sinks, failOn: failOn, gate: &out.gate, quiet: out.quiet}, nil
}

// scanOptions checks the flags that decide what a scan sends, as whom, and
// how its findings are judged, and starts scrubbing the credentials it will
// send. Every command that scans goes through it, so that a baseline is
// taken exactly as the scans compared with it and its fingerprints match.
func scanOptions(e *env, start *url.URL, lim *limitFlags, policy *pipeline.Policy) (scan.Options, error) {
	cfg, err := lim.config(start)
	if err != nil {
		return scan.Options{}, err
	}
	reg, err := e.registry()
	if err != nil {
		return scan.Options{}, err
	}
	ids, err := lim.ids.resolve(e, cfg.Headers)
	if err != nil {
		return scan.Options{}, err
	}
	opts := scan.Options{Probe: cfg, Checks: reg.All(), Version: version(), MCPEndpoint: lim.mcpEndpoint,
		Policy: policy, Identities: ids, Access: e.configFile().Access, Catalog: catalogLimits(e.configFile().Limits),
		Twins: checks.TwinLimits{MinHeadingOverlap: e.configFile().Limits.TwinHeadings, MaxLinkDifferences: e.configFile().Limits.TwinLinks}}
	for _, id := range ids {
		if id.OAuth == nil {
			continue
		}
		if err := id.OAuth.Validate(start); err != nil {
			return scan.Options{}, usageError("identity %s: oauth %v", id.Name, err)
		}
		if e.issued == nil {
			e.issued = &probe.SecretBook{}
			opts.Probe.Issued = e.issued
		}
	}
	e.scrubbing(scan.Scrubber(opts))
	return opts, nil
}

// catalogLimits takes the MCP catalog's bounds from the configuration; the
// checks fill in the defaults.
func catalogLimits(l config.Limits) checks.CatalogLimits {
	var out checks.CatalogLimits
	if l.MCPTools != nil {
		out.Tools = *l.MCPTools
	}
	if l.MCPTokens != nil {
		out.Tokens = *l.MCPTokens
	}
	if l.MCPDescription != nil {
		out.DescriptionTokens = *l.MCPDescription
	}
	return out
}

// run scans, writes the reports and maps the outcome to an exit code.
func (p *scanPlan) run(ctx context.Context, e *env) error {
	var rec *scan.Recording
	if p.record != "" {
		p.opts.Record = func(r *scan.Recording) { rec = r }
	}
	rep, err := runScan(ctx, e, p.opts, p.quiet)
	if errors.Is(err, errActiveDeclined) || errors.Is(err, errTrialDeclined) {
		return err
	}
	if err != nil {
		if errors.Is(err, probe.ErrUnreachable) {
			return &ExitError{Code: ExitIncomplete, Err: withTLSHint(err)}
		}
		return &ExitError{Code: ExitIncomplete, Err: withTLSHint(fmt.Errorf("scan failed: %w", err))}
	}
	attachApp(rep, e)
	rep.Gate = score.Gate(rep, p.gate.options(p.failOn))
	if err := writeOutputs(e, p.sinks, rep); err != nil {
		return &ExitError{Code: ExitIncomplete, Err: err}
	}
	if err := writeRecording(e, p.record, rec); err != nil {
		return &ExitError{Code: ExitIncomplete, Err: err}
	}
	return exitFor(ctx, rep)
}

// runScan is scan.Run under a progress line on stderr (see progressLine),
// which is gone when it returns: what is written next starts on a clean
// line. The -v log lines, each after the time it is written at, and the
// active probes' prompt make room for it.
func runScan(ctx context.Context, e *env, opts scan.Options, quiet bool) (*finding.Report, error) {
	opts.Progress = &probe.Progress{}
	line := startProgress(e, opts.Progress, progressLimits{maxPages: opts.Probe.MaxPages, budget: opts.Probe.Budget}, quiet)
	defer line.stop()
	if opts.Probe.Log != nil {
		opts.Probe.Log = e.logVerbosely(line.logTo(newStampedLog(opts.Probe.Log, time.Now)))
	}
	if a := opts.Active; a != nil && a.Confirm != nil && line != nil {
		withPrompt, confirm := *a, a.Confirm
		withPrompt.Confirm = func(plan []exchange.ActiveRequest) error {
			line.pause()
			defer line.resume()
			return confirm(plan)
		}
		opts.Active = &withPrompt
	}
	if t := opts.Trial; t != nil && t.Confirm != nil && line != nil {
		withPrompt, confirm := *t, t.Confirm
		withPrompt.Confirm = func(plan *exchange.TrialPlan) error {
			line.pause()
			defer line.resume()
			return confirm(plan)
		}
		opts.Trial = &withPrompt
	}
	return scan.Run(ctx, opts)
}

func exitFor(ctx context.Context, rep *finding.Report) error {
	switch {
	case rep.Coverage.Stopped():
		return &ExitError{Code: ExitIncomplete, Err: fmt.Errorf("%s; the partial report was written", rep.Coverage.Interrupted)}
	case ctx.Err() != nil:
		return &ExitError{Code: ExitIncomplete, Err: errors.New("interrupted; the partial report was written")}
	case rep.Coverage.Throttled():
		return &ExitError{Code: ExitIncomplete, Err: errors.New(rep.Coverage.Cause)}
	case !rep.Coverage.Reached():
		return &ExitError{Code: ExitIncomplete, Err: fmt.Errorf("the scan reached no API resource: %s", rep.Coverage.Cause)}
	case rep.Score.Grade == finding.GradeNotAssessed:
		return &ExitError{Code: ExitIncomplete, Err: errors.New("no check could be evaluated; see the notes in the report")}
	case !rep.Gate.Passed:
		return &ExitError{Code: ExitGateFailed}
	}
	return nil
}

// sink is one place a report is written.
type sink struct {
	format string
	path   string    // "-" is stdout
	stdout io.Writer // set when path is "-"
	rep    report.Reporter
	// opts are the options rep was made with, for the combined report of
	// several targets (see targets.go).
	opts report.Options
}

func planOutputs(e *env, out *outputFlags) ([]sink, error) {
	if err := out.sarif.check(); err != nil {
		return nil, err
	}
	color, err := out.color.enabled(e, e.stdout)
	if err != nil {
		return nil, err
	}
	var sinks []sink
	// --format is checked with -q too, which only leaves stdout unused.
	stdoutOpts := out.sarif.options(report.Options{Color: color && out.format == "text", Width: termWidth(e.stdout), Verbose: out.verbose})
	r, err := report.New(out.format, stdoutOpts)
	if err != nil {
		return nil, usageError("--format: %v", err)
	}
	stdoutTaken := !out.quiet
	if stdoutTaken {
		sinks = append(sinks, sink{format: out.format, path: "-", stdout: e.stdout, rep: r, opts: stdoutOpts})
	}
	for _, spec := range out.outputs {
		format, path, ok := strings.Cut(spec, "=")
		if !ok || format == "" || path == "" {
			return nil, usageError("-o %q: want FORMAT=PATH", spec)
		}
		if path == "-" {
			if stdoutTaken {
				return nil, usageError("-o %q: stdout is already used; pass -q to free it", spec)
			}
			stdoutTaken = true
		} else if err := checkWritable(path); err != nil {
			return nil, usageError("-o %q: %v", spec, err)
		}
		opts := out.sarif.options(report.Options{Width: 100, Verbose: out.verbose})
		r, err := report.New(format, opts)
		if err != nil {
			return nil, usageError("-o %q: %v", spec, err)
		}
		sinks = append(sinks, sink{format: format, path: path, stdout: e.stdout, rep: r, opts: opts})
	}
	return sinks, nil
}

func writeOutputs(e *env, sinks []sink, rep *finding.Report) error {
	for _, s := range sinks {
		if err := writeOne(e, s, rep); err != nil {
			return fmt.Errorf("write %s report to %s: %w", s.format, s.path, err)
		}
	}
	return nil
}

func writeOne(e *env, s sink, rep *finding.Report) error {
	render := func(w io.Writer) error { return s.rep.Write(w, rep) }
	if s.path == "-" {
		return e.page(s.format, render)
	}
	return writeFile(e, s.path, s.format, render)
}

// checkWritable finds, before a scan, a report path that could not be
// written after it: a missing or read-only directory, or a directory in its
// place. It creates and truncates nothing: the scan may still fail, and an
// existing report must then stay as it was.
func checkWritable(p string) error {
	if st, err := os.Stat(p); err == nil {
		if st.IsDir() {
			return fmt.Errorf("%s is a directory", p)
		}
		f, err := os.OpenFile(p, os.O_WRONLY, 0)
		if err != nil {
			return err
		}
		return f.Close()
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	dir := filepath.Dir(p)
	if st, err := os.Stat(dir); err != nil {
		return err
	} else if !st.IsDir() {
		return fmt.Errorf("%s is not a directory", dir)
	}
	tmp, err := os.CreateTemp(dir, ".agentready-write-check-*")
	if err != nil {
		return fmt.Errorf("cannot create files in %s: %w", dir, err)
	}
	tmp.Close()
	return os.Remove(tmp.Name())
}

func isTerminal(w io.Writer) bool {
	f, ok := underlying(w).(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// underlying is the writer w writes to in the end, past the filters that
// wrap it (stderr's is one).
func underlying(w io.Writer) io.Writer {
	for {
		u, ok := w.(interface{ Unwrap() io.Writer })
		if !ok {
			return w
		}
		w = u.Unwrap()
	}
}

// termWidth is the width of the terminal w writes to, or 100 when w is not a
// terminal (a pipe, a file, CI logs). A very narrow terminal is taken as it
// is; the text reporter keeps a minimum of its own.
func termWidth(w io.Writer) int {
	if f, ok := underlying(w).(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		if width, _, err := term.GetSize(int(f.Fd())); err == nil && width > 0 {
			return width
		}
	}
	return 100
}
