package activeplan

import (
	"net/http"
	"slices"
	"strings"
	"unicode"

	"github.com/agentready/agentready/internal/spec"
)

// Words splits an identifier or a sentence into lower-case words:
// confirm_action, confirmAction and "Confirm the action" all give confirm
// and action.
func Words(s string) []string {
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

// NamesStep reports a tool or operation name that contains one of words.
func NamesStep(name string, words ...string) bool {
	return slices.ContainsFunc(Words(name), func(t string) bool { return slices.Contains(words, t) })
}

// SubmissionSteps are the words that name a confirm, recover or retry step, the
// final submission and its retry after a timeout: the calls an agent may
// send twice (confirm_action, recover_action, retryPayment).
var SubmissionSteps = []string{"confirm", "confirmation", "recover", "recovery", "retry"}

// SubmissionStep is the name by which a POST or PATCH operation of the
// document is a confirm, recover or retry step (its operationId, x-mcp-tool or
// last literal path segment), or "". The stateful family requires such a
// step to take an idempotency key, and the document readiness checks leave
// it to that rule, so that one missing key is reported once.
func SubmissionStep(op *spec.Operation) string {
	if op.Method != http.MethodPost && op.Method != http.MethodPatch {
		return ""
	}
	for _, name := range []string{op.OperationID, op.MCPTool, lastLiteralSegment(op.PathTemplate)} {
		if name != "" && NamesStep(name, SubmissionSteps...) {
			return name
		}
	}
	return ""
}

// lastLiteralSegment is the last segment of a path template that is not a
// parameter: "confirmation" of /checkouts/{id}/confirmation.
func lastLiteralSegment(template string) string {
	segs := strings.Split(strings.Trim(template, "/"), "/")
	for i := len(segs) - 1; i >= 0; i-- {
		if s := segs[i]; s != "" && !strings.Contains(s, "{") {
			return s
		}
	}
	return ""
}
