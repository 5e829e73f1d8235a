package leakage

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"unicode"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/errorleak"
	"github.com/agentready/agentready/exchange"
	"github.com/agentready/agentready/finding"
)

// PolicyReason flags unavailableAffordances entries that name an operation
// the caller is never offered, with a reason that reveals policy: the caller
// learns the operation exists and which role, permission or plan unlocks it.
type PolicyReason struct{}

func (PolicyReason) Meta() checks.Meta {
	return checks.Meta{
		ID:       "leakage-unavailable-policy-reason",
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

**How to fix:** omit entries for operations the caller's identity can never
perform, or give them no reason; keep reasons for state-dependent
unavailability.`,
	}
}

// NeverOffered notes unavailableAffordances entries, with no reason or a
// generic one, naming an operation the caller is never offered.
type NeverOffered struct{}

func (NeverOffered) Meta() checks.Meta {
	return checks.Meta{
		ID:       "leakage-unavailable-never-offered",
		Family:   checks.FamilyLeakage,
		Title:    "Callers are not listed operations they are never offered",
		Severity: finding.SeverityInfo,
		SpecRefs: []finding.SpecRef{
			{Doc: "Dynamic affordances (operation availability)", Section: "negative affordances", Level: "advice", URL: "https://github.com/agentready/agentready/blob/main/docs/identities.md#negative-affordances"},
		},
		Help: `An ` + "`unavailableAffordances`" + ` entry for an operation the caller never sees
offered in any state still reveals that the operation exists. Without a
policy-revealing reason this is a small disclosure, reported for review.

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
		offered, negatives := affordancesOf(v.Recording)
		seen += len(negatives)
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

// affordancesOf collects, over every JSON response of a recording, the
// operations offered in "affordances" and the "unavailableAffordances"
// entries, in recording order.
func affordancesOf(rec *exchange.Recording) (map[string]bool, []negative) {
	offered := map[string]bool{}
	var negatives []negative
	if rec == nil {
		return offered, nil
	}
	for _, x := range rec.Exchanges {
		if x.Request.Method != "GET" || x.Response == nil || x.Response.Status != 200 || !whole(x) || !exchange.IsJSONMediaType(x.Response.MediaType()) {
			continue
		}
		v, err := x.Response.JSON()
		if err != nil {
			continue
		}
		walk(v, "", 0, func(obj map[string]any, ptr string) {
			for _, a := range entries(obj["affordances"]) {
				if op, ok := a["operation"].(string); ok {
					offered[op] = true
				}
			}
			for i, a := range entries(obj["unavailableAffordances"]) {
				op, _ := a["operation"].(string)
				reason, _ := a["reason"].(string)
				if op != "" {
					negatives = append(negatives, negative{x: x, operation: op, reason: reason, pointer: fmt.Sprintf("%s/unavailableAffordances/%d", ptr, i)})
				}
			}
		})
	}
	return offered, negatives
}

const maxWalkDepth = 16

// walk calls fn on every object, depth-first in key order, bounded in depth.
func walk(v any, ptr string, depth int, fn func(map[string]any, string)) {
	if depth > maxWalkDepth {
		return
	}
	switch t := v.(type) {
	case map[string]any:
		fn(t, ptr)
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			walk(t[k], ptr+"/"+escapePointer(k), depth+1, fn)
		}
	case []any:
		for i, e := range t {
			walk(e, fmt.Sprintf("%s/%d", ptr, i), depth+1, fn)
		}
	}
}

func escapePointer(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

func entries(v any) []map[string]any {
	list, _ := v.([]any)
	var out []map[string]any
	for _, e := range list {
		if m, ok := e.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

// revealsPolicy reports a reason that names a role, permission, scope or
// policy, by errorleak's patterns, the ones error bodies are judged by, or
// that names who or what unlocks the operation: a privileged role word
// ("admin") or a plan or tier. Error bodies need the stricter patterns alone,
// because a 403 may rightly say "insufficient permissions"; an entry for an
// operation the caller is never offered has no such excuse, and "requires
// pro plan" tells the caller exactly what to obtain. A reason made of state
// words ("order is shipped"), or one that only says the caller may not
// ("insufficient permissions"), names none.
func revealsPolicy(reason string) bool {
	if _, ok := errorleak.FindPolicy(reason); ok {
		return true
	}
	for _, w := range reasonWords(reason) {
		if unlockWords[w] {
			return true
		}
	}
	return false
}

// unlockWords name a holder or an offer, never a mere refusal.
var unlockWords = map[string]bool{
	"admin": true, "admins": true, "administrator": true, "administrators": true, "superuser": true,
	"staff": true, "owner": true, "plan": true, "tier": true, "premium": true, "enterprise": true,
	"subscription": true, "entitlement": true, "rbac": true, "abac": true, "acl": true,
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
