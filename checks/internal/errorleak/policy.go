package errorleak

import (
	"maps"
	"regexp"
	"slices"
	"strings"
	"unicode"
)

// FindPolicy reports a text that names a role, permission, scope or policy,
// with the name as its excerpt. It is the detector Find uses, for families
// that judge other texts than error bodies (the reasons of unavailable
// affordances).
func FindPolicy(s string) (Leak, bool) {
	if len(s) > maxScan {
		s = s[:maxScan]
	}
	what, name, ok := findPolicy(s, request{})
	if !ok {
		return Leak{}, false
	}
	return Leak{Kind: KindPolicy, What: what, Excerpt: redact(name)}, true
}

// policyNouns maps the words that introduce a policy to what they name.
var policyNouns = map[string]string{
	"role": "role", "roles": "role",
	"permission": "permission", "permissions": "permission", "privilege": "permission", "privileges": "permission",
	"authority": "permission", "authorities": "permission", "entitlement": "permission", "entitlements": "permission",
	"scope": "scope", "scopes": "scope",
	"policy": "policy", "policies": "policy",
}

// requirementWords say, inside an identifier, that something is lacking;
// with a policy word and a specific word they make the identifier a rule
// name (requires_role_admin) rather than a field or error code (role_id,
// insufficient_scope).
var requirementWords = map[string]bool{
	"require": true, "requires": true, "required": true, "missing": true, "lacks": true, "lack": true,
	"lacking": true, "needs": true, "need": true, "needed": true, "insufficient": true, "no": true,
	"not": true, "without": true, "denied": true,
}

// genericWords are never the specific part of a policy identifier: they
// name the caller, a field or an outcome, not a role.
var genericWords = map[string]bool{
	"a": true, "an": true, "the": true, "to": true, "of": true, "for": true, "in": true, "on": true, "at": true,
	"by": true, "is": true, "be": true, "and": true, "or": true, "with": true, "this": true, "that": true,
	"any": true, "all": true, "user": true, "users": true, "caller": true, "client": true, "account": true,
	"access": true, "id": true, "ids": true, "name": true, "names": true, "type": true, "error": true,
	"exception": true, "found": true, "valid": true, "invalid": true, "unknown": true, "exists": true,
	"check": true, "has": true, "have": true, "field": true, "value": true, "key": true, "set": true,
	"list": true, "based": true, "level": true, "request": true, "operation": true, "action": true,
	"resource": true, "prefix": true, "granted": true, "grant": true, "assigned": true, "forbidden": true,
	"unauthorized": true, "enough": true, "out": true, "one": true, "some": true, "given": true,
}

var (
	// Spring Security authorities: ROLE_ADMIN, SCOPE_orders:write.
	springAuthority = mustCompile(`\b(ROLE|SCOPE)_([A-Za-z0-9][\w:.-]{0,63})`)
	// hasRole('ADMIN'), hasAnyAuthority("orders:refund").
	springExpression = mustCompile(`\bhas(?:Any)?(Role|Authority|Permission|Scope)s?\(\s*['"]([^'"\n]{1,64})['"]`)
	// A policy word, then on the same line, after blanks or a colon, a
	// name: quoted, with an inner separator, or PascalCase. An equals sign
	// does not count: role="alert" and scope="col" are HTML attributes.
	policyThenName = mustCompile(`(?:^|[^\w.:-])(?i:(roles?|permissions?|privileges?|authorit(?:y|ies)|entitlements?|scopes?|polic(?:y|ies)))(?:[ \t]*:[ \t]*|[ \t]+)` +
		`(?:'([A-Za-z][\w.:*-]{0,63})'|"([A-Za-z][\w.:*-]{0,63})"|\x60([A-Za-z][\w.:*-]{0,63})\x60|` +
		`([A-Za-z][A-Za-z0-9]*(?:[._:-][A-Za-z0-9]+){1,8})|([A-Z][a-z0-9]+(?:[A-Z][a-z0-9]+){1,8}))`)
	// permission denied: orders.refund; the name needs a separator.
	deniedThenName = mustCompile(`(?i:\b(?:permission|authori[sz]ation) denied)(?:[ \t]*:[ \t]*|[ \t]+(?:for|to|on)[ \t]+)` +
		`(?:'([A-Za-z][\w.:*-]{0,63})'|"([A-Za-z][\w.:*-]{0,63})"|([A-Za-z][A-Za-z0-9]*(?:[._:-][A-Za-z0-9]+){1,8}))`)
	// Identifiers in snake, kebab, SCREAMING or camel case.
	identifier = regexp.MustCompile(`\b[A-Za-z][A-Za-z0-9]*(?:[_-][A-Za-z0-9]+){1,8}\b|\b[a-z]+(?:[A-Z][a-z0-9]*){1,8}\b|\b[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*){1,8}\b`)
	// File names are not permission names (permission denied: config.yaml).
	fileName = regexp.MustCompile(`(?i)\.(?:ya?ml|json|txt|xml|csv|html?|md|toml|lock|pid|sock|tar|gz|zip)$`)
)

func findPolicy(s string, _ request) (string, string, bool) {
	for _, find := range []func(string) (string, string, bool){policyIdentifier, springPolicy, policyNamed, deniedNamed} {
		if what, name, ok := find(s); ok {
			return what, name, true
		}
	}
	return "", "", false
}

func springPolicy(s string) (string, string, bool) {
	for _, m := range springAuthority.FindAllStringSubmatch(s, 20) {
		name := strings.TrimRight(m[0], ".:-")
		if hasSpecific(words(m[2]), nil) {
			return map[string]string{"ROLE": "role", "SCOPE": "scope"}[m[1]], name, true
		}
	}
	if m := springExpression.FindStringSubmatch(s); m != nil {
		return policyNouns[strings.ToLower(m[1])], m[2], true
	}
	return "", "", false
}

func policyNamed(s string) (string, string, bool) {
	for _, loc := range policyThenName.FindAllStringSubmatchIndex(s, 20) {
		name, bare := submatch(s, loc, 2, 6, 5)
		if bare && !plausibleName(s, name, loc[1]) {
			continue
		}
		return policyNouns[strings.ToLower(s[loc[2]:loc[3]])], name, true
	}
	return "", "", false
}

func deniedNamed(s string) (string, string, bool) {
	for _, loc := range deniedThenName.FindAllStringSubmatchIndex(s, 20) {
		name, bare := submatch(s, loc, 1, 3, 3)
		if !strings.ContainsAny(name, "._:-") || bare && !plausibleName(s, name, loc[1]) {
			continue
		}
		return "permission", name, true
	}
	return "", "", false
}

// submatch returns the first group from first to last that matched, and
// whether it is unquoted (bare and later).
func submatch(s string, loc []int, first, last, bare int) (string, bool) {
	for g := first; g <= last; g++ {
		if loc[2*g] >= 0 {
			return s[loc[2*g]:loc[2*g+1]], g >= bare
		}
	}
	return "", false
}

// plausibleName rules out unquoted names that are something else: a file
// name, a URL or an e-mail address, a version, an abbreviation or a
// directive (cache policy: no-store).
func plausibleName(s, name string, end int) bool {
	if len(name) < 4 || fileName.MatchString(name) {
		return false
	}
	if end < len(s) && strings.ContainsRune("/@(\\", rune(s[end])) {
		return false
	}
	segs := strings.FieldsFunc(name, func(r rune) bool { return strings.ContainsRune("._:-", r) })
	if first := strings.ToLower(segs[0]); genericWords[first] || requirementWords[first] {
		return false
	}
	for _, seg := range segs {
		if !strings.ContainsFunc(seg, unicode.IsLetter) {
			return false
		}
	}
	return true
}

// identifierPolicyWords holds the policy words policyIdentifier takes: an
// identifier is ASCII, so one that holds such a word puts it in the text
// in some case, and a text without any holds no policy identifier.
var identifierPolicyWords = func() clause {
	var words []string
	for _, w := range slices.Sorted(maps.Keys(policyNouns)) {
		if w != "policy" && w != "policies" {
			words = append(words, w)
		}
	}
	return foldedClause(words...)
}()

// policyIdentifier finds an identifier that joins a policy word, a word
// saying it is lacking and a word naming what: requires_role_admin,
// missingRefundPermission, refund-permission-required.
func policyIdentifier(s string) (string, string, bool) {
	if !identifierPolicyWords.metBy(s) {
		return "", "", false
	}
	for _, id := range identifier.FindAllString(s, 1000) {
		ws := words(id)
		what, required := "", false
		for _, w := range ws {
			if n, ok := policyNouns[w]; ok && w != "policy" && w != "policies" && what == "" {
				what = n
			}
			required = required || requirementWords[w]
		}
		if what != "" && required && hasSpecific(ws, requirementWords) {
			return what, id, true
		}
	}
	return "", "", false
}

// hasSpecific reports a word that is neither generic, a policy word nor in
// also: the part of an identifier that says which role.
func hasSpecific(ws []string, also map[string]bool) bool {
	for _, w := range ws {
		if len(w) >= 2 && strings.ContainsFunc(w, unicode.IsLetter) && !genericWords[w] && !requirementWords[w] && policyNouns[w] == "" && !also[w] {
			return true
		}
	}
	return false
}

// words splits an identifier at separators and lower-to-upper case changes,
// in lower case.
func words(id string) []string {
	var out []string
	var cur strings.Builder
	prev := rune(0)
	for _, r := range id {
		switch {
		case unicode.IsUpper(r) && (unicode.IsLower(prev) || unicode.IsDigit(prev)):
			out = append(out, strings.ToLower(cur.String()))
			cur.Reset()
			cur.WriteRune(r)
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			cur.WriteRune(r)
		default:
			if cur.Len() > 0 {
				out = append(out, strings.ToLower(cur.String()))
			}
			cur.Reset()
		}
		prev = r
	}
	if cur.Len() > 0 {
		out = append(out, strings.ToLower(cur.String()))
	}
	return out
}
