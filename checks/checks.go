// Package checks defines what a check is: metadata plus a pure function over
// the recording. Families live in subpackages; checks/builtin lists them all.
package checks

import (
	"context"
	"errors"
	"net/url"
	"sort"
	"sync"

	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/jsonorder"
	"github.com/agentready/agentready/internal/mcp"
	"github.com/agentready/agentready/internal/spec"
)

// Family groups checks for scoring and reporting.
type Family string

const (
	FamilyNegotiation Family = "negotiation"
	FamilyVary        Family = "vary"
	FamilyProblemJSON Family = "problem-json"
	FamilyOpenAPIHAL  Family = "openapi-hal"
	FamilyHAL         Family = "hal"
	FamilyHALForms    Family = "hal-forms"
	FamilyAffordance  Family = "affordance"
	FamilyStateful    Family = "stateful"
	FamilyMCP         Family = "mcp"
	FamilyLeakage     Family = "leakage"
	FamilyDiscovery   Family = "discovery"
	FamilySurface     Family = "surface"
	FamilyDrift       Family = "drift"
	FamilyTrial       Family = "trial"
	// FamilyCustom holds the house rules of the configuration (checks/custom);
	// it has no check unless the configuration has rules.
	FamilyCustom Family = "custom"
)

// Families lists every family in report order.
var Families = []Family{
	FamilyNegotiation, FamilyVary, FamilyProblemJSON, FamilyOpenAPIHAL, FamilyHAL,
	FamilyHALForms, FamilyAffordance, FamilyStateful, FamilyMCP, FamilyLeakage, FamilyDiscovery, FamilySurface, FamilyDrift, FamilyTrial, FamilyCustom,
}

// FamilyNames lists every family's name in report order, for what takes
// families as plain data: grading and the configuration.
func FamilyNames() []string {
	names := make([]string, len(Families))
	for i, f := range Families {
		names[i] = string(f)
	}
	return names
}

// familySurfaces is what each family judges that an app may not have at
// all; a family left out judges what every HTTP API has.
var familySurfaces = map[Family]string{
	FamilyOpenAPIHAL: finding.SurfaceOpenAPI,
	FamilySurface:    finding.SurfaceOpenAPI,
	FamilyHAL:        finding.SurfaceHypermedia,
	FamilyHALForms:   finding.SurfaceHypermedia,
	FamilyAffordance: finding.SurfaceHypermedia,
	FamilyStateful:   finding.SurfaceStatefulActions,
	FamilyMCP:        finding.SurfaceMCP,
	FamilyDrift:      finding.SurfaceBaseline,
	FamilyTrial:      finding.SurfaceTrial,
}

// FamilySurfaces maps family names to the surface (a finding.Surface
// constant) each needs: without it the family is "not present", not graded.
func FamilySurfaces() map[string]string {
	out := make(map[string]string, len(familySurfaces))
	for f, s := range familySurfaces {
		out[string(f)] = s
	}
	return out
}

// siteFamilies judge the site as a whole rather than its resources one
// path shape at a time: robots.txt, the discovery documents, the MCP
// endpoint, and the surface snapshot that gathers them.
var siteFamilies = map[Family]bool{FamilyDiscovery: true, FamilyMCP: true, FamilyDrift: true}

// SiteWide reports a check that judges the site as a whole. A scan split
// into shards runs it, and sends what it plans, in shard 1 alone; every
// other check runs in every shard on the path shapes the shard owns.
func SiteWide(m Meta) bool {
	if m.PerResource {
		return false
	}
	return siteFamilies[m.Family] || m.Needs&(NeedsMCP|NeedsMCPPerIdentity) != 0
}

// DocsBase is where each check's documentation anchor lives.
const DocsBase = "https://github.com/agentready/agentready/blob/main/docs/checks.md"

// Meta describes a check. It drives `agentready checks`, `explain`, the docs
// and the rules of every report.
type Meta struct {
	ID string
	// Aliases are the IDs the check had before it was renamed. An ID never
	// changes once released, except through a rename that keeps the old
	// one here: a user's severity overrides, ignores and baselines that
	// name it keep applying to the check, and `explain` finds it by it.
	Aliases []string
	// Since is the release the check first appeared in (MAJOR.MINOR.PATCH);
	// the checks older than versioned releases give FirstRelease.
	Since    string
	Family   Family
	Title    string
	Severity finding.Severity
	SpecRefs []finding.SpecRef
	// Help is Markdown: why it matters, then how to fix it.
	Help     string
	Security bool
	// FiredBy names the case of its family's table test that fires the
	// check, for a check that no fixture app can fire; a check a fixture
	// fires leaves it empty and is listed in that fixture's expectations
	// (fixtures/expect). The family's tests run the named case through
	// checkstest.FiredBy.
	FiredBy string
	// Needs are what the check needs sent besides the crawl and its own
	// probes; the scan reads them instead of knowing checks by name.
	Needs Needs
	// Documents are what the check reads when it judges documents alone
	// (see Documents): `agentready lint` runs it when it is given them,
	// `agentready checks --static` lists it. Zero for a check that needs a
	// live scan.
	Documents Documents
	// OncePerSite marks a check that reports at most one finding for the
	// whole site, on the first resource that shows the problem: merging
	// the shards of a split scan keeps the first of theirs.
	OncePerSite bool
	// PerResource marks a check of a site-wide family whose every finding
	// is about one crawled resource and weighs what another family's
	// probes of it showed: a split scan runs it in the shard that owns the
	// resource, where those probes are sent, like a check that judges
	// resources.
	PerResource bool
	// Readiness marks a check of the OpenAPI document's own agent
	// readiness: what an agent planning calls from the document alone
	// would have to guess. Reports grade the document's readiness over
	// these checks alone (finding.Readiness), beside the report's grade.
	Readiness bool
}

// FirstRelease is the version of the first release, the Since of every
// check that predates versioned releases.
const FirstRelease = "0.1.0"

// CustomDocs documents the house rules, whose checks docs/checks.md cannot
// list: each configuration has its own.
const CustomDocs = "https://github.com/agentready/agentready/blob/main/docs/custom-rules.md"

// DocsURL is derived from the ID, never typed by hand.
func (m Meta) DocsURL() string {
	if m.Family == FamilyCustom {
		return CustomDocs
	}
	return DocsBase + "#" + m.ID
}

// Check evaluates the recording. Run must not do I/O, must treat its input as
// read-only and must be safe to run concurrently with other checks. It returns
// an error only when it could not evaluate; Skip(reason) when it does not apply.
type Check interface {
	Meta() Meta
	Run(ctx context.Context, in *Input) ([]finding.Finding, error)
}

// Prober is implemented by checks that need requests beyond the crawl. Plan is
// pure: it derives requests from what the crawl found.
type Prober interface {
	Plan(in *PlanInput) []exchange.PlannedRequest
}

// FollowUpProber is implemented by checks that need a second round of
// requests derived from their first-round probes (links inside a fetched
// document). PlanFollowUp sees PlanInput.Probes; it is pure and must bound
// what it asks for. There is no third round.
type FollowUpProber interface {
	PlanFollowUp(in *PlanInput) []exchange.PlannedRequest
}

// PlanInput is what planning sees.
type PlanInput struct {
	Target *url.URL
	// Crawled is every crawl exchange, read-only.
	Crawled []*exchange.Exchange
	// Samples are the crawled resources chosen for probing: successful GETs,
	// a bounded number per path shape.
	Samples []*exchange.Exchange
	// Spec is the loaded OpenAPI document, or nil.
	Spec *spec.Document
	// Probes are the first round's planned probes, set only for
	// FollowUpProber.PlanFollowUp.
	Probes []*exchange.Exchange

	// memos holds what the planners share (Memo).
	memos memos
}

// Input is what a check evaluates.
type Input struct {
	Target    *url.URL
	Recording *exchange.Recording
	Index     *exchange.Index
	// Samples are the crawl exchanges that planned probes were based on.
	Samples []*exchange.Exchange
	// Spec is the loaded OpenAPI document, or nil when none was given or
	// found; checks that need it skip with a reason.
	Spec *spec.Document
	// MCP is what the MCP probe learned from the app's MCP endpoint, or nil
	// when none was given or found; the mcp family skips with a reason.
	MCP *mcp.Snapshot
	// Identities are the recordings of each identity, least privileged
	// first, when the scan ran as two or more; nil otherwise. Recording is
	// the most privileged identity's view, which every other family judges.
	Identities []IdentityView
	// Caller is the identity whose view Recording is; Access maps operations
	// to roles from the configuration. Together they let a check tell an
	// operation rightly absent from this caller's view (see MayCall).
	Caller exchange.Caller
	Access AccessRules
	// Active is set when the user enabled active probes (--active); nil
	// leaves the checks that judge them not assessed.
	Active *ActiveRun
	// Trial is the trial's plan with what each run sent, nil when no trial
	// was asked for (--trial); see the trial family.
	Trial *exchange.TrialPlan
	// Catalog bounds what an MCP catalog may put into a model's context,
	// from the configuration; the zero value is the defaults.
	Catalog CatalogLimits
	// Twins are the thresholds at which a Markdown twin diverges from its
	// page, from the configuration; the zero value is the defaults.
	Twins TwinLimits
	// Baseline is the surface snapshot of the baseline report (--baseline),
	// which the drift family compares this scan's surface with; nil when no
	// baseline was given or it carries no snapshot.
	Baseline *finding.Snapshot

	mu           sync.Mutex
	observations map[string][]string

	// memos holds what the checks share (Memo).
	memos memos

	// pageReaders share one reading of every page (ReadPages).
	pageReaders []PageReader
	// evaluating is Evaluate's context: the reading of every page, shared
	// by several checks, ends with it rather than with one check's.
	evaluating context.Context
	pagesOnce  sync.Once
	pagesRead  map[string]bool
}

// Recordings are the scan's recording and each other identity's: every
// answer the scan received.
func (in *Input) Recordings() []*exchange.Recording {
	out := []*exchange.Recording{in.Recording}
	for _, v := range in.Identities {
		if v.Recording != nil && v.Recording != in.Recording {
			out = append(out, v.Recording)
		}
	}
	return out
}

// Observe records a fact about a check's run that is not a finding, such as
// which of two conformant behaviours the server chose. Safe for concurrent use.
func (in *Input) Observe(checkID, fact string) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.observations == nil {
		in.observations = map[string][]string{}
	}
	in.observations[checkID] = append(in.observations[checkID], fact)
}

// Observations returns the sorted, de-duplicated facts recorded for a check.
func (in *Input) Observations(checkID string) []string {
	in.mu.Lock()
	defer in.mu.Unlock()
	seen := map[string]bool{}
	var out []string
	for _, f := range in.observations[checkID] {
		if !seen[f] {
			seen[f] = true
			out = append(out, f)
		}
	}
	sort.Strings(out)
	return out
}

// CatalogLimits bound an MCP catalog placed whole into a model's context.
// Zero means the default.
type CatalogLimits struct {
	Tools, Tokens int
	// DescriptionTokens is the budget of one tool's description.
	DescriptionTokens int
}

// Defaults of CatalogLimits: LongFuncEval measured function-calling accuracy
// falling steeply past a few dozen tools and some ten thousand tokens of
// definitions (see docs/mcp.md).
const (
	DefaultCatalogTools  = 40
	DefaultCatalogTokens = 15000
	// DefaultDescriptionTokens is one tool's share of the catalog's
	// budget: a description over it alone spends what a whole tool, name
	// and schema included, may cost.
	DefaultDescriptionTokens = DefaultCatalogTokens / DefaultCatalogTools
)

// Or returns the limits with the defaults filled in.
func (l CatalogLimits) Or() CatalogLimits {
	if l.Tools <= 0 {
		l.Tools = DefaultCatalogTools
	}
	if l.Tokens <= 0 {
		l.Tokens = DefaultCatalogTokens
	}
	if l.DescriptionTokens <= 0 {
		l.DescriptionTokens = DefaultDescriptionTokens
	}
	return l
}

// TwinLimits are how far a page's Markdown twin may differ from its HTML
// before discovery-markdown-divergent warns. Nil means the default; a
// pointer tells an explicit 0 (no link may differ) from "not set".
type TwinLimits struct {
	// MinHeadingOverlap is the least Jaccard index of the two heading
	// outlines, between 0 and 1.
	MinHeadingOverlap *float64
	// MaxLinkDifferences is the most link targets found in one of the two
	// and not the other.
	MaxLinkDifferences *int
}

// Defaults of TwinLimits: a generated twin matches its page exactly, and
// these leave room for a heading or a few links a hand-kept twin words or
// places differently (one heading in five, three links) without calling
// it another document.
const (
	DefaultTwinHeadingOverlap  = 0.8
	DefaultTwinLinkDifferences = 3
)

// HeadingOverlap is MinHeadingOverlap, or its default.
func (l TwinLimits) HeadingOverlap() float64 {
	if l.MinHeadingOverlap == nil {
		return DefaultTwinHeadingOverlap
	}
	return *l.MinHeadingOverlap
}

// LinkDifferences is MaxLinkDifferences, or its default.
func (l TwinLimits) LinkDifferences() int {
	if l.MaxLinkDifferences == nil {
		return DefaultTwinLinkDifferences
	}
	return *l.MaxLinkDifferences
}

// NewInput builds an Input, resolving the recording's samples.
func NewInput(target *url.URL, rec *exchange.Recording) *Input {
	in := &Input{Target: target, Recording: rec, Index: exchange.NewIndex(rec)}
	for _, u := range rec.Samples {
		if x := in.Index.Get(exchange.PurposeCrawl, u); x != nil {
			in.Samples = append(in.Samples, x)
		}
	}
	return in
}

// NeedSpec returns a skip error when no spec was loaded.
func (in *Input) NeedSpec() error {
	if in.Spec == nil {
		return Skip("no OpenAPI document was given (--openapi) or found on the target")
	}
	return nil
}

// NeedOperations skips a check that judges the OpenAPI document operation by
// operation: without a document, or with a Swagger 2.0 one, whose
// operations are recognized but not modelled.
func (in *Input) NeedOperations() error {
	if err := in.NeedSpec(); err != nil {
		return err
	}
	if in.Spec.Swagger2 {
		return Skip("the document is Swagger 2.0, which is recognized but not checked operation by operation")
	}
	return nil
}

// EachOperation judges the OpenAPI document operation by operation: it
// skips as NeedOperations does, then runs judge over each operation in the
// document's order, collecting what it finds, and stops when ctx is done.
// The checks that judge the document alone share it, so that each has the
// same skip and stops as soon as the scan is cancelled.
func (in *Input) EachOperation(ctx context.Context, judge func(op *spec.Operation) []finding.Finding) ([]finding.Finding, error) {
	if err := in.NeedOperations(); err != nil {
		return nil, err
	}
	var out []finding.Finding
	for _, op := range in.Spec.Operations {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		out = append(out, judge(op)...)
	}
	return out, nil
}

// AtOperation places a finding about one operation of the document at the
// operation, or at a member under it named by its path (AtOperation(f, op,
// "responses", "409")). A document read without positions leaves f where
// it was: a location without a line would point nowhere.
func AtOperation(f finding.Finding, op *spec.Operation, under ...string) finding.Finding {
	if op.Location.File == "" && op.Location.Line == 0 {
		return f
	}
	loc := op.Location
	loc.Pointer += jsonorder.Pointer(under)
	f.Location = &loc
	return f
}

// Probe returns the probe sent for purpose on the sample at basedOn, or nil.
func (in *Input) Probe(purpose, basedOn string) *exchange.Exchange {
	return in.Index.Get(purpose, basedOn)
}

// SkipError marks a check that does not apply.
type SkipError struct{ Reason string }

func (e *SkipError) Error() string { return "skipped: " + e.Reason }

// Skip returns an error that records the check as skipped with reason.
func Skip(reason string) error { return &SkipError{Reason: reason} }

// IsSkip reports whether err is a skip, and returns its reason.
func IsSkip(err error) (string, bool) {
	var s *SkipError
	if errors.As(err, &s) {
		return s.Reason, true
	}
	return "", false
}

// IdentityView is what one identity was shown: its own crawl and the probes
// sent as it. The identity itself is the Caller the probe carried, with its
// rank (0 the least privileged), the same value the access decisions read,
// with no credential.
type IdentityView struct {
	exchange.Caller
	Recording *exchange.Recording
	// MCP is the MCP catalog the identity was shown: the revision decision
	// and one tools/list walk, sent as it. It is nil when the scan found no
	// MCP endpoint or did not list the catalog as this identity; for the most
	// privileged identity it is Input.MCP.
	MCP *mcp.Snapshot
}

// ActiveRun describes the active probes of a scan.
type ActiveRun struct {
	// Allow is the allow-list as the user wrote it.
	Allow []string
	// Planned counts the requests the recordings called for and the list
	// allowed; they are in the recordings under the active/ purposes.
	Planned int
}

// NeedActive returns a skip error when active probes were not enabled.
func (in *Input) NeedActive() error {
	if in.Active == nil {
		return Skip("not assessed: this is an active probe, which changes state on the target; run with --active and an --active-allow entry naming the operation to assess it")
	}
	return nil
}

// MayCall is Access.MayCall with the scan's rules and document.
func (in *Input) MayCall(op *spec.Operation, who exchange.Caller) (Access, string) {
	return in.Access.MayCall(in.Spec, op, who)
}
