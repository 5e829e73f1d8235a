package stateful

import (
	"slices"
	"strings"
	"unicode"
)

// tokens splits an identifier or a sentence into lower-case words:
// confirm_action, confirmAction and "Confirm the action" all give confirm
// and action.
func tokens(s string) []string {
	var out []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			out = append(out, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	rs := []rune(s)
	for i, r := range rs {
		switch {
		case !unicode.IsLetter(r) && !unicode.IsDigit(r):
			flush()
			continue
		case unicode.IsUpper(r) && i > 0 && unicode.IsLower(rs[i-1]):
			flush()
		}
		cur = append(cur, r)
	}
	flush()
	return out
}

func hasToken(s, word string) bool { return slices.Contains(tokens(s), word) }

// submissionSteps are the words that name a confirm or recover step, the
// final submission and its retry after a timeout: the calls an agent may
// send twice (confirm_action, recover_action, retryPayment).
var submissionSteps = []string{"confirm", "confirmation", "recover", "recovery", "retry"}

// isStep reports a tool or operation name that contains one of words.
func isStep(name string, words ...string) bool {
	return slices.ContainsFunc(tokens(name), func(t string) bool { return slices.Contains(words, t) })
}

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
	ws := tokens(text)
	if len(ws) == 0 || harmlessLeads[ws[0]] {
		return false
	}
	return slices.ContainsFunc(ws, func(w string) bool { return sideEffectWords[w] })
}

// verifyWords name an action that reads an outcome rather than causing one.
var verifyWords = []string{"verify", "verification", "check", "status", "poll", "reconcile", "refresh", "get", "read", "fetch", "context"}

func isVerifyAction(e entry) bool {
	return isStep(e.name, verifyWords...) || isStep(e.text, "verify", "check")
}
