// Package shardmerge joins the reports of a scan split into shards (scan
// --shard i/n) into the report the whole scan would have given.
package shardmerge

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/pipeline"
	"github.com/agentready/agentready/internal/scan"
)

// ErrMissingShards means the reports are shards of one scan, but not all of
// them: the merged report would look whole while some path shapes were
// never judged.
var ErrMissingShards = errors.New("missing shards")

// Merge joins the reports of a scan's shards (--shard i/n) into the report
// the scan would have given whole: findings de-duplicated by fingerprint,
// check results joined (a check failed when it failed in any shard, passed
// when it passed in one and failed in none), statistics and coverage added,
// the surface snapshot joined and the grade computed again with the scan's
// policy. It refuses reports of different targets or schema versions, a
// report that is not a shard, and a shard given twice; with shards missing
// it returns ErrMissingShards unless allowMissing, and then says in the
// notes and the grade's basis which were missing.
func Merge(reps []*finding.Report, cs []checks.Check, allowMissing bool) (*finding.Report, error) {
	missing, err := checkShards(reps)
	if err != nil {
		return nil, err
	}
	if len(missing) > 0 && !allowMissing {
		return nil, fmt.Errorf("%w: %s of %d not given; every shard must be merged for the scan's report", ErrMissingShards, strings.Join(missing, ", "), reps[0].Shard.Total)
	}
	reps = slices.Clone(reps)
	slices.SortFunc(reps, func(a, b *finding.Report) int { return a.Shard.Index - b.Shard.Index })
	first := reps[0]
	out := &finding.Report{
		SchemaVersion: first.SchemaVersion,
		Tool:          first.Tool,
		Target:        first.Target,
		StartedAt:     first.StartedAt,
		FinishedAt:    first.FinishedAt,
		App:           first.App,
	}
	var shards []string
	for _, r := range reps {
		shards = append(shards, r.Shard.String())
		if r.StartedAt.Before(out.StartedAt) {
			out.StartedAt = r.StartedAt
		}
		if r.FinishedAt.After(out.FinishedAt) {
			out.FinishedAt = r.FinishedAt
		}
		out.Rules = joinRules(out.Rules, r.Rules)
		out.Notes = appendNew(out.Notes, r.Notes...)
		out.States = firstNonEmpty(out.States, r.States)
		out.Surface = firstNonNil(out.Surface, r.Surface)
		out.MCP = firstNonNil(out.MCP, r.MCP)
		out.Spec = firstNonNil(out.Spec, r.Spec)
		out.Snapshot = joinSnapshots(out.Snapshot, r.Snapshot)
	}
	out.Findings = firstPerSite(uniqueFindings(reps, func(r *finding.Report) []finding.Finding { return r.Findings }), cs)
	out.Ignored = uniqueFindings(reps, func(r *finding.Report) []finding.Finding { return r.Ignored })
	out.Checks = joinResults(reps, out.Findings)
	out.Stats = joinStats(reps)
	out.Coverage = joinCoverage(reps)
	out.Baseline = joinBaselines(reps, out.Findings, out.Ignored)
	out.Notes = append(out.Notes, fmt.Sprintf("merged from the reports of shards %s", strings.Join(shards, ", ")))
	out.Score = scan.Grade(out)
	if len(missing) > 0 {
		why := fmt.Sprintf("shards %s of %d missing", strings.Join(missing, ", "), first.Shard.Total)
		out.Notes = append(out.Notes, "partial: "+why+": the path shapes they own were not judged")
		out.Score.Basis = "partial, " + why + "; " + out.Score.Basis
		out.Shard = first.Shard
	}
	return out, nil
}

// checkShards refuses reports that are not shards of one scan, and lists
// the shards of it that are missing.
func checkShards(reps []*finding.Report) (missing []string, err error) {
	if len(reps) == 0 {
		return nil, errors.New("no report to merge")
	}
	first := reps[0]
	seen := map[int]bool{}
	for i, r := range reps {
		switch {
		case r.SchemaVersion != finding.SchemaVersion:
			return nil, fmt.Errorf("report %d has schema version %d; this version merges %d", i+1, r.SchemaVersion, finding.SchemaVersion)
		case r.Shard == nil || !r.Shard.Valid():
			return nil, fmt.Errorf("report %d is not a shard (scan with --shard i/n); a whole scan needs no merging", i+1)
		case r.Target != first.Target:
			return nil, fmt.Errorf("report %d is of %s, report 1 of %s: shards of one scan have one target", i+1, r.Target, first.Target)
		case r.Shard.Total != first.Shard.Total:
			return nil, fmt.Errorf("report %d is shard %s, report 1 shard %s: shards of one scan split it alike", i+1, r.Shard, first.Shard)
		case seen[r.Shard.Index]:
			return nil, fmt.Errorf("shard %s is given twice (report %d): shards must not overlap", r.Shard, i+1)
		}
		seen[r.Shard.Index] = true
	}
	for i := 1; i <= first.Shard.Total; i++ {
		if !seen[i] {
			missing = append(missing, finding.Shard{Index: i, Total: first.Shard.Total}.String())
		}
	}
	return missing, nil
}

func joinRules(into, more []finding.RuleInfo) []finding.RuleInfo {
	for _, r := range more {
		if !slices.ContainsFunc(into, func(x finding.RuleInfo) bool { return x.ID == r.ID }) {
			into = append(into, r)
		}
	}
	return into
}

func appendNew(into []string, more ...string) []string {
	for _, s := range more {
		if !slices.Contains(into, s) {
			into = append(into, s)
		}
	}
	return into
}

func firstNonNil[T any](a, b *T) *T {
	if a != nil {
		return a
	}
	return b
}

func firstNonEmpty[T any](a, b []T) []T {
	if len(a) > 0 {
		return a
	}
	return b
}

// uniqueFindings are the findings of every report, in the pipeline's
// order, a fingerprint coming from the first report that has it: one
// report may hold several occurrences of a fingerprint (the URLs of one
// path shape), but two shards never report the same one.
func uniqueFindings(reps []*finding.Report, of func(*finding.Report) []finding.Finding) []finding.Finding {
	var out []finding.Finding
	from := map[string]int{}
	for i, r := range reps {
		for _, f := range of(r) {
			if owner, seen := from[f.Fingerprint]; !seen || owner == i {
				from[f.Fingerprint] = i
				out = append(out, f)
			}
		}
	}
	pipeline.SortFindings(out)
	return out
}

// firstPerSite keeps, of each check that reports once for the site, the
// first finding in the report's order: each shard reported the first
// resource of its own shapes, and one scan the first of them all.
func firstPerSite(fs []finding.Finding, cs []checks.Check) []finding.Finding {
	once := map[string]bool{}
	for _, c := range cs {
		if m := c.Meta(); m.OncePerSite {
			once[m.ID] = true
		}
	}
	seen := map[string]bool{}
	return slices.DeleteFunc(fs, func(f finding.Finding) bool {
		if !once[f.CheckID] {
			return false
		}
		drop := seen[f.CheckID]
		seen[f.CheckID] = true
		return drop
	})
}

// statusRank orders the outcomes a check may have in different shards: the
// joined outcome is the highest. A failure anywhere is a failure; an error
// means part of the scan was not judged; a pass anywhere else is a pass; a
// check every shard skipped is skipped.
var statusRank = map[finding.CheckStatus]int{finding.StatusSkip: 0, finding.StatusPass: 1, finding.StatusError: 2, finding.StatusFail: 3}

// joinResults joins each check's results, in the order of the first report
// that has it, and counts its findings among the merged ones.
func joinResults(reps []*finding.Report, findings []finding.Finding) []finding.CheckResult {
	count := map[string]int{}
	worst := map[string]finding.Severity{}
	for _, f := range findings {
		count[f.CheckID]++
		worst[f.CheckID] = max(worst[f.CheckID], f.Severity)
	}
	var out []finding.CheckResult
	at := map[string]int{}
	for _, r := range reps {
		for _, res := range r.Checks {
			i, ok := at[res.ID]
			if !ok {
				at[res.ID] = len(out)
				res.Observations = slices.Clone(res.Observations)
				out = append(out, res)
				continue
			}
			j := &out[i]
			obs := appendNew(j.Observations, res.Observations...)
			if statusRank[res.Status] > statusRank[j.Status] {
				*j = res
			}
			j.Observations = obs
		}
	}
	for i := range out {
		r := &out[i]
		if r.Status == finding.StatusFail {
			r.Findings, r.Severity = count[r.ID], worst[r.ID]
		}
		r.Observations = withoutShardNotes(r.Observations)
	}
	return out
}

// withoutShardNotes drops what a shard said of the findings it left to the
// others: merged, none is left.
func withoutShardNotes(obs []string) []string {
	return slices.DeleteFunc(obs, func(s string) bool { return strings.HasSuffix(s, pipeline.LeftToOtherShards) })
}

// joinStats adds the shards' statistics: each counts its own pages,
// sampled shapes and probes, and the requests it sent. DurationMS is the
// longest shard's, since the jobs of a CI matrix run side by side; the
// skipped counts are the crawl's, which every shard walks, so the largest
// is kept.
func joinStats(reps []*finding.Report) finding.Stats {
	var st finding.Stats
	for _, r := range reps {
		s := r.Stats
		st.Pages += s.Pages
		st.Requests += s.Requests
		st.Probes += s.Probes
		st.DurationMS = max(st.DurationMS, s.DurationMS)
		st.Sampling = append(st.Sampling, s.Sampling...)
		st.Interrupted = st.Interrupted || s.Interrupted
		for _, phase := range s.BudgetCut {
			st.CutBy(phase)
		}
		for k, v := range s.Skipped {
			if st.Skipped == nil {
				st.Skipped = map[string]int{}
			}
			st.Skipped[k] = max(st.Skipped[k], v)
		}
	}
	slices.SortFunc(st.Sampling, func(a, b finding.ShapeSample) int { return strings.Compare(a.Shape, b.Shape) })
	return st
}

// joinCoverage joins what the shards' crawls reached: each walks the same
// frontier, so the pages and API resources are the most any shard counted
// (the same, unless the page limit cut the crawls differently), the
// surfaces those any shard saw, and an operation is reached when any shard
// reached it.
func joinCoverage(reps []*finding.Report) *finding.Coverage {
	var out *finding.Coverage
	for _, r := range reps {
		c := r.Coverage
		if c == nil {
			continue
		}
		if out == nil {
			out = &finding.Coverage{Pages: map[string]int{}}
		}
		for k, v := range c.Pages {
			out.Pages[k] = max(out.Pages[k], v)
		}
		out.APIResources = max(out.APIResources, c.APIResources)
		out.Surfaces = appendNew(out.Surfaces, c.Surfaces...)
		out.Operations = joinOperations(out.Operations, c.Operations)
		if out.Cause == "" {
			out.Cause = c.Cause
		}
		// One shard stopped half-way leaves the whole scan so.
		if out.Interrupted == "" {
			out.Interrupted = c.Interrupted
		}
	}
	if out == nil {
		return nil
	}
	slices.Sort(out.Surfaces)
	if ops := out.Operations; ops != nil && ops.Declared > 0 {
		f := float64(ops.Reached) / float64(ops.Declared)
		out.Fraction = &f
	}
	if out.Reached() {
		out.Cause = ""
	}
	return out
}

func joinOperations(a, b *finding.OperationCoverage) *finding.OperationCoverage {
	if b == nil {
		return a
	}
	if a == nil {
		c := *b
		c.Items = slices.Clone(b.Items)
		return &c
	}
	key := func(o finding.OperationReach) string { return o.Method + " " + o.Path }
	at := map[string]int{}
	for i, o := range a.Items {
		at[key(o)] = i
	}
	for _, o := range b.Items {
		i, ok := at[key(o)]
		switch {
		case !ok:
			at[key(o)] = len(a.Items)
			a.Items = append(a.Items, o)
		case o.Reached && !a.Items[i].Reached:
			a.Items[i] = o
		}
	}
	a.Declared = max(a.Declared, len(a.Items))
	a.Reached = 0
	for _, o := range a.Items {
		if o.Reached {
			a.Reached++
		}
	}
	return a
}

// joinSnapshots takes each part of the surface from the first shard that
// saw it: shard 1 sees the site-wide parts (MCP, agent card, llms.txt), and
// every shard the document and the crawl.
func joinSnapshots(a, b *finding.Snapshot) *finding.Snapshot {
	if b == nil {
		return a
	}
	if a == nil {
		c := *b
		return &c
	}
	a.MCP = firstNonNil(a.MCP, b.MCP)
	a.OpenAPI = firstNonNil(a.OpenAPI, b.OpenAPI)
	a.Hypermedia = firstNonNil(a.Hypermedia, b.Hypermedia)
	a.AgentCard = firstNonNil(a.AgentCard, b.AgentCard)
	a.LLMs = firstNonNil(a.LLMs, b.LLMs)
	return a
}

// joinBaselines compares the merged findings with the baseline the shards
// were given: an entry is fixed when a shard found it fixed and no shard
// found it, since every other shard, not judging its shape, misses it too.
func joinBaselines(reps []*finding.Report, findings, ignored []finding.Finding) *finding.BaselineSummary {
	var out *finding.BaselineSummary
	fixed, unverified := map[string]finding.BaselineEntry{}, map[string]finding.BaselineEntry{}
	for _, r := range reps {
		b := r.Baseline
		if b == nil {
			continue
		}
		if out == nil {
			out = &finding.BaselineSummary{File: b.File}
		}
		for _, e := range b.Fixed {
			fixed[e.Fingerprint] = e
		}
		for _, e := range b.Unverified {
			unverified[e.Fingerprint] = e
		}
	}
	if out == nil {
		return nil
	}
	found := map[string]bool{}
	for _, f := range slices.Concat(findings, ignored) {
		found[f.Fingerprint] = true
	}
	for _, f := range findings {
		switch f.BaselineState {
		case "new":
			out.New++
		case "existing":
			out.Existing++
		}
	}
	for _, fp := range slices.Sorted(maps.Keys(fixed)) {
		if !found[fp] {
			out.Fixed = append(out.Fixed, fixed[fp])
			delete(unverified, fp)
		}
	}
	for _, fp := range slices.Sorted(maps.Keys(unverified)) {
		if !found[fp] {
			out.Unverified = append(out.Unverified, unverified[fp])
		}
	}
	out.Stale = len(out.Fixed) > 0
	return out
}
