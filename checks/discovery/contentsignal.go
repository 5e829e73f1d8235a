package discovery

import (
	"context"
	"fmt"
	"strings"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/robots"
)

// The Content Signals Policy is a vendor policy; its vocabulary is an
// individual Internet-Draft, and neither says anything a site MUST do.
var (
	contentSignalsRef      = ref("Content Signals Policy", "robots.txt Content-Signal", "policy", "https://contentsignals.org/")
	contentSignalsVocabRef = ref("draft-romm-aipref-contentsignals-00", "4", "draft",
		"https://datatracker.ietf.org/doc/draft-romm-aipref-contentsignals/")
)

// ContentSignalSyntax reports Content-Signal lines whose preferences do not
// parse.
type ContentSignalSyntax struct{ plans }

func (ContentSignalSyntax) Meta() checks.Meta {
	return checks.Meta{
		ID: "discovery-content-signal-syntax", Family: checks.FamilyDiscovery, Severity: finding.SeverityInfo,
		Since:    checks.FirstRelease,
		Title:    "robots.txt Content-Signal lines parse",
		SpecRefs: []finding.SpecRef{contentSignalsRef, contentSignalsVocabRef, rfc9309("2.2.4", "MAY")},
		Help: `A ` + "`Content-Signal:`" + ` line in a robots.txt group states how the site's content may be
used once fetched: ` + "`search`" + `, ` + "`ai-input`" + ` (retrieval and grounding) and ` + "`ai-train`" + `, each
` + "`yes`" + ` or ` + "`no`" + ` (Content Signals Policy; labels in draft-romm-aipref-contentsignals-00
§4). A pair that does not parse (` + "`ai_train=no`" + `, ` + "`search=true`" + `) states nothing, and the
site's preference for that use is then "neither granted nor restricted". ` + "`use=`" + `, seen
in some managed files, is accepted. These are preferences, not access rules: no
crawler is bound by them, which is why a defect here is informational.

**How to fix:** write ` + "`Content-Signal: search=yes, ai-input=yes, ai-train=no`" + ` with the keys and
values above.`,
	}
}

func (c ContentSignalSyntax) Run(_ context.Context, in *checks.Input) ([]finding.Finding, error) {
	x, f, err := robotsSignals(in)
	if err != nil {
		return nil, err
	}
	var out []finding.Finding
	for _, s := range f.Signals {
		_, problems := robots.ParsePreferences(s.Value)
		if len(problems) == 0 {
			continue
		}
		ev := evidence(x)
		ev.Expected, ev.Actual = "search=yes|no, ai-input=yes|no, ai-train=yes|no", fmt.Sprintf("line %d: %s", s.Line, s.Value)
		out = append(out, checks.New(c.Meta(), checks.LineSubject(s.Line), fmt.Sprintf(
			"robots.txt line %d: Content-Signal %s", s.Line, strings.Join(problems, "; ")), ev))
	}
	return out, nil
}

// ContentSignalContradiction reports a group that grants a use in its
// Content-Signal while its rules disallow the whole site.
type ContentSignalContradiction struct{ plans }

func (ContentSignalContradiction) Meta() checks.Meta {
	return checks.Meta{
		ID: "discovery-content-signal-contradiction", Family: checks.FamilyDiscovery, Severity: finding.SeverityWarning,
		Since:    checks.FirstRelease,
		Title:    "Content-Signal grants no use that the same group's rules forbid",
		SpecRefs: []finding.SpecRef{contentSignalsRef, rfc9309("2.2.2", "MUST")},
		Help: `A group whose ` + "`Content-Signal`" + ` says ` + "`search=yes`" + ` (or another use ` + "`yes`" + `) while its
rules disallow every path (` + "`Disallow: /`" + `) says two opposite things to the same crawlers:
the content may be used, and it may not be fetched. Crawlers must guess, and the ones
that honour robots.txt never see what the signal grants.

**How to fix:** allow the paths whose use you grant, or set the signal to ` + "`no`" + `.`,
	}
}

func (c ContentSignalContradiction) Run(_ context.Context, in *checks.Input) ([]finding.Finding, error) {
	x, f, err := robotsSignals(in)
	if err != nil {
		return nil, err
	}
	var out []finding.Finding
	for _, s := range f.Signals {
		if s.Group < 0 {
			continue
		}
		g := &f.Groups[s.Group]
		rule := disallowsAll(g)
		if rule == nil {
			continue
		}
		prefs, _ := robots.ParsePreferences(s.Value)
		var granted []string
		for _, p := range prefs {
			if p.Value == "yes" {
				granted = append(granted, p.Key+"=yes")
			}
		}
		if len(granted) == 0 {
			continue
		}
		ev := evidence(x)
		ev.Expected = "no use granted to crawlers the group keeps out"
		ev.Actual = fmt.Sprintf("line %d: Content-Signal: %s; line %d: Disallow: %s", s.Line, s.Value, rule.Line, rule.Pattern)
		out = append(out, checks.New(c.Meta(), checks.LineSubject(s.Line), fmt.Sprintf(
			"robots.txt line %d grants %s to %s, whose group disallows every path (line %d: Disallow: %s)",
			s.Line, strings.Join(granted, ", "), strings.Join(g.Agents, ", "), rule.Line, rule.Pattern), ev))
	}
	return out, nil
}

// disallowsAll returns the rule by which a group keeps its crawlers out of
// every path, or nil when some path stays allowed.
func disallowsAll(g *robots.Group) *robots.Rule {
	var all *robots.Rule
	for i := range g.Rules {
		r := &g.Rules[i]
		if r.Allow && r.Pattern != "" {
			return nil
		}
		if !r.Allow && (r.Pattern == "/" || r.Pattern == "/*") && all == nil {
			all = r
		}
	}
	return all
}

// ContentSignalPlacement reports Content-Signal lines that sit in no
// user-agent group.
type ContentSignalPlacement struct{ plans }

func (ContentSignalPlacement) Meta() checks.Meta {
	return checks.Meta{
		ID: "discovery-content-signal-placement", Family: checks.FamilyDiscovery, Severity: finding.SeverityInfo,
		Since:    checks.FirstRelease,
		Title:    "robots.txt Content-Signal lines sit in a user-agent group",
		SpecRefs: []finding.SpecRef{contentSignalsRef, rfc9309("2.1", "MUST"), rfc9309("2.2.4", "MAY")},
		Help: `The Content Signals Policy places its ` + "`Content-Signal:`" + ` line in a robots.txt group, after
the ` + "`User-agent:`" + ` lines it speaks to (` + "`User-agent: *`" + ` for every crawler); the draft that names
its vocabulary (draft-romm-aipref-contentsignals-00) defines no other place. A line before
the first ` + "`User-agent:`" + ` line belongs to no group (RFC 9309 §2.1: a group starts with its
user-agent lines), so a crawler that reads the signal of the group it obeys finds none,
and the site's preference reaches no one. Crawlers differ on such lines: some read them as
applying to all, others drop them, which is why this is informational.

**How to fix:** move the line into the ` + "`User-agent: *`" + ` group, or into the group of each
crawler it is meant for.`,
	}
}

func (c ContentSignalPlacement) Run(_ context.Context, in *checks.Input) ([]finding.Finding, error) {
	x, f, err := robotsSignals(in)
	if err != nil {
		return nil, err
	}
	var out []finding.Finding
	for _, s := range f.Signals {
		if s.Group >= 0 {
			continue
		}
		ev := evidence(x)
		ev.Expected, ev.Actual = "Content-Signal inside a user-agent group", fmt.Sprintf("line %d: Content-Signal: %s, before the first User-agent line", s.Line, s.Value)
		out = append(out, checks.New(c.Meta(), checks.LineSubject(s.Line), fmt.Sprintf(
			"robots.txt line %d: Content-Signal comes before the first User-agent line, so it is in no group and no crawler is told to apply it", s.Line), ev))
	}
	return out, nil
}

// robotsSignals is robots.txt when it has Content-Signal lines, and the
// reason to skip otherwise.
func robotsSignals(in *checks.Input) (*exchange.Exchange, *robots.File, error) {
	x, f, err := robotsDoc(in)
	if err != nil {
		return nil, nil, err
	}
	if len(f.Signals) == 0 {
		return nil, nil, checks.Skip("robots.txt has no Content-Signal line")
	}
	return x, f, nil
}
