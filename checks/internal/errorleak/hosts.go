package errorleak

import (
	"net/netip"
	"regexp"
	"strconv"
	"strings"
)

var (
	ipv4Candidate = mustCompile(`\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}`)
	ipv6Candidate = mustCompile(`[0-9A-Fa-f]{0,4}(?::[0-9A-Fa-f]{0,4}){2,7}`)
	hostCandidate = mustCompile(`(?i)\b(?:[a-z0-9][a-z0-9-]*\.)+(?:localdomain|intranet|internal|local|corp|lan|svc)\b`)
	localhostPort = mustCompile(`(?i)\blocalhost:\d{1,5}\b`)
	portAfter     = regexp.MustCompile(`^:(\d{1,5})\b`)
	// Words that make a nearby address or name a host rather than a version
	// or a module name. "address", "remote" and "peer" are left out: they
	// often name the client's own address, echoed back ("your address
	// 192.168.1.50 is not allowed"), which leaks nothing.
	hostContext = regexp.MustCompile(`(?i)\b(?:host(?:name)?s?|upstream|server|connect(?:ion|ing|ed)?|dial(?:ing|ling)?|endpoint|backend|proxy|socket|tcp|udp|resolv(?:e|ed|ing)|lookup|reach|unreachable|refused|timed out|timeout|no route|getaddrinfo|econnrefused|etimedout|ehostunreach|enotfound|econnreset|database|redis|postgres(?:ql)?|mysql|mongodb|broker)\b`)
	// Words right before a dotted token that make it a version or a code
	// name whatever else is near.
	notHostBefore = regexp.MustCompile(`(?i)\b(?:version|ver|v|build|release|rev|module|package|namespace|class|import|named)[ \t]*[=:]?[ \t]*['"]?$`)
	urlBefore     = regexp.MustCompile(`(?i)[a-z][a-z0-9+.-]*://(?:[^\s/@]*@)?\[?$`)
)

// Names under these suffixes are internal on their own; the others are
// also common module and file names, and need context like IPv4.
var strongSuffixes = []string{".cluster.local", ".localdomain", ".intranet"}

const (
	contextBefore = 40
	contextAfter  = 24
	maxCandidates = 64
)

// findHost reports the first internal host in s that is not the requested
// host.
func findHost(s string, req request) (string, string, bool) {
	for _, find := range []func(string, request) (string, string, bool){findIPv4, findIPv6, findHostName, findLocalhost} {
		if what, excerpt, ok := find(s, req); ok {
			return what, excerpt, true
		}
	}
	return "", "", false
}

func findIPv4(s string, req request) (string, string, bool) {
	for _, loc := range ipv4Candidate.FindAllStringIndex(s, maxCandidates) {
		start, end := loc[0], loc[1]
		if start > 0 && isWordOrDot(s[start-1]) || end < len(s) && (isAlnum(s[end]) || s[end] == '.' && end+1 < len(s) && isAlnum(s[end+1])) {
			continue // part of a longer dotted token: a version, an OID
		}
		addr, err := netip.ParseAddr(s[start:end])
		if err != nil {
			continue
		}
		what := addressKind(addr)
		port := portOf(s, end)
		if what == "" || ownHost(addr.String(), port, req) {
			continue
		}
		inURL := urlBefore.MatchString(s[max(0, start-contextBefore):start])
		if what == "loopback address" && port == "" && !inURL {
			continue
		}
		if port == "" && !inURL && !nearHostWords(s, start, end) {
			continue
		}
		b := addr.As4()
		excerpt := strings.Join([]string{itoa(b[0]), itoa(b[1]), itoa(b[2]), "x"}, ".")
		return what, withPort(excerpt, port), true
	}
	return "", "", false
}

func findIPv6(s string, req request) (string, string, bool) {
	for _, loc := range ipv6Candidate.FindAllStringIndex(s, maxCandidates) {
		start, end := loc[0], loc[1]
		if start > 0 && (isWordOrDot(s[start-1]) || s[start-1] == ':') || end < len(s) && (isWordOrDot(s[end]) || s[end] == ':') {
			continue
		}
		addr, err := netip.ParseAddr(s[start:end])
		if err != nil || !addr.Is6() || addr.Is4In6() {
			continue
		}
		what := addressKind(addr)
		port := ""
		if end < len(s) && s[end] == ']' {
			port = portOf(s, end+1)
		}
		if what == "" || what == "loopback address" || ownHost(addr.String(), port, req) {
			continue
		}
		prefix, _ := addr.Prefix(64)
		return what, withPort(prefix.Addr().String()+"x", port), true
	}
	return "", "", false
}

func findHostName(s string, req request) (string, string, bool) {
	for _, loc := range hostCandidate.FindAllStringIndex(s, maxCandidates) {
		start, end := loc[0], loc[1]
		host := strings.ToLower(s[start:end])
		if !hostBoundaries(s, start, end) || strings.HasSuffix(host, ".svc") && strings.Count(host, ".") < 2 {
			continue // a path segment, a module, a WCF file (Orders.svc)
		}
		port := portOf(s, end)
		if ownHost(host, port, req) {
			continue
		}
		strong := false
		for _, suffix := range strongSuffixes {
			strong = strong || strings.HasSuffix(host, suffix)
		}
		inURL := start >= 2 && s[start-2:start] == "//" || urlBefore.MatchString(s[max(0, start-contextBefore):start])
		if !strong && port == "" && !inURL && !nearHostWords(s, start, end) {
			continue
		}
		_, rest, _ := strings.Cut(host, ".")
		return "internal host", withPort("x."+rest, port), true
	}
	return "", "", false
}

func findLocalhost(s string, req request) (string, string, bool) {
	for _, loc := range localhostPort.FindAllStringIndex(s, maxCandidates) {
		if loc[0] > 0 && (isWordOrDot(s[loc[0]-1]) || s[loc[0]-1] == '-') {
			continue
		}
		host, port, _ := strings.Cut(strings.ToLower(s[loc[0]:loc[1]]), ":")
		if ownHost(host, port, req) {
			continue
		}
		return "internal host", host + ":" + port, true
	}
	return "", "", false
}

// addressKind names an address a client outside the network has no use
// for, or returns "".
func addressKind(a netip.Addr) string {
	switch {
	case a.IsLoopback():
		return "loopback address"
	case a.IsPrivate():
		return "private IP address"
	case a.IsLinkLocalUnicast():
		return "link-local address"
	}
	return ""
}

// ownHost reports the requested host: it is where the client already is.
// All loopback names are one host; a port, when given, must match too.
func ownHost(host, port string, req request) bool {
	if req.host == "" {
		return false
	}
	same := host == req.host || isLoopback(host) && isLoopback(req.host)
	return same && (port == "" || port == req.port)
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	a, err := netip.ParseAddr(strings.Trim(host, "[]"))
	return err == nil && a.IsLoopback()
}

// hostBoundaries rules out a name inside a path (/x/Orders.local), a
// longer dotted name (app.settings.local.py) or an identifier.
func hostBoundaries(s string, start, end int) bool {
	if start > 0 {
		switch c := s[start-1]; {
		case c == '/':
			if start < 2 || s[start-2] != '/' {
				return false
			}
		case isWordOrDot(c) || c == '-' || c == '\\':
			return false
		}
	}
	if end < len(s) {
		c := s[end]
		if isAlnum(c) || c == '-' || c == '_' || c == '(' || (c == '.' && end+1 < len(s) && isAlnum(s[end+1])) {
			return false
		}
	}
	return true
}

// nearHostWords reports a host word on the same line close to s[start:end],
// and no word right before it that makes it a version or a module.
func nearHostWords(s string, start, end int) bool {
	before := s[max(0, start-contextBefore):start]
	if i := strings.LastIndexByte(before, '\n'); i >= 0 {
		before = before[i+1:]
	}
	if notHostBefore.MatchString(before) {
		return false
	}
	after := s[end:min(len(s), end+contextAfter)]
	if i := strings.IndexByte(after, '\n'); i >= 0 {
		after = after[:i]
	}
	return hostContext.MatchString(before) || hostContext.MatchString(after)
}

// portOf returns the port written right after s[:end], or "".
func portOf(s string, end int) string {
	if m := portAfter.FindStringSubmatch(s[end:min(len(s), end+7)]); m != nil {
		return m[1]
	}
	return ""
}

func withPort(host, port string) string {
	if port == "" {
		return host
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	return host + ":" + port
}

func isAlnum(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func isWordOrDot(c byte) bool { return isAlnum(c) || c == '_' || c == '.' }

func itoa(b byte) string { return strconv.Itoa(int(b)) }
