package scan

// Merging joins the reports of a scan split into shards (scan --shard i/n)
// into the report the whole scan would have given.

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/internal/coverage"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/pipeline"
	"github.com/agentready/agentready/internal/sanitize"
)

// ErrMissingShards means the reports are shards of one scan, but not all of
// them: the merged report would look whole while some path shapes were
// never judged.
var ErrMissingShards = errors.New("missing shards")

// MaxShards bounds the shards of one scan: how many reports are merged, and
// the shard total a report may claim before it sizes anything.
const MaxShards = 1024

// Merge joins the reports of a scan's shards (--shard i/n) into the report
// the scan would have given whole: findings de-duplicated by fingerprint,
// check results joined (a check failed when it failed in any shard, passed
// when it passed in one and failed in none), statistics and coverage added,
// the surface snapshot joined and the grade computed again with the scan's
// policy. The rules of the checks in cs are this build's, whatever a report
// says of them.
//
// The reports come from other jobs and are hostile: Merge refuses reports
// of different targets or schema versions, a report that is not a shard,
// a shard given twice or claiming more than MaxShards, and a report whose
// findings its check results deny (see checkFindings). With shards missing
// it returns ErrMissingShards unless allowMissing, and then says in the
// notes and the grade's basis which were missing. Every step is linear in
// what the reports hold and stops when ctx is done.
func Merge(ctx context.Context, reps []*finding.Report, cs []checks.Check, allowMissing bool) (*finding.Report, error) {
	m := &merger{ctx: ctx, builtin: map[string]checks.Meta{}}
	for _, c := range cs {
		meta := c.Meta()
		m.builtin[meta.ID] = meta
	}
	missing, err := m.checkShards(reps)
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
	var notes uniq[string, string]
	rules := uniq[string, finding.RuleInfo]{}
	for _, r := range reps {
		shards = append(shards, r.Shard.String())
		if r.StartedAt.Before(out.StartedAt) {
			out.StartedAt = r.StartedAt
		}
		if r.FinishedAt.After(out.FinishedAt) {
			out.FinishedAt = r.FinishedAt
		}
		for _, ri := range r.Rules {
			if m.stopped() {
				return nil, m.err
			}
			rules.add(ri.ID, m.rule(ri))
		}
		for _, n := range r.Notes {
			if m.stopped() {
				return nil, m.err
			}
			notes.add(n, n)
		}
		// One shard that did not verify the servers makes the whole unverified.
		out.TLSUnverified = out.TLSUnverified || r.TLSUnverified
		out.States = firstNonEmpty(out.States, r.States)
		out.Surface = firstNonNil(out.Surface, r.Surface)
		out.MCP = firstNonNil(out.MCP, r.MCP)
		out.Spec = firstNonNil(out.Spec, r.Spec)
		out.Snapshot = joinSnapshots(out.Snapshot, r.Snapshot)
	}
	out.Rules, out.Notes = rules.items, notes.items
	out.Findings = m.firstPerSite(m.uniqueFindings(reps, func(r *finding.Report) []finding.Finding { return r.Findings }))
	out.Ignored = m.uniqueFindings(reps, func(r *finding.Report) []finding.Finding { return r.Ignored })
	out.Checks = m.joinResults(reps, out.Findings)
	out.Stats = m.joinStats(reps)
	out.Coverage = m.joinCoverage(reps)
	out.Baseline = m.joinBaselines(reps, out.Findings, out.Ignored)
	if m.stopped() {
		return nil, m.err
	}
	out.Notes = append(out.Notes, fmt.Sprintf("merged from the reports of shards %s", strings.Join(shards, ", ")))
	out.Score = Grade(out)
	out.Readiness = Readiness(out)
	if len(missing) > 0 {
		why := fmt.Sprintf("shards %s of %d missing", strings.Join(missing, ", "), first.Shard.Total)
		out.Notes = append(out.Notes, "partial: "+why+": the path shapes they own were not judged")
		out.Score.Basis = "partial, " + why + "; " + out.Score.Basis
		out.Shard = first.Shard
	}
	return out, nil
}

// merger carries what every step of a merge reads: the context that stops
// it, the first error met, and this build's checks by ID.
type merger struct {
	ctx     context.Context
	err     error
	builtin map[string]checks.Meta
}

// stopped reports whether the merge must stop: the context is done (an
// interrupt, or a deadline) or a step failed. Every loop over what a report
// holds asks it once per item, so a report of any size stops promptly.
func (m *merger) stopped() bool {
	if m.err == nil {
		m.err = m.ctx.Err()
	}
	return m.err != nil
}

// checkShards refuses reports that are not shards of one scan, and lists
// the shards of it that are missing.
func (m *merger) checkShards(reps []*finding.Report) (missing []string, err error) {
	switch {
	case len(reps) == 0:
		return nil, errors.New("no report to merge")
	case len(reps) > MaxShards:
		return nil, fmt.Errorf("%d reports given; a scan has at most %d shards", len(reps), MaxShards)
	}
	first := reps[0]
	seen := map[int]bool{}
	for i, r := range reps {
		if m.stopped() {
			return nil, m.err
		}
		switch {
		case r.SchemaVersion != finding.SchemaVersion:
			return nil, fmt.Errorf("report %d has schema version %d; this version merges %d", i+1, r.SchemaVersion, finding.SchemaVersion)
		case r.Shard == nil || !r.Shard.Valid():
			return nil, fmt.Errorf("report %d is not a shard (scan with --shard i/n); a whole scan needs no merging", i+1)
		case r.Shard.Total > MaxShards:
			// The total sizes the list of missing shards below.
			return nil, fmt.Errorf("report %d claims to be shard %s; a scan has at most %d shards", i+1, r.Shard, MaxShards)
		case r.Target != first.Target:
			return nil, fmt.Errorf("report %d is of %s, report 1 of %s: shards of one scan have one target", i+1, shown(r.Target), shown(first.Target))
		case r.Shard.Total != first.Shard.Total:
			return nil, fmt.Errorf("report %d is shard %s, report 1 shard %s: shards of one scan split it alike", i+1, r.Shard, first.Shard)
		case seen[r.Shard.Index]:
			return nil, fmt.Errorf("shard %s is given twice (report %d): shards must not overlap", r.Shard, i+1)
		}
		seen[r.Shard.Index] = true
		if err := m.checkFindings(r); err != nil {
			return nil, fmt.Errorf("report %d (shard %s): %w", i+1, r.Shard, err)
		}
	}
	for i := 1; i <= first.Shard.Total; i++ {
		if !seen[i] {
			missing = append(missing, finding.Shard{Index: i, Total: first.Shard.Total}.String())
		}
	}
	return missing, nil
}

// checkFindings refuses a report whose findings its check results deny.
// The merged grade is computed from the check results, and the gate from
// the findings, so a report whose checks all pass while it carries error
// findings would merge into an A+ with errors. A scan never writes one: a
// check with findings failed, and the findings an ignore or a baseline
// suppresses are not among its findings (ignored ones move to Ignored; a
// baseline leaves its existing ones failing their check). A failed check
// with no findings is legal: the grading policy fails a check whose
// findings another shard owns. Each check must be one this build knows,
// or a house rule, so that its rule is this build's (see rule).
func (m *merger) checkFindings(r *finding.Report) error {
	for _, ri := range r.Rules {
		if m.stopped() {
			return m.err
		}
		if err := m.known(ri.ID); err != nil {
			return err
		}
	}
	status := make(map[string]finding.CheckStatus, len(r.Checks))
	for _, res := range r.Checks {
		if m.stopped() {
			return m.err
		}
		if _, dup := status[res.ID]; dup {
			return fmt.Errorf("check %s is listed twice", shown(res.ID))
		}
		if err := m.known(res.ID); err != nil {
			return err
		}
		status[res.ID] = res.Status
	}
	denied, count := "", 0
	for _, f := range r.Findings {
		if m.stopped() {
			return m.err
		}
		switch st, listed := status[f.CheckID]; {
		case denied == "" && (!listed || st != finding.StatusFail):
			denied, count = f.CheckID, 1
		case f.CheckID == denied:
			count++
		}
	}
	if denied == "" {
		return nil
	}
	if st, listed := status[denied]; listed {
		return fmt.Errorf("check %s is marked %s yet carries %d finding(s); only a failed check has findings", shown(denied), shown(string(st)), count)
	}
	return fmt.Errorf("%d finding(s) of check %s, which the report does not list among its checks", count, shown(denied))
}

// known refuses a check ID that is neither this build's nor a house rule's.
func (m *merger) known(id string) error {
	if _, ok := m.builtin[id]; ok || isHouseRule(id) {
		return nil
	}
	return fmt.Errorf("check %s is not one this version has; merge the shards with the version that scanned them", shown(id))
}

func isHouseRule(id string) bool { return strings.HasPrefix(id, string(checks.FamilyCustom)+"-") }

// rule is the rule to report for ri: for a check of this build, its own
// metadata, never what the report says (which reaches code scanning as
// Markdown); for a house rule, the report's, with the documentation this
// build gives house rules and no clause links. The reporters escape a
// house rule's help, which is Markdown written in someone's configuration.
func (m *merger) rule(ri finding.RuleInfo) finding.RuleInfo {
	if meta, ok := m.builtin[ri.ID]; ok {
		return checks.RuleInfo(meta)
	}
	ri.Family, ri.DocsURL = string(checks.FamilyCustom), checks.CustomDocs
	ri.SpecRefs = slices.Clone(ri.SpecRefs)
	for i := range ri.SpecRefs {
		ri.SpecRefs[i].URL = ""
	}
	return ri
}

// shown is a string from a report as an error message may quote it.
func shown(s string) string { return sanitize.Truncate(sanitize.Line(s), 200) }

// uniq keeps the first value of each key, in the order added, in time
// linear in what is added.
type uniq[K comparable, V any] struct {
	seen  map[K]bool
	items []V
}

func (u *uniq[K, V]) add(k K, v V) {
	if u.seen[k] {
		return
	}
	if u.seen == nil {
		u.seen = map[K]bool{}
	}
	u.seen[k] = true
	u.items = append(u.items, v)
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
// path shape), but two shards never report the same one. A finding of one
// of this build's checks takes its family from the check.
func (m *merger) uniqueFindings(reps []*finding.Report, of func(*finding.Report) []finding.Finding) []finding.Finding {
	var out []finding.Finding
	from := map[string]int{}
	for i, r := range reps {
		for _, f := range of(r) {
			if m.stopped() {
				return nil
			}
			if owner, seen := from[f.Fingerprint]; !seen || owner == i {
				from[f.Fingerprint] = i
				if meta, ok := m.builtin[f.CheckID]; ok {
					f.Family = string(meta.Family)
				}
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
func (m *merger) firstPerSite(fs []finding.Finding) []finding.Finding {
	seen := map[string]bool{}
	out := fs[:0]
	for _, f := range fs {
		if m.stopped() {
			return nil
		}
		if m.builtin[f.CheckID].OncePerSite {
			if seen[f.CheckID] {
				continue
			}
			seen[f.CheckID] = true
		}
		out = append(out, f)
	}
	return out
}

// statusRank orders the outcomes a check may have in different shards: the
// joined outcome is the highest. A failure anywhere is a failure; an error
// means part of the scan was not judged; a pass anywhere else is a pass; a
// check every shard skipped is skipped.
var statusRank = map[finding.CheckStatus]int{finding.StatusSkip: 0, finding.StatusPass: 1, finding.StatusError: 2, finding.StatusFail: 3}

// joinResults joins each check's results, in the order of the first report
// that has it, and counts its findings among the merged ones. A check of
// this build takes its family from the check.
func (m *merger) joinResults(reps []*finding.Report, findings []finding.Finding) []finding.CheckResult {
	count := map[string]int{}
	worst := map[string]finding.Severity{}
	for _, f := range findings {
		if m.stopped() {
			return nil
		}
		count[f.CheckID]++
		worst[f.CheckID] = max(worst[f.CheckID], f.Severity)
	}
	var out []finding.CheckResult
	var obs []uniq[string, string]
	at := map[string]int{}
	for _, r := range reps {
		for _, res := range r.Checks {
			if m.stopped() {
				return nil
			}
			if meta, ok := m.builtin[res.ID]; ok {
				res.Family = string(meta.Family)
			}
			i, ok := at[res.ID]
			if !ok {
				i = len(out)
				at[res.ID] = i
				out = append(out, res)
				obs = append(obs, uniq[string, string]{})
			} else if statusRank[res.Status] > statusRank[out[i].Status] {
				out[i] = res
			}
			for _, o := range res.Observations {
				if m.stopped() {
					return nil
				}
				obs[i].add(o, o)
			}
		}
	}
	for i := range out {
		r := &out[i]
		if r.Status == finding.StatusFail {
			r.Findings, r.Severity = count[r.ID], worst[r.ID]
		}
		r.Observations = withoutShardNotes(obs[i].items)
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
// is kept. Each shard looked its hosts up itself: a host's addresses are
// every shard's, in shard order, each once.
func (m *merger) joinStats(reps []*finding.Report) finding.Stats {
	var st finding.Stats
	// seen is keyed by host then address: a shard's report is read back
	// and may list many, which a scan of a list per address would square.
	seen := map[[2]string]bool{}
	for _, r := range reps {
		if m.stopped() {
			return st
		}
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
			if m.stopped() {
				return st
			}
			if st.Skipped == nil {
				st.Skipped = map[string]int{}
			}
			st.Skipped[k] = max(st.Skipped[k], v)
		}
		for host, addrs := range s.Addresses {
			if st.Addresses == nil {
				st.Addresses = map[string][]string{}
			}
			for _, a := range addrs {
				if !seen[[2]string{host, a}] {
					seen[[2]string{host, a}] = true
					st.Addresses[host] = append(st.Addresses[host], a)
				}
			}
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
func (m *merger) joinCoverage(reps []*finding.Report) *finding.Coverage {
	var out *finding.Coverage
	var surfaces uniq[string, string]
	ops := operations{at: map[string]int{}}
	for _, r := range reps {
		c := r.Coverage
		if c == nil || m.stopped() {
			continue
		}
		if out == nil {
			out = &finding.Coverage{Pages: map[string]int{}}
		}
		for k, v := range c.Pages {
			if m.stopped() {
				return nil
			}
			out.Pages[k] = max(out.Pages[k], v)
		}
		out.APIResources = max(out.APIResources, c.APIResources)
		for _, s := range c.Surfaces {
			if m.stopped() {
				return nil
			}
			surfaces.add(s, s)
		}
		if !ops.join(m, c.Operations) {
			return nil
		}
		out.Throttling = joinThrottling(out.Throttling, c.Throttling)
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
	out.Surfaces = surfaces.items
	slices.Sort(out.Surfaces)
	out.Operations = ops.joined
	if o := out.Operations; o != nil && o.Declared > 0 {
		f := float64(o.Reached) / float64(o.Declared)
		out.Fraction = &f
	}
	switch {
	case out.Throttled():
		out.Cause = coverage.ThrottledCause(out.Throttling)
	case out.Reached():
		out.Cause = ""
	}
	return out
}

// joinThrottling adds the requests each shard sent and the throttled ones;
// the crawl's counts are those of the shard the server throttled most,
// since every shard walks the same frontier.
func joinThrottling(a, b *finding.Throttling) *finding.Throttling {
	if b == nil {
		return a
	}
	if a == nil {
		c := *b
		return &c
	}
	out := finding.Throttling{Requests: a.Requests + b.Requests, Throttled: a.Throttled + b.Throttled, StillThrottled: a.StillThrottled + b.StillThrottled,
		CrawlGETs: a.CrawlGETs, CrawlThrottled: a.CrawlThrottled}
	if b.CrawlThrottled > a.CrawlThrottled {
		out.CrawlGETs, out.CrawlThrottled = b.CrawlGETs, b.CrawlThrottled
	}
	return &out
}

// operations joins the shards' operation coverage: an operation is
// reached when any shard reached it. at indexes joined.Items by operation.
type operations struct {
	joined *finding.OperationCoverage
	at     map[string]int
}

// join adds b; it reports false when the merge stopped.
func (ops *operations) join(m *merger, b *finding.OperationCoverage) bool {
	if b == nil {
		return true
	}
	if ops.joined == nil {
		// Items [:0:0] keeps an empty list empty rather than null.
		ops.joined = &finding.OperationCoverage{Declared: b.Declared, Items: b.Items[:0:0]}
	}
	a := ops.joined
	for _, o := range b.Items {
		if m.stopped() {
			return false
		}
		key := o.Method + " " + o.Path
		i, ok := ops.at[key]
		switch {
		case !ok:
			ops.at[key] = len(a.Items)
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
	return true
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
func (m *merger) joinBaselines(reps []*finding.Report, findings, ignored []finding.Finding) *finding.BaselineSummary {
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
			if m.stopped() {
				return nil
			}
			fixed[e.Fingerprint] = e
		}
		for _, e := range b.Unverified {
			if m.stopped() {
				return nil
			}
			unverified[e.Fingerprint] = e
		}
	}
	if out == nil {
		return nil
	}
	found := map[string]bool{}
	for _, f := range slices.Concat(findings, ignored) {
		if m.stopped() {
			return nil
		}
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
