package checks

import (
	"net/url"

	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/spec"
)

// Documents are the documents a check reads when it reads nothing else: a
// check that declares them (Meta.Documents) judges them alone, without any
// exchange, so `agentready lint` runs it over files, and a scan runs it over
// what it fetched. Zero is a check that needs a live scan.
type Documents uint8

const (
	// DocOpenAPI: the OpenAPI document (Input.Spec).
	DocOpenAPI Documents = 1 << iota
	// DocMCPTools: the MCP tool catalog, as tools/list returns it
	// (Input.MCP, its first listing); lint reads it from a file.
	DocMCPTools

	knownDocuments = DocOpenAPI | DocMCPTools
)

// Has reports whether d holds every document of want.
func (d Documents) Has(want Documents) bool { return d&want == want }

// Names lists the documents, for `agentready checks`.
func (d Documents) Names() []string {
	var out []string
	if d.Has(DocOpenAPI) {
		out = append(out, "openapi")
	}
	if d.Has(DocMCPTools) {
		out = append(out, "mcp-tools")
	}
	return out
}

// validDocuments says what is wrong with a check's documents, or "".
func validDocuments(d Documents) string {
	if d&^knownDocuments != 0 {
		return "unknown documents"
	}
	return ""
}

// IsStatic reports whether c judges documents alone.
func IsStatic(c Check) bool { return c.Meta().Documents != 0 }

// StaticOnly filters a list of checks down to the static ones, in order.
func StaticOnly(cs []Check) []Check { return StaticFor(cs, knownDocuments) }

// StaticFor filters a list of checks down to the static ones that read only
// documents among given, in order: lint without a tool catalog runs no
// check of the catalog, rather than a check that could only skip.
func StaticFor(cs []Check, given Documents) []Check {
	var out []Check
	for _, c := range cs {
		if d := c.Meta().Documents; d != 0 && given.Has(d) {
			out = append(out, c)
		}
	}
	return out
}

// NewStaticInput is the Input of a lint run: the document and an empty
// recording. target names the document (a file: URL for a path). A tool
// catalog read from a file goes in Input.MCP.
func NewStaticInput(target *url.URL, doc *spec.Document) *Input {
	in := NewInput(target, &exchange.Recording{Target: target.String()})
	in.Spec = doc
	return in
}
