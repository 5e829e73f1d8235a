package stateful

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/internal/activeplan"
	"github.com/agentready/agentready/checks/internal/hypermedia"
	"github.com/agentready/agentready/checks/internal/purpose"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
)

// The three checks below judge the active probes of next_actions flows
// (checks/internal/activeplan), sent only with --active to operations the
// allow-list names: what the server does when an agent leaves the flow it
// was given. They read the recording only.

var (
	refProblem  = finding.SpecRef{Doc: "RFC 9457", Section: "3", Level: "SHOULD", URL: "https://www.rfc-editor.org/rfc/rfc9457#section-3"}
	refConflict = finding.SpecRef{Doc: "RFC 9110", Section: "15.5.10", Level: "advice", URL: "https://www.rfc-editor.org/rfc/rfc9110#section-15.5.10"}
)

const activeHow = "This active probe is sent only with `--active` and an `--active-allow` entry naming the operation, as the most privileged identity, to operations the OpenAPI document gives the entries' names (operationId, `x-mcp-tool`, `x-operation-uri`) on the node's own URL."

// OffListAccepted flags a call the node's next_actions did not list that
// the server carried out.
type OffListAccepted struct{}

func (OffListAccepted) Meta() checks.Meta {
	return checks.Meta{
		ID: idOffList, Family: checks.FamilyStateful, Severity: finding.SeverityError, Security: true,
		Since:    checks.FirstRelease,
		Needs:    checks.NeedsActiveOffList,
		Title:    "Calls not on a node's next_actions are refused",
		SpecRefs: []finding.SpecRef{ref("calls-off-the-list-are-rejected", "MUST"), refConflict, refProblem},
		Help: "`next_actions` is the list of what may be called now: \"any call not on the list is rejected by the server\". " +
			"The list is advice to the model, and a model that retries, acts on an old view or guesses from the tool catalog will call " +
			"a step the node did not offer (the confirmation before the order reaches it, a recovery of a payment that went through). " +
			"Only the server's own check keeps the flow in order.\n\n" +
			"The off-list probe takes an operation that one node of a kind lists and sends it to a node of the same kind that does not. " +
			activeHow + " A 2xx answer means the server carried out a call the flow did not allow. A refusal should be 409 (the call " +
			"conflicts with the node, RFC 9110 §15.5.10) or 422, with a problem body (RFC 9457) saying why; a refusal in another form is " +
			"recorded as an observation, not graded.\n\n" +
			"**How to fix:** compute what a node allows from the same flow definition that renders `next_actions`, and check it in the " +
			"handler before acting: answer 409 with problem+json naming the node.",
	}
}

func (c OffListAccepted) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	m := c.Meta()
	probes := activeplan.Answered(in.Recording, purpose.ActiveOffList)
	return activeplan.Judge(in, probes, "no operation named by --active-allow is listed on one next_actions node and left off another of its kind", func(x *exchange.Exchange) *finding.Finding {
		st, op := x.Response.Status, activeplan.Operation(x)
		switch activeplan.OutcomeOf(x, activeplan.RefusesOffList) {
		case activeplan.Executed:
			ev := []finding.Evidence{checks.Evidence(x, []string{"Content-Type"}, []string{"Content-Type", "Location"})}
			if node := activeplan.PlannedFrom(in.Recording, x); node != nil {
				ev = append(ev, hypermedia.Evidence(node, "/next_actions"))
			}
			msg := fmt.Sprintf("%s %s was answered %d although %s does not list it in its next_actions; expected 409 or 422 with problem+json, and nothing done",
				x.Request.Method, exchange.PathOf(x.Request.URL), st, exchange.PathOf(x.BasedOn))
			f := checks.New(m, op, msg, ev...)
			return &f
		case activeplan.OtherStatus:
			in.Observe(m.ID, fmt.Sprintf("%s, off the list, refused with %d, not 409 or 422: not graded", op, st))
		case activeplan.RefusedWithoutProblem:
			in.Observe(m.ID, fmt.Sprintf("%s, off the list, refused with %d as %q, not application/problem+json: not graded", op, st, x.Response.MediaType()))
		}
		return nil
	})
}

// PatchOutsideApplied flags a patch of a field outside allowed_patch that
// the server applied.
type PatchOutsideApplied struct{}

func (PatchOutsideApplied) Meta() checks.Meta {
	return checks.Meta{
		ID: idPatchOutside, Family: checks.FamilyStateful, Severity: finding.SeverityError, Security: true,
		Since:    checks.FirstRelease,
		Needs:    checks.NeedsActivePatch,
		Title:    "Patches of fields outside allowed_patch are refused",
		SpecRefs: []finding.SpecRef{ref("patches-outside-allowed-patch-are-rejected", "MUST"), refProblem},
		Help: "`allowed_patch` says what may be changed at this node; \"an invalid patch is rejected by deterministic code along with a " +
			"reason\". A server that applies whatever the patch holds lets a model change the address or the payment method of an order " +
			"at its confirmation node, after the user saw the summary.\n\n" +
			"The patch-outside probe sends the node's patch operation (a listed operation whose body has a `patch` object, or a PATCH) " +
			"setting one plain string field the patch schema declares and `allowed_patch` leaves out, to `" + activeplan.PatchSentinel +
			"`, then reads the node again. " + activeHow + " A 2xx answer whose re-read shows the value means the field was applied. " +
			"A 2xx answer whose re-read does not show it is recorded as an observation: the field was ignored, which is at least " +
			"not harmful, though the agent was given no reason.\n\n" +
			"**How to fix:** check each patched field against the node's `allowed_patch` before applying any, and refuse the patch " +
			"with 422 and problem+json naming the field.",
	}
}

func (c PatchOutsideApplied) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	m := c.Meta()
	// A patch that was not answered says nothing: the check judges the
	// sequences whose patch was.
	answered := slices.DeleteFunc(activeplan.Sequences(in.Recording, purpose.ActivePatchOutside, purpose.ActivePatchReread),
		func(s *activeplan.Sequence) bool { return s.Probes[0].Response == nil })
	return activeplan.Judge(in, answered, "no patch operation named by --active-allow is listed on a next_actions node whose allowed_patch leaves out a field its schema declares", func(s *activeplan.Sequence) *finding.Finding {
		x := s.Probes[0]
		st, op := x.Response.Status, activeplan.Operation(x)
		field := activeplan.PatchedField([]byte(x.Request.Body))
		if st < 200 || st >= 300 {
			if st < 400 || st >= 500 {
				in.Observe(m.ID, fmt.Sprintf("%s setting %s answered %d, neither accepted nor refused: not graded", op, field, st))
			}
			return nil
		}
		var reread *exchange.Exchange
		if len(s.Rereads) > 0 {
			reread = s.Rereads[0]
		}
		if !activeplan.Comparable(reread) {
			in.Observe(m.ID, fmt.Sprintf("%s setting %s answered %d, and the node could not be read again: not graded", op, field, st))
			return nil
		}
		if !activeplan.Contains(reread, activeplan.PatchSentinel) {
			in.Observe(m.ID, fmt.Sprintf("%s setting %s, outside allowed_patch, answered %d and the re-read does not show it: ignored rather than refused, not graded", op, field, st))
			return nil
		}
		ev := []finding.Evidence{checks.Evidence(x, []string{"Content-Type"}, []string{"Content-Type"}), checks.Evidence(reread, nil, []string{"Content-Type"})}
		if node := activeplan.PlannedFrom(in.Recording, x); node != nil {
			ev = append(ev, hypermedia.Evidence(node, "/allowed_patch"))
		}
		msg := fmt.Sprintf("%s %s set %s, which the allowed_patch of %s leaves out, and was answered %d; reading %s again shows %q: the field was applied, where the patch should have been refused with a reason",
			x.Request.Method, exchange.PathOf(x.Request.URL), field, exchange.PathOf(x.BasedOn), st, exchange.PathOf(reread.Request.URL), activeplan.PatchSentinel)
		f := checks.New(m, op, msg, ev...)
		return &f
	})
}

// ReplaySecondEffect flags a step sent twice with one idempotency key that
// changed the resource twice.
type ReplaySecondEffect struct{}

func (ReplaySecondEffect) Meta() checks.Meta {
	return checks.Meta{
		ID: idReplay, Family: checks.FamilyStateful, Severity: finding.SeverityError, Security: true,
		Since:    checks.FirstRelease,
		Needs:    checks.NeedsActiveReplay,
		Title:    "A step replayed with its idempotency key has no second effect",
		SpecRefs: []finding.SpecRef{ref("a-replayed-key-changes-nothing", "MUST"), refIdempotencyKey},
		Help: "The final submission carries an idempotency key, and recovery after a timeout retries \"with the original idempotency " +
			"key\": the key is what makes the retry safe. A server that takes the retried request for a new one charges twice.\n\n" +
			"The replay probe sends a listed step that takes an idempotency key (an `Idempotency-Key` header parameter or an " +
			"`idempotency_key` member) twice with the same key, and reads the node twice after the first send and once after the " +
			"second. " + activeHow + " When the first send succeeded, the two reads after it agree, and the read after the second " +
			"send differs from them (members named for a time or a request ID aside; a version counts), the replay had a second " +
			"effect. A node that changes between two reads with nothing sent, and a second answer that differs from the first " +
			"without a second effect, are recorded as observations.\n\n" +
			"**How to fix:** store each key with the outcome of its first request, and answer a request with a known key with that " +
			"outcome instead of running it again.",
	}
}

func (c ReplaySecondEffect) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	m := c.Meta()
	sent := activeplan.Sequences(in.Recording, purpose.ActiveReplay, purpose.ActiveReplayReread)
	return activeplan.Judge(in, sent, "no step named by --active-allow that takes an idempotency key is listed on a next_actions node", func(s *activeplan.Sequence) *finding.Finding {
		first := s.Probes[0]
		op := activeplan.Operation(first)
		if len(s.Probes) < 2 || len(s.Rereads) < 3 || first.Response == nil || s.Probes[1].Response == nil {
			in.Observe(m.ID, fmt.Sprintf("%s: the replay was not sent whole: not graded", op))
			return nil
		}
		second := s.Probes[1]
		if st := first.Response.Status; st < 200 || st >= 300 {
			in.Observe(m.ID, fmt.Sprintf("%s: the first send was answered %d, so there was nothing to replay: not graded", op, st))
			return nil
		}
		unstable, stableOK := activeplan.Changed(s.Rereads[0], s.Rereads[1])
		ptr, ok := activeplan.Changed(s.Rereads[1], s.Rereads[2])
		switch {
		case !ok || !stableOK:
			in.Observe(m.ID, fmt.Sprintf("%s: the node could not be read again after each send: not graded", op))
		case unstable != "":
			in.Observe(m.ID, fmt.Sprintf("%s: the node changed between two reads with nothing sent (at %s), so what the replay changed cannot be told: not graded", op, unstable))
		case ptr != "":
			ev := []finding.Evidence{
				checks.Evidence(second, []string{"Idempotency-Key", "Content-Type"}, []string{"Content-Type"}),
				hypermedia.Evidence(s.Rereads[1], ptr), hypermedia.Evidence(s.Rereads[2], ptr),
			}
			msg := fmt.Sprintf("%s %s sent again with the same idempotency key was answered %d, and %s changed again (at %s): the replay had a second effect, where it should have returned the first outcome",
				second.Request.Method, exchange.PathOf(second.Request.URL), second.Response.Status, exchange.PathOf(s.Rereads[2].Request.URL), ptr)
			f := checks.New(m, op, msg, ev...)
			return &f
		case first.Response.Status != second.Response.Status:
			in.Observe(m.ID, fmt.Sprintf("%s: the replay changed nothing, but was answered %d where the first send was answered %d: not graded", op, second.Response.Status, first.Response.Status))
		case !sameJSON(first.Response.Body, second.Response.Body):
			in.Observe(m.ID, fmt.Sprintf("%s: the replay changed nothing, but its body differs from the first answer's: not graded", op))
		}
		return nil
	})
}

func sameJSON(a, b []byte) bool {
	var va, vb any
	if json.Unmarshal(a, &va) != nil || json.Unmarshal(b, &vb) != nil {
		return bytes.Equal(a, b)
	}
	ra, _ := json.Marshal(va)
	rb, _ := json.Marshal(vb)
	return bytes.Equal(ra, rb)
}
