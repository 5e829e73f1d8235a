// Package oauthmeta reads the documents through which a client finds how to
// authenticate to an API: the resource_metadata parameter of a
// WWW-Authenticate challenge and the Protected Resource Metadata it names
// (RFC 9728), and Authorization Server Metadata (RFC 8414). It builds their
// well-known URLs and says what is wrong with a document; it does no I/O,
// so that the MCP probe and the discovery checks read them alike.
package oauthmeta

import (
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"strings"
)

// Well-known suffixes (RFC 9728 §3, RFC 8414 §3, OpenID Connect Discovery).
const (
	ProtectedResourceSuffix   = "oauth-protected-resource"
	AuthorizationServerSuffix = "oauth-authorization-server"
	OpenIDSuffix              = "openid-configuration"
)

// WellKnown inserts /.well-known/suffix between the host and the path of id,
// after removing a terminating slash (RFC 9728 §3.1, RFC 8414 §3.1). The
// query and fragment are dropped: identifiers have none.
func WellKnown(id *url.URL, suffix string) *url.URL {
	path := strings.TrimSuffix(id.EscapedPath(), "/")
	u := &url.URL{Scheme: id.Scheme, Host: id.Host}
	raw := "/.well-known/" + suffix + path
	if p, err := url.PathUnescape(raw); err == nil {
		u.Path, u.RawPath = p, raw
	} else {
		u.Path = raw
	}
	return u
}

// challengeParam finds an auth-param of a challenge, quoted or a token.
func challengeParam(name string) *regexp.Regexp {
	return regexp.MustCompile(`(?i)(?:^|[\s,])` + regexp.QuoteMeta(name) + `\s*=\s*("(?:[^"\\]|\\.)*"|[^\s,]+)`)
}

// The auth-params read from challenges.
var (
	resourceMetadataParam = challengeParam("resource_metadata")
	errorParam            = challengeParam("error")
	errorDescriptionParam = challengeParam("error_description")
)

// paramOf returns the value of param in challenge, unquoted, and whether
// it is there.
func paramOf(param *regexp.Regexp, challenge string) (string, bool) {
	m := param.FindStringSubmatch(challenge)
	if m == nil {
		return "", false
	}
	s := m[1]
	if strings.HasPrefix(s, `"`) {
		s = strings.ReplaceAll(strings.Trim(s, `"`), `\"`, `"`)
	}
	return s, true
}

// ResourceMetadata returns the resource_metadata parameter of the
// WWW-Authenticate values (RFC 9728 §5.1), "" when none carries it.
func ResourceMetadata(values []string) string {
	for _, v := range values {
		if s, ok := paramOf(resourceMetadataParam, v); ok {
			return s
		}
	}
	return ""
}

// Refusal is what a challenge says of credentials it refused (RFC 6750
// §3): the auth-scheme and the error and error_description parameters, as
// the server wrote them.
type Refusal struct {
	Scheme, Error, Description string
}

// RefusalOf reads the first of the WWW-Authenticate values that carries an
// error parameter; ok is false when none does.
func RefusalOf(values []string) (r Refusal, ok bool) {
	for _, v := range values {
		code, found := paramOf(errorParam, v)
		if !found {
			continue
		}
		r.Error = code
		r.Description, _ = paramOf(errorDescriptionParam, v)
		if scheme, _, _ := strings.Cut(strings.TrimSpace(v), " "); !strings.Contains(scheme, "=") {
			r.Scheme = scheme
		}
		return r, true
	}
	return Refusal{}, false
}

// Document is a metadata document decoded as members, each kept raw.
type Document map[string]json.RawMessage

// Decode reads a metadata document: a JSON object (RFC 9728 §3.2, RFC 8414
// §3.2). The error says what it is instead.
func Decode(body []byte) (Document, error) {
	var doc Document
	if err := json.Unmarshal(body, &doc); err != nil || doc == nil {
		return nil, fmt.Errorf("the body is not a JSON object")
	}
	return doc, nil
}

// String returns a member that is a string, and whether it is one.
func (d Document) String(name string) (string, bool) {
	var s string
	raw, ok := d[name]
	if !ok || json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

// Strings returns a member that is an array of strings, and whether it is.
func (d Document) Strings(name string) ([]string, bool) {
	var ss []string
	raw, ok := d[name]
	if !ok || json.Unmarshal(raw, &ss) != nil {
		return nil, false
	}
	return ss, true
}

// ResourceProblems lists what RFC 9728 §2 and §3.3 forbid in protected
// resource metadata fetched from the well-known URL built from resource
// (nil when the document was reached otherwise and the identity cannot be
// judged this way).
func ResourceProblems(d Document, resource *url.URL) []string {
	var out []string
	got, ok := d.String("resource")
	switch {
	case !ok:
		out = append(out, "resource, REQUIRED, is missing or not a string (RFC 9728 §2)")
	case resource != nil && !sameIdentifier(got, resource):
		out = append(out, fmt.Sprintf("resource is %q, not the identifier the document was fetched for, %q: clients MUST NOT use the document (RFC 9728 §3.3)", got, identifier(resource)))
	case hasQueryOrFragment(got):
		out = append(out, fmt.Sprintf("resource %q has a fragment or query component (RFC 9728 §1.2)", got))
	}
	out = append(out, stringArrays(d, "authorization_servers", "scopes_supported", "bearer_methods_supported")...)
	return out
}

// ServerProblems lists what RFC 8414 §2 and §3.3 forbid in authorization
// server metadata fetched for issuer. An issuer at the root of its origin
// may be written with or without its slash: both build one URL.
func ServerProblems(d Document, issuer string) []string {
	var out []string
	got, ok := d.String("issuer")
	switch {
	case !ok:
		out = append(out, "issuer, REQUIRED, is missing or not a string (RFC 8414 §2)")
	case got != issuer && !(isRoot(issuer) && strings.TrimSuffix(got, "/") == strings.TrimSuffix(issuer, "/")):
		out = append(out, fmt.Sprintf("issuer is %q, not the issuer identifier the document was fetched for, %q: clients MUST NOT use the document (RFC 8414 §3.3)", got, issuer))
	case hasQueryOrFragment(got):
		out = append(out, fmt.Sprintf("issuer %q has a query or fragment component (RFC 8414 §2)", got))
	}
	if _, ok := d["authorization_endpoint"]; ok {
		// Erratum 7793: without an authorization endpoint no response type
		// applies, so the member is required only with one.
		if _, ok := d.Strings("response_types_supported"); !ok {
			out = append(out, "response_types_supported, REQUIRED, is missing or not an array of strings (RFC 8414 §2)")
		}
	}
	if grants, _ := d.Strings("grant_types_supported"); !(len(grants) == 1 && grants[0] == "implicit") {
		if _, ok := d.String("token_endpoint"); !ok {
			out = append(out, "token_endpoint is missing, and it is REQUIRED unless only the implicit grant is supported (RFC 8414 §2)")
		}
	}
	out = append(out, stringArrays(d, "scopes_supported", "response_types_supported", "grant_types_supported", "code_challenge_methods_supported")...)
	return out
}

func stringArrays(d Document, names ...string) []string {
	var out []string
	for _, n := range names {
		if _, present := d[n]; !present {
			continue
		}
		if _, ok := d.Strings(n); !ok {
			out = append(out, n+" is not an array of strings")
		}
	}
	return out
}

// identifier is the resource identifier a well-known URL was built from,
// as RFC 9728 §3.1 strips it: no terminating slash.
func identifier(u *url.URL) string {
	return strings.TrimSuffix((&url.URL{Scheme: u.Scheme, Host: u.Host, Path: u.Path, RawPath: u.RawPath}).String(), "/")
}

// sameIdentifier compares code point by code point (RFC 9728 §6), except
// for the terminating slash §3.1 removes before inserting the well-known
// string: https://api.example and https://api.example/ build one URL.
func sameIdentifier(got string, resource *url.URL) bool {
	return strings.TrimSuffix(got, "/") == identifier(resource)
}

func isRoot(issuer string) bool {
	u, err := url.Parse(issuer)
	return err == nil && (u.Path == "" || u.Path == "/")
}

func hasQueryOrFragment(s string) bool { return strings.ContainsAny(s, "?#") }
