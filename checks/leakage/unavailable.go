package leakage

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/internal/errorleak"
	"github.com/agentready/agentready/checks/internal/hypermedia"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/jsonorder"
	"github.com/agentready/agentready/internal/spec"
)

// PolicyReason flags unavailableAffordances entries that name an operation
// the caller is never offered, with a reason that reveals policy: the caller
// learns the operation exists and which role, permission or plan unlocks it.
type PolicyReason struct{ family }

func (PolicyReason) Meta() checks.Meta {
	return checks.Meta{
		ID:       "leakage-unavailable-policy-reason",
		Since:    checks.FirstRelease,
		Family:   checks.FamilyLeakage,
		Title:    "Callers are not told which role or permission unlocks an operation they never get",
		Severity: finding.SeverityError,
		Security: true,
		SpecRefs: []finding.SpecRef{
			{Doc: "Dynamic affordances (operation availability)", Section: "negative affordances", Level: "advice", URL: "https://github.com/agentready/agentready/blob/main/docs/identities.md#negative-affordances"},
			{Doc: "OWASP API Security Top 10", Section: "API5:2023", Level: "advice", URL: "https://owasp.org/API-Security/editions/2023/en/0xa5-broken-function-level-authorization/"},
		},
		Help: `An ` + "`unavailableAffordances`" + ` entry tells a caller that an operation exists
and why it cannot run now. For a state-dependent operation ("order is
shipped") that is useful. For an operation the caller may never perform,
a reason such as ` + "`requires_role_admin`" + ` discloses capability and policy: an
attacker learns the operation, the role that unlocks it and the rule's
internal name. Listing unavailable operations is optional; a server should
give reasons only for operations the caller is allowed to know about.

An operation is never offered to a caller when no response it was shown
offered it: as an affordance, as a HAL-FORMS template or a link named after
it, or as a template or link that the OpenAPI document ties to it (through
` + "`x-hal-rel`" + ` at the control's target path, or the method and target it
states). A reason reveals policy when it names a role, permission, scope or
policy as error bodies are judged (` + "`requires_role_admin`" + `), or names who or what
unlocks the operation (an administrator, the owner, staff; a plan, tier or
subscription) in a requirement phrase: "requires the Pro plan", "admin
only", "available on the Enterprise tier". The same words in a state
("subscription is cancelled", "awaiting admin approval", "plan expired")
reveal nothing. A caller one of whose pages answered 5xx and never 200 is
not judged: the state that page would have shown may offer the operation.

**How to fix:** omit entries for operations the caller's identity can never
perform, or give them no reason; keep reasons for state-dependent
unavailability.`,
	}
}

// NeverOffered notes unavailableAffordances entries, with no reason or a
// generic one, naming an operation the caller is never offered.
type NeverOffered struct{ family }

func (NeverOffered) Meta() checks.Meta {
	return checks.Meta{
		ID:       "leakage-unavailable-never-offered",
		Since:    checks.FirstRelease,
		Family:   checks.FamilyLeakage,
		Title:    "Callers are not listed operations they are never offered",
		Severity: finding.SeverityInfo,
		SpecRefs: []finding.SpecRef{
			{Doc: "Dynamic affordances (operation availability)", Section: "negative affordances", Level: "advice", URL: "https://github.com/agentready/agentready/blob/main/docs/identities.md#negative-affordances"},
		},
		Help: `An ` + "`unavailableAffordances`" + ` entry for an operation the caller never sees
offered in any state (as an affordance, a HAL-FORMS template or a link, as
` + "`leakage-unavailable-policy-reason`" + ` matches them) still reveals that the
operation exists. Without a policy-revealing reason this is a small
disclosure, reported for review.

**How to fix:** list as unavailable only operations the caller could
perform in another state.`,
	}
}

func (c PolicyReason) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	return unavailable(ctx, in, c.Meta(), true)
}

func (c NeverOffered) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	return unavailable(ctx, in, c.Meta(), false)
}

// negative is one unavailableAffordances entry and where it was seen.
type negative struct {
	x                 *exchange.Exchange
	operation, reason string
	pointer           string
}

func unavailable(ctx context.Context, in *checks.Input, m checks.Meta, policy bool) ([]finding.Finding, error) {
	vs, err := views(in)
	if err != nil {
		return nil, err
	}
	var out []finding.Finding
	seen := 0
	for _, v := range vs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		c := controlsOf(in, v.Recording)
		offered, negatives := maps.Clone(c.affordance), c.negatives
		for name := range offeredOperations(in, v.Recording) {
			offered[name] = true
		}
		seen += len(negatives)
		if failed := pagesThatFailed(v.Recording); len(negatives) > 0 && len(failed) > 0 {
			in.Observe(m.ID, fmt.Sprintf("as %q, %s answered %d and never 200: a state it shows may offer the operations unavailableAffordances names, so none is judged never offered",
				v.Name, exchange.PathOf(failed[0].Request.URL), failed[0].Response.Status))
			continue
		}
		reported := map[string]bool{}
		for _, n := range negatives {
			if offered[n.operation] || reported[n.operation] || revealsPolicy(n.reason) != policy {
				continue
			}
			reported[n.operation] = true
			var msg string
			if policy {
				msg = fmt.Sprintf("as %q, unavailableAffordances names %s with reason %q, an operation this caller is never offered; expected no entry, or no policy in the reason", v.Name, n.operation, n.reason)
			} else {
				msg = fmt.Sprintf("as %q, unavailableAffordances names %s, an operation this caller is never offered in any state seen", v.Name, n.operation)
			}
			ev := checks.Evidence(n.x, nil, []string{"Content-Type"})
			ev.JSONPointer = n.pointer
			ev.Excerpt = checks.Excerpt(n.x)
			out = append(out, checks.New(m, v.Name+" "+n.operation, msg, ev))
		}
	}
	if seen == 0 {
		return nil, checks.Skip("no identity was shown unavailableAffordances")
	}
	return out, nil
}

// pagesThatFailed lists, in recording order, the GETs of a recording that
// answered 5xx while no GET of the same URL answered 200: the states those
// pages would have shown are unknown, and one of them may offer what every
// page seen did not. A 503 that stayed throttled hid its page as well.
func pagesThatFailed(rec *exchange.Recording) []*exchange.Exchange {
	if rec == nil {
		return nil
	}
	answered := map[string]bool{}
	for _, x := range rec.Exchanges {
		if x.Request.Method == http.MethodGet && x.Response != nil && x.Response.Status == http.StatusOK {
			answered[x.Request.URL] = true
		}
	}
	var out []*exchange.Exchange
	for _, x := range rec.Exchanges {
		if x.Request.Method == http.MethodGet && x.Response != nil && x.Response.Status >= 500 && !answered[x.Request.URL] {
			out = append(out, x)
			answered[x.Request.URL] = true
		}
	}
	return out
}

// controls is what the pages of one recording offered: their links,
// templates and affordances (hypermedia.Offers), the operations named in
// "affordances", with a target or not, and the "unavailableAffordances"
// entries, in recording order. Several checks compare each identity's
// controls, so each page is decoded once for all of them.
type controls struct {
	offers     []hypermedia.Offer
	affordance map[string]bool
	negatives  []negative
}

var controlsKey = checks.NewKey[map[*exchange.Recording]*controls]()

// controlsOf is rec's controls, read once per Input for every recording
// the scan made.
func controlsOf(in *checks.Input, rec *exchange.Recording) *controls {
	if rec == nil {
		return &controls{}
	}
	all := checks.Memo(in, controlsKey, func() map[*exchange.Recording]*controls {
		out := map[*exchange.Recording]*controls{}
		for _, r := range in.Recordings() {
			out[r] = readControls(r)
		}
		return out
	})
	if c, ok := all[rec]; ok {
		return c
	}
	return readControls(rec)
}

func readControls(rec *exchange.Recording) *controls {
	c := &controls{affordance: map[string]bool{}}
	for _, x := range rec.Exchanges {
		if !hypermedia.Offering(x) {
			continue
		}
		v := x.Response.ReadHAL()
		if v.Err != nil {
			continue
		}
		c.offers = append(c.offers, hypermedia.OffersOf(x, v.Doc.Root)...)
		hypermedia.WalkObjects(v.Doc.Root, func(obj *jsonorder.Value) {
			for _, a := range hypermedia.Objects(obj.Get("affordances")) {
				if op, ok := a.Get("operation").Str(); ok {
					c.affordance[op] = true
				}
			}
			for _, a := range hypermedia.Objects(obj.Get("unavailableAffordances")) {
				op, _ := a.Get("operation").Str()
				reason, _ := a.Get("reason").Str()
				if op != "" {
					c.negatives = append(c.negatives, negative{x: x, operation: op, reason: reason, pointer: a.Pointer})
				}
			}
		})
	}
	return c
}

const maxWalkDepth = 16

// revealsPolicy reports a reason that names a role, permission, scope or
// policy, by errorleak's patterns, the ones error bodies are judged by, or
// that says who or what unlocks the operation: a privileged holder
// ("admin", "owner") or an offer ("plan", "tier", "subscription") inside a
// requirement phrase ("requires the Pro plan", "admin only", "available on
// the Enterprise tier"). Error bodies need the stricter patterns alone,
// because a 403 may rightly say "insufficient permissions"; an entry for an
// operation the caller is never offered has no such excuse. The same words
// also describe state ("subscription is cancelled", "awaiting admin
// approval"), which tells the caller nothing about policy, so a bare word is
// not enough.
func revealsPolicy(reason string) bool {
	if _, ok := errorleak.FindPolicy(reason); ok {
		return true
	}
	if policyToken.MatchString(reason) {
		return true
	}
	if len(reason) > maxReason {
		reason = reason[:maxReason]
	}
	words := reasonWords(reason)
	for i, w := range words {
		if mechanismWords[w] {
			return true
		}
		if unlockWords[w] != "" && !describesState(words, i) && (cueBefore(words, i) || cueAfter(words, i)) {
			return true
		}
	}
	return false
}

// policyToken is a role or scope written as a token: "role:admin",
// "scope=orders:write", or a scope-shaped name after a cue ("requires
// refunds:write").
var policyToken = regexp.MustCompile(`(?i)\b(?:role|scope|permission|group)s?\s*[:=]\s*[\w.-]+|\b(?:requires?|required|needs?|missing)\s+[a-z][\w-]*[:.][a-z][\w.:-]*\b`)

// maxReason bounds the reason text judged.
const maxReason = 512

const (
	holder = "holder" // who may: admin, owner, staff
	offer  = "offer"  // what to obtain: a plan, tier, subscription
)

// unlockWords name who or what unlocks an operation, never a mere refusal.
var unlockWords = map[string]string{
	"admin": holder, "admins": holder, "administrator": holder, "administrators": holder,
	"superuser": holder, "superusers": holder, "staff": holder, "owner": holder, "owners": holder,
	"plan": offer, "plans": offer, "tier": offer, "tiers": offer, "premium": offer, "enterprise": offer,
	"subscription": offer, "subscriptions": offer, "entitlement": offer, "entitlements": offer,
	"license": offer, "licence": offer, "pro": offer, "plus": offer, "business": offer,
	// A role, scope or permission named after a cue: "requires manager role".
	"role": holder, "roles": holder, "scope": holder, "scopes": holder, "permission": holder,
	"permissions": holder, "privilege": holder, "privileges": holder, "group": holder, "groups": holder,
}

// mechanismWords name an access-control mechanism, which no state reason
// needs to mention.
var mechanismWords = map[string]bool{"rbac": true, "abac": true, "acl": true}

// cueWords, directly before an unlock word or before an article and one
// more word ("requires the Pro plan"), make a requirement phrase.
var cueWords = map[string]bool{
	"require": true, "requires": true, "required": true, "requiring": true,
	"need": true, "needs": true, "needed": true, "only": true,
}

// cuePairs are the two-word cues.
var cuePairs = map[string]bool{
	"reserved for": true, "restricted to": true, "limited to": true, "exclusive to": true,
	"available to": true, "available on": true, "available in": true, "available for": true, "available with": true,
	"upgrade to": true, "upgrade your": true, "included in": true, "subscribe to": true,
	"must be": true, "must have": true, "must hold": true,
}

var articles = map[string]bool{"the": true, "a": true, "an": true, "your": true, "their": true, "its": true, "this": true, "any": true}

// connectors introduce a condition or an event, never the name of a plan or
// a role: "only after owner confirms" states when, not who.
var connectors = map[string]bool{
	"when": true, "if": true, "after": true, "once": true, "until": true, "before": true, "while": true,
	"by": true, "is": true, "was": true, "has": true, "have": true, "been": true, "not": true, "no": true,
}

// cueBefore reports a cue before words[i], with at most an article and one
// other word (a plan's name, "active") between them, or "to be" and an
// article ("you need to be an admin").
func cueBefore(words []string, i int) bool {
	if i >= 3 && words[i-2] == "be" && words[i-3] == "to" && articles[words[i-1]] {
		i -= 3
		return i > 0 && (cueWords[words[i-1]] || (i >= 2 && cuePairs[words[i-2]+" "+words[i-1]]))
	}
	other, article := 0, 0
	for p := i; p > 0 && i-p <= 2; p-- {
		if p < i {
			switch w := words[p]; {
			case articles[w]:
				article++
			case connectors[w]:
				return false
			default:
				other++
			}
			if article > 1 || other > 1 {
				return false
			}
		}
		if cueWords[words[p-1]] || (p >= 2 && cuePairs[words[p-2]+" "+words[p-1]]) {
			return true
		}
	}
	return false
}

// rightsWords may sit between an unlock word and a trailing cue: "admin
// role required", "premium feature only".
var rightsWords = map[string]bool{
	"role": true, "roles": true, "access": true, "rights": true, "privileges": true, "permission": true,
	"permissions": true, "account": true, "accounts": true, "users": true, "members": true,
	"feature": true, "features": true, "customers": true,
}

// trailingCues after an unlock word make a requirement phrase: "admin only",
// "Pro plan required".
var trailingCues = map[string]bool{"only": true, "required": true, "needed": true, "exclusive": true}

func cueAfter(words []string, i int) bool {
	for j := i + 1; j < len(words) && j <= i+2; j++ {
		if trailingCues[words[j]] {
			return true
		}
		if !rightsWords[words[j]] {
			return false
		}
	}
	return false
}

// stateWords after an unlock word describe its state or an event awaited
// from it: "subscription is cancelled", "admin approval", "plan expired".
var stateWords = map[string]bool{
	"is": true, "was": true, "are": true, "were": true, "has": true, "have": true, "had": true, "be": true,
	"been": true, "being": true, "expired": true, "cancelled": true, "canceled": true, "suspended": true,
	"lapsed": true, "paused": true, "pending": true, "inactive": true, "approval": true, "approve": true,
	"approves": true, "approved": true, "confirmation": true, "confirm": true, "confirms": true,
	"confirmed": true, "review": true, "reviews": true, "reviewed": true, "decision": true, "consent": true,
	"verification": true, "action": true, "signoff": true, "sign": true,
}

// describesState reports an unlock word followed by a state or an awaited
// event; a holder followed by "to" awaits its action ("requires the owner
// to confirm"), an offer followed by "to be" its state.
func describesState(words []string, i int) bool {
	j := i + 1
	if j < len(words) && words[j] == "s" { // the owner's approval
		j++
	}
	if j >= len(words) {
		return false
	}
	switch {
	case stateWords[words[j]]:
		return true
	case words[j] == "to" && unlockWords[words[i]] == holder:
		return true
	case words[j] == "to" && j+1 < len(words) && words[j+1] == "be":
		return true
	}
	return false
}

// reasonWords splits a reason into lower-case words: snake, kebab, camel
// case and prose.
func reasonWords(reason string) []string {
	var words []string
	var cur strings.Builder
	flush := func() {
		if cur.Len() > 0 {
			words = append(words, strings.ToLower(cur.String()))
			cur.Reset()
		}
	}
	prev := rune(0)
	for _, r := range reason {
		switch {
		case unicode.IsUpper(r) && unicode.IsLower(prev):
			flush()
			cur.WriteRune(r)
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			cur.WriteRune(r)
		default:
			flush()
		}
		prev = r
	}
	flush()
	return words
}

// offeredOperations names the operations a recording offered as links and
// HAL-FORMS templates as well as affordances: each control's relation,
// template key or operation name (and a compact URI's name part, acme:refund
// offering refund), and with an OpenAPI document the operationId of the
// operation it invokes, as the surface matrix matches them: one at its
// target path whose x-hal-rel names the relation, else the operation its
// stated method and target match.
func offeredOperations(in *checks.Input, rec *exchange.Recording) map[string]bool {
	out := map[string]bool{}
	if rec == nil {
		return out
	}
	for _, o := range controlsOf(in, rec).offers {
		out[o.Name] = true
		if _, name, ok := strings.Cut(o.Name, ":"); ok && !strings.Contains(name, "/") {
			out[name] = true
		}
		if op := invoked(in, o); op != nil && op.OperationID != "" {
			out[op.OperationID] = true
		}
	}
	return out
}

// invoked is the OpenAPI operation a control invokes, or nil.
func invoked(in *checks.Input, o hypermedia.Offer) *spec.Operation {
	if in.Spec == nil {
		return nil
	}
	ix := in.Spec.Index()
	if u, err := url.Parse(o.Target); err == nil {
		_, ops := ix.MatchPath(u.EscapedPath())
		for _, m := range slices.Sorted(maps.Keys(ops)) {
			if slices.Contains(ops[m].HALRels, o.Name) {
				return ops[m]
			}
		}
	}
	if o.DefaultMethod {
		return nil
	}
	return ix.Match(o.Method, o.Target)
}
