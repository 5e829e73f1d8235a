package activeplan

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strings"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/internal/purpose"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/spec"
)

// PatchSentinel is the value a patch-outside probe sets: a string no
// server holds, so that a re-read that shows it shows the patch applied.
const PatchSentinel = "agentready-patch-outside"

// flowPlanner plans the three kinds that hold a next_actions flow to what
// it says (seed 003: "any call not on the list is rejected by the server",
// "an invalid patch is rejected", a retry "with the original idempotency
// key" does not submit twice), as the most privileged identity, on the
// nodes of its crawl. Each node is acted on by one probe at most, so that
// no probe's effect changes what another finds; no target another kind
// takes is used.
type flowPlanner struct {
	top     checks.IdentityView
	nodes   []Node
	allowed func(method, target string, op *spec.Operation) bool
	taken   map[string]bool // targets and nodes already probed
}

func (f *flowPlanner) free(n Node, target string) bool {
	return !f.taken[n.X.Request.URL] && !f.taken[target]
}

func (f *flowPlanner) take(n Node, target string) {
	f.taken[n.X.Request.URL], f.taken[target] = true, true
}

// candidate reports a state-changing op the allow-list names at target.
func (f *flowPlanner) candidate(op *spec.Operation, target string) bool {
	return !safe(op.Method) && !strings.Contains(target, exchange.Redacted) && f.allowed(op.Method, target, op)
}

// patchOutside plans, per kind of node and patch operation, on the first
// node whose allowed_patch leaves out a plain string field the patch
// schema declares, the step that sets that field to PatchSentinel, then a
// re-read of the node.
func (f *flowPlanner) patchOutside() []exchange.ActiveRequest {
	var out []exchange.ActiveRequest
	seen := map[string]bool{}
	probes := 0
	for _, n := range f.nodes {
		if len(n.AllowedPatch) == 0 {
			continue
		}
		for _, op := range n.Listed {
			key := n.Kind + " " + op.Method + " " + op.PathTemplate
			target, ok := n.Target(op)
			if seen[key] || probes >= MaxPerKind || !ok || !f.free(n, target) || !f.candidate(op, target) {
				continue
			}
			field, nested := outsideField(op, n.AllowedPatch)
			if field == "" {
				continue
			}
			seen[key] = true
			probes++
			f.take(n, target)
			set := map[string]any{field: PatchSentinel}
			if nested {
				set = map[string]any{"patch": set}
			}
			req := n.Step(op, target, purpose.ActivePatchOutside, f.top.Name, set)
			req.Why = fmt.Sprintf("%s on %s sets %s, which its allowed_patch (%s) leaves out: must be refused with a reason, and a re-read must not show it",
				req.Operation, exchange.PathOf(n.X.Request.URL), field, strings.Join(n.AllowedPatch, ", "))
			reread := n.Reread(purpose.ActivePatchReread, f.top.Name, target, 0)
			reread.Why = fmt.Sprintf("re-read %s after the patch of %s: shows whether it was applied", exchange.PathOf(n.X.Request.URL), field)
			out = append(out, req, reread)
		}
	}
	return out
}

// outsideField is the first property, in name order, of op's patch object
// (its "patch" member, or for a PATCH its body itself) that is a plain
// string and that no allowed_patch entry names, nor one inside it
// (items[].quantity names items). nested says the field goes under
// "patch".
func outsideField(op *spec.Operation, allowed []string) (field string, nested bool) {
	body := JSONBody(op)
	schema, _ := Properties(body)["patch"].(map[string]any)
	nested = Properties(schema) != nil
	if !nested {
		if op.Method != http.MethodPatch {
			return "", false
		}
		schema = body
	}
	props := Properties(schema)
	names := make([]string, 0, len(props))
	for name := range props {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		prop, _ := props[name].(map[string]any)
		if prop["type"] != "string" || prop["enum"] != nil || prop["const"] != nil || prop["format"] != nil || prop["pattern"] != nil || prop["readOnly"] == true {
			continue
		}
		if !namedBy(name, allowed) {
			return name, nested
		}
	}
	return "", false
}

// PatchedField is the field a patch-outside probe's body set to
// PatchSentinel, at its top level or under "patch"; "" when none.
func PatchedField(body []byte) string {
	var m map[string]any
	if json.Unmarshal(body, &m) != nil {
		return ""
	}
	if inner, ok := m["patch"].(map[string]any); ok {
		m = inner
	}
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		if m[k] == PatchSentinel {
			return k
		}
	}
	return ""
}

// namedBy reports a field that an allowed_patch entry names, or that sits
// inside or above one: "items" and "items[].quantity" name the same data.
func namedBy(field string, allowed []string) bool {
	for _, a := range allowed {
		if a == field || strings.HasPrefix(a, field+".") || strings.HasPrefix(a, field+"[") ||
			strings.HasPrefix(field, a+".") || strings.HasPrefix(field, a+"[") {
			return true
		}
	}
	return false
}

// replay plans, per kind of node and listed operation that takes an
// idempotency key, on the first node that lists it, the step sent twice
// with the same key, the node read twice after the first send and once
// after the second.
func (f *flowPlanner) replay() []exchange.ActiveRequest {
	var out []exchange.ActiveRequest
	seen := map[string]bool{}
	probes := 0
	for _, n := range f.nodes {
		for _, op := range n.Listed {
			key := n.Kind + " " + op.Method + " " + op.PathTemplate
			target, ok := n.Target(op)
			if seen[key] || probes >= MaxPerKind || !ok || !f.free(n, target) || !f.candidate(op, target) {
				continue
			}
			if header, member := KeyCarriers(op); !header && member == "" {
				continue
			}
			seen[key] = true
			probes++
			f.take(n, target)
			// After the first send the node is read twice: a node that
			// changes between two reads (a view counter) cannot show what
			// the second send changed, and is not judged.
			rereads := 0
			for i := range 2 {
				req := n.Step(op, target, purpose.ActiveReplay, f.top.Name, nil)
				req.Repeat = i
				req.Why = fmt.Sprintf("%s on %s, listed in its next_actions, sent twice with one idempotency key: the second must answer as the first and change nothing",
					req.Operation, exchange.PathOf(n.X.Request.URL))
				out = append(out, req)
				for range 2 - i {
					reread := n.Reread(purpose.ActiveReplayReread, f.top.Name, target, rereads)
					reread.Why = fmt.Sprintf("re-read %s after sending %s: shows what each send changed", exchange.PathOf(n.X.Request.URL), req.Operation)
					out = append(out, reread)
					rereads++
				}
			}
		}
	}
	return out
}

// offList plans, per kind of node and operation that some node of the kind
// lists, on the first node that does not list it, the request behind it.
func (f *flowPlanner) offList() []exchange.ActiveRequest {
	var out []exchange.ActiveRequest
	var kinds []string
	flow := map[string][]*spec.Operation{}
	for _, n := range f.nodes {
		if _, ok := flow[n.Kind]; !ok {
			kinds = append(kinds, n.Kind)
		}
		for _, op := range n.Listed {
			if !slices.Contains(flow[n.Kind], op) {
				flow[n.Kind] = append(flow[n.Kind], op)
			}
		}
	}
	for _, kind := range kinds {
		ops := flow[kind]
		sort.SliceStable(ops, func(i, j int) bool {
			return ops[i].PathTemplate+" "+ops[i].Method < ops[j].PathTemplate+" "+ops[j].Method
		})
		for _, op := range ops {
			for _, n := range f.nodes {
				if len(out) >= MaxPerKind {
					return out
				}
				target, ok := n.Target(op)
				if n.Kind != kind || n.Lists(op) || !ok || !f.free(n, target) || !f.candidate(op, target) {
					continue
				}
				f.take(n, target)
				req := n.Step(op, target, purpose.ActiveOffList, f.top.Name, nil)
				state := ""
				if n.State != "" {
					state = fmt.Sprintf(" (%s)", n.State)
				}
				req.Why = fmt.Sprintf("%s, which %s%s does not list in its next_actions: must be refused with 409 or 422 and problem+json",
					req.Operation, exchange.PathOf(n.X.Request.URL), state)
				out = append(out, req)
				break
			}
		}
	}
	return out
}

// RefusesOffList reports the refusals an off-list call should get: the
// resource is not in a state for it (409), or the request cannot be
// processed at this node (422).
func RefusesOffList(status int) bool {
	return status == http.StatusConflict || status == http.StatusUnprocessableEntity
}
