package config

import (
	"errors"
	"fmt"
	"maps"
	"net/url"
	"path"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/agentready/agentready/internal/finding"
)

// Known is what the file may name: the check IDs and families of this build.
type Known struct {
	Checks   []string
	Families []string
}

// Ignore leaves matching findings out of the report's findings and the gate.
// Every narrowing field that is set must match.
type Ignore struct {
	Check     string `yaml:"check" names:"checks" doc:"ID of the check whose findings are ignored."`
	URL       string `yaml:"url,omitempty" doc:"Only findings on URLs whose path matches this pattern (path.Match syntax; a trailing * or /** matches any suffix). An absolute URL pattern also pins the origin."`
	Operation string `yaml:"operation,omitempty" doc:"Only findings on this OpenAPI operation: its operationId, or METHOD and path template (GET /orders/{id})."`
	Tool      string `yaml:"tool,omitempty" doc:"Only findings about this MCP tool."`
	Reason    string `yaml:"reason" doc:"Why the findings are accepted; shown in the report."`
	Expires   string `yaml:"expires,omitempty" format:"date" doc:"Last day (YYYY-MM-DD, UTC) the ignore applies; from the next day its findings count again and the report says so."`
}

// dateLayout is the format of Ignore.Expires.
const dateLayout = "2006-01-02"

// ExpiresAt is the first instant the ignore no longer applies; ok is false
// when it never expires.
func (ig Ignore) ExpiresAt() (at time.Time, ok bool) {
	if ig.Expires == "" {
		return time.Time{}, false
	}
	d, err := time.Parse(dateLayout, ig.Expires)
	if err != nil {
		return time.Time{}, false
	}
	return d.AddDate(0, 0, 1), true
}

// Expired reports whether the ignore has stopped applying at now.
func (ig Ignore) Expired(now time.Time) bool {
	at, ok := ig.ExpiresAt()
	return ok && !now.Before(at)
}

// Validate checks what Parse cannot: names of checks and families, required
// fields, severities, dates, patterns, durations and URLs. It reports every
// problem at once.
func (f *File) Validate(k Known) error {
	var errs []error
	add := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }
	k.Checks = append(slices.Clone(k.Checks), f.RuleCheckIDs()...)
	for _, id := range slices.Sorted(maps.Keys(f.Checks)) {
		if msg := unknownName("check", id, k.Checks); msg != "" {
			add("checks.%s: %s", id, msg)
		}
		if _, err := finding.ParseSeverity(f.Checks[id]); err != nil {
			add("checks.%s: %q: want error, warning, info or off", id, f.Checks[id])
		}
	}
	for _, fam := range slices.Sorted(maps.Keys(f.Families)) {
		if msg := unknownName("family", fam, k.Families); msg != "" {
			add("families.%s: %s", fam, msg)
		}
	}
	for i, ig := range f.Ignores {
		for _, msg := range ig.problems(k) {
			add("ignores[%d]: %s", i, msg)
		}
	}
	errs = append(errs, f.validateRuleIDs()...)
	errs = append(errs, validateIdentities(f.Identities, "identities")...)
	if msg := f.TLS.problem(); msg != "" {
		add("tls: %s", msg)
	}
	errs = append(errs, f.validateTargets()...)
	errs = append(errs, f.validateScalars()...)
	return errors.Join(errs...)
}

func (ig Ignore) problems(k Known) []string {
	var out []string
	switch {
	case ig.Check == "":
		out = append(out, "check is required")
	default:
		if msg := unknownName("check", ig.Check, k.Checks); msg != "" {
			out = append(out, "check: "+msg)
		}
	}
	if strings.TrimSpace(ig.Reason) == "" {
		out = append(out, "reason is required: say why these findings are accepted")
	}
	if ig.Expires != "" {
		if _, err := time.Parse(dateLayout, ig.Expires); err != nil {
			out = append(out, fmt.Sprintf("expires %q: want a date YYYY-MM-DD", ig.Expires))
		}
	}
	if ig.URL != "" {
		if msg := patternProblem(ig.URL); msg != "" {
			out = append(out, "url "+msg)
		}
	}
	return out
}

// patternProblem validates an ignore's URL pattern.
func patternProblem(p string) string {
	pathPattern := p
	if strings.Contains(p, "://") {
		u, err := url.Parse(p)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Sprintf("%q: want a path pattern (/orders/*) or an absolute http(s) URL pattern", p)
		}
		pathPattern = u.Path
	}
	if !strings.HasPrefix(pathPattern, "/") {
		return fmt.Sprintf("%q: a path pattern starts with /", p)
	}
	if _, err := path.Match(pathPattern, ""); err != nil {
		return fmt.Sprintf("%q: %v", p, err)
	}
	return ""
}

var (
	envName    = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	headerName = regexp.MustCompile("^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")
)

func validateIdentities(ids []Identity, key string) []error {
	var errs []error
	seen := map[string]bool{}
	for i, id := range ids {
		where := fmt.Sprintf("%s[%d]", key, i)
		switch {
		case id.Name == "":
			errs = append(errs, fmt.Errorf("%s: name is required", where))
		case seen[id.Name]:
			errs = append(errs, fmt.Errorf("%s: name %q is used twice", where, id.Name))
		}
		seen[id.Name] = true
		if id.OAuth != nil {
			errs = append(errs, id.validateOAuth(where)...)
			continue
		}
		switch {
		case id.Env == "":
			errs = append(errs, fmt.Errorf("%s: env is required: the NAME of the environment variable holding the credential (or oauth)", where))
		case !envName.MatchString(id.Env):
			// Whatever is here is not a variable name; it may be the secret
			// itself, so it is not echoed.
			errs = append(errs, fmt.Errorf("%s: env must be the name of an environment variable (letters, digits, _), not a credential; put the secret in that variable", where))
		}
		if id.Header != "" && !headerName.MatchString(id.Header) {
			errs = append(errs, fmt.Errorf("%s: header %q is not a valid header name", where, id.Header))
		}
		if strings.ContainsAny(id.Scheme, "\r\n\t ") {
			errs = append(errs, fmt.Errorf("%s: scheme must be one word, e.g. Bearer", where))
		}
	}
	return errs
}

func (id Identity) validateOAuth(where string) []error {
	var errs []error
	if id.Env != "" || id.Header != "" || id.Scheme != "" {
		errs = append(errs, fmt.Errorf("%s: give either oauth or env (with header and scheme), not both", where))
	}
	for _, msg := range id.OAuth.Problems() {
		errs = append(errs, fmt.Errorf("%s: oauth: %s", where, msg))
	}
	return errs
}

// Problems are what keeps the grant from being sent; they never quote the
// client secret.
func (o OAuth) Problems() []string {
	var out []string
	if !isHTTPURL(o.TokenURL) {
		out = append(out, "token-url: want an absolute http or https URL")
	}
	if o.ClientID == "" {
		out = append(out, "client-id is required")
	}
	if !IsSecretRef(o.ClientSecret) {
		// Whatever is here may be the secret itself: not echoed.
		out = append(out, "client-secret must be env:VAR or file:PATH, never the secret itself")
	}
	if o.Auth != "" && o.Auth != "client_secret_basic" && o.Auth != "client_secret_post" {
		out = append(out, fmt.Sprintf("auth %q: want client_secret_basic or client_secret_post", o.Auth))
	}
	return out
}

func (f *File) validateScalars() []error {
	var errs []error
	add := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }
	for key, u := range map[string]string{"target": f.Target, "mcp": f.MCP} {
		if u != "" && !isHTTPURL(u) {
			add("%s %q: want an absolute http or https URL", key, u)
		}
	}
	if f.Gate.FailOn != "" {
		if _, err := finding.ParseSeverity(f.Gate.FailOn); err != nil {
			add("gate.fail-on: %v", err)
		}
	}
	if f.Gate.FailOnTrial != "" {
		if _, err := finding.ParseSeverity(f.Gate.FailOnTrial); err != nil {
			add("gate.fail-on-trial: %v", err)
		}
	}
	if _, err := finding.ParseFailOnDrift(f.Gate.FailOnDrift); err != nil {
		add("gate.fail-on-drift: %v", err)
	}
	if f.Gate.FailUnder != "" {
		if _, err := finding.ParseFailUnder(f.Gate.FailUnder); err != nil {
			add("gate.fail-under: %v", err)
		}
	}
	if m := f.Gate.MinCoverage; m != nil && (*m < 0 || *m > 100) {
		add("gate.min-coverage: %d: want a percentage from 0 to 100", *m)
	}
	l := f.Limits
	for key, v := range map[string]*int{"limits.max-pages": l.MaxPages, "limits.concurrency": l.Concurrency, "limits.max-links-per-page": l.MaxLinks} {
		if v != nil && *v < 1 {
			add("%s: must be at least 1", key)
		}
	}
	if l.MaxDepth != nil && *l.MaxDepth < 0 {
		add("limits.max-depth: must not be negative")
	}
	if l.Rate != nil && *l.Rate < 0 {
		add("limits.rate: must not be negative")
	}
	if v := l.TwinHeadings; v != nil && (*v < 0 || *v > 1) {
		add("limits.twin-min-heading-overlap: %g: want a Jaccard index from 0 to 1", *v)
	}
	if v := l.TwinLinks; v != nil && *v < 0 {
		add("limits.twin-max-link-differences: must not be negative")
	}
	sizes := map[string]*int64{"limits.max-body": l.MaxBody, "limits.max-spec-size": l.MaxSpecSize, "limits.max-recording-size": l.MaxRecordingSize}
	for _, key := range slices.Sorted(maps.Keys(sizes)) {
		if v := sizes[key]; v != nil && *v < 1 {
			add("%s: must be at least 1", key)
		}
	}
	durations := map[string]string{"limits.timeout": l.Timeout, "limits.budget": l.Budget}
	if s := f.Start; s != nil {
		if strings.TrimSpace(s.Command) == "" {
			add("start.command is required")
		}
		durations["start.ready-timeout"] = s.ReadyTimeout
		durations["start.grace"] = s.Grace
		for _, k := range slices.Sorted(maps.Keys(s.Env)) {
			if !envName.MatchString(k) {
				add("start.env: %q is not a valid variable name", k)
			}
		}
	}
	for _, key := range slices.Sorted(maps.Keys(durations)) {
		if v := durations[key]; v != "" {
			if d, err := time.ParseDuration(v); err != nil || d <= 0 {
				add("%s %q: want a positive duration such as 10s or 2m", key, v)
			}
		}
	}
	slices.SortFunc(errs, func(a, b error) int { return strings.Compare(a.Error(), b.Error()) })
	return errs
}

func isHTTPURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

// unknownName returns "" when name is among known, else the error text with
// a "did you mean" hint.
func unknownName(kind, name string, known []string) string {
	if slices.Contains(known, name) {
		return ""
	}
	msg := fmt.Sprintf("unknown %s %q", kind, name)
	if s := Suggest(name, known); s != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", s)
	} else {
		msg += " (run 'agentready checks' for the list)"
	}
	return msg
}

// problem says what is wrong with a tls: section, or "": a client
// certificate is of no use without its key, and a target's key alone would
// be paired with another target's certificate.
func (t TLS) problem() string {
	if (t.Cert == "") != (t.Key == "") {
		return "cert and key go together: give both the client certificate and its key"
	}
	return ""
}
