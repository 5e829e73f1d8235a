package checks

import (
	"reflect"
	"slices"

	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/mcp"
	"github.com/agentready/agentready/internal/spec"
)

// Needs are what a check needs the scan to send besides the crawl and the
// probes it plans itself. The scan sends what the selected checks need, and
// nothing for a check the policy turned off.
type Needs uint16

const (
	// NeedsMCP: the app's MCP endpoint, discovered and examined as the most
	// privileged identity (Input.MCP).
	NeedsMCP Needs = 1 << iota
	// NeedsMCPPerIdentity: when the scan runs as several identities, the
	// MCP endpoint examined, and its catalog listed as each less privileged
	// identity too (IdentityView.MCP).
	NeedsMCPPerIdentity
	// NeedsActiveHidden: with --active, the requests behind controls only
	// the most privileged identity was offered, sent as a lower one.
	NeedsActiveHidden
	// NeedsActiveStale: with --active, the requests behind offered controls,
	// conditional on a version no representation has.
	NeedsActiveStale
	// NeedsActiveState: with --active, the requests behind controls a kind
	// of resource offers in one lifecycle state, sent to a resource in a
	// state that does not offer them.
	NeedsActiveState
	// NeedsActiveOffList: with --active, the request behind an operation a
	// kind of next_actions node lists in one node, sent to a node that does
	// not list it.
	NeedsActiveOffList
	// NeedsActivePatch: with --active, a patch that sets a field outside
	// the node's allowed_patch, and a re-read of the node.
	NeedsActivePatch
	// NeedsActiveReplay: with --active, a step that takes an idempotency
	// key sent twice with the same key, the node re-read after each.
	NeedsActiveReplay
	// NeedsSpecText: the OpenAPI document's text kept in Spec.Raw, for a
	// check that reads the document as written rather than as loaded.
	NeedsSpecText
	// NeedsEveryPage: every crawled page read, for a check that judges each
	// one. Otherwise a 2xx page past the first BodiesPerShape pages of its
	// path shape and media type (see probe.Config) is left unread: no body,
	// and of its header only Content-Type and Link (Response.Unread). Bodies
	// over 16 KiB stay bounded either way.
	NeedsEveryPage

	knownNeeds = NeedsMCP | NeedsMCPPerIdentity | NeedsActiveHidden | NeedsActiveStale | NeedsActiveState |
		NeedsActiveOffList | NeedsActivePatch | NeedsActiveReplay | NeedsSpecText | NeedsEveryPage
)

// Has reports whether n holds every need of want.
func (n Needs) Has(want Needs) bool { return n&want == want }

// NeedsOf is what the checks need together.
func NeedsOf(cs []Check) Needs {
	var n Needs
	for _, c := range cs {
		n |= c.Meta().Needs
	}
	return n
}

// validNeeds says what is wrong with a check's needs, or "".
func validNeeds(n Needs) string {
	if n&^knownNeeds != 0 {
		return "unknown needs"
	}
	return ""
}

// A Part is what a family brings to a scan besides its checks: a planner of
// what the less privileged identities fetch (IdentityProber), reading aids
// for the report (Annotator), or a reader of every page that other families
// share (PageReader). Parts are comparable values, usually empty structs,
// and a family's checks bring the same ones (WithParts, usually through one
// embedded type): the scan uses each distinct part once, and has it whenever
// the policy keeps any check that brings it.
type Part any

// WithParts is implemented by the checks whose family brings parts.
type WithParts interface {
	Parts() []Part
}

// IdentityProber plans what a less privileged identity fetches besides its
// own crawl. Like Prober it is pure, and the probe drops requests planned
// twice.
type IdentityProber interface {
	PlanAsIdentity(in *IdentityPlanInput) []exchange.PlannedRequest
}

// IdentityPlanInput is what planning for a less privileged identity sees.
type IdentityPlanInput struct {
	// Crawled is the identity's own crawl.
	Crawled []*exchange.Exchange
	// Privileged is the recording of the most privileged identity.
	Privileged *exchange.Recording
	// Pages is the identity's share of the page limit.
	Pages int
}

// Annotator adds to the report what is not a finding: notes and sections
// that help read the findings (the surface matrix, the state matrix). It
// runs once the checks have, reads what they read, and touches no finding,
// check result or rule.
type Annotator interface {
	Annotate(in *Input, rep *finding.Report)
}

// PartsOf lists the distinct parts the checks bring, in the checks' order.
func PartsOf(cs []Check) []Part {
	var out []Part
	for _, c := range cs {
		w, ok := c.(WithParts)
		if !ok {
			continue
		}
		for _, p := range w.Parts() {
			if !slices.ContainsFunc(out, func(q Part) bool { return samePart(p, q) }) {
				out = append(out, p)
			}
		}
	}
	return out
}

// samePart compares parts without panicking on one that is not comparable,
// which the registry refuses anyway.
func samePart(a, b Part) bool {
	ta, tb := reflect.TypeOf(a), reflect.TypeOf(b)
	return ta == tb && ta != nil && ta.Comparable() && a == b
}

// validParts says what is wrong with the parts of the checks cs, all of one
// family, or "": every part must be comparable and do something, and every
// check of the family must bring the same parts.
func validParts(cs []Check) string {
	var first []Part
	for i, c := range cs {
		var ps []Part
		if w, ok := c.(WithParts); ok {
			ps = w.Parts()
		}
		for _, p := range ps {
			if t := reflect.TypeOf(p); t == nil || !t.Comparable() {
				return "check " + c.Meta().ID + ": a part must be a comparable value"
			}
			_, plans := p.(IdentityProber)
			_, annotates := p.(Annotator)
			_, reads := p.(PageReader)
			if !plans && !annotates && !reads {
				return "check " + c.Meta().ID + ": a part must be an IdentityProber, an Annotator or a PageReader"
			}
		}
		if i == 0 {
			first = ps
			continue
		}
		if !slices.EqualFunc(ps, first, samePart) {
			return "checks " + cs[0].Meta().ID + " and " + c.Meta().ID + " bring different parts; a family's checks bring the same ones"
		}
	}
	return ""
}

// ActivePlanner plans the active probes from what each identity was shown.
// The user's allow-list is one (checks/internal/activeplan.Rules): the scan never plans
// a state-changing request the user did not allow.
type ActivePlanner interface {
	PlanActive(in *ActivePlanInput) []exchange.ActiveRequest
	// Strings is the allow-list as the user wrote it, for the report.
	Strings() []string
}

// ActivePlanInput is what planning the active probes sees.
type ActivePlanInput struct {
	// Views are the identities, least privileged first, with their names
	// and recordings; a scan as one caller has one view.
	Views []IdentityView
	Spec  *spec.Document
	// Needs are the selected checks' needs: a kind of probe no selected
	// check judges is not sent.
	Needs Needs
}

// TrialPlanner plans a trial from what the identity it runs as was shown
// and the MCP endpoint examined (checks/internal/trialplan, reached through
// checks/builtin): the tasks the API declares and every request of the
// three players, which the user sees before any is sent.
type TrialPlanner func(view IdentityView, doc *spec.Document, snap *mcp.Snapshot) *exchange.TrialPlan

// Planners lists the checks' planners, each planner once: the checks of a
// family that embed one planner (an empty struct with the family's Plan,
// like discovery's) share its plan, which is computed once per scan instead
// of once per check. A check whose Plan is its own is a planner of its own.
func Planners(cs []Check) []Prober { return distinctPlanners[Prober](cs, "Plan") }

// FollowUpPlanners lists the checks' follow-up planners, each once, as
// Planners does.
func FollowUpPlanners(cs []Check) []FollowUpProber {
	return distinctPlanners[FollowUpProber](cs, "PlanFollowUp")
}

func distinctPlanners[P any](cs []Check, method string) []P {
	var out []P
	seen := map[reflect.Type]bool{}
	for _, c := range cs {
		p, ok := c.(P)
		if !ok {
			continue
		}
		if t := sharedPlanner(c, method); t != nil {
			if seen[t] {
				continue
			}
			seen[t] = true
		}
		out = append(out, p)
	}
	return out
}

// sharedPlanner is the type of the embedded planner a check's method is
// promoted from, or nil when the method is the check's own. Only an empty
// struct is shared: its method cannot depend on the check that embeds it.
// A check that declares the method while embedding a planner would be
// mistaken for a sharer; checks/builtin's tests refuse one.
func sharedPlanner(c Check, method string) reflect.Type {
	t := reflect.TypeOf(c)
	var shared reflect.Type
	for t.Kind() == reflect.Struct {
		var from reflect.Type
		for i := range t.NumField() {
			f := t.Field(i)
			if _, has := f.Type.MethodByName(method); f.Anonymous && has {
				if from != nil {
					return nil // ambiguous: the check must declare its own
				}
				from = f.Type
			}
		}
		if from == nil {
			break
		}
		t, shared = from, from
	}
	if shared == nil || shared.Size() != 0 {
		return nil
	}
	return shared
}
