// Package surfacediff compares two surface snapshots (finding.Snapshot): the
// tools, operations, relations and skills an agent was built against, and
// what a later scan saw. It is pure. The drift family turns its changes into
// findings; `agentready report diff` prints them.
//
// A change is breaking when an agent built against the earlier surface can
// fail against the later one: a tool or operation removed or renamed, an
// input that is no longer accepted (a property removed, a new required one,
// a type narrowed, an enum shrunk), a tool that stopped saying it is
// read-only or started saying it is destructive, a relation or skill that is
// gone. On the output side, it is breaking when a client reads less than it
// was promised: a response property removed or no longer required, a type
// changed, an enum narrowed, a declared response or error (problem) status
// gone, a tool's outputSchema changed so, a prompt or resource removed or
// changed in what a client passes or reads. Every other change is
// compatible. Additions of whole items are not changes: they break nothing
// an agent relies on. What one snapshot does not record (an older release
// wrote it, a listing was not answered) is unknown and not compared.
package surfacediff

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/jsonorder"
)

// Kind is what sort of change it is; each kind is one check of the drift
// family (drift-<kind>).
type Kind string

const (
	KindRemoved     Kind = "removed"
	KindRenamed     Kind = "renamed"
	KindInputSchema Kind = "input-schema"
	KindAnnotations Kind = "annotations"
	KindRelations   Kind = "relations"
	KindSkills      Kind = "skills"
	// The output side: what clients and agents read.
	KindResponseSchema Kind = "response-schema"
	KindProblemTypes   Kind = "problem-types"
	KindOutputSchema   Kind = "output-schema"
	KindPrompts        Kind = "prompts"
	KindResources      Kind = "resources"
)

// Parts of a snapshot, as named in pointers and changes.
const (
	PartMCP        = "mcp"
	PartOpenAPI    = "openapi"
	PartHypermedia = "hypermedia"
	PartAgentCard  = "agentCard"
)

// Change is one change to one item of the surface.
type Change struct {
	Kind Kind
	// Part is where the item lives (PartMCP, ...).
	Part string
	// Subject names the item as it was: "tool getOrder", "operation GET
	// /orders/{id}", "relation cancel of /orders/{id}", "skill search".
	Subject string
	// Name is the item's key in its part of the earlier snapshot.
	Name     string
	Breaking bool
	// Summary says in words what changed.
	Summary string
	Diffs   []Diff
}

// Diff is one changed value, named by a JSON pointer into the snapshot
// (RFC 6901), with its JSON before and after; "" is absent.
type Diff struct {
	Pointer       string
	Before, After string
	Breaking      bool
	// Why says what the change is, e.g. "property note removed".
	Why string
}

// Compare lists the changes from before to after, sorted by kind, then
// subject. A part either snapshot lacks is not compared.
func Compare(before, after *finding.Snapshot) []Change {
	if before == nil || after == nil {
		return nil
	}
	var out []Change
	if before.MCP != nil && after.MCP != nil {
		outputs := before.MCP.OutputSchemas && after.MCP.OutputSchemas
		out = append(out, compareTools(before.MCP.Tools, after.MCP.Tools, outputs)...)
		if before.MCP.Prompts != nil && after.MCP.Prompts != nil {
			out = append(out, comparePrompts(before.MCP.Prompts, after.MCP.Prompts)...)
		}
		if before.MCP.Resources != nil && after.MCP.Resources != nil {
			out = append(out, compareResources(before.MCP.Resources, after.MCP.Resources)...)
		}
	}
	if before.OpenAPI != nil && after.OpenAPI != nil {
		out = append(out, compareOperations(before.OpenAPI.Operations, after.OpenAPI.Operations)...)
	}
	if before.Hypermedia != nil && after.Hypermedia != nil {
		out = append(out, compareOffered(before.Hypermedia, after.Hypermedia)...)
	}
	if before.AgentCard != nil && after.AgentCard != nil {
		out = append(out, compareSkills(before.AgentCard.Skills, after.AgentCard.Skills)...)
	}
	slices.SortStableFunc(out, func(a, b Change) int {
		return cmp.Or(cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Subject, b.Subject))
	})
	return out
}

// Breaking reports whether any change is breaking.
func Breaking(cs []Change) bool {
	return slices.ContainsFunc(cs, func(c Change) bool { return c.Breaking })
}

func pointer(tokens ...string) string { return jsonorder.Pointer(tokens) }

// jsonText is v as compact JSON with sorted keys.
func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	return string(b)
}

// decode reads canonical or indented JSON into plain values, numbers kept
// as written; nil when raw is empty or not JSON.
func decode(raw json.RawMessage) any {
	if len(raw) == 0 {
		return nil
	}
	var v any
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.UseNumber()
	if dec.Decode(&v) != nil {
		return nil
	}
	return v
}

// sameJSON compares two JSON texts as values, whatever their layout.
func sameJSON(a, b json.RawMessage) bool { return jsonText(decode(a)) == jsonText(decode(b)) }

// removedKeys are the keys of before that after lacks, sorted.
func removedKeys[V any](before, after map[string]V) []string {
	var out []string
	for _, k := range slices.Sorted(maps.Keys(before)) {
		if _, ok := after[k]; !ok {
			out = append(out, k)
		}
	}
	return out
}

func change(kind Kind, part, subject, name string, diffs []Diff, summary string) Change {
	c := Change{Kind: kind, Part: part, Subject: subject, Name: name, Summary: summary, Diffs: diffs}
	c.Breaking = slices.ContainsFunc(diffs, func(d Diff) bool { return d.Breaking })
	return c
}

// summarize says what the diffs are, breaking ones first.
func summarize(what string, diffs []Diff) string {
	var whys []string
	for _, breaking := range []bool{true, false} {
		for _, d := range diffs {
			if d.Breaking == breaking && !slices.Contains(whys, d.Why) {
				whys = append(whys, d.Why)
			}
		}
	}
	const shown = 4
	if len(whys) > shown {
		whys = append(whys[:shown], fmt.Sprintf("%d more", len(whys)-shown))
	}
	return what + ": " + strings.Join(whys, "; ")
}
