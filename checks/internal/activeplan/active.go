// Package activeplan plans the active probes: the few state-changing requests
// agentready sends only with --active, only to operations the user allowed,
// and only after the user saw them. They test that the server re-checks on
// execution what its controls advertise ("availability is advice, not
// authorization"):
//
//   - hidden operation: a less privileged identity sends the request behind a
//     control only a more privileged identity was offered on the same
//     resource; it must be refused;
//   - stale version: the most privileged identity sends the request behind a
//     control it was offered, conditional on an entity tag that matches no
//     representation (If-Match); it must be refused with 412 or 409;
//   - state transition: the most privileged identity sends the request behind
//     a control its kind offers in one lifecycle state to a resource in a
//     state where no resource offered it; it must be refused.
//
// Three more hold a next_actions flow (seed 003's stateful actions) to what
// it tells the agent, on the nodes of the most privileged identity's crawl
// and the operations the OpenAPI document gives their entries:
//
//   - off-list: an operation a kind of node lists in one node, sent to a
//     node that does not list it; it must be refused with 409 or 422;
//   - patch outside: the node's patch operation setting a field its
//     allowed_patch leaves out, then a re-read of the node; the field must
//     not be applied;
//   - idempotent replay: a listed step that takes an idempotency key, sent
//     twice with the same key, the node re-read after each; the second must
//     answer as the first and change nothing.
//
// Planning is pure: it reads recordings and returns the exact requests, which
// the CLI prints before anything is sent. The checks that judge the answers,
// in the families the probes test, read them back through Judge and its
// helpers, so that each check keeps only its own judgement.
package activeplan

import (
	"fmt"
	"net/http"
	"net/url"
	"path"
	"strings"

	"github.com/agentready/agentready/internal/spec"
)

// StaleETag is the entity tag stale-version probes send in If-Match. No
// server issues it, so a precondition on it is false everywhere.
const StaleETag = `"agentready-stale-version"`

// MaxPerKind bounds each kind of probe: one per operation and identity, and
// at most this many in all.
const MaxPerKind = 10

// Rule is one entry of the allow-list: a method and a path pattern whose *
// matches exactly one segment, an operationId, or an MCP tool name pattern
// ("mcp:cancelOrder", "mcp:*"), which allows calling the tools it matches
// with tools/call and nothing over plain HTTP.
type Rule struct {
	Raw         string
	Method      string
	Path        string
	OperationID string
	Tool        string
}

// mcpPrefix marks an allow-list entry that names MCP tools.
const mcpPrefix = "mcp:"

// ParseRule reads "POST /orders/*/cancel", "cancelOrder" or
// "mcp:cancelOrder".
func ParseRule(s string) (Rule, error) {
	s = strings.TrimSpace(s)
	if name, ok := strings.CutPrefix(s, mcpPrefix); ok {
		return parseToolRule(s, name)
	}
	method, rest, spaced := strings.Cut(s, " ")
	if !spaced {
		if s == "" || strings.ContainsAny(s, "/*") {
			return Rule{}, fmt.Errorf("%q: want 'METHOD /path' (* matches one segment) or an operationId", s)
		}
		return Rule{Raw: s, OperationID: s}, nil
	}
	rest = strings.TrimSpace(rest)
	if !validMethod(method) {
		return Rule{}, fmt.Errorf("%q: %q is not an HTTP method", s, method)
	}
	if !strings.HasPrefix(rest, "/") || strings.ContainsAny(rest, " ?#") {
		return Rule{}, fmt.Errorf("%q: the path must start with / and hold no query, fragment or space", s)
	}
	if _, err := path.Match(rest, "/"); err != nil {
		return Rule{}, fmt.Errorf("%q: %v", s, err)
	}
	return Rule{Raw: s, Method: strings.ToUpper(method), Path: rest}, nil
}

// parseToolRule reads the tool pattern of an "mcp:" entry: the characters
// MCP allows in a tool name (letters, digits, _ - .), and * for any run of
// them, so that "mcp:*" allows every tool.
func parseToolRule(raw, name string) (Rule, error) {
	if name == "" {
		return Rule{}, fmt.Errorf("%q: want mcp: followed by a tool name, or a pattern such as mcp:*", raw)
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("_-.*", r)) {
			return Rule{}, fmt.Errorf("%q: %q is not allowed in an MCP tool name (letters, digits, _ - . and * only)", raw, r)
		}
	}
	return Rule{Raw: raw, Tool: name}, nil
}

func validMethod(m string) bool {
	if m == "" {
		return false
	}
	for _, r := range m {
		if r < 'A' || r > 'Z' {
			if r < 'a' || r > 'z' {
				return false
			}
		}
	}
	return true
}

// Rules is the allow-list.
type Rules []Rule

// ParseRules parses every entry, reporting the first error.
func ParseRules(entries []string) (Rules, error) {
	var out Rules
	for _, e := range entries {
		r, err := ParseRule(e)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// Allows reports whether the list names the request: by method and path,
// or by the operationId of the OpenAPI operation it matches (op may be nil).
// A target with a query, or with a segment that is empty, a dot segment or
// an encoded slash, backslash or dot, is never allowed: servers resolve those
// to other paths than the one the rule names.
func (rs Rules) Allows(method, target string, op *spec.Operation) bool {
	u, err := url.Parse(target)
	if err != nil || u.RawQuery != "" || u.ForceQuery || !plainPath(u.EscapedPath()) {
		return false
	}
	for _, r := range rs {
		if r.Tool != "" {
			continue // tools are called through MCP only: AllowsTool
		}
		if r.OperationID != "" {
			if op != nil && op.OperationID == r.OperationID && op.Method == method {
				return true
			}
			continue
		}
		if r.Method == method && segmentsMatch(r.Path, u.EscapedPath()) {
			return true
		}
	}
	return false
}

// AllowsTool reports whether an "mcp:" entry of the list names the tool.
// HTTP entries never allow a tools/call: the tool may do more than the
// operation of the same name.
func (rs Rules) AllowsTool(name string) bool {
	for _, r := range rs {
		if r.Tool == "" {
			continue
		}
		if ok, _ := path.Match(r.Tool, name); ok && name != "" && !strings.Contains(name, "/") {
			return true
		}
	}
	return false
}

// plainPath reports a path every server reads the same way: no empty
// segment (but a trailing slash), no . or .. segment, no encoded /, \ or .
func plainPath(p string) bool {
	segs := strings.Split(strings.TrimSuffix(p, "/"), "/")
	for i, seg := range segs {
		if i == 0 {
			continue // before the leading /
		}
		lower := strings.ToLower(seg)
		if seg == "" || seg == "." || seg == ".." || strings.Contains(lower, "%2f") || strings.Contains(lower, "%5c") || strings.Contains(lower, "%2e") || strings.Contains(seg, "\\") {
			return false
		}
	}
	return strings.HasPrefix(p, "/")
}

// segmentsMatch matches path.Match's syntax segment by segment, so that *
// never spans a slash and the pattern must cover every segment.
func segmentsMatch(pattern, p string) bool {
	ps, xs := strings.Split(pattern, "/"), strings.Split(p, "/")
	if len(ps) != len(xs) {
		return false
	}
	for i := range ps {
		if ok, _ := path.Match(ps[i], xs[i]); !ok {
			return false
		}
	}
	return true
}

// Strings lists the rules as written, for reports.
func (rs Rules) Strings() []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.Raw
	}
	return out
}

// safe methods are never active probes: the passive scan already sends them.
func safe(m string) bool {
	return m == http.MethodGet || m == http.MethodHead || m == http.MethodOptions
}
