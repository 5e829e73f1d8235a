package stateful

import (
	"slices"

	"github.com/agentready/agentready/checks/internal/activeplan"
)

// hasToken reports a name or sentence that contains word.
func hasToken(s, word string) bool { return slices.Contains(activeplan.Words(s), word) }

// sideEffectWords are the words by which a description says the action is
// one of the highest-risk operations the stateful design lists: it moves
// money, deletes data, changes permissions (grants, revokes, assigns a
// role) or sends data outside (exports, shares, sends). Nouns that verify
// and recover steps use too ("check that the payment went through") are
// deliberately absent; "role" is the exception, since a description that
// names a role without a harmless lead ("Make Ada an admin role") changes
// one.
var sideEffectWords = map[string]bool{
	"charge": true, "charges": true, "charging": true,
	"pay": true, "pays": true, "paying": true,
	"refund": true, "refunds": true, "refunding": true,
	"delete": true, "deletes": true, "deleting": true, "deletion": true,
	"erase": true, "erases": true, "purge": true, "purges": true,
	"grant": true, "grants": true, "granting": true,
	"revoke": true, "revokes": true, "revoking": true,
	"role": true, "roles": true,
	"export": true, "exports": true, "exporting": true,
	"share": true, "shares": true, "sharing": true,
	"send": true, "sends": true, "sending": true,
}

// harmlessLeads are the first words of descriptions that only look, check
// or start a flow whose own confirmation comes later ("Request a return and
// refund", "Check that the payment went through").
var harmlessLeads = map[string]bool{
	"check": true, "verify": true, "request": true, "start": true, "begin": true, "view": true,
	"show": true, "get": true, "list": true, "read": true, "track": true, "search": true,
	"find": true, "look": true, "preview": true, "estimate": true, "calculate": true,
	"quote": true, "review": true, "see": true, "fetch": true, "explain": true, "if": true,
}

// namesSideEffect reports a description that says the action charges,
// pays, refunds, deletes, changes permissions or sends data outside.
func namesSideEffect(text string) bool {
	ws := activeplan.Words(text)
	if len(ws) == 0 || harmlessLeads[ws[0]] {
		return false
	}
	return slices.ContainsFunc(ws, func(w string) bool { return sideEffectWords[w] })
}

// verifyWords name an action that reads an outcome rather than causing one.
var verifyWords = []string{"verify", "verification", "check", "status", "poll", "reconcile", "refresh", "get", "read", "fetch", "context"}

func isVerifyAction(e entry) bool {
	return activeplan.NamesStep(e.name, verifyWords...) || activeplan.NamesStep(e.text, "verify", "check")
}
