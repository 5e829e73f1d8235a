package discovery

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"sort"
	"strings"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/robots"
)

var rfc9309URL = "https://www.rfc-editor.org/rfc/rfc9309"

func rfc9309(section, level string) finding.SpecRef {
	return ref("RFC 9309", section, level, rfc9309URL+"#section-"+section)
}

var robotsKey = checks.NewKey[*robots.File]()

// robotsDoc is the robots.txt exchange and its parse, when there is a file
// to parse: a 2xx that is not an HTML catch-all page.
func robotsDoc(in *checks.Input) (*exchange.Exchange, *robots.File, error) {
	x := docRobots.fetched(in)
	switch {
	case x == nil:
		return nil, nil, checks.Skip("/robots.txt was not fetched")
	case x.Response == nil:
		return x, nil, checks.Skip("/robots.txt got no response: " + x.Err)
	case robotsNotKnown(x) != nil:
		return x, nil, robotsNotKnown(x)
	case !ok2xx(x):
		return x, nil, checks.Skip(fmt.Sprintf("/robots.txt answered %d: there is no file to read", x.Response.Status))
	case isHTML(x):
		return x, nil, checks.Skip("/robots.txt answered an HTML page, not a robots.txt file")
	case x.Response.Dropped:
		return x, nil, checks.Skip("the body of /robots.txt was not kept")
	}
	return x, checks.Memo(in, robotsKey, func() *robots.File { return robots.Parse(x.Response.Body) }), nil
}

// robotsNotKnown is the skip of a check of robots.txt whose answer says
// nothing of the file, nil otherwise: it stayed throttled after retrying
// (429, or 503 with Retry-After), or it was a server error. RFC 9309
// §2.3.1.4 has crawlers assume complete disallow then, but whether there is
// a file, and what it holds, is not known: the check is not assessed, and
// must not read as "no robots.txt" the way a 404 does.
func robotsNotKnown(x *exchange.Exchange) error {
	switch r := x.Response; {
	case r.Throttled():
		return checks.Skip(fmt.Sprintf("not assessed: /robots.txt answered %d and stayed throttled after retrying, so whether there is a file is not known", r.Status))
	case r.Status >= 500:
		return checks.Skip(fmt.Sprintf("not assessed: /robots.txt answered %d, a server error, so whether there is a file is not known", r.Status))
	}
	return nil
}

// RobotsUnreachable reports a robots.txt that answers 5xx, which RFC 9309
// tells crawlers to read as "disallow everything".
type RobotsUnreachable struct{ plans }

func (RobotsUnreachable) Meta() checks.Meta {
	return checks.Meta{
		ID: "discovery-robots-unreachable", Family: checks.FamilyDiscovery, Severity: finding.SeverityError,
		Since:    checks.FirstRelease,
		Title:    "robots.txt does not answer with a server error",
		SpecRefs: []finding.SpecRef{rfc9309("2.3.1.4", "MUST")},
		Help: `When ` + "`/robots.txt`" + ` answers with a 5xx status, RFC 9309 §2.3.1.4 says crawlers MUST
assume complete disallow: every path of the site is off-limits until the file
answers again. Agents and AI crawlers that respect the protocol stop at the door.

**How to fix:** serve ` + "`/robots.txt`" + ` with 200 and the rules you mean, or 404 if you
have none (a 4xx means "no restrictions"). Make sure the route never errors.`,
	}
}

func (c RobotsUnreachable) Run(_ context.Context, in *checks.Input) ([]finding.Finding, error) {
	x := docRobots.fetched(in)
	if x == nil || x.Response == nil {
		return nil, checks.Skip("/robots.txt was not fetched or got no response")
	}
	if x.Response.Status < 500 {
		// A 429 that stayed throttled hides whether the route errors.
		return nil, robotsNotKnown(x)
	}
	ev := evidence(x)
	ev.Expected, ev.Actual = "200 with rules, or 404", fmt.Sprint(x.Response.Status)
	ev.Excerpt = checks.Excerpt(x)
	return []finding.Finding{checks.New(c.Meta(), "", fmt.Sprintf(
		"/robots.txt answered %d; crawlers must then treat the whole site as disallowed", x.Response.Status), ev)}, nil
}

// RobotsForbidden reports a robots.txt behind 401 or 403.
type RobotsForbidden struct{ plans }

func (RobotsForbidden) Meta() checks.Meta {
	return checks.Meta{
		ID: "discovery-robots-forbidden", Family: checks.FamilyDiscovery, Severity: finding.SeverityWarning,
		Since:    checks.FirstRelease,
		Title:    "robots.txt is not behind 401 or 403",
		SpecRefs: []finding.SpecRef{rfc9309("2.3.1.3", "MAY")},
		Help: `A 401 or 403 on ` + "`/robots.txt`" + ` is "unavailable" under RFC 9309 §2.3.1.3: crawlers
MAY then access anything. Operators usually put the file behind authentication by
accident and expect the opposite, so whatever rules it holds are never applied.

**How to fix:** exempt ` + "`/robots.txt`" + ` from authentication and serve it to everyone.`,
	}
}

func (c RobotsForbidden) Run(_ context.Context, in *checks.Input) ([]finding.Finding, error) {
	x := docRobots.fetched(in)
	if x == nil || x.Response == nil {
		return nil, checks.Skip("/robots.txt was not fetched or got no response")
	}
	if s := x.Response.Status; s != http.StatusUnauthorized && s != http.StatusForbidden {
		return nil, robotsNotKnown(x)
	}
	ev := evidence(x, "WWW-Authenticate")
	ev.Expected, ev.Actual = "200 for everyone", fmt.Sprint(x.Response.Status)
	return []finding.Finding{checks.New(c.Meta(), "", fmt.Sprintf(
		"/robots.txt answered %d; crawlers read that as \"no restrictions\", so its rules are never applied", x.Response.Status), ev)}, nil
}

// RobotsSyntax reports lines crawlers cannot use, and records the groups that
// address AI crawlers as facts.
type RobotsSyntax struct{ plans }

func (RobotsSyntax) Meta() checks.Meta {
	return checks.Meta{
		ID: "discovery-robots-syntax", Family: checks.FamilyDiscovery, Severity: finding.SeverityWarning,
		Since:    checks.FirstRelease,
		Title:    "robots.txt parses without errors",
		SpecRefs: []finding.SpecRef{rfc9309("2.2", "MUST"), rfc9309("2.3.1.5", "MAY")},
		Help: `Every line of a robots.txt file is a ` + "`key: value`" + ` record, a comment or blank, and rules
belong to a group that starts with ` + "`user-agent`" + ` lines (RFC 9309 §2.2). Crawlers skip
what does not parse (§2.3.1.5), so a typo such as ` + "`Disalow /private`" + ` or a rule before
the first ` + "`user-agent`" + ` silently does nothing.

Groups that name AI crawlers by product token (GPTBot, ClaudeBot, …) are recorded as
observations of this check: they are decisions, not defects.

**How to fix:** correct the lines named in the finding.`,
	}
}

func (c RobotsSyntax) Run(_ context.Context, in *checks.Input) ([]finding.Finding, error) {
	x, f, err := robotsDoc(in)
	if err != nil {
		return nil, err
	}
	m := c.Meta()
	for _, g := range f.Groups {
		for _, a := range g.Agents {
			if robots.IsAICrawler(a) {
				in.Observe(m.ID, fmt.Sprintf("robots.txt line %d: group for %s with %s", g.Line, a, describeRules(g.Rules)))
			}
		}
	}
	if len(f.Errors) == 0 {
		return nil, nil
	}
	lines := make([]string, 0, 3)
	for _, e := range f.Errors[:min(3, len(f.Errors))] {
		lines = append(lines, fmt.Sprintf("line %d %q: %s", e.Line, e.Text, e.Reason))
	}
	msg := fmt.Sprintf("robots.txt has %d line(s) crawlers cannot use: %s", f.ErrorCount, strings.Join(lines, "; "))
	if f.ErrorCount > 3 {
		msg += "; …"
	}
	ev := evidence(x)
	ev.Expected, ev.Actual = "key: value records in user-agent groups", fmt.Sprintf("line %d: %s", f.Errors[0].Line, f.Errors[0].Text)
	return []finding.Finding{checks.New(m, "", msg, ev)}, nil
}

func describeRules(rules []robots.Rule) string {
	if len(rules) == 0 {
		return "no rules"
	}
	parts := make([]string, 0, 3)
	for _, r := range rules[:min(3, len(rules))] {
		verb := "disallow"
		if r.Allow {
			verb = "allow"
		}
		parts = append(parts, verb+" "+strings.TrimSpace(r.Pattern+" "))
	}
	if len(rules) > 3 {
		parts = append(parts, fmt.Sprintf("and %d more", len(rules)-3))
	}
	return strings.Join(parts, ", ")
}

// RobotsSize reports a file over the 500 KiB every crawler must read.
type RobotsSize struct{ plans }

func (RobotsSize) Meta() checks.Meta {
	return checks.Meta{
		ID: "discovery-robots-size", Family: checks.FamilyDiscovery, Severity: finding.SeverityWarning,
		Since:    checks.FirstRelease,
		Title:    "robots.txt fits in 500 KiB",
		SpecRefs: []finding.SpecRef{rfc9309("2.5", "MUST")},
		Help: `Crawlers may stop parsing robots.txt after 500 KiB (RFC 9309 §2.5 sets that as the
least limit they MUST accept). Rules past that point may be ignored by some and
applied by others.

**How to fix:** shorten the file: group user agents, use wildcards, drop stale rules.`,
	}
}

func (c RobotsSize) Run(_ context.Context, in *checks.Input) ([]finding.Finding, error) {
	x, _, err := robotsDoc(in)
	if err != nil {
		return nil, err
	}
	if x.Response.BodySize <= robots.ParseLimit {
		return nil, nil
	}
	ev := evidence(x, "Content-Length")
	ev.Expected, ev.Actual = fmt.Sprintf("at most %d bytes", robots.ParseLimit), fmt.Sprintf("%d bytes", x.Response.BodySize)
	return []finding.Finding{checks.New(c.Meta(), "", fmt.Sprintf(
		"robots.txt is %d bytes; crawlers may ignore everything after %d", x.Response.BodySize, robots.ParseLimit), ev)}, nil
}

// RobotsSitemap reports Sitemap lines that are not absolute URLs.
type RobotsSitemap struct{ plans }

func (RobotsSitemap) Meta() checks.Meta {
	return checks.Meta{
		ID: "discovery-robots-sitemap", Family: checks.FamilyDiscovery, Severity: finding.SeverityWarning,
		Since: checks.FirstRelease,
		Title: "robots.txt Sitemap lines are absolute URLs",
		SpecRefs: []finding.SpecRef{
			rfc9309("2.2.4", "MAY"),
			ref("Sitemaps protocol 0.9", "robots.txt", "MUST", "https://www.sitemaps.org/protocol.html#submit_robots"),
		},
		Help: `A ` + "`Sitemap:`" + ` line in robots.txt must give the full URL of the sitemap
(sitemaps.org); a relative path is not resolved by crawlers and the sitemap is
never found.

**How to fix:** write ` + "`Sitemap: https://example.com/sitemap.xml`" + `.`,
	}
}

func (c RobotsSitemap) Run(_ context.Context, in *checks.Input) ([]finding.Finding, error) {
	x, f, err := robotsDoc(in)
	if err != nil {
		return nil, err
	}
	var out []finding.Finding
	for _, s := range f.Sitemaps {
		if isAbsoluteHTTP(s.Value) {
			continue
		}
		ev := evidence(x)
		ev.Expected, ev.Actual = "an absolute http(s) URL", s.Value
		out = append(out, checks.New(c.Meta(), s.Value, fmt.Sprintf(
			"robots.txt line %d: Sitemap %q is not an absolute URL", s.Line, s.Value), ev))
	}
	return out, nil
}

// RobotsBlocksAdvertised reports rules that disallow paths the OpenAPI
// document, llms.txt or the agent card's interfaces advertise to agents.
type RobotsBlocksAdvertised struct{ plans }

func (RobotsBlocksAdvertised) Meta() checks.Meta {
	return checks.Meta{
		ID: "discovery-robots-blocks-advertised", Family: checks.FamilyDiscovery, Severity: finding.SeverityWarning,
		Since:    checks.FirstRelease,
		Title:    "robots.txt does not disallow what the site advertises to agents",
		SpecRefs: []finding.SpecRef{rfc9309("2.2.2", "MUST")},
		Help: `An OpenAPI document, an llms.txt or an A2A agent card interface that points agents at a
path, while robots.txt disallows that path for them (for ` + "`*`" + ` or an AI crawler it names),
sends two opposite messages. Agents that honour
robots.txt never call what you documented; the others conclude the rules mean nothing.

**How to fix:** allow the advertised paths for the user agents named in the finding,
or stop advertising them.`,
	}
}

func (c RobotsBlocksAdvertised) Run(_ context.Context, in *checks.Input) ([]finding.Finding, error) {
	x, f, err := robotsDoc(in)
	if err != nil {
		return nil, err
	}
	paths := advertisedPaths(in)
	if len(paths) == 0 {
		return nil, checks.Skip("no OpenAPI document, llms.txt or agent card advertises any path")
	}
	agents := namedAgents(f)
	var out []finding.Finding
	for _, p := range slices.SortedFunc(maps.Keys(paths), func(a, b advertised) int { return strings.Compare(a.path, b.path) }) {
		var blocked []string
		var rule *robots.Rule
		for _, a := range agents {
			if ok, by := f.Verdict(a, p.path); !ok {
				blocked = append(blocked, a)
				if rule == nil {
					rule = by
				}
			}
		}
		if len(blocked) == 0 {
			continue
		}
		ev := evidence(x)
		ev.Expected = "allow " + p.path
		ev.Actual = fmt.Sprintf("line %d: Disallow: %s", rule.Line, rule.Pattern)
		out = append(out, checks.New(c.Meta(), p.path, fmt.Sprintf(
			"robots.txt disallows %s (advertised by %s) for %s (line %d: Disallow: %s)",
			p.path, strings.Join(paths[p], " and "), strings.Join(blocked, ", "), rule.Line, rule.Pattern), ev))
	}
	return out, nil
}

type advertised struct{ path string }

// advertisedPaths maps each path agents are pointed at to who points there.
// OpenAPI path templates are made concrete with a placeholder segment, which
// is what a prefix rule such as "Disallow: /orders/" sees.
func advertisedPaths(in *checks.Input) map[advertised][]string {
	out := map[advertised][]string{}
	add := func(p, by string) {
		k := advertised{p}
		for _, b := range out[k] {
			if b == by {
				return
			}
		}
		out[k] = append(out[k], by)
	}
	if in.Spec != nil {
		base := ""
		if len(in.Spec.BasePaths) > 0 {
			base = strings.TrimSuffix(in.Spec.BasePaths[0], "/")
		}
		for _, op := range in.Spec.Operations {
			add(base+concretePath(op.PathTemplate), "the OpenAPI document")
		}
	}
	if x := docLLMs.fetched(in); x != nil {
		for _, l := range llmsLinks(in.Target, x) {
			if l.sameOrigin {
				add(exchange.PathOf(l.url), "llms.txt")
			}
		}
	}
	for _, card := range []document{docAgentCard, docAgentCardLegacy} {
		if x := card.fetched(in); x != nil {
			for _, l := range interfaceURLs(in.Target, x) {
				if l.sameOrigin {
					add(exchange.PathOf(l.url), "the agent card")
				}
			}
		}
	}
	return out
}

func concretePath(template string) string {
	var b strings.Builder
	depth := 0
	for _, r := range template {
		switch {
		case r == '{':
			if depth == 0 {
				b.WriteByte('0')
			}
			depth++
		case r == '}' && depth > 0:
			depth--
		case depth == 0:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// namedAgents are "*" and every product token the file names, sorted, so a
// rule is judged for every crawler it was written for.
func namedAgents(f *robots.File) []string {
	set := map[string]bool{"*": true}
	for _, g := range f.Groups {
		for _, a := range g.Agents {
			set[a] = true
		}
	}
	out := make([]string, 0, len(set))
	for a := range set {
		out = append(out, a)
	}
	sort.Strings(out)
	return out
}

func isAbsoluteHTTP(s string) bool {
	l := strings.ToLower(s)
	return (strings.HasPrefix(l, "http://") || strings.HasPrefix(l, "https://")) && len(s) > len("https://")
}

// RobotsMediaType reports a robots.txt served as something other than
// text/plain.
type RobotsMediaType struct{ plans }

func (RobotsMediaType) Meta() checks.Meta {
	return checks.Meta{
		ID: "discovery-robots-media-type", Family: checks.FamilyDiscovery, Severity: finding.SeverityError,
		Since:    checks.FirstRelease,
		Title:    "robots.txt is served as text/plain",
		SpecRefs: []finding.SpecRef{rfc9309("2.3", "MUST")},
		Help: `RFC 9309 §2.3: the robots.txt file MUST be UTF-8 encoded and of media type
` + "`text/plain`" + `. Crawlers and agent frameworks that check the type before parsing
discard a file labelled ` + "`application/octet-stream`" + `, ` + "`application/json`" + ` or nothing
at all, and then apply no rules. An HTML page at ` + "`/robots.txt`" + ` is read as a
catch-all page, not as a robots.txt file, unless its body is made of robots.txt
records.

**How to fix:** serve ` + "`/robots.txt`" + ` with ` + "`Content-Type: text/plain; charset=utf-8`" + `
(static file servers usually need only the ` + "`.txt`" + ` extension mapped).`,
	}
}

func (c RobotsMediaType) Run(_ context.Context, in *checks.Input) ([]finding.Finding, error) {
	x := docRobots.fetched(in)
	switch {
	case x == nil || x.Response == nil:
		return nil, checks.Skip("/robots.txt was not fetched or got no response")
	case robotsNotKnown(x) != nil:
		return nil, robotsNotKnown(x)
	case !ok2xx(x):
		return nil, checks.Skip(fmt.Sprintf("/robots.txt answered %d: there is no file to label", x.Response.Status))
	}
	mt := x.Response.MediaType()
	if mt == "text/plain" {
		return nil, nil
	}
	// An HTML answer is usually a catch-all page, which says the site has
	// no robots.txt; it is a mislabelled file only when its body is rules.
	if isHTML(x) && !robotsRecords(x) {
		return nil, checks.Skip("/robots.txt answered an HTML page, not a robots.txt file")
	}
	actual := mt
	if actual == "" {
		actual = "no Content-Type"
	}
	ev := evidence(x)
	ev.Header, ev.Expected, ev.Actual = "Content-Type", "text/plain", actual
	ev.Excerpt = checks.Excerpt(x)
	return []finding.Finding{checks.New(c.Meta(), actual, fmt.Sprintf(
		"/robots.txt answered %d with %s; RFC 9309 requires text/plain, and crawlers that check the type ignore the file's rules",
		x.Response.Status, actual), ev)}, nil
}

// robotsRecords reports a body whose every line is a robots.txt record, in
// at least one user-agent group.
func robotsRecords(x *exchange.Exchange) bool {
	if !x.Response.Whole() || len(x.Response.Body) == 0 {
		return false
	}
	f := robots.Parse(x.Response.Body)
	return len(f.Groups) > 0 && f.ErrorCount == 0
}
