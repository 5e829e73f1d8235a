package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"

	"github.com/agentready/agentready/internal/config"
	"github.com/agentready/agentready/internal/scan"
	"github.com/agentready/agentready/internal/score"
	"github.com/agentready/agentready/internal/urlx"
	"github.com/agentready/agentready/probe"
	"github.com/agentready/agentready/report"
	"github.com/agentready/agentready/report/targets"
)

// targetPlaceholder in an -o or --baseline path is replaced by each target's
// name when several targets are scanned.
const targetPlaceholder = "{target}"

// targetSpec is one of several targets.
type targetSpec struct {
	name, url string
	// file is the target as the configuration declares it; nil for a URL
	// of the command line.
	file *config.Target
}

// targetFlags are the scan command's flags, shared by every target.
type targetFlags struct {
	out *outputFlags
	lim *limitFlags
	app *harnessFlags
	rf  *recordFlags
}

// severalTargets lists the targets of a run that scans more than one: two
// or more URLs on the command line, or none there and targets: in the
// configuration (unless AGENTREADY_TARGET names one).
func severalTargets(e *env, args []string) ([]targetSpec, bool) {
	if len(args) > 1 {
		var list []targetSpec
		used := map[string]int{}
		for _, raw := range args {
			name := config.TargetName(raw)
			if name == "" {
				name = "target"
			}
			// Two URLs on one host and path (http and https) keep apart by
			// a suffix: names are file names, they must differ.
			if used[name]++; used[name] > 1 {
				name = fmt.Sprintf("%s-%d", name, used[name])
			}
			list = append(list, targetSpec{name: name, url: raw})
		}
		return list, true
	}
	if len(args) == 0 && e.config != nil && e.config.target == "" && len(e.config.file.Targets) > 0 {
		var list []targetSpec
		for i := range e.config.file.Targets {
			t := &e.config.file.Targets[i]
			list = append(list, targetSpec{name: t.NameOf(), url: t.URL, file: t})
		}
		return list, true
	}
	return nil, false
}

// targetPlan is one target's scan, planned before any is sent.
type targetPlan struct {
	targetSpec
	plan     *scanPlan
	category string
}

// runTargets scans each target in turn, each with its own budget and its
// own report, and exits with the worst outcome: a gate failed (1) is worse
// than a pass, a target that could not be scanned (3) worse than both. A
// usage error of any target is found before the first is scanned.
func runTargets(ctx context.Context, e *env, list []targetSpec, f *targetFlags) error {
	if err := refuseForTargets(f); err != nil {
		return err
	}
	outs, err := planTargetOutputs(e, f.out)
	if err != nil {
		return err
	}
	var plans []targetPlan
	var all []scan.Options
	seen := map[string]bool{}
	categories := map[string]string{}
	for _, t := range list {
		if seen[t.url] && t.file == nil {
			return usageError("target %s is given twice", shownURL(t.url))
		}
		seen[t.url] = true
		p, err := planTarget(e, t, f)
		if err != nil {
			return err
		}
		if err := outs.checkEach(t.name); err != nil {
			return err
		}
		// GitHub refuses a SARIF log with two runs under one category.
		key := strings.TrimSuffix(strings.TrimSpace(p.category), "/")
		if other, dup := categories[key]; dup {
			return usageError("targets %s and %s have one SARIF category, %q; give each its own sarif-category", other, t.name, key)
		}
		categories[key] = t.name
		plans = append(plans, p)
		all = append(all, p.plan.opts)
	}
	// Every target's credentials are scrubbed from every output: one
	// target's report may quote what another's would not.
	e.scrubbing(scan.Scrubber(all...))
	results := make([]targets.Result, 0, len(plans))
	for i, p := range plans {
		r := scanTarget(ctx, e, p, i, len(plans), f.out)
		if r.Error != "" {
			fmt.Fprintf(e.stderr, "agentready: target %s: %s\n", r.Name, r.Error)
		}
		if err := outs.writeTarget(e, i, len(plans), r); err != nil {
			return &ExitError{Code: ExitIncomplete, Err: err}
		}
		results = append(results, r)
	}
	if err := outs.writeCombined(e, results); err != nil {
		return &ExitError{Code: ExitIncomplete, Err: err}
	}
	return targetsExit(results)
}

// nameTarget replaces {target} in the -o and --baseline paths of a scan of
// one target, so that one set of flags serves a run of one target and of
// several alike.
func (o *outputFlags) nameTarget(name string) {
	for i, spec := range o.outputs {
		o.outputs[i] = strings.ReplaceAll(spec, targetPlaceholder, name)
	}
	o.gate.baseline = strings.ReplaceAll(o.gate.baseline, targetPlaceholder, name)
}

// refuseForTargets refuses what acts on one target alone.
func refuseForTargets(f *targetFlags) error {
	switch {
	case f.rf.replay != "":
		return usageError("--replay judges one recorded scan; give no URL, or one")
	case f.rf.record != "":
		return usageError("--record records one target; scan the targets one at a time to record them")
	case f.app.command != "":
		return usageError("--start (start: in %s) starts one app; start the apps first, then scan several targets", config.FileName)
	case f.lim.act.on:
		return usageError("--active sends state-changing requests to one target at a time; scan the targets one at a time")
	case f.lim.trial.on || f.lim.trial.planOnly:
		return usageError("--trial plays one target at a time; scan the targets one at a time")
	case f.out.gate.baseline != "" && !strings.Contains(f.out.gate.baseline, targetPlaceholder):
		return usageError("--baseline with several targets: put %s in its path (e.g. baselines/%s.json), so that each target is compared with its own", targetPlaceholder, targetPlaceholder)
	}
	return f.app.check()
}

// planTarget checks one target's settings and prepares its scan: the
// shared flags, with what the target sets itself in their place.
func planTarget(e *env, t targetSpec, f *targetFlags) (targetPlan, error) {
	start, err := parseTarget(t.url)
	if err != nil {
		return targetPlan{}, inTarget(t.name, err)
	}
	lim := *f.lim
	t.override(&lim, e.config.file)
	if err := inheritedOnOrigin(start, &lim, t.file); err != nil {
		return targetPlan{}, inTarget(t.name, err)
	}
	out := *f.out
	out.outputs, out.quiet = nil, true // this run writes the reports (see targetOutputs)
	out.gate.baseline = strings.ReplaceAll(out.gate.baseline, targetPlaceholder, t.name)
	plan, err := planScan(e, start, &out, &lim)
	if err != nil {
		return targetPlan{}, inTarget(t.name, err)
	}
	plan.quiet = f.out.quiet
	category := f.out.sarif.category + "/" + t.name
	if t.file != nil && t.file.SARIFCategory != "" {
		category = t.file.SARIFCategory
	}
	return targetPlan{targetSpec: t, plan: plan, category: category}, nil
}

// override puts the target's own settings in place of the shared ones.
func (t targetSpec) override(lim *limitFlags, f *config.File) {
	ft := t.file
	if ft == nil {
		return
	}
	if ft.OpenAPI != "" {
		lim.spec.source = f.Resolve(ft.OpenAPI)
	}
	if ft.BasePath != "" {
		lim.spec.basePath = ft.BasePath
	}
	if ft.Server != nil {
		lim.spec.server = *ft.Server
	}
	if ft.MCP != "" {
		lim.mcpEndpoint = ft.MCP
	}
	if len(ft.Include) > 0 {
		lim.include = ft.Include
	}
	if len(ft.Exclude) > 0 {
		lim.exclude = ft.Exclude
	}
	lim.ids.ofTarget = ft.Identities
	t.overrideTLS(&lim.tls, f)
}

// overrideTLS puts the target's tls: keys in place of the shared ones, key
// by key; the client certificate and its key are one setting.
func (t targetSpec) overrideTLS(shared *tlsFlags, f *config.File) {
	own := t.file.TLS
	if own.CACert != "" {
		shared.caCert = f.Resolve(own.CACert)
	}
	if own.Cert != "" {
		shared.cert, shared.key = f.Resolve(own.Cert), f.Resolve(own.Key)
	}
	if own.Insecure != nil {
		shared.insecure = *own.Insecure
	}
}

// inheritedOnOrigin refuses a shared MCP endpoint or OpenAPI URL on another
// origin than the target's: the target's credentials would go there, and
// most likely it is another target's.
func inheritedOnOrigin(start *url.URL, lim *limitFlags, own *config.Target) error {
	shared := map[string]string{}
	if own == nil || own.MCP == "" {
		shared["mcp"] = lim.mcpEndpoint
	}
	if own == nil || own.OpenAPI == "" {
		shared["openapi"] = lim.spec.source
	}
	for _, key := range []string{"mcp", "openapi"} {
		raw := shared[key]
		if !strings.HasPrefix(raw, "http://") && !strings.HasPrefix(raw, "https://") {
			continue
		}
		if u, err := url.Parse(raw); err == nil && !urlx.SameOrigin(u, start) {
			return usageError("the shared %s %s is on another origin than this target; set %s for each target under targets: in %s",
				key, shownURL(raw), key, config.FileName)
		}
	}
	return nil
}

// inTarget names the target a planning error is about, keeping its code.
func inTarget(name string, err error) error {
	var ee *ExitError
	if errors.As(err, &ee) && ee.Err != nil {
		return &ExitError{Code: ee.Code, Err: fmt.Errorf("target %s: %w", name, ee.Err)}
	}
	return err
}

// scanTarget scans one target and judges it as a scan of it alone would.
func scanTarget(ctx context.Context, e *env, p targetPlan, i, n int, out *outputFlags) targets.Result {
	r := targets.Result{Name: p.name, URL: p.plan.opts.Probe.Start.String(), Category: p.category, ExitCode: targets.ExitIncomplete}
	if ctx.Err() != nil {
		r.Error = "interrupted before this target was scanned"
		return r
	}
	if !out.quiet {
		fmt.Fprintf(e.stderr, "agentready: target %d of %d: %s\n", i+1, n, p.name)
	}
	rep, err := runScan(ctx, e, p.plan.opts, out.quiet)
	if err != nil {
		if !errors.Is(err, probe.ErrUnreachable) {
			err = fmt.Errorf("scan failed: %w", err)
		}
		r.Error = withTLSHint(err).Error()
		return r
	}
	rep.Gate = score.Gate(rep, p.plan.gate.options(p.plan.failOn))
	r.Report = rep
	r.ExitCode = targets.ExitPassed
	var ee *ExitError
	if errors.As(exitFor(ctx, rep), &ee) {
		r.ExitCode = ee.Code
		if ee.Err != nil {
			r.Error = ee.Err.Error()
		}
	}
	return r
}

// targetsExit is the run's exit: the worst target's.
func targetsExit(results []targets.Result) error {
	code := targets.Worst(results)
	switch code {
	case targets.ExitPassed:
		return nil
	case targets.ExitGateFailed:
		return &ExitError{Code: ExitGateFailed}
	}
	var names []string
	for _, r := range results {
		if r.ExitCode == targets.ExitIncomplete {
			names = append(names, r.Name)
		}
	}
	return &ExitError{Code: ExitIncomplete, Err: fmt.Errorf("%d of %d targets could not be scanned or judged: %s", len(names), len(results), strings.Join(names, ", "))}
}

// targetOutputs are where the reports of several targets go.
type targetOutputs struct {
	// stdout is the --format report, or nil with -q.
	stdout *sink
	// combined hold every target in one document; each are written once
	// per target, {target} in their path replaced by its name.
	combined, each []sink
}

// planTargetOutputs checks -o and --format for several targets: a path
// with {target} is one file per target; one without holds them all, which
// only text, markdown, json and sarif can.
func planTargetOutputs(e *env, out *outputFlags) (*targetOutputs, error) {
	sinks, err := planOutputs(e, out)
	if err != nil {
		return nil, err
	}
	outs := &targetOutputs{}
	for i := range sinks {
		s := sinks[i]
		switch {
		case strings.Contains(s.path, targetPlaceholder):
			outs.each = append(outs.each, s)
		case !targets.Combined(s.format) && s.path == "-":
			return nil, usageError("%s on stdout holds one report; with several targets print text, markdown, json or sarif there, or write -o %s=report-%s.%s",
				s.format, s.format, targetPlaceholder, s.format)
		case !targets.Combined(s.format):
			return nil, usageError("-o %s=%s: %s has no report of several targets in one file; put %s in the file name, e.g. report-%s.%s",
				s.format, s.path, s.format, targetPlaceholder, targetPlaceholder, s.format)
		case s.path == "-" && i == 0 && !out.quiet:
			outs.stdout = &s
		default:
			outs.combined = append(outs.combined, s)
		}
	}
	return outs, nil
}

// checkEach finds a per-target path that could not be written.
func (o *targetOutputs) checkEach(name string) error {
	for _, s := range o.each {
		if err := checkWritable(eachPath(s.path, name)); err != nil {
			return usageError("-o %s=%s for target %s: %v", s.format, s.path, name, err)
		}
	}
	return nil
}

func eachPath(path, name string) string { return strings.ReplaceAll(path, targetPlaceholder, name) }

// writeTarget writes one target's files, and its section of a text or
// Markdown stdout, as soon as it is scanned.
func (o *targetOutputs) writeTarget(e *env, i, n int, r targets.Result) error {
	if r.Report != nil {
		for _, s := range o.each {
			opts := s.opts
			opts.SARIFCategory = r.Category
			rep, err := report.New(s.format, opts)
			if err != nil {
				return err
			}
			one := sink{format: s.format, path: eachPath(s.path, r.Name), stdout: s.stdout, rep: rep, opts: opts}
			if err := writeOne(e, one, r.Report); err != nil {
				return fmt.Errorf("write %s report to %s: %w", one.format, one.path, err)
			}
		}
	}
	if s := o.stdout; s != nil && targets.Sectioned(s.format) {
		return e.writeAs(s.stdout, s.format, func(w io.Writer) error { return targets.WriteSection(w, s.format, s.opts, i, n, r) })
	}
	return nil
}

// writeCombined writes the documents of every target: the summary after the
// sections already on stdout, the whole document elsewhere.
func (o *targetOutputs) writeCombined(e *env, results []targets.Result) error {
	if s := o.stdout; s != nil {
		render := func(w io.Writer) error { return targets.Write(w, s.format, s.opts, results) }
		if targets.Sectioned(s.format) {
			render = func(w io.Writer) error { return targets.WriteSummary(w, s.format, results) }
		}
		if err := e.writeAs(s.stdout, s.format, render); err != nil {
			return fmt.Errorf("write %s report to stdout: %w", s.format, err)
		}
	}
	for _, s := range o.combined {
		render := func(w io.Writer) error { return targets.Write(w, s.format, s.opts, results) }
		var err error
		if s.path == "-" {
			err = e.writeAs(s.stdout, s.format, render)
		} else {
			err = writeFile(e, s.path, s.format, render)
		}
		if err != nil {
			return fmt.Errorf("write %s report to %s: %w", s.format, s.path, err)
		}
	}
	return nil
}
