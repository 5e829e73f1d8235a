package exchange

//go:generate go run ./gitleaksgen -version v8.30.1 -o credentials_gitleaks.go

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// CredentialRule is a format of credential that is a secret wherever it
// appears: a live payment key, a cloud access key or a repository token in
// a response is exposed to whoever reads it, an agent's context and its
// logs included. Unlike Secrets, the values the scan itself sends, these
// are found by their format in what the server says, and the recording
// keeps in their place a placeholder (see RedactCredentials) that names
// the format, the first characters that say which kind of key it is, and
// the length: enough for a check to report the exposure again from the
// recording, nothing that could be replayed against the issuer.
//
// The expressions are gitleaks' own, generated into credentials_gitleaks.go
// from its rule file (config/gitleaks.toml of gitleaks v8.30.1, MIT
// licence; see NOTICE) for the rules gitleaksgen pins: those whose fixed
// prefix and length make a false match in ordinary text all but
// impossible. Rules that need an entropy threshold or a keyword nearby
// (generic API keys, passwords) are left out: they would flag identifiers
// and hashes. What is added here is where each is tried (its starts, which
// may be narrower than gitleaks' keywords: live Stripe keys, not test ones),
// the delimiter some end on (delimited), what a report may show, and the
// checks an expression cannot make (valid).
type CredentialRule struct {
	// ID is the gitleaks rule ID, which the placeholder and the findings
	// name.
	ID string
	// Name says what the credential is, for a report reader.
	Name string
	// starts are the literal strings a match begins with. The expression
	// is tried only where one occurs, anchored there and over at most span
	// bytes (the longest match and its closing delimiter), so that a text
	// pays for a rule only where it holds one of its starts, and most
	// bodies hold none.
	starts []string
	// firstStart is the bit of starts[0] in what startsIn returns; the
	// rule's other starts follow it.
	firstStart uint
	span       int
	// word marks a format that begins with a letter or digit: a match
	// preceded by one is inside a longer token, and is not one.
	word bool
	re   *regexp.Regexp
	// shown matches the start of a match that a report may show: the
	// format's fixed prefix, which says which kind of key it is and
	// nothing of the key itself.
	shown *regexp.Regexp
	// valid, when set, rejects a match the expression alone cannot: an
	// AWS documentation example, a JWT that is not signed.
	valid func(match string) bool
}

// jwtRuleID is the rule of signed JSON Web Tokens, the one format whose
// exposure depends on a date: a token is reported only while it is
// unexpired, and its placeholder keeps its expiry for that.
const jwtRuleID = "jwt"

// anchored compiles a rule's expression to match at the start of the text
// only: find places it where a start occurs.
func anchored(expr string) *regexp.Regexp { return regexp.MustCompile(`^(?:` + expr + `)`) }

// credentialRules are the formats searched for. Each expression is
// bounded at its end too, so that a longer token of another kind is not
// taken for one; an expression that must end on a delimiter, where \b
// would end a key at a hyphen, holds the credential in its first group.
var credentialRules = []CredentialRule{
	{ID: "stripe-access-token", Name: "Stripe live secret or restricted key",
		starts: []string{"sk_live_", "rk_live_"}, span: 108, word: true,
		re:    anchored(delimited(gitleaksRegex("stripe-access-token"))),
		shown: regexp.MustCompile(`^[a-z]{2}_live_`)},
	{ID: "aws-access-token", Name: "AWS access key ID",
		starts: []string{"AKIA", "ASIA", "ABIA", "ACCA"}, span: 21, word: true,
		re:    anchored(gitleaksRegex("aws-access-token")),
		shown: regexp.MustCompile(`^[A-Z]{4}`),
		// AWS's own documentation uses keys that end in EXAMPLE.
		valid: func(m string) bool { return !strings.HasSuffix(m, "EXAMPLE") }},
	{ID: "github-pat", Name: "GitHub personal access token",
		starts: []string{"ghp_"}, span: 41, word: true,
		re:    anchored(gitleaksRegex("github-pat")),
		shown: regexp.MustCompile(`^ghp_`)},
	{ID: "github-fine-grained-pat", Name: "GitHub fine-grained personal access token",
		starts: []string{"github_pat_"}, span: 94, word: true,
		re:    anchored(gitleaksRegex("github-fine-grained-pat")),
		shown: regexp.MustCompile(`^github_pat_`)},
	{ID: "github-oauth", Name: "GitHub OAuth access token",
		starts: []string{"gho_"}, span: 41, word: true,
		re:    anchored(gitleaksRegex("github-oauth")),
		shown: regexp.MustCompile(`^gho_`)},
	{ID: "github-app-token", Name: "GitHub App token",
		starts: []string{"ghu_", "ghs_"}, span: 41, word: true,
		re:    anchored(gitleaksRegex("github-app-token")),
		shown: regexp.MustCompile(`^gh[us]_`)},
	{ID: "github-refresh-token", Name: "GitHub refresh token",
		starts: []string{"ghr_"}, span: 41, word: true,
		re:    anchored(gitleaksRegex("github-refresh-token")),
		shown: regexp.MustCompile(`^ghr_`)},
	{ID: "gitlab-pat", Name: "GitLab personal access token",
		starts: []string{"glpat-"}, span: 27, word: true,
		re:    anchored(gitleaksRegex("gitlab-pat")),
		shown: regexp.MustCompile(`^glpat-`)},
	{ID: "slack-bot-token", Name: "Slack bot token",
		starts: []string{"xoxb-"}, span: 58, word: true,
		re:    anchored(gitleaksRegex("slack-bot-token")),
		shown: regexp.MustCompile(`^xoxb-`)},
	{ID: "slack-user-token", Name: "Slack user token",
		starts: []string{"xoxp-", "xoxe-"}, span: 83, word: true,
		re:    anchored(gitleaksRegex("slack-user-token")),
		shown: regexp.MustCompile(`^xox[pe]-`)},
	{ID: "slack-webhook-url", Name: "Slack incoming webhook URL",
		starts: []string{"hooks.slack.com/"}, span: 83, word: true,
		re:    anchored(gitleaksRegex("slack-webhook-url")),
		shown: regexp.MustCompile(`^hooks\.slack\.com/[a-z]+/`)},
	{ID: "gcp-api-key", Name: "Google API key",
		starts: []string{"AIza"}, span: 40, word: true,
		re:    anchored(delimited(gitleaksRegex("gcp-api-key"))),
		shown: regexp.MustCompile(`^AIza`)},
	{ID: "openai-api-key", Name: "OpenAI API key",
		starts: []string{"sk-"}, span: 169, word: true,
		re:    anchored(delimited(gitleaksRegex("openai-api-key"))),
		shown: regexp.MustCompile(`^sk-(?:proj-|svcacct-|admin-)?`)},
	{ID: "anthropic-api-key", Name: "Anthropic API key",
		starts: []string{"sk-ant-api03-"}, span: 112, word: true,
		re:    anchored(delimited(gitleaksRegex("anthropic-api-key"))),
		shown: regexp.MustCompile(`^sk-ant-api03-`)},
	{ID: "anthropic-admin-api-key", Name: "Anthropic Admin API key",
		starts: []string{"sk-ant-admin01-"}, span: 114, word: true,
		re:    anchored(delimited(gitleaksRegex("anthropic-admin-api-key"))),
		shown: regexp.MustCompile(`^sk-ant-admin01-`)},
	{ID: "sendgrid-api-token", Name: "SendGrid API key",
		starts: []string{"SG."}, span: 70, word: true,
		re:    anchored(delimited(gitleaksRegex("sendgrid-api-token"))),
		shown: regexp.MustCompile(`^SG\.`)},
	{ID: "npm-access-token", Name: "npm access token",
		starts: []string{"npm_"}, span: 41, word: true,
		re:    anchored(delimited(gitleaksRegex("npm-access-token"))),
		shown: regexp.MustCompile(`^npm_`)},
	{ID: "private-key", Name: "private key (PEM)",
		// The body is at least 64 characters: documentation that shows the
		// armour around "..." is not a key. Newlines may be escaped, as in
		// a JSON string. A key longer than span is not one agentready
		// recognises (RSA 8192 is some 6,400).
		starts: []string{"-----BEGIN", "-----begin"}, span: 16 << 10,
		re:    anchored(gitleaksRegex("private-key")),
		shown: regexp.MustCompile(`(?i)^-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----`)},
	{ID: jwtRuleID, Name: "signed JSON Web Token",
		starts: []string{"eyJ"}, span: 16 << 10, word: true,
		re:    anchored(delimited(gitleaksRegex("jwt"))),
		shown: regexp.MustCompile(`^eyJ`),
		valid: func(m string) bool { _, ok := jwtExpiry(m); return ok }},
}

// gitleaksRule is one rule of gitleaks' rule file, as gitleaksgen copies
// it into credentials_gitleaks.go.
type gitleaksRule struct {
	ID, Description, Regex string
	Keywords               []string
}

// gitleaksDelimiter ends gitleaks' expressions whose credential is their
// first group: a delimiter of a source file (a quote, a backquote, white
// space, a semicolon, an escaped line break) or the end.
const gitleaksDelimiter = `(?:[\x60'"\s;]|\\[nr]|$)`

// delimited ends a gitleaks expression on any byte that cannot continue the
// credential instead of gitleaks' delimiters, which were chosen for source
// files: in a response a key is as often followed by "<", ",", ")" or "}",
// and a key left unmatched there would stay in the recording unredacted.
func delimited(expr string) string {
	body, ok := strings.CutSuffix(expr, gitleaksDelimiter)
	if !ok {
		panic("exchange: gitleaks expression without its delimiter: " + expr)
	}
	return body + `(?:[^A-Za-z0-9_-]|$)`
}

// gitleaksRegex is the expression of gitleaks' rule id, which every rule of
// credentialRules names; a rule with no such entry is a programming error.
func gitleaksRegex(id string) string {
	for _, r := range gitleaksRules {
		if r.ID == id {
			return r.Regex
		}
	}
	panic("exchange: no generated gitleaks rule " + id)
}

// CredentialRuleByID is the rule of that ID, for a placeholder read back.
func CredentialRuleByID(id string) (CredentialRule, bool) {
	for _, r := range credentialRules {
		if r.ID == id {
			return r, true
		}
	}
	return CredentialRule{}, false
}

// Credential is one credential found in a text, or the placeholder that
// replaced it in a recording: which rule, what may be shown of it, how long
// it was and, for a JWT, when it expires.
type Credential struct {
	Rule   string
	Prefix string
	Length int
	// Expires is a JWT's exp claim in Unix seconds; 0 for other formats.
	Expires int64
	// Placeholder is set when the credential was read from a placeholder
	// rather than found whole.
	Placeholder bool
}

// placeholderTag begins every placeholder.
const placeholderTag = "agentready-redacted:"

// placeholder is what replaces c in a recording:
// "agentready-redacted:RULE:PREFIX:LENGTH", with ":exp=UNIX" for a JWT.
// It matches no rule, so scrubbing it again changes nothing.
func (c Credential) placeholder() string {
	s := placeholderTag + c.Rule + ":" + c.Prefix + ":" + strconv.Itoa(c.Length)
	if c.Expires != 0 {
		s += ":exp=" + strconv.FormatInt(c.Expires, 10)
	}
	return s
}

// placeholderRE reads placeholders back. A prefix holds no colon, quote,
// backslash or line break, which keeps it inside one JSON string or
// header value.
var placeholderRE = regexp.MustCompile(`agentready-redacted:([a-z0-9-]{1,40}):([^:\r\n"'<>\\]{1,120}):([0-9]{1,7})(?::exp=([0-9]{1,12}))?`)

// maxCredentials bounds what one text yields: a hostile body could repeat a
// key a million times, and one finding says as much as a thousand.
const maxCredentials = 64

// FindCredentials returns the credentials in b, found whole or read from
// their placeholders, in the order they occur.
func FindCredentials(b []byte) []Credential {
	type at struct {
		pos int
		c   Credential
	}
	var found []at
	for _, m := range findCredentials(b) {
		found = append(found, at{m.start, m.c})
	}
	if bytes.Contains(b, []byte(placeholderTag)) {
		for _, m := range placeholderRE.FindAllSubmatchIndex(b, maxCredentials) {
			rule := string(b[m[2]:m[3]])
			if _, ok := CredentialRuleByID(rule); !ok {
				continue
			}
			n, _ := strconv.Atoi(string(b[m[6]:m[7]]))
			c := Credential{Rule: rule, Prefix: string(b[m[4]:m[5]]), Length: n, Placeholder: true}
			if m[8] >= 0 {
				c.Expires, _ = strconv.ParseInt(string(b[m[8]:m[9]]), 10, 64)
			}
			found = append(found, at{m[0], c})
		}
	}
	slices.SortStableFunc(found, func(a, b at) int { return a.pos - b.pos })
	out := make([]Credential, 0, len(found))
	for _, f := range found[:min(len(found), maxCredentials)] {
		out = append(out, f.c)
	}
	return out
}

// credentialMatch is a credential found whole, at b[start:end].
type credentialMatch struct {
	start, end int
	c          Credential
}

// findCredentials finds the credentials in b, disjoint, in order; where
// two rules match overlapping text the earlier match wins. The expressions
// read at most a few times the text where nothing matches: a hostile body
// that repeats every start without a credential is not read for long, and
// past that budget the rest of b is not searched for that rule, the same
// way on every run.
func findCredentials(b []byte) []credentialMatch {
	var out []credentialMatch
	budget := 4*len(b) + 1<<18
	present := startsIn(b)
	if present == 0 {
		return nil
	}
	for _, r := range credentialRules {
		out = append(out, r.find(b, &budget, present)...)
	}
	slices.SortStableFunc(out, func(a, b credentialMatch) int { return a.start - b.start })
	kept := out[:0]
	for _, m := range out {
		if len(kept) > 0 && m.start < kept[len(kept)-1].end {
			continue
		}
		kept = append(kept, m)
	}
	return kept
}

// startByFirstByte lists, for each byte, the starts of every rule that
// begin with it, each with its bit (CredentialRule.firstStart).
var startByFirstByte = func() (out [256][]credentialStart) {
	bit := uint(0)
	for i := range credentialRules {
		credentialRules[i].firstStart = bit
		for _, s := range credentialRules[i].starts {
			out[s[0]] = append(out[s[0]], credentialStart{[]byte(s), 1 << bit})
			bit++
		}
	}
	if bit > 64 {
		panic("exchange: more credential starts than startsIn has bits")
	}
	return out
}()

// startPairs holds, one bit per pair of bytes, the first two bytes of every
// start: several starts begin with a letter common in text (s, e, h, n),
// but few text positions hold both of a start's first two bytes, so
// startsIn compares whole starts only there.
var startPairs = func() (out [1 << 16 / 64]uint64) {
	for i := range credentialRules {
		for _, s := range credentialRules[i].starts {
			if len(s) < 2 {
				panic("exchange: a credential start of fewer than two bytes")
			}
			pair := uint16(s[0])<<8 | uint16(s[1])
			out[pair>>6] |= 1 << (pair & 63)
		}
	}
	return out
}()

type credentialStart struct {
	text []byte
	bit  uint64
}

// startsIn returns the set of starts that occur in b, one bit each: one
// pass over b in place of a search of b for each start, since most bodies
// hold none and a start's first byte is common in text.
func startsIn(b []byte) uint64 {
	var present uint64
	for i := 1; i < len(b); i++ {
		pair := uint16(b[i-1])<<8 | uint16(b[i])
		if startPairs[pair>>6]&(1<<(pair&63)) == 0 {
			continue
		}
		for _, s := range startByFirstByte[b[i-1]] {
			if present&s.bit == 0 && bytes.HasPrefix(b[i-1:], s.text) {
				present |= s.bit
			}
		}
	}
	return present
}

// find tries r's expression at each of its starts in b that present holds
// (startsIn), charging budget what a failed try may have read.
func (r CredentialRule) find(b []byte, budget *int, present uint64) []credentialMatch {
	var out []credentialMatch
	for j, start := range r.starts {
		if present&(1<<(r.firstStart+uint(j))) == 0 {
			continue
		}
		for at := 0; ; {
			i := bytes.Index(b[at:], []byte(start))
			if i < 0 {
				break
			}
			from := at + i
			at = from + 1
			if r.word && from > 0 && wordByte(b[from-1]) {
				continue
			}
			window := b[from:min(len(b), from+r.span)]
			m := r.re.FindSubmatchIndex(window)
			if m == nil {
				if *budget -= len(window); *budget < 0 {
					break
				}
				continue
			}
			end := from + m[1]
			if len(m) >= 4 && m[2] >= 0 {
				end = from + m[3]
			}
			at = end
			s := string(b[from:end])
			if r.valid != nil && !r.valid(s) {
				continue
			}
			c := Credential{Rule: r.ID, Prefix: r.shown.FindString(s), Length: len(s)}
			if r.ID == jwtRuleID {
				c.Expires, _ = jwtExpiry(s)
			}
			out = append(out, credentialMatch{from, end, c})
		}
	}
	return out
}

// wordByte reports a byte that \b counts as part of a word.
func wordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}

// RedactCredentials returns b with each credential found whole replaced
// with its placeholder, and how many were; b itself when none was.
func RedactCredentials(b []byte) ([]byte, int) {
	ms := findCredentials(b)
	if len(ms) == 0 {
		return b, 0
	}
	out := make([]byte, 0, len(b))
	at := 0
	for _, m := range ms {
		out = append(append(out, b[at:m.start]...), m.c.placeholder()...)
		at = m.end
	}
	return append(out, b[at:]...), len(ms)
}

// RedactResponseCredentials replaces the credentials a response carries,
// in its header values and its body, with their placeholders, so that
// the recording, and everything made from it, never holds one. The
// request is the user's own and is left as it is (its credentials are
// Secrets). It counts the credentials replaced.
func RedactResponseCredentials(x *Exchange) int {
	if x == nil || x.Response == nil {
		return 0
	}
	r := x.Response
	total := 0
	for name, vs := range r.Header {
		for i, v := range vs {
			if red, n := RedactCredentials([]byte(v)); n > 0 {
				r.Header[name][i], total = string(red), total+n
			}
		}
	}
	if first := r.Replaced; first != nil {
		for name, vs := range first.Header {
			for i, v := range vs {
				if red, n := RedactCredentials([]byte(v)); n > 0 {
					first.Header[name][i], total = string(red), total+n
				}
			}
		}
	}
	var n int
	r.Body, n = RedactCredentials(r.Body)
	total += n
	if a := x.AfterHead; a != nil {
		a.Bytes, n = RedactCredentials(a.Bytes)
		total += n
	}
	return total
}

// jwtExpiry reads a compact JWS: a header naming a signing algorithm
// other than "none", a payload with a numeric exp, and a signature. It
// returns exp, in Unix seconds, and whether s is such a token. A token
// without exp is not reported: documentation's sample tokens have none,
// and whether it is still accepted cannot be told.
func jwtExpiry(s string) (int64, bool) {
	parts := strings.Split(s, ".")
	if len(parts) != 3 || parts[2] == "" {
		return 0, false
	}
	var header struct {
		Alg string `json:"alg"`
	}
	if !decodeJWTPart(parts[0], &header) || header.Alg == "" || strings.EqualFold(header.Alg, "none") {
		return 0, false
	}
	var claims struct {
		Exp json.Number `json:"exp"`
	}
	if !decodeJWTPart(parts[1], &claims) {
		return 0, false
	}
	exp, err := claims.Exp.Float64()
	if err != nil || exp <= 0 || exp > 1e12 {
		return 0, false
	}
	return int64(exp), true
}

func decodeJWTPart(part string, v any) bool {
	raw, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(part, "="))
	if err != nil {
		return false
	}
	return json.Unmarshal(raw, v) == nil
}

// String describes c as evidence may: the prefix and the length, never
// the credential.
func (c Credential) String() string {
	return fmt.Sprintf("%s…, %d characters", c.Prefix, c.Length)
}
