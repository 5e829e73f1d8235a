package surfacediff

import (
	"fmt"
	"maps"
	"slices"

	"github.com/agentready/agentready/internal/finding"
)

// compareTools reports tools removed or renamed, and the input schema and
// annotations of every tool both catalogs list.
func compareTools(before, after map[string]finding.SnapshotTool) []Change {
	var out []Change
	renamed := toolRenames(before, after)
	for _, name := range removedKeys(before, after) {
		subject := "tool " + name
		if to, ok := renamed[name]; ok {
			out = append(out, change(KindRenamed, PartMCP, subject, name, []Diff{{
				Pointer: pointer(PartMCP, "tools"), Before: jsonText(name), After: jsonText(to), Breaking: true,
				Why: "renamed to " + to,
			}}, fmt.Sprintf("tool %s is now named %s (same input schema); agents calling %s get an unknown-tool error", name, to, name)))
			out = append(out, compareTool(name, before[name], after[to])...)
			continue
		}
		out = append(out, change(KindRemoved, PartMCP, subject, name, []Diff{{
			Pointer: pointer(PartMCP, "tools", name), Before: jsonText(before[name]), Breaking: true, Why: "removed",
		}}, "tool "+name+" is no longer listed"))
	}
	for _, name := range slices.Sorted(maps.Keys(before)) {
		if a, ok := after[name]; ok {
			out = append(out, compareTool(name, before[name], a)...)
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
func compareTool(name string, b, a finding.SnapshotTool) []Change {
	var out []Change
	subject := "tool " + name
	if diffs := compareSchema(pointer(PartMCP, "tools", name, "inputSchema"), decode(b.InputSchema), decode(a.InputSchema)); len(diffs) > 0 {
		out = append(out, change(KindInputSchema, PartMCP, subject, name, diffs, summarize("input schema of tool "+name, diffs)))
	}
	if diffs := compareAnnotations(pointer(PartMCP, "tools", name, "annotations"), b.Annotations, a.Annotations); len(diffs) > 0 {
		out = append(out, change(KindAnnotations, PartMCP, subject, name, diffs, summarize("annotations of tool "+name, diffs)))
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
