package surfacediff

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/agentready/agentready/internal/finding"
)

// compareTools reports tools removed or renamed, and the input schema and
// annotations of every tool both catalogs list; outputs says both snapshots
// record output schemas.
func compareTools(before, after map[string]finding.SnapshotTool, outputs bool) []Change {
	var out []Change
	renamed := toolRenames(before, after)
	for _, name := range removedKeys(before, after) {
		subject := "tool " + name
		if to, ok := renamed[name]; ok {
			out = append(out, change(KindRenamed, PartMCP, subject, name, []Diff{{
				Pointer: pointer(PartMCP, "tools"), Before: jsonText(name), After: jsonText(to), Breaking: true,
				Why: "renamed to " + to,
			}}, fmt.Sprintf("tool %s is now named %s (same input schema); agents calling %s get an unknown-tool error", name, to, name)))
			out = append(out, compareTool(name, before[name], after[to], outputs)...)
			continue
		}
		out = append(out, change(KindRemoved, PartMCP, subject, name, []Diff{{
			Pointer: pointer(PartMCP, "tools", name), Before: jsonText(before[name]), Breaking: true, Why: "removed",
		}}, "tool "+name+" is no longer listed"))
	}
	for _, name := range slices.Sorted(maps.Keys(before)) {
		if a, ok := after[name]; ok {
			out = append(out, compareTool(name, before[name], a, outputs)...)
		}
	}
	return out
}

// toolRenames pairs each tool that disappeared with the one new tool whose
// input schema and annotations are the same, when exactly one matches each
// way: tools without arguments all look alike, and a guess is not a rename.
func toolRenames(before, after map[string]finding.SnapshotTool) map[string]string {
	gone, added := removedKeys(before, after), removedKeys(after, before)
	same := func(b, a finding.SnapshotTool) bool {
		return len(b.InputSchema) > 0 && sameJSON(b.InputSchema, a.InputSchema) && jsonText(b.Annotations) == jsonText(a.Annotations)
	}
	matches := func(t finding.SnapshotTool, names []string, in map[string]finding.SnapshotTool) []string {
		var out []string
		for _, n := range names {
			if same(t, in[n]) {
				out = append(out, n)
			}
		}
		return out
	}
	out := map[string]string{}
	for _, g := range gone {
		if m := matches(before[g], added, after); len(m) == 1 && len(matches(after[m[0]], gone, before)) == 1 {
			out[g] = m[0]
		}
	}
	return out
}

// compareTool compares one tool's input schema and annotations; name is
// the tool's name in the earlier catalog, which pointers use.
func compareTool(name string, b, a finding.SnapshotTool, outputs bool) []Change {
	var out []Change
	subject := "tool " + name
	if diffs := compareSchema(pointer(PartMCP, "tools", name, "inputSchema"), decode(b.InputSchema), decode(a.InputSchema)); len(diffs) > 0 {
		out = append(out, change(KindInputSchema, PartMCP, subject, name, diffs, summarize("input schema of tool "+name, diffs)))
	}
	if diffs := compareAnnotations(pointer(PartMCP, "tools", name, "annotations"), b.Annotations, a.Annotations); len(diffs) > 0 {
		out = append(out, change(KindAnnotations, PartMCP, subject, name, diffs, summarize("annotations of tool "+name, diffs)))
	}
	if outputs {
		if diffs := compareOutput(pointer(PartMCP, "tools", name, "outputSchema"), b.OutputSchema, a.OutputSchema); len(diffs) > 0 {
			out = append(out, change(KindOutputSchema, PartMCP, subject, name, diffs, summarize("output schema of tool "+name, diffs)))
		}
	}
	return out
}

// compareOutput compares two declared output schemas, either absent. One
// dropped is breaking: the structured content clients parse is no longer
// promised (MCP: a server MUST conform to the outputSchema it declares).
// One declared where there was none is compatible.
func compareOutput(ptr string, b, a json.RawMessage) []Diff {
	switch {
	case len(b) == 0 && len(a) == 0:
		return nil
	case len(a) == 0:
		return []Diff{{Pointer: ptr, Before: jsonText(decode(b)), Breaking: true, Why: "schema no longer declared"}}
	case len(b) == 0:
		return []Diff{{Pointer: ptr, After: jsonText(decode(a)), Why: "schema declared"}}
	}
	return compareOutputSchema(ptr, decode(b), decode(a))
}

// comparePrompts reports prompts removed, and changes to the arguments and
// text of those both list. A client passes a prompt's arguments: one
// removed, newly required or made required is breaking, as for a tool's
// inputs; a rewritten description or title is compatible and listed, since
// the prompt's text is what reaches the model.
func comparePrompts(before, after map[string]finding.SnapshotPrompt) []Change {
	var out []Change
	for _, name := range slices.Sorted(maps.Keys(before)) {
		b := before[name]
		subject := "prompt " + name
		ptr := pointer(PartMCP, "prompts", name)
		a, ok := after[name]
		if !ok {
			out = append(out, change(KindPrompts, PartMCP, subject, name, []Diff{{
				Pointer: ptr, Before: jsonText(b), Breaking: true, Why: "removed",
			}}, "prompt "+name+" is no longer listed"))
			continue
		}
		var diffs []Diff
		for _, arg := range slices.Sorted(maps.Keys(union(boolsAsAny(b.Arguments), boolsAsAny(a.Arguments)))) {
			req, inB := b.Arguments[arg]
			now, inA := a.Arguments[arg]
			d := Diff{Pointer: pointer(PartMCP, "prompts", name, "arguments", arg), Before: present(req, inB), After: present(now, inA)}
			switch {
			case inB && !inA:
				d.Breaking, d.Why = true, "argument "+arg+" removed"
			case !inB && now:
				d.Breaking, d.Why = true, "new required argument "+arg
			case !inB:
				d.Why = "optional argument " + arg + " added"
			case now && !req:
				d.Breaking, d.Why = true, "argument "+arg+" now required"
			case req && !now:
				d.Why = "argument " + arg + " no longer required"
			default:
				continue
			}
			diffs = append(diffs, d)
		}
		if len(diffs) == 0 && b.Fingerprint != a.Fingerprint {
			diffs = append(diffs, Diff{Pointer: ptr + "/fingerprint", Before: jsonText(b.Fingerprint), After: jsonText(a.Fingerprint),
				Why: "description or title rewritten"})
		}
		if len(diffs) > 0 {
			out = append(out, change(KindPrompts, PartMCP, subject, name, diffs, summarize("prompt "+name, diffs)))
		}
	}
	return out
}

func boolsAsAny(m map[string]bool) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// compareResources reports resources and templates removed, and those whose
// media type changed (a client parses the contents by it), both breaking;
// any other change to an entry (its name, title, description) is
// compatible.
func compareResources(before, after map[string]finding.SnapshotResource) []Change {
	var out []Change
	for _, id := range slices.Sorted(maps.Keys(before)) {
		b := before[id]
		subject := "resource " + id
		if b.Template {
			subject = "resource template " + id
		}
		ptr := pointer(PartMCP, "resources", id)
		a, ok := after[id]
		var d Diff
		switch {
		case !ok:
			d = Diff{Pointer: ptr, Before: jsonText(b), Breaking: true, Why: "removed"}
		case a.MimeType != b.MimeType:
			d = Diff{Pointer: ptr + "/mimeType", Before: nonEmptyJSON(b.MimeType), After: nonEmptyJSON(a.MimeType), Breaking: true,
				Why: "mimeType " + describeHint(nonEmptyJSON(b.MimeType), nonEmptyJSON(a.MimeType))}
		case a.Fingerprint != b.Fingerprint:
			d = Diff{Pointer: ptr + "/fingerprint", Before: jsonText(b.Fingerprint), After: jsonText(a.Fingerprint), Why: "name or description changed"}
		default:
			continue
		}
		summary := summarize(subject, []Diff{d})
		if !ok {
			summary = subject + " is no longer listed"
		}
		out = append(out, change(KindResources, PartMCP, subject, id, []Diff{d}, summary))
	}
	return out
}

// compareAnnotations reports every hint that changed. Turning read-only off
// or destructive on (including by dropping a hint whose default is the
// riskier reading) is breaking: an agent or host that let the tool run
// without asking would no longer be told the truth.
func compareAnnotations(ptr string, b, a *finding.ToolAnnotations) []Diff {
	var out []Diff
	hint := func(x *finding.ToolAnnotations, get func(*finding.ToolAnnotations) *bool) string {
		if x == nil || get(x) == nil {
			return ""
		}
		return jsonText(*get(x))
	}
	for _, h := range []struct {
		name string
		get  func(*finding.ToolAnnotations) *bool
	}{
		{"readOnlyHint", func(x *finding.ToolAnnotations) *bool { return x.ReadOnlyHint }},
		{"destructiveHint", func(x *finding.ToolAnnotations) *bool { return x.DestructiveHint }},
		{"idempotentHint", func(x *finding.ToolAnnotations) *bool { return x.IdempotentHint }},
		{"openWorldHint", func(x *finding.ToolAnnotations) *bool { return x.OpenWorldHint }},
	} {
		before, after := hint(b, h.get), hint(a, h.get)
		if before == after {
			continue
		}
		d := Diff{Pointer: ptr + "/" + h.name, Before: before, After: after, Why: h.name + " " + describeHint(before, after)}
		switch h.name {
		case "readOnlyHint":
			d.Breaking = b.ReadOnly() && !a.ReadOnly()
		case "destructiveHint":
			d.Breaking = !b.Destructive() && a.Destructive()
		}
		out = append(out, d)
	}
	if title := func(x *finding.ToolAnnotations) string {
		if x == nil {
			return ""
		}
		return x.Title
	}; title(b) != title(a) {
		out = append(out, Diff{Pointer: ptr + "/title", Before: nonEmptyJSON(title(b)), After: nonEmptyJSON(title(a)), Why: "title changed"})
	}
	return out
}

func describeHint(before, after string) string {
	switch {
	case before == "":
		return "set to " + after
	case after == "":
		return "dropped (was " + before + ")"
	}
	return "changed from " + before + " to " + after
}

func nonEmptyJSON(s string) string {
	if s == "" {
		return ""
	}
	return jsonText(s)
}
