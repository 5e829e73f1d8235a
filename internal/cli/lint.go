package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/internal/config"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/jsonorder"
	"github.com/agentready/agentready/internal/mcp"
	"github.com/agentready/agentready/internal/pipeline"
	"github.com/agentready/agentready/internal/sanitize"
	"github.com/agentready/agentready/internal/scan"
	"github.com/agentready/agentready/internal/score"
	"github.com/agentready/agentready/internal/spec"
	"github.com/agentready/agentready/report/targets"
)

// stdinDocument is the argument that reads a document from stdin, and the
// name its findings point at.
const stdinDocument = "-"

// lintFlags are what lint reads besides the documents.
type lintFlags struct {
	out     outputFlags
	maxSize int64
	// mcpTools is the tool catalog judged beside the one OpenAPI document.
	mcpTools string
	// llms and agentCard are the llms.txt file and the A2A agent card
	// judged beside it, as if the API served them at their well-known URLs.
	llms, agentCard string
	base            lintBaselineFlags
}

func newLintCmd(e *env) *cobra.Command {
	f := &lintFlags{}
	cmd := &cobra.Command{
		Use:   "lint DOCUMENT...",
		Short: "Check OpenAPI documents and a tool catalog offline, for pre-commit",
		Long: `lint runs every check whose inputs are documents (agentready checks --static
lists them), each document on its own: that it loads (syntax, $refs, one
OpenAPI version), operationId uniqueness, path-template validity, x-hal-rel
well-formedness and relation collisions, problem+json declared on successes
and for errors, idempotency keys on confirm, recover and retry operations, and the
house rules on the document. With --mcp-tools, the tool catalog is
judged too (hidden instructions, confusable tools, descriptions, schemas,
hints, context cost) and against the document's operations (parity). With
--llms and --agent-card, the llms.txt file and the A2A agent card are judged
as if served at /llms.txt and /.well-known/agent-card.json, by the checks
that read their content alone (not their links, headers or location).

A document's $refs to other files under its directory are read: a
description split into several files is one document. - reads a document
from stdin. One that does not parse gets no grade and one error finding with
its line and column (exit 1). Findings point at the file, line and column.
Reports and exit codes are those of scan; several documents give a report
each, then a summary, as several scan targets do. The configuration file
scan reads (--config, or ` + config.FileName + ` in the working directory or a
parent) applies as it does to scan: checks turned off do not run, severities
and ignores apply, and its limits bound the tool catalog.`,
		Example: `  agentready lint openapi.yaml
  agentready lint api/*.yaml
  agentready lint openapi.yaml --mcp-tools tools.json
  agentready lint openapi.yaml --llms llms.txt --agent-card agent-card.json
  agentready lint --format sarif openapi.yaml > agentready.sarif`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runLint(cmd.Context(), e, args, f)
		},
	}
	f.out.register(cmd.Flags())
	f.base.register(cmd.Flags())
	registerMaxSpecSize(cmd.Flags(), &f.maxSize)
	cmd.Flags().StringVar(&f.mcpTools, "mcp-tools", "", "also judge this MCP tool catalog (what tools/list returns, or agentready mcp URL --format json), with the one OpenAPI document")
	cmd.Flags().StringVar(&f.llms, "llms", "", "also judge this llms.txt file, as if served at /llms.txt, with the one OpenAPI document")
	cmd.Flags().StringVar(&f.agentCard, "agent-card", "", "also judge this A2A agent card, as if served at /.well-known/agent-card.json, with the one OpenAPI document")
	return cmd
}

func runLint(ctx context.Context, e *env, paths []string, f *lintFlags) error {
	failOn, err := finding.ParseSeverity(f.out.failOn)
	if err != nil {
		return usageError("--fail-on: %v", err)
	}
	if err := checkMaxSpecSize(f.maxSize); err != nil {
		return err
	}
	for _, beside := range []struct{ flag, path, what string }{
		{"--mcp-tools", f.mcpTools, "catalog"}, {"--llms", f.llms, "llms.txt file"}, {"--agent-card", f.agentCard, "agent card"},
	} {
		if beside.path != "" && len(paths) != 1 {
			return usageError("%s judges one %s beside one OpenAPI document; give exactly one document, not %d", beside.flag, beside.what, len(paths))
		}
	}
	if n := countStdin(paths); n > 1 {
		return usageError("- (stdin) is given %d times; it holds one document", n)
	}
	reg, err := e.registry()
	if err != nil {
		return err
	}
	if len(paths) > 1 && (f.base.baseline != "" || f.base.write != "") {
		return usageError("--baseline and --write-baseline compare one document; %d were given", len(paths))
	}
	surface, err := f.base.surface(f.maxSize)
	if err != nil {
		return err
	}
	var tools *mcp.ToolsFile
	given := checks.DocOpenAPI
	if f.mcpTools != "" {
		if tools, err = readToolsFile(f.mcpTools, f.maxSize); err != nil {
			return err
		}
		given |= checks.DocMCPTools
	}
	files, err := readLintFiles(f)
	if err != nil {
		return err
	}
	for _, file := range files {
		given |= file.Document
	}
	// The configuration applies as it does to a scan: the same file, its
	// checks turned off or at another severity, its ignores and the
	// catalog's limits.
	policy, err := e.config.policy()
	if err != nil {
		return err
	}
	if surface.Baseline != nil {
		if policy == nil {
			policy = &pipeline.Policy{}
		}
		policy.Baseline = surface.Baseline
	}
	all, selectionNotes := policy.Select(reg.All())
	static := checks.StaticFor(all, given)
	l := linter{e: e, all: all, surface: surface, tools: tools, files: files, maxSize: f.maxSize, keepText: checks.NeedsOf(static).Has(checks.NeedsSpecText), failOn: failOn,
		policy: policy, catalog: catalogLimits(e.configFile().Limits), selectionNotes: selectionNotes}
	if len(paths) == 1 {
		sinks, err := planOutputs(e, &f.out)
		if err != nil {
			return err
		}
		rep, err := l.lint(ctx, paths[0])
		if err != nil {
			return err
		}
		if err := writeOutputs(e, sinks, rep); err != nil {
			return &ExitError{Code: ExitIncomplete, Err: err}
		}
		if err := f.base.writeIfAsked(e, rep); err != nil {
			return &ExitError{Code: ExitIncomplete, Err: err}
		}
		return lintExit(ctx, rep)
	}
	return l.lintEach(ctx, paths, &f.out)
}

func countStdin(paths []string) int {
	n := 0
	for _, p := range paths {
		if p == stdinDocument {
			n++
		}
	}
	return n
}

// linter lints documents one at a time with one selection of checks.
type linter struct {
	e *env
	// all are the registry's checks the configuration leaves on: lint runs
	// those whose documents it was given, and the drift family's when
	// surface has a baseline.
	all      []checks.Check
	surface  LintSurface
	tools    *mcp.ToolsFile
	files    []LintFile
	maxSize  int64
	keepText bool
	failOn   finding.Severity
	// policy is the configuration's severities and ignores, with the
	// baseline's findings; nil is none. catalog bounds the tool catalog,
	// from the configuration's limits.
	policy  *pipeline.Policy
	catalog checks.CatalogLimits
	// selectionNotes say which checks the configuration turned off.
	selectionNotes []string
}

// lint loads one document and judges it. The error is a usage error (a
// file that cannot be read) or one that stops the judging of this
// document (no OpenAPI document at all).
func (l *linter) lint(ctx context.Context, path string) (*finding.Report, error) {
	started := time.Now()
	doc, err := l.load(path)
	var exit *ExitError
	if errors.As(err, &exit) {
		return nil, err
	}
	if pe := (*fs.PathError)(nil); errors.As(err, &pe) {
		// A file that cannot be read is a mistyped argument, as with
		// scan --openapi; one that reads but is no OpenAPI document is not.
		return nil, usageError("lint: %v", err)
	}
	if err != nil {
		if errors.Is(err, spec.ErrNotOpenAPI) {
			err = fmt.Errorf("%s has no openapi or swagger field: %w", path, err)
		}
		return nil, &ExitError{Code: ExitIncomplete, Err: fmt.Errorf("lint %s: %w", path, err)}
	}
	rep := l.judge(ctx, doc)
	rep.StartedAt = started.UTC()
	rep.Gate = score.Gate(rep, score.GateOptions{FailOn: l.failOn})
	if doc.Unparsed {
		// Nothing of a document that does not parse was judged: it fails
		// whatever the gate's threshold, as a broken build does.
		rep.Gate.Passed = false
		rep.Gate.Reason = "the document does not parse"
	}
	return rep, nil
}

// load reads the document at path, or stdin for -, with its $refs to files
// of its directory resolved.
func (l *linter) load(path string) (*spec.Document, error) {
	var data []byte
	var err error
	source, file, dir := path, path, filepath.Dir(path)
	if path == stdinDocument {
		source, file, dir = "stdin", "stdin", "."
		data, err = readBounded(l.e.stdin, l.maxSize)
	} else {
		data, err = spec.ReadFile(path, l.maxSize)
	}
	var tooLarge *spec.TooLargeError
	if errors.As(err, &tooLarge) {
		return nil, usageError("lint: %v; raise the cap with --%s BYTES (or limits.%s in %s)",
			err, maxSpecSizeFlag, maxSpecSizeFlag, config.FileName)
	}
	if err != nil {
		return nil, err
	}
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	doc, err := spec.LoadLocal(data, source, file, dir)
	if doc != nil && l.keepText {
		doc.Raw = data
	}
	return doc, err
}

// readBounded reads at most max bytes of r, refusing more.
func readBounded(r io.Reader, max int64) ([]byte, error) {
	if r == nil {
		r = strings.NewReader("")
	}
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(io.LimitReader(r, max+1)); err != nil {
		return nil, err
	}
	if int64(buf.Len()) > max {
		return nil, &spec.TooLargeError{Source: "stdin", Max: max}
	}
	return buf.Bytes(), nil
}

// readToolsFile reads the --mcp-tools catalog; a file that cannot be read
// or holds no catalog is a usage error.
func readToolsFile(path string, max int64) (*mcp.ToolsFile, error) {
	data, err := spec.ReadFile(path, max)
	if err != nil {
		return nil, usageError("--mcp-tools: %v", err)
	}
	tf, err := mcp.ReadToolsFile(data, path)
	if err != nil {
		return nil, usageError("--mcp-tools %s: %v", path, err)
	}
	return tf, nil
}

// LintFile is a document given beside the OpenAPI one that a scan fetches
// from a well-known URL of the API (--llms, --agent-card), and the path it
// was read from, where its findings point.
type LintFile struct {
	checks.File
	Path string
}

// readLintFiles reads the files of --llms and --agent-card, each bounded
// like a document; one that cannot be read is a usage error. What a file
// holds is the checks' to judge: an agent card that is no JSON is a
// finding, not a mistyped argument.
func readLintFiles(f *lintFlags) ([]LintFile, error) {
	var out []LintFile
	for _, given := range []struct {
		flag, path string
		doc        checks.Documents
	}{{"--llms", f.llms, checks.DocLLMsText}, {"--agent-card", f.agentCard, checks.DocAgentCard}} {
		if given.path == "" {
			continue
		}
		data, err := spec.ReadFile(given.path, f.maxSize)
		var tooLarge *spec.TooLargeError
		if errors.As(err, &tooLarge) {
			return nil, usageError("%s: %v; raise the cap with --%s BYTES (or limits.%s in %s)",
				given.flag, err, maxSpecSizeFlag, maxSpecSizeFlag, config.FileName)
		}
		if err != nil {
			return nil, usageError("%s: %v", given.flag, err)
		}
		out = append(out, LintFile{File: checks.File{Document: given.doc, Body: data}, Path: given.path})
	}
	return out, nil
}

// lintEach lints several documents, each on its own, and writes their
// reports as a scan of several targets does: a report each, then a
// summary, or one combined document.
func (l *linter) lintEach(ctx context.Context, paths []string, out *outputFlags) error {
	outs, err := planTargetOutputs(l.e, out)
	if err != nil {
		return err
	}
	names := documentNames(paths)
	for _, name := range names {
		if err := outs.checkEach(name); err != nil {
			return err
		}
	}
	results := make([]targets.Result, 0, len(paths))
	for i, path := range paths {
		r := targets.Result{Name: names[i], URL: path, Category: out.sarif.category + "/" + names[i], ExitCode: targets.ExitIncomplete}
		rep, err := l.lint(ctx, path)
		var ee *ExitError
		switch {
		case errors.As(err, &ee) && ee.Code == ExitUsage:
			return err
		case err != nil:
			r.Error = err.Error()
			fmt.Fprintf(l.e.stderr, "agentready: %s: %s\n", path, r.Error)
		default:
			r.Report, r.ExitCode = rep, targets.ExitPassed
			if errors.As(lintExit(ctx, rep), &ee) {
				r.ExitCode = ee.Code
			}
		}
		if err := outs.writeTarget(l.e, i, len(paths), r); err != nil {
			return &ExitError{Code: ExitIncomplete, Err: err}
		}
		results = append(results, r)
	}
	if err := outs.writeCombined(l.e, results); err != nil {
		return &ExitError{Code: ExitIncomplete, Err: err}
	}
	return targetsExit(results)
}

// documentNames names each document for {target} in -o paths and SARIF
// categories: its path without the extension, its separators as dashes,
// made distinct by a suffix.
func documentNames(paths []string) []string {
	used := map[string]int{}
	out := make([]string, len(paths))
	for i, p := range paths {
		name := "stdin"
		if p != stdinDocument {
			name = strings.TrimSuffix(filepath.ToSlash(filepath.Clean(p)), filepath.Ext(p))
			name = strings.NewReplacer("/", "-", "..", "up", ":", "-").Replace(strings.TrimLeft(name, "./"))
		}
		if name == "" {
			name = "document"
		}
		if used[name]++; used[name] > 1 {
			name = fmt.Sprintf("%s-%d", name, used[name])
		}
		out[i] = name
	}
	return out
}

// lintExit is the exit of one document's lint: 1 when it does not parse
// (it has no grade, which for a scan would mean that nothing could be
// judged), otherwise the scan's.
func lintExit(ctx context.Context, rep *finding.Report) error {
	if rep.Score.Grade == finding.GradeNotAssessed && !rep.Gate.Passed {
		return &ExitError{Code: ExitGateFailed}
	}
	return exitFor(ctx, rep)
}

// judge evaluates the static checks whose documents are given over the
// document and, when l.tools is not nil, the tool catalog, with the files
// given beside them, and with a baseline the drift family; then the
// configuration's policy, as a scan's pipeline does. A document that does
// not parse is judged by nothing else and has no grade.
func (l *linter) judge(ctx context.Context, doc *spec.Document) *finding.Report {
	given := checks.DocOpenAPI
	var snapshot *mcp.Snapshot
	if l.tools != nil {
		given |= checks.DocMCPTools
		snapshot = l.tools.Snapshot
	}
	recorded := make([]checks.File, 0, len(l.files))
	for _, f := range l.files {
		given |= f.Document
		recorded = append(recorded, f.File)
	}
	static := append(checks.StaticFor(l.all, given), l.surface.checks(l.all)...)
	target := documentURL(doc.Source)
	in := checks.NewStaticInput(target, doc, recorded...)
	in.MCP = snapshot
	in.Catalog = l.catalog
	in.Baseline = l.surface.snapshot()
	results, findings := checks.Evaluate(context.WithoutCancel(ctx), in, static)
	locateFiles(findings, l.files)
	locateTools(findings, l.tools)
	post := &pipeline.Pipeline{Doc: doc, Policy: l.policy, Now: l.policy.Clock(), Results: results, Rules: scan.RuleInfos(static)}
	findings = post.Run(findings)
	describeToolsFile(findings, l.tools)
	now := time.Now().UTC()
	rep := &finding.Report{
		SchemaVersion: finding.SchemaVersion,
		Tool:          finding.ToolInfo{Name: "agentready", Version: version(), DocsURL: "https://github.com/agentready/agentready"},
		Target:        doc.Source,
		StartedAt:     now,
		FinishedAt:    now,
		Rules:         post.Rules,
		Checks:        post.Results,
		Findings:      findings,
		Ignored:       post.Ignored,
		Baseline:      post.Baseline,
		Notes:         slices.Concat(doc.Notices, l.selectionNotes, post.Notes),
		Spec:          doc.Info(finding.SpecLint),
	}
	if snapshot != nil {
		rep.Notes = append(rep.Notes, snapshot.Notes...)
	}
	l.surface.annotate(in, rep, l.all)
	rep.Score = scan.Grade(rep)
	rep.Readiness = scan.Readiness(rep)
	if doc.Unparsed {
		rep.Score = finding.Score{PolicyVersion: rep.Score.PolicyVersion, Grade: finding.GradeNotAssessed,
			Basis: "the document does not parse, so nothing else of it could be judged", Families: rep.Score.Families}
	}
	return rep
}

// locateFiles points the findings about a file given beside the document
// at it: at the value their JSON pointer names (or the value that lacks
// it), else at the line their subject names, else at its first line. Their
// evidence keeps the well-known URL the file stands for, which their
// fingerprints hash as a live scan's do, but no curl line: nothing answers
// it.
func locateFiles(fs []finding.Finding, files []LintFile) {
	for _, file := range files {
		id := checks.FileExchangeID(file.Document)
		var mine []*finding.Finding
		var pointers []string
		for i := range fs {
			f := &fs[i]
			if f.Location == nil && len(f.Evidence) > 0 && f.Evidence[0].ExchangeID == id {
				mine = append(mine, f)
				pointers = append(pointers, f.Evidence[0].JSONPointer)
			}
		}
		if len(mine) == 0 {
			continue
		}
		var at map[string]jsonorder.Position
		if file.Document == checks.DocAgentCard {
			at = jsonorder.Positions(file.Body, pointers)
		}
		for _, f := range mine {
			loc := finding.SourceLocation{File: file.Path, Line: 1}
			if pos, ok := at[f.Evidence[0].JSONPointer]; ok {
				loc.Line, loc.Column, loc.Pointer = pos.Line, pos.Column, f.Evidence[0].JSONPointer
			} else if line := checks.SubjectLine(f.Subject); line > 0 {
				loc.Line = line
			}
			f.Location = &loc
			for j := range f.Evidence {
				f.Evidence[j].Curl = ""
			}
		}
	}
}

// locateTools points the findings about a tool of the catalog file at the
// tool's line and column, when nothing located them already.
func locateTools(fs []finding.Finding, tools *mcp.ToolsFile) {
	if tools == nil {
		return
	}
	for i := range fs {
		f := &fs[i]
		if f.Location != nil || len(f.Evidence) == 0 {
			continue
		}
		f.Location = tools.Location(f.Evidence[0].JSONPointer)
	}
}

// describeToolsFile says what the evidence of a finding about the tool
// catalog file is: no request was sent, so instead of an HTTP method and no
// URL it names the tools/list answer the file holds, the file, and the tool
// its pointer names. It runs after the fingerprints are taken, which hash
// the tool (or the operation) and never the file, so that lint and a live
// scan give a finding one fingerprint.
func describeToolsFile(fs []finding.Finding, tools *mcp.ToolsFile) {
	if tools == nil {
		return
	}
	names := map[int]string{}
	if len(tools.Snapshot.Listings) > 0 {
		for _, t := range tools.Snapshot.Listings[0].Tools {
			names[t.Index] = t.Name
		}
	}
	for i := range fs {
		for j := range fs[i].Evidence {
			e := &fs[i].Evidence[j]
			if e.ExchangeID != "" || e.URL != "" || e.Purpose != mcp.PurposeUnrecorded {
				continue
			}
			e.Method, e.URL = "tools/list", tools.Snapshot.Endpoint.URL
			var index int
			if n, _ := fmt.Sscanf(e.JSONPointer, "/result/tools/%d", &index); n == 1 && names[index] != "" {
				e.Purpose = fmt.Sprintf("tool %q", sanitize.Truncate(names[index], 100))
			}
		}
	}
}

// documentURL names the linted file as a file: URL, which is what checks see
// as the target.
func documentURL(path string) *url.URL {
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	return &url.URL{Scheme: "file", Path: filepath.ToSlash(path)}
}
