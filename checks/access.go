package checks

import (
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/spec"
)

// Access is what the scan can tell about whether a caller may call an
// operation. Unknown is the common answer, and a check that would otherwise
// report an operation's absence from a caller's view says nothing then: an
// operation the caller may not use is rightly absent.
type Access int

// The answers, from least to most certain that the caller may proceed.
const (
	AccessUnknown Access = iota
	AccessRefused
	AccessAllowed
)

func (a Access) String() string {
	switch a {
	case AccessRefused:
		return "refused"
	case AccessAllowed:
		return "allowed"
	}
	return "unknown"
}

// SentCredentials reports whether a request carried a header that is a
// credential by name (Authorization, Cookie, an API key header; see
// exchange.IsSensitiveHeader). It does not know the identity's own
// credential headers; Input.Credentialed does.
func SentCredentials(x *exchange.Exchange) bool {
	for name := range x.Request.Header {
		if exchange.IsSensitiveHeader(name) {
			return true
		}
	}
	return false
}

// Credentialed reports whether x was sent with credentials: a header that
// is one by name (SentCredentials), or one of the credential headers of the
// identity x was sent as (its view's Credentials, or the judged caller's in
// a scan as one identity). The user's shared headers are credentials only
// by name: the recording redacts every value, so a redacted header says
// nothing about who the caller is.
func (in *Input) Credentialed(x *exchange.Exchange) bool {
	if SentCredentials(x) {
		return true
	}
	for _, name := range in.credentialsOf(x.Identity) {
		if _, ok := x.Request.Header[http.CanonicalHeaderKey(name)]; ok {
			return true
		}
	}
	return false
}

// credentialsOf names the credential headers of the identity called name.
func (in *Input) credentialsOf(name string) []string {
	for _, v := range in.Identities {
		if v.Name == name {
			return v.Credentials
		}
	}
	if name == "" || name == in.Caller.Name {
		return in.Caller.Credentials
	}
	return nil
}

// AccessRules holds the explicit mapping of operations to the roles that
// may call them (any one suffices; an empty list lets anyone in), keyed by
// operationId or by "METHOD /path/template"; configuration fills it.
type AccessRules map[string][]string

// rolesFor returns the roles configured for op, and whether any are. A
// "METHOD /path" key matches whatever the case of the method and the names
// of the path parameters, which people write as they remember them.
func (r AccessRules) rolesFor(op *spec.Operation) ([]string, bool) {
	if op == nil || len(r) == 0 {
		return nil, false
	}
	if op.OperationID != "" {
		if roles, ok := r[op.OperationID]; ok {
			return roles, true
		}
	}
	if roles, ok := r[op.Method+" "+op.PathTemplate]; ok {
		return roles, true
	}
	want := routeKey(op.Method + " " + op.PathTemplate)
	keys := make([]string, 0, len(r))
	for k := range r {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if routeKey(k) == want {
			return r[k], true
		}
	}
	return nil, false
}

var pathParam = regexp.MustCompile(`\{[^{}/]*\}`)

// routeKey normalises "METHOD /path/{param}" to "METHOD /path/{}", or
// returns "" for a key that is not a route.
func routeKey(k string) string {
	method, path, ok := strings.Cut(strings.TrimSpace(k), " ")
	if !ok || !strings.HasPrefix(strings.TrimSpace(path), "/") {
		return ""
	}
	return strings.ToUpper(method) + " " + pathParam.ReplaceAllString(strings.TrimSpace(path), "{}")
}

// MayCall decides whether who may call op, and says why. The explicit
// mapping wins over the OpenAPI security requirements; of those, as far as
// the declared schemes let anyone judge: an alternative with no scheme ({})
// lets anyone in; an anonymous caller meets no scheme; a caller who sent the
// header a scheme reads meets it when the scheme lists no roles or scopes,
// or when its configured roles include them all.
func (rules AccessRules) MayCall(doc *spec.Document, op *spec.Operation, who exchange.Caller) (Access, string) {
	if op == nil {
		return AccessUnknown, "no OpenAPI operation matches"
	}
	if roles, ok := rules.rolesFor(op); ok {
		return byRoles(op, roles, who)
	}
	if len(op.Security) == 0 {
		return AccessAllowed, "the operation declares no security requirement"
	}
	verdict, why := AccessRefused, ""
	for _, alt := range op.Security {
		a, reason := meets(doc, alt, who)
		switch {
		case a == AccessAllowed:
			return a, reason
		case a == AccessUnknown:
			verdict, why = a, reason
		case verdict == AccessRefused && why == "":
			why = reason
		}
	}
	if verdict == AccessRefused {
		why = fmt.Sprintf("its OpenAPI operation %s %s requires %s; %s", op.Method, op.PathTemplate, describeSecurity(op.Security), why)
	}
	return verdict, why
}

func byRoles(op *spec.Operation, roles []string, who exchange.Caller) (Access, string) {
	if len(roles) == 0 {
		return AccessAllowed, fmt.Sprintf("the configuration maps %s to no role: anyone may call it", opName(op))
	}
	where := fmt.Sprintf("the configuration maps %s to role %s", opName(op), strings.Join(roles, " or "))
	switch {
	case who.Roles != nil && slices.ContainsFunc(roles, func(r string) bool { return slices.Contains(who.Roles, r) }):
		return AccessAllowed, where
	case who.Roles != nil:
		return AccessRefused, fmt.Sprintf("%s and %s holds %s", where, who.Label(), holds(who.Roles))
	case who.Anonymous():
		return AccessRefused, where + " and this caller sent no credentials"
	}
	return AccessUnknown, where + " and no roles are configured for " + who.Label()
}

// meets judges one security alternative: every scheme in it must be met.
func meets(doc *spec.Document, alt map[string][]string, who exchange.Caller) (Access, string) {
	if len(alt) == 0 {
		return AccessAllowed, "the operation may be called without credentials ({} alternative)"
	}
	if who.Anonymous() {
		return AccessRefused, "this caller sent no credentials"
	}
	verdict := AccessAllowed
	why := "the caller's credentials meet the declared scheme"
	for _, name := range sortedSchemes(alt) {
		header := schemeHeader(doc, name)
		if header != "" && !slices.ContainsFunc(who.Credentials, func(c string) bool { return strings.EqualFold(c, header) }) {
			return AccessRefused, fmt.Sprintf("scheme %s reads %s, which this caller did not send", name, header)
		}
		need := alt[name]
		switch {
		case len(need) > 0 && grantsScopes(doc, name):
			// OAuth scopes are granted per token, not per role: the roles
			// the configuration gives an identity say nothing about them.
			verdict, why = min(verdict, AccessUnknown), fmt.Sprintf("scheme %s needs the scopes %s, which only the token's grant can tell", name, strings.Join(need, ", "))
		case len(need) > 0 && who.Roles != nil && !containsAll(who.Roles, need):
			return AccessRefused, fmt.Sprintf("scheme %s needs %s and %s holds %s", name, strings.Join(need, ", "), who.Label(), holds(who.Roles))
		case header == "":
			// Credentials were sent, but whether they are the ones this
			// scheme reads cannot be told.
			verdict, why = min(verdict, AccessUnknown), fmt.Sprintf("scheme %s is not read from a request header this scan can see", name)
		case len(need) > 0 && who.Roles == nil:
			verdict, why = min(verdict, AccessUnknown), fmt.Sprintf("scheme %s needs %s and no roles are configured for %s", name, strings.Join(need, ", "), who.Label())
		}
	}
	return verdict, why
}

// grantsScopes reports a scheme whose requirement lists OAuth scopes rather
// than role names (OpenAPI 3.1 §4.8.30).
func grantsScopes(doc *spec.Document, name string) bool {
	if doc == nil {
		return false
	}
	t := doc.SecuritySchemes[name].Type
	return t == "oauth2" || t == "openIdConnect"
}

// schemeHeader is the request header a declared scheme reads, or "" when it
// cannot be told (an undeclared scheme, mutual TLS, a query parameter).
func schemeHeader(doc *spec.Document, name string) string {
	if doc == nil {
		return ""
	}
	s, ok := doc.SecuritySchemes[name]
	if !ok {
		return ""
	}
	switch s.Type {
	case "http", "oauth2", "openIdConnect":
		return "Authorization"
	case "apiKey":
		switch s.In {
		case "header":
			return http.CanonicalHeaderKey(s.Name)
		case "cookie":
			return "Cookie"
		}
	}
	return ""
}

func sortedSchemes(alt map[string][]string) []string {
	out := make([]string, 0, len(alt))
	for k := range alt {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func describeSecurity(alts []map[string][]string) string {
	var parts []string
	for _, alt := range alts {
		var in []string
		for _, name := range sortedSchemes(alt) {
			if len(alt[name]) > 0 {
				name += " [" + strings.Join(alt[name], ", ") + "]"
			}
			in = append(in, name)
		}
		parts = append(parts, strings.Join(in, " and "))
	}
	return strings.Join(parts, " or ")
}

func containsAll(have, need []string) bool {
	for _, n := range need {
		if !slices.Contains(have, n) {
			return false
		}
	}
	return true
}

func holds(roles []string) string {
	if len(roles) == 0 {
		return "no role"
	}
	return "role " + strings.Join(roles, ", ")
}

func opName(op *spec.Operation) string {
	if op.OperationID != "" {
		return op.OperationID
	}
	return op.Method + " " + op.PathTemplate
}

// JudgesAbsence reports whether a check may count op's absence from the
// judged caller's view (no relation, no tool, no control offered) against
// the API: only when that caller may call op. Otherwise the operation is
// rightly absent, or may be, and the check records why it did not judge it.
func (in *Input) JudgesAbsence(checkID string, op *spec.Operation) bool {
	access, why := in.MayCall(op, in.Caller)
	if access == AccessAllowed {
		return true
	}
	in.Observe(checkID, fmt.Sprintf("%s not judged: %s", opName(op), why))
	return false
}
