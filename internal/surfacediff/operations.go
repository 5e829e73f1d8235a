package surfacediff

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/spec"
)

// compareOperations reports operations removed or renamed, and the input
// schema and x-hal-rel of every operation both documents declare. An
// operation keeps its identity through a rename of one of its two names:
// the same METHOD /path under a new operationId, or the same operationId
// under a new path.
func compareOperations(before, after map[string]finding.SnapshotOperation) []Change {
	var out []Change
	moved := movedOperations(before, after)
	for _, key := range slices.Sorted(maps.Keys(before)) {
		b := before[key]
		subject := "operation " + key
		if a, ok := after[key]; ok {
			if b.OperationID != "" && a.OperationID != b.OperationID {
				out = append(out, change(KindRenamed, PartOpenAPI, subject, key, []Diff{{
					Pointer: pointer(PartOpenAPI, "operations", key, "operationId"), Before: jsonText(b.OperationID), After: nonEmptyJSON(a.OperationID),
					Breaking: true, Why: "operationId renamed",
				}}, fmt.Sprintf("operation %s: operationId %s is now %s; clients and agents that call it by name break", key, b.OperationID, orNone(a.OperationID))))
			}
			out = append(out, compareOperation(key, b, a)...)
			continue
		}
		if to, ok := moved[key]; ok {
			out = append(out, change(KindRenamed, PartOpenAPI, subject, key, []Diff{{
				Pointer: pointer(PartOpenAPI, "operations"), Before: jsonText(key), After: jsonText(to), Breaking: true, Why: "moved to " + to,
			}}, fmt.Sprintf("operation %s (%s) is now %s", key, b.OperationID, to)))
			out = append(out, compareOperation(key, b, after[to])...)
			continue
		}
		name := key
		if b.OperationID != "" {
			name += " (" + b.OperationID + ")"
		}
		out = append(out, change(KindRemoved, PartOpenAPI, subject, key, []Diff{{
			Pointer: pointer(PartOpenAPI, "operations", key), Before: jsonText(b), Breaking: true, Why: "removed",
		}}, "operation "+name+" is no longer declared"))
	}
	return out
}

func orNone(s string) string {
	if s == "" {
		return "absent"
	}
	return s
}

// movedOperations pairs an operation no longer declared with the new one
// that has its operationId and method.
func movedOperations(before, after map[string]finding.SnapshotOperation) map[string]string {
	added := removedKeys(after, before)
	out := map[string]string{}
	for _, key := range removedKeys(before, after) {
		b := before[key]
		if b.OperationID == "" {
			continue
		}
		for _, a := range added {
			if after[a].OperationID == b.OperationID && method(a) == method(key) {
				out[key] = a
			}
		}
	}
	return out
}

func method(key string) string { m, _, _ := strings.Cut(key, " "); return m }

func compareOperation(key string, b, a finding.SnapshotOperation) []Change {
	var out []Change
	subject := "operation " + key
	if diffs := compareSchema(pointer(PartOpenAPI, "operations", key, "inputSchema"), decode(b.InputSchema), decode(a.InputSchema)); len(diffs) > 0 {
		out = append(out, change(KindInputSchema, PartOpenAPI, subject, key, diffs, summarize("inputs of operation "+key, diffs)))
	}
	if b.Responses != nil && a.Responses != nil {
		out = append(out, compareResponses(key, b.Responses, a.Responses)...)
	}
	if gone := missing(b.HALRels, a.HALRels); len(gone) > 0 {
		out = append(out, change(KindRelations, PartOpenAPI, subject, key, []Diff{{
			Pointer: pointer(PartOpenAPI, "operations", key, "halRels"), Before: jsonText(b.HALRels), After: jsonText(nonNil(a.HALRels)),
			Breaking: true, Why: "x-hal-rel lost " + strings.Join(gone, ", "),
		}}, fmt.Sprintf("operation %s: x-hal-rel no longer names %s; an agent that follows the relation no longer finds the operation", key, strings.Join(gone, ", "))))
	}
	return out
}

// missing lists the values of before that after lacks, in order.
func missing(before, after []string) []string {
	var out []string
	for _, v := range before {
		if !slices.Contains(after, v) && !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// compareOffered reports relations that every resource of a path shape
// offered and none offers now. Relations that depended on a resource's
// state in the baseline are not judged, nor is a path shape the later scan
// did not reach: not seeing a resource is not seeing it lose a link.
func compareOffered(before, after *finding.SnapshotHypermedia) []Change {
	var out []Change
	for _, shape := range slices.Sorted(maps.Keys(before.Always)) {
		now, ok := after.Offered[shape]
		if !ok {
			continue
		}
		for _, rel := range missing(before.Always[shape], now) {
			out = append(out, change(KindRelations, PartHypermedia, "relation "+rel+" of "+shape, shape, []Diff{{
				Pointer: pointer(PartHypermedia, "offered", shape), Before: jsonText(before.Offered[shape]), After: jsonText(now),
				Breaking: true, Why: "relation " + rel + " no longer offered",
			}}, fmt.Sprintf("resources %s no longer offer the relation %s, which every one of them offered in the baseline", shape, rel)))
		}
	}
	return out
}

// compareSkills reports the agent card's skills that are gone.
func compareSkills(before, after map[string]finding.SnapshotSkill) []Change {
	var out []Change
	for _, id := range removedKeys(before, after) {
		out = append(out, change(KindSkills, PartAgentCard, "skill "+id, id, []Diff{{
			Pointer: pointer(PartAgentCard, "skills", id), Before: jsonText(before[id]), Breaking: true, Why: "removed",
		}}, "the agent card no longer lists the skill "+id))
	}
	return out
}

// compareResponses compares the responses an operation declares, as
// clients read them: the success and redirect responses give one change
// (drift-response-schema), the error responses another
// (drift-problem-types). A status no longer declared, a media type dropped
// and a schema changed as compareOutputSchema says are breaking; a status
// or media type added is compatible.
func compareResponses(key string, before, after map[string]finding.SnapshotResponse) []Change {
	var success, problems []Diff
	for _, status := range slices.Sorted(maps.Keys(unionResponses(before, after))) {
		b, inB := before[status]
		a, inA := after[status]
		ptr := pointer(PartOpenAPI, "operations", key, "responses", status)
		var diffs []Diff
		switch {
		case inB && !inA:
			why := "response " + status + " no longer declared"
			if spec.IsErrorStatus(status) {
				why = "error response " + status + " no longer declared" + coveredBy(status, after)
			}
			diffs = append(diffs, Diff{Pointer: ptr, Before: jsonText(b), Breaking: true, Why: why})
		case !inB:
			diffs = append(diffs, Diff{Pointer: ptr, After: jsonText(a), Why: "response " + status + " declared"})
		default:
			for _, mt := range missing(b.MediaTypes, a.MediaTypes) {
				diffs = append(diffs, Diff{Pointer: ptr + "/mediaTypes", Before: jsonText(b.MediaTypes), After: jsonText(nonNil(a.MediaTypes)),
					Breaking: true, Why: mt + " no longer declared for " + status})
			}
			for _, mt := range missing(a.MediaTypes, b.MediaTypes) {
				diffs = append(diffs, Diff{Pointer: ptr + "/mediaTypes", Before: jsonText(nonNil(b.MediaTypes)), After: jsonText(a.MediaTypes),
					Why: mt + " declared for " + status})
			}
			for _, d := range compareOutput(ptr+"/schema", b.Schema, a.Schema) {
				d.Why = status + ": " + d.Why
				diffs = append(diffs, d)
			}
			diffs = append(diffs, compareProblemTypes(ptr+"/problemTypes", status, b.ProblemTypes, a.ProblemTypes)...)
		}
		if spec.IsErrorStatus(status) {
			problems = append(problems, diffs...)
		} else {
			success = append(success, diffs...)
		}
	}
	var out []Change
	subject := "operation " + key
	if len(success) > 0 {
		out = append(out, change(KindResponseSchema, PartOpenAPI, subject, key, success, summarize("responses of operation "+key, success)))
	}
	if len(problems) > 0 {
		out = append(out, change(KindProblemTypes, PartOpenAPI, subject, key, problems, summarize("error responses of operation "+key, problems)))
	}
	return out
}

// compareProblemTypes compares the problem types an error response pins,
// each by its URI: one no longer declared is breaking (an agent that
// branches on it never sees it again), one added is compatible.
func compareProblemTypes(ptr, status string, before, after []string) []Diff {
	var out []Diff
	for _, uri := range missing(before, after) {
		out = append(out, Diff{Pointer: ptr, Before: jsonText(before), After: jsonText(nonNil(after)), Breaking: true,
			Why: "problem type " + uri + " no longer declared for " + status})
	}
	for _, uri := range missing(after, before) {
		out = append(out, Diff{Pointer: ptr, Before: jsonText(nonNil(before)), After: jsonText(after),
			Why: "problem type " + uri + " declared for " + status})
	}
	return out
}

func unionResponses(a, b map[string]finding.SnapshotResponse) map[string]finding.SnapshotResponse {
	out := maps.Clone(a)
	maps.Copy(out, b)
	return out
}

// coveredBy says which range or default still covers a status no longer
// declared on its own: the client still gets a documented error, but no
// longer the problem it was told to expect for this status.
func coveredBy(status string, after map[string]finding.SnapshotResponse) string {
	if r := status[:1] + "XX"; len(status) == 3 && status != "default" {
		if _, ok := after[r]; ok {
			return " (only " + r + " now)"
		}
	}
	if _, ok := after["default"]; ok && status != "default" {
		return " (only default now)"
	}
	return ""
}
