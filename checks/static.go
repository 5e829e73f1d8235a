package checks

import (
	"net/http"
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
	// DocLLMsText: the llms.txt file, as served at /llms.txt; lint reads it
	// from a file (see File).
	DocLLMsText
	// DocAgentCard: the A2A agent card, as served at
	// /.well-known/agent-card.json; lint reads it from a file (see File).
	DocAgentCard

	knownDocuments = DocOpenAPI | DocMCPTools | DocLLMsText | DocAgentCard
)

// documentNames name each document in `agentready checks`, in bit order.
var documentNames = []struct {
	doc  Documents
	name string
}{{DocOpenAPI, "openapi"}, {DocMCPTools, "mcp-tools"}, {DocLLMsText, "llms"}, {DocAgentCard, "agent-card"}}

// Has reports whether d holds every document of want.
func (d Documents) Has(want Documents) bool { return d&want == want }

// Names lists the documents, for `agentready checks`.
func (d Documents) Names() []string {
	var out []string
	for _, n := range documentNames {
		if d.Has(n.doc) {
			out = append(out, n.name)
		}
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

// NewStaticInput is the Input of a lint run: the document, and a recording
// that holds only the files given, each as the GET of its well-known URL.
// target names the document (a file: URL for a path). A tool catalog read
// from a file goes in Input.MCP.
func NewStaticInput(target *url.URL, doc *spec.Document, files ...File) *Input {
	rec := &exchange.Recording{Target: target.String()}
	for _, f := range files {
		if x := f.exchange(target); x != nil {
			rec.Exchanges = append(rec.Exchanges, x)
		}
	}
	in := NewInput(target, rec)
	in.Spec = doc
	return in
}

// File is a document lint reads from a file that a scan fetches from a
// well-known URL of the target: DocLLMsText or DocAgentCard.
type File struct {
	Document Documents
	Body     []byte
}

// PurposeOpenAPI tags the GETs that fetched the OpenAPI document (found by
// discovery, or named with --openapi URL); the probe uses the same value.
// A finding whose evidence is such a GET is about the document, wherever
// it was served, and is fingerprinted so (lint reads the same document
// from a file).
const PurposeOpenAPI = "openapi/fetch"

// Where a scan fetches the documents a File can hold, at the target's
// origin, and the purpose of that GET; checks/internal/purpose names them
// for the families that plan and read it.
const (
	PurposeLLMsText  = "discovery/llms"
	PurposeAgentCard = "discovery/agent-card"
	PathLLMsText     = "/llms.txt"
	PathAgentCard    = "/.well-known/agent-card.json"
)

// servedAt is where and how a scan finds each document a File can hold.
var servedAt = map[Documents]struct{ purpose, path, mediaType string }{
	DocLLMsText:  {PurposeLLMsText, PathLLMsText, "text/plain; charset=utf-8"},
	DocAgentCard: {PurposeAgentCard, PathAgentCard, "application/json"},
}

// FileExchangeID is the exchange ID of the recorded File of d, which the
// evidence of its findings names, so that lint can point them at the file.
func FileExchangeID(d Documents) string { return "file-" + d.Names()[0] }

// exchange records f as a 200 answer to the GET the scan sends for its
// document: the same purpose, method and path, so its checks read it as
// they read a fetched one and their findings have the same fingerprints.
// A document no File can hold records nothing.
func (f File) exchange(target *url.URL) *exchange.Exchange {
	at, ok := servedAt[f.Document]
	if !ok {
		return nil
	}
	u := (&url.URL{Scheme: target.Scheme, Host: target.Host, Path: at.path}).String()
	return &exchange.Exchange{
		ID: FileExchangeID(f.Document), Purpose: at.purpose, BasedOn: u,
		Request: exchange.Request{Method: http.MethodGet, URL: u},
		Response: &exchange.Response{Status: http.StatusOK, Header: http.Header{"Content-Type": {at.mediaType}},
			Body: f.Body, BodySize: int64(len(f.Body))},
	}
}
