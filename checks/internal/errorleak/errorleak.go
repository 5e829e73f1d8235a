// Package errorleak finds details in error bodies that a client has no use
// for and an attacker does: stack traces, SQL, file system paths, framework
// debug pages (RFC 9457 §5, CWE-209), the names of roles, permissions,
// scopes and policies, and internal hosts. It is pure and is shared by every
// family that judges bodies, so the patterns live once.
//
// The patterns are tuned for precision: a URL path in a message is not a
// file path, the word "select" in prose is not SQL, "you do not have
// permission" names no permission and "10.0.1" is a version, not a host.
// A policy is named when a policy word (role, permission, scope, privilege,
// authority, entitlement, policy) sits next to an identifier (quoted, with a
// separator as in orders:refund or billing-admin, or PascalCase), in an
// identifier that also says what is missing (requires_role_admin,
// missingRefundPermission), or in Spring's ROLE_ and SCOPE_ authorities and
// hasRole('…') expressions. An internal host is a private, link-local or
// loopback address, or a name under .internal, .local, .localdomain, .corp,
// .lan, .intranet, .svc or .cluster.local. IPv4 and the weaker suffixes need
// context, because four dotted numbers are often a version
// ("Version=10.0.0.0") and a dotted name is often a module: a port, a URL,
// or a word such as host, upstream, connect or dial close by; "at" is too
// common in prose to count. Loopback addresses need a port or a URL, and
// localhost a port. The requested host itself is never a leak.
//
// A leak is reported with a redacted excerpt only, because the report may
// end up in a CI log: addresses lose their host part (10.0.3.x) and host
// names their first label (x.prod.internal).
package errorleak

import (
	"encoding/json"
	"html"
	"net/url"
	"regexp"
	"sort"
	"strings"

	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/sanitize"
)

// Kind is the category of a leak.
type Kind string

// The kinds, in report order.
const (
	KindStackTrace Kind = "stack-trace"
	KindSQL        Kind = "sql"
	KindPath       Kind = "filesystem-path"
	KindDebugPage  Kind = "debug-page"
	KindPolicy     Kind = "policy-name"
	KindHost       Kind = "internal-host"
)

var kindOrder = map[Kind]int{KindStackTrace: 0, KindSQL: 1, KindPath: 2, KindDebugPage: 3, KindPolicy: 4, KindHost: 5}

// Leak is one kind of detail found in a body.
type Leak struct {
	Kind Kind
	// What names the evidence, e.g. "Java stack trace", "MySQL error",
	// "role" or "private IP address".
	What string
	// Excerpt is the matched text with literals, long numbers and the middle
	// of paths removed, on one line and bounded.
	Excerpt string
}

// Limits keep scanning linear and bounded on hostile bodies.
const (
	maxScan     = 256 << 10 // bytes of text examined per body
	maxDepth    = 32        // JSON nesting followed
	excerptSize = 120
)

// Phrase says what the body does with the leak, for messages: "carries a
// Java stack trace", "names a role", "names a private IP address".
func (l Leak) Phrase() string {
	verb := "carries"
	if l.Kind == KindPolicy || l.Kind == KindHost {
		verb = "names"
	}
	article := "a"
	if l.What != "" && strings.ContainsRune("AEIOUaeiou", rune(l.What[0])) {
		article = "an"
	}
	return verb + " " + article + " " + l.What
}

// Find returns at most one leak per kind, in kind order. mediaType selects
// how the body is read (JSON string values, or text with HTML entities
// decoded); request is the URL that was requested (a path alone will do),
// whose path an error message may legitimately echo and whose host is not
// internal to the client that asked for it.
func Find(body []byte, mediaType, request string) []Leak {
	texts := textsOf(body, mediaType)
	req := parseRequest(request)
	found := map[Kind]Leak{}
	for _, t := range texts {
		for _, d := range detectors {
			if _, done := found[d.kind]; done || t.urlish && !d.urlish {
				continue
			}
			if what, excerpt, ok := d.find(t.s, req); ok {
				found[d.kind] = Leak{Kind: d.kind, What: what, Excerpt: redact(excerpt)}
			}
		}
	}
	out := make([]Leak, 0, len(found))
	for _, l := range found {
		out = append(out, l)
	}
	sort.Slice(out, func(i, j int) bool { return kindOrder[out[i].Kind] < kindOrder[out[j].Kind] })
	return out
}

// text is one string to scan; urlish marks values of members that are URI
// references by definition (type, instance, href), where a path is expected.
type text struct {
	s      string
	urlish bool
}

func textsOf(body []byte, mediaType string) []text {
	if len(body) > maxScan {
		body = body[:maxScan]
	}
	if exchange.IsJSONMediaType(mediaType) {
		var v any
		if err := json.Unmarshal(body, &v); err == nil {
			var out []text
			collect(v, false, 0, &out)
			return out
		}
	}
	return []text{{s: html.UnescapeString(string(body))}}
}

// urlishMembers hold URI references in problem details and HAL.
var urlishMembers = map[string]bool{"type": true, "instance": true, "href": true}

func collect(v any, urlish bool, depth int, out *[]text) {
	if depth > maxDepth {
		return
	}
	switch v := v.(type) {
	case string:
		*out = append(*out, text{s: v, urlish: urlish})
	case []any:
		for _, e := range v {
			collect(e, false, depth+1, out)
		}
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			collect(v[k], urlishMembers[k], depth+1, out)
		}
	}
}

// request is what Find knows of the request: its path, and its host and
// port (defaulted from the scheme), lower case.
type request struct {
	path, host, port string
}

func parseRequest(raw string) request {
	u, err := url.Parse(raw)
	if err != nil {
		return request{path: raw}
	}
	r := request{path: u.Path, host: strings.ToLower(u.Hostname()), port: u.Port()}
	if r.port == "" {
		r.port = map[string]string{"http": "80", "https": "443"}[strings.ToLower(u.Scheme)]
	}
	return r
}

// detector finds one kind of leak in a text. urlish marks the kinds also
// looked for in URI references: a file path is expected there, an internal
// host is not, and a policy word in a problem type URI names a problem.
type detector struct {
	kind   Kind
	find   func(s string, req request) (what, excerpt string, ok bool)
	urlish bool
}

// detectors run in this order; the first match of a kind wins.
var detectors = []detector{
	{KindStackTrace, findPatterns(stackPatterns), true},
	{KindSQL, findPatterns(sqlPatterns), true},
	{KindPath, findPath, false},
	{KindDebugPage, findPatterns(debugPatterns), true},
	{KindPolicy, findPolicy, false},
	{KindHost, findHost, true},
}

// pattern is a regular expression that proves a leak when it matches at
// least min times (weak frame shapes need two to rule out prose).
type pattern struct {
	what string
	re   filtered
	min  int
}

func p(what, expr string) pattern { return pattern{what, mustCompile(expr), 1} }

func findPatterns(ps []pattern) func(string, request) (string, string, bool) {
	return func(s string, _ request) (string, string, bool) {
		for _, pt := range ps {
			if pt.min <= 1 {
				if loc := pt.re.FindStringIndex(s); loc != nil {
					return pt.what, s[loc[0]:loc[1]], true
				}
				continue
			}
			if locs := pt.re.FindAllStringIndex(s, pt.min); len(locs) >= pt.min {
				return pt.what, s[locs[0][0]:locs[0][1]], true
			}
		}
		return "", "", false
	}
}

var stackPatterns = []pattern{
	// at com.acme.Orders.find(Orders.java:42), at java.base/java.lang.Integer.parseInt(Integer.java:652)
	p("Java stack trace", `\bat\s+(?:[\w$.@-]+/)?(?:[A-Za-z_$][\w$]*\.)+[\w$<>]+\((?:[\w$-]+\.(?:java|kt|scala|groovy):\d+|Native Method|Unknown Source)\)`),
	p("Go stack trace", `\bgoroutine \d+ \[[\w ,]+\]:`),
	p("Go stack trace", `\.go:\d+ \+0x[0-9a-f]+`),
	p("Python traceback", `Traceback \(most recent call last\):`),
	p("Python traceback", `File "[^"\n]{1,300}\.py", line \d+`),
	// at Object.<anonymous> (/app/server.js:10:15), at /app/index.js:3:9
	p("Node.js stack trace", `\bat (?:[^()\n]{1,120} \()?(?:file://)?(?:/|[A-Za-z]:\\)[^\s()'"]{1,300}\.(?:js|mjs|cjs|ts|tsx|jsx):\d+:\d+\)?`),
	p("Node.js stack trace", `\bat (?:[^()\n]{1,120} \()?node:internal/[\w/.-]+:\d+:\d+\)?`),
	// at Orders.Api.Find(Int32 id) in C:\src\Orders.cs:line 42
	p(".NET stack trace", `\bat (?:[A-Za-z_][\w\x60]*\.)+[\w<>\x60|]+\([^()\n]{0,300}\) in [^\n]{1,300}:line \d+`),
	p(".NET stack trace", `--- End of stack trace from previous location`),
	{".NET stack trace", mustCompile(`\bat (?:[A-Za-z_][\w\x60]*\.){2,}[\w<>\x60|]+\([^()\n]{0,300}\)`), 2},
	p("Ruby backtrace", `\.rb:\d+:in [\x60']`),
}

var sqlPatterns = []pattern{
	p("MySQL error", `You have an error in your SQL syntax`),
	p("MySQL error", `\bERROR \d{4} \([0-9A-Z]{5}\)`),
	p("SQLSTATE error", `SQLSTATE\[[0-9A-Z]{5}\]`),
	p("Oracle error", `\bORA-\d{5}:`),
	p("PostgreSQL error", `(?:syntax error|unterminated quoted string) at or near "`),
	p("PostgreSQL error", `duplicate key value violates unique constraint "`),
	p("PostgreSQL error", `\bPG::[A-Z]\w+`),
	p("PostgreSQL error", `\bpsycopg2?\.(?:errors\.)?[A-Z]\w+`),
	p("SQL Server error", `Unclosed quotation mark after the character string|Incorrect syntax near '`),
	p("SQLite error", `\bSQLITE_[A-Z]{4,}\b|sqlite3\.\w*Error`),
	p("JDBC error", `\bjava\.sql\.SQL\w*Exception|\borg\.hibernate\.[\w.]*Exception`),
	// A statement, not prose: SELECT needs a star, a qualified column or
	// (in upper case only) a column list, and the target must be an identifier.
	p("SQL statement", `(?i)\bselect\s+(?:distinct\s+)?(?:\*|[\w"\x60\[\]]+\.[\w"\x60\[\]*]+(?:\s+as\s+\w+)?(?:\s*,\s*[\w."\x60\[\]*]+(?:\s+as\s+\w+)?)*)\s+from\s+[\w."\x60\[\]]+`),
	p("SQL statement", `\bSELECT\s+(?:DISTINCT\s+)?[\w"\x60\[\]]+(?:\s*,\s*[\w"\x60\[\]]+)+\s+FROM\s+[\w."\x60\[\]]+`),
	p("SQL statement", `(?i)\binsert\s+into\s+[\w."\x60\[\]]+\s*(?:\(|values\b)`),
	p("SQL statement", `(?i)\bupdate\s+[\w."\x60\[\]]+\s+set\s+[\w."\x60\[\]]+\s*=`),
	p("SQL statement", `(?i)\bdelete\s+from\s+[\w."\x60\[\]]+\s+where\s+[\w."\x60\[\]]+\s*(?:=|<|>|\bin\b|\bis\b|\blike\b)`),
}

var debugPatterns = []pattern{
	p("Django debug page", `you have <code>DEBUG = True</code>`),
	p("Werkzeug debugger", `The debugger caught an exception in your WSGI application|<title>[^<]*Werkzeug Debugger</title>`),
	p("Rails exception page", `Action Controller: Exception caught`),
	p("Laravel/Whoops error page", `Whoops, looks like something went wrong\.|class="Whoops container"`),
	p("Symfony exception page", `Symfony\\Component\\ErrorHandler\\|class="exception-summary`),
	p("ASP.NET error page", `Server Error in '[^'\n]{0,200}' Application\.`),
	p("PHP error", `<b>(?:Fatal error|Parse error|Warning|Notice|Deprecated)</b>:[^\n]{0,300}? in <b>[^<\n]{1,300}</b> on line <b>\d+</b>`),
	p("PHP error", `PHP (?:Fatal error|Parse error|Warning|Notice):[^\n]{0,300}? in \S{1,300}\.php(?: on line |:)\d+`),
}

// Unix paths need a system root plus one segment, or a conventional
// container root plus a source or config file; a path in a URL (preceded by
// a host or another path character) never counts.
var (
	unixPath = mustCompile(`(?:^|[\s"'(=\[,;<>])((?:/[\w.@+~-]+){2,})`)
	winPath  = mustCompile(`\b[A-Za-z]:\\(?:[^\\/:*?"<>|\r\n]{1,100}\\)+[^\\/:*?"<>|\r\n\s]*`)
)

var systemRoots = map[string]bool{
	"home": true, "usr": true, "var": true, "opt": true, "etc": true, "root": true,
	"tmp": true, "srv": true, "proc": true, "Users": true, "private": true, "Library": true, "mnt": true,
}

var containerRoots = map[string]bool{
	"app": true, "data": true, "workspace": true, "go": true, "src": true, "code": true, "build": true,
}

var sourceExt = regexp.MustCompile(`\.(?:go|py|pyc|rb|php|java|class|jar|js|mjs|cjs|ts|cs|dll|so|jsp|aspx|erb|ex|exs|rs|c|cc|cpp|h|kt|scala|conf|ini|env|pem|key|sqlite|db|log|properties|config)$`)

func findPath(s string, req request) (string, string, bool) {
	for _, m := range unixPath.FindAllStringSubmatch(s, 20) {
		candidate := m[1]
		if echoesRequest(candidate, req.path) {
			continue
		}
		root := strings.SplitN(strings.TrimPrefix(candidate, "/"), "/", 2)[0]
		if systemRoots[root] || containerRoots[root] && sourceExt.MatchString(candidate) {
			return "file system path", candidate, true
		}
	}
	if loc := winPath.FindStringIndex(s); loc != nil {
		return "Windows file system path", s[loc[0]:loc[1]], true
	}
	return "", "", false
}

// echoesRequest reports a path that is the requested path, or a prefix or
// extension of it, which a 404 message may name without leaking anything.
func echoesRequest(candidate, requestPath string) bool {
	if requestPath == "" || requestPath == "/" {
		return false
	}
	c, r := strings.TrimSuffix(candidate, "/"), strings.TrimSuffix(requestPath, "/")
	return c == r || strings.HasPrefix(r, c+"/") || strings.HasPrefix(c, r+"/")
}

var (
	quoted    = regexp.MustCompile(`'[^'\n]{0,200}'|"[^"\n]{0,200}"`)
	longDigit = regexp.MustCompile(`\b0x[0-9a-fA-F]{4,}\b|\b[0-9a-fA-F]{12,}\b|\b\d{6,}\b`)
	anyPath   = regexp.MustCompile(`((?:/[\w.@+~-]+){3,})|([A-Za-z]:\\(?:[^\\\s]+\\){2,}[^\\\s]*)`)
)

// redact keeps what proves the leak and drops what may be data: quoted
// literals (user input, SQL values), long numbers and hex (addresses,
// tokens), and the middle directories of paths.
func redact(s string) string {
	s = quoted.ReplaceAllStringFunc(s, func(q string) string { return q[:1] + "…" + q[:1] })
	s = longDigit.ReplaceAllString(s, "…")
	s = anyPath.ReplaceAllStringFunc(s, collapsePath)
	return sanitize.Truncate(strings.Join(strings.Fields(sanitize.Line(s)), " "), excerptSize)
}

func collapsePath(path string) string {
	sep := "/"
	if strings.Contains(path, `\`) {
		sep = `\`
	}
	parts := strings.Split(path, sep)
	if len(parts) < 4 {
		return path
	}
	// Keep the root (and drive) and the file name: enough to recognise a
	// path, too little to map the server.
	return strings.Join([]string{parts[0], parts[1], "…", parts[len(parts)-1]}, sep)
}
