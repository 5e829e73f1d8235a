// Package spec is the OpenAPI side of the scan: a loaded document reduced to
// what checks need (operations with their extensions, parameters, schemas and
// source positions) and an index that matches concrete requests to operations.
// It is pure: loading parses bytes; fetching them is the probe's job.
package spec

import (
	"sync"

	"github.com/agentready/agentready/internal/finding"
)

// Document is a loaded OpenAPI description.
type Document struct {
	// Source is the path or URL the document was read from; File is the
	// repository-relative path used in findings (empty for a URL).
	Source string
	File   string
	// Version is the openapi (or swagger) field as written, e.g. "3.1.0".
	Version string
	// Swagger2 is set for Swagger 2.0 documents, which are reported but not
	// checked operation by operation.
	Swagger2 bool
	// BasePaths are the path prefixes of the declared servers, stripped
	// before matching ("" or "/" when the API lives at the root).
	BasePaths []string
	// Servers are the declared server URLs in document order, each with its
	// variables set to their defaults, for choosing one by position.
	Servers    []string
	Operations []*Operation
	// Problems are load-time defects (syntax, unresolved $ref, ...), each
	// with its location; the loader never fails on them alone.
	Problems []Problem
	// UsesHALRel is set when any operation carries x-hal-rel.
	UsesHALRel bool
	// SecuritySchemes maps scheme names to their type ("http", "apiKey", ...).
	SecuritySchemes map[string]SecurityScheme
	// PathItems lists the path templates as written, in document order, with
	// their own (path-level) parameters and the position of their key.
	PathItems []PathItem
	// Unparsed is set when the text did not parse at all (a syntax error):
	// its one problem says where, and nothing else could be read.
	Unparsed bool
	// Notices are facts about the document that are not defects, such as a
	// Swagger 2.0 document being recognized but not checked.
	Notices []string
	// Raw is the text the document was loaded from, kept only when the
	// caller asks (a recorded scan embeds it, so that a replay loads the
	// same document); nil otherwise, since a description can be tens of
	// megabytes.
	Raw []byte

	indexOnce sync.Once
	index     *Index
}

// Problem is a defect found while loading.
type Problem struct {
	Message  string
	Location finding.SourceLocation
	// Warning marks problems that make the document ambiguous (a keyword
	// that tools of its version ignore) rather than invalid.
	Warning bool
}

// PathItem is one entry under paths.
type PathItem struct {
	Template string
	// Parameters are declared on the path item itself; each operation's
	// Parameters already include them.
	Parameters []Parameter
	// Location is the path key.
	Location finding.SourceLocation
}

// Operation is one method on one path template.
type Operation struct {
	Method       string // upper case
	PathTemplate string // as written under paths, e.g. /orders/{id}
	OperationID  string
	Summary      string
	Description  string
	// HALRels is x-hal-rel as decoded; HALRelsRaw keeps malformed values
	// (not an array, non-strings) for the well-formedness check. An array of
	// strings is kept verbatim in HALRels (empty strings and duplicates
	// included) and HALRelsRaw is nil; otherwise HALRelsRaw holds the value
	// and HALRels its non-empty strings, so coordinate checks still work.
	HALRels    []string
	HALRelsRaw any
	// MCPTool is x-mcp-tool; OperationURI is x-operation-uri.
	MCPTool      string
	OperationURI string
	Parameters   []Parameter
	// RequestBody maps media types to their JSON Schema, as plain JSON values
	// (map[string]any) with $refs resolved.
	RequestBody         map[string]any
	RequestBodyRequired bool
	// RequestBodyLocations maps the same media types to where each schema
	// is written.
	RequestBodyLocations map[string]finding.SourceLocation
	// Responses maps status codes as written ("200", "4XX", "default") to
	// the media types declared for them and their schemas.
	Responses map[string]Response
	// Links are the OpenAPI links of the operation's responses, which say
	// how a response fills another operation's parameters.
	Links []Link
	// Security is the effective requirement list (operation level, or the
	// document's): each entry is one alternative, scheme name to scopes.
	Security []map[string][]string
	// Extensions holds every x- extension of the operation, decoded.
	Extensions map[string]any
	Deprecated bool
	// Location is the operation's key in the file; HALRelLocation is the
	// x-hal-rel key, when present.
	Location       finding.SourceLocation
	HALRelLocation *finding.SourceLocation
	// ExtensionLocations holds the position of every x- key of Extensions.
	ExtensionLocations map[string]finding.SourceLocation
}

// Parameter is a declared parameter.
type Parameter struct {
	Name     string
	In       string // path, query, header, cookie
	Required bool
	Schema   map[string]any
	// Examples are the parameter's own example values (example, then each
	// of examples), as plain JSON values; the schema's example, examples,
	// default and enum stay in Schema.
	Examples []any
	// Location is where the parameter is written (the resolved object when
	// it is a $ref); Pointer names its place in the operation or path item.
	Location finding.SourceLocation
}

// Link is one OpenAPI link object of a response (OpenAPI 3.1 §4.8.20).
type Link struct {
	// Status is the response code the link is declared under, as written.
	Status string
	Name   string
	// OperationID or OperationRef names the target operation.
	OperationID  string
	OperationRef string
	// Parameters maps the target's parameter names (optionally prefixed by
	// their location, "path.id") to a runtime expression such as
	// "$response.body#/id", or to a constant.
	Parameters map[string]any
}

// Response is one declared response.
type Response struct {
	// Content maps media types to schemas (nil schema when none is declared).
	Content map[string]map[string]any
	// SchemaLocations maps the same media types to where each schema is
	// written, for findings about a body that does not fit it.
	SchemaLocations map[string]finding.SourceLocation
	// Headers are the names of the headers the response declares, in
	// canonical form (Retry-After), in document order.
	Headers []string
}

// SecurityScheme is a declared security scheme.
type SecurityScheme struct {
	Type   string // http, apiKey, oauth2, openIdConnect, mutualTLS
	Scheme string // for http: bearer, basic
	In     string // for apiKey
	Name   string // for apiKey
}

// IsSafe reports GET, HEAD and OPTIONS.
func (o *Operation) IsSafe() bool {
	return o.Method == "GET" || o.Method == "HEAD" || o.Method == "OPTIONS"
}

// Key is "METHOD /template", how findings name an operation.
func (o *Operation) Key() string { return o.Method + " " + o.PathTemplate }
