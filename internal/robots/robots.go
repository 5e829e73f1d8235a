// Package robots parses robots.txt files (RFC 9309) and answers whether a
// user agent may fetch a path. It is pure and bounded: any input, however
// large or malformed, parses in linear time without panicking, and what it
// records about errors is capped.
package robots

import (
	"bytes"
	"strings"
	"unicode/utf8"
)

// ParseLimit is the size crawlers must at least parse (RFC 9309 §2.5: the
// limit a crawler imposes MUST be at least 500 kibibytes).
const ParseLimit = 500 << 10

// Bounds on what is kept from a hostile file.
const (
	MaxErrors      = 100
	maxErrorText   = 120
	maxPatternLen  = 4096
	maxMatchTarget = 8192
)

// File is a parsed robots.txt.
type File struct {
	Groups   []Group
	Sitemaps []Record
	// Signals are the Content-Signal records, at most MaxSignals.
	Signals []Signal
	// Errors are lines that are not records, rules outside any group and
	// user-agent lines without a product token; at most MaxErrors are kept
	// and ErrorCount counts them all.
	Errors     []Error
	ErrorCount int
	Lines      int
	// Truncated is set when the file was longer than ParseLimit: only what
	// every crawler is guaranteed to read was parsed.
	Truncated bool
}

// Group is one or more user-agent lines and the rules that follow them.
type Group struct {
	Agents []string
	Rules  []Rule
	Line   int // of the first user-agent line
}

// Rule is an allow or disallow line.
type Rule struct {
	Allow   bool
	Pattern string
	Line    int
}

// Record is another record, such as a Sitemap line.
type Record struct {
	Value string
	Line  int
}

// Signal is a Content-Signal record (Cloudflare's Content Signals Policy):
// a comma-separated list of key=value preferences.
type Signal struct {
	Value string
	Line  int
	// Group is the index in Groups of the group the record sits in, or -1
	// for a record before the first user-agent line.
	Group int
}

// MaxSignals bounds the Content-Signal records kept.
const MaxSignals = 100

// Error is a line that could not be used.
type Error struct {
	Line   int
	Text   string
	Reason string
}

// Parse reads the first ParseLimit bytes of a file. Lines end at LF, CR or
// CRLF; a UTF-8 byte order mark is skipped.
func Parse(body []byte) *File {
	f := &File{}
	if len(body) > ParseLimit {
		body, f.Truncated = body[:ParseLimit], true
	}
	body = bytes.TrimPrefix(body, []byte("\xef\xbb\xbf"))
	var cur *Group
	inAgents := false // the previous record was a user-agent line
	n := 0
	for len(body) > 0 {
		var line []byte
		line, body = nextLine(body)
		n++
		text := string(line)
		if i := strings.IndexByte(text, '#'); i >= 0 {
			text = text[:i]
		}
		text = strings.TrimSpace(text)
		if text == "" {
			continue
		}
		key, value, ok := strings.Cut(text, ":")
		if !ok {
			f.fail(n, string(line), "not a record: a line must be \"key: value\"")
			continue
		}
		key, value = strings.ToLower(strings.TrimSpace(key)), strings.TrimSpace(value)
		switch key {
		case "user-agent":
			if value == "" {
				f.fail(n, string(line), "user-agent without a product token")
				continue
			}
			if !inAgents || cur == nil {
				f.Groups = append(f.Groups, Group{Line: n})
				cur = &f.Groups[len(f.Groups)-1]
			}
			cur.Agents = append(cur.Agents, value)
			inAgents = true
		case "allow", "disallow":
			inAgents = false
			if cur == nil {
				f.fail(n, string(line), "rule before the first user-agent line: crawlers ignore it")
				continue
			}
			cur.Rules = append(cur.Rules, Rule{Allow: key == "allow", Pattern: value, Line: n})
		case "sitemap":
			// Other records do not end a group (§2.2.4).
			f.Sitemaps = append(f.Sitemaps, Record{Value: value, Line: n})
		case "content-signal":
			if len(f.Signals) < MaxSignals {
				f.Signals = append(f.Signals, Signal{Value: value, Line: n, Group: len(f.Groups) - 1})
			}
		default:
			if strings.ContainsAny(key, " \t") {
				f.fail(n, string(line), "not a record: the key contains spaces")
			}
		}
	}
	f.Lines = n
	return f
}

func nextLine(b []byte) (line, rest []byte) {
	i := bytes.IndexAny(b, "\r\n")
	if i < 0 {
		return b, nil
	}
	line, rest = b[:i], b[i+1:]
	if b[i] == '\r' && len(rest) > 0 && rest[0] == '\n' {
		rest = rest[1:]
	}
	return line, rest
}

func (f *File) fail(line int, text, reason string) {
	f.ErrorCount++
	if len(f.Errors) >= MaxErrors {
		return
	}
	if len(text) > maxErrorText {
		text = text[:maxErrorText]
		for !utf8.ValidString(text) {
			text = text[:len(text)-1]
		}
		text += "…"
	}
	f.Errors = append(f.Errors, Error{Line: line, Text: text, Reason: reason})
}

// GroupsFor returns the groups that apply to a crawler with product token
// agent: those naming it (case-insensitively), or else the "*" groups (§2.2.1).
func (f *File) GroupsFor(agent string) []*Group {
	var named, star []*Group
	for i := range f.Groups {
		g := &f.Groups[i]
		for _, a := range g.Agents {
			switch {
			case strings.EqualFold(a, agent):
				named = append(named, g)
			case a == "*":
				star = append(star, g)
			default:
				continue
			}
			break
		}
	}
	if len(named) > 0 {
		return named
	}
	return star
}

// Verdict says whether agent may fetch path, and the rule that decided, or
// nil when no rule matched. The longest matching pattern wins and an allow
// wins a tie (§2.2.2); /robots.txt itself is always allowed.
func (f *File) Verdict(agent, path string) (allowed bool, by *Rule) {
	if path == "/robots.txt" {
		return true, nil
	}
	var best *Rule
	for _, g := range f.GroupsFor(agent) {
		for i := range g.Rules {
			r := &g.Rules[i]
			if r.Pattern == "" || !Match(r.Pattern, path) {
				continue
			}
			if best == nil || len(r.Pattern) > len(best.Pattern) || (len(r.Pattern) == len(best.Pattern) && r.Allow && !best.Allow) {
				best = r
			}
		}
	}
	if best == nil {
		return true, nil
	}
	return best.Allow, best
}

// Match applies a rule pattern to a path: a prefix match where "*" matches
// any sequence and a final "$" anchors the end (§2.2.3). Over-long patterns
// and paths never match, which keeps the worst case bounded.
func Match(pattern, path string) bool {
	if len(pattern) > maxPatternLen || len(path) > maxMatchTarget {
		return false
	}
	anchored := strings.HasSuffix(pattern, "$")
	if anchored {
		pattern = pattern[:len(pattern)-1]
	} else {
		pattern += "*"
	}
	return wildcard(pattern, path)
}

// wildcard matches with "*" only, iteratively: on a mismatch it backtracks to
// the last star, so the cost is at most len(pattern)*len(s).
func wildcard(p, s string) bool {
	pi, si, star, mark := 0, 0, -1, 0
	for si < len(s) {
		switch {
		case pi < len(p) && p[pi] == '*':
			star, mark = pi, si
			pi++
		case pi < len(p) && p[pi] == s[si]:
			pi++
			si++
		case star >= 0:
			pi, mark = star+1, mark+1
			si = mark
		default:
			return false
		}
	}
	for pi < len(p) && p[pi] == '*' {
		pi++
	}
	return pi == len(p)
}

// AICrawlers are product tokens of crawlers and agents that fetch for AI
// products, as their operators document them. A group naming one of them is
// a deliberate statement about AI access worth recording.
var AICrawlers = []string{
	"Amazonbot", "anthropic-ai", "Applebot-Extended", "Bytespider", "CCBot",
	"ChatGPT-User", "Claude-SearchBot", "Claude-User", "ClaudeBot", "cohere-ai",
	"DuckAssistBot", "Google-Extended", "GPTBot", "meta-externalagent",
	"MistralAI-User", "OAI-SearchBot", "Perplexity-User", "PerplexityBot",
}

// IsAICrawler reports whether a product token is in AICrawlers.
func IsAICrawler(token string) bool {
	for _, a := range AICrawlers {
		if strings.EqualFold(a, token) {
			return true
		}
	}
	return false
}

// SignalKeys are the usage categories of the Content Signals Policy
// (draft-romm-aipref-contentsignals-00 §4). "use" appears in files the
// policy's author manages but is not defined there; it is accepted with
// any value.
var SignalKeys = []string{"search", "ai-input", "ai-train", "use"}

// Preference is one key=value of a Content-Signal record.
type Preference struct{ Key, Value string }

// ParsePreferences reads a Content-Signal value: comma-separated key=value
// pairs, keys case-insensitive, spaces allowed around "," and "=". It
// returns what parsed and, for the rest, why not.
func ParsePreferences(value string) (prefs []Preference, problems []string) {
	for _, part := range strings.Split(value, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		k, v, ok := strings.Cut(part, "=")
		k, v = strings.ToLower(strings.TrimSpace(k)), strings.ToLower(strings.TrimSpace(v))
		switch {
		case len(problems) >= MaxErrors:
		case !ok:
			problems = append(problems, clipText(part)+": not key=value")
		case !knownSignal(k):
			problems = append(problems, clipText(k)+": not a signal (search, ai-input, ai-train)")
		case k != "use" && v != "yes" && v != "no":
			problems = append(problems, k+"="+clipText(v)+": the value is yes or no")
		default:
			prefs = append(prefs, Preference{k, v})
		}
	}
	return prefs, problems
}

func knownSignal(k string) bool {
	for _, s := range SignalKeys {
		if k == s {
			return true
		}
	}
	return false
}

func clipText(s string) string {
	if len(s) <= maxErrorText {
		return s
	}
	s = s[:maxErrorText]
	for !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return s + "…"
}
