package sarif

import (
	"regexp"
	"sort"
	"strings"

	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/sanitize"
	"github.com/agentready/agentready/report/internal/view"
)

// houseRuleFamily is the family of the configuration's house rules
// (checks.FamilyCustom, which a reporter does not import).
const houseRuleFamily = "custom"

// securitySeverity maps a security check's severity onto GitHub's 0.1–10
// scale: error is high, warning medium, info low.
var securitySeverity = map[finding.Severity]string{
	finding.SeverityError:   "8.0",
	finding.SeverityWarning: "5.5",
	finding.SeverityInfo:    "2.0",
}

// problemSeverity is GitHub's scale for rules that are not security rules.
var problemSeverity = map[finding.Severity]string{
	finding.SeverityError:   "error",
	finding.SeverityWarning: "warning",
	finding.SeverityInfo:    "recommendation",
}

// buildRules returns one rule per check that ran, sorted by ID, and the index
// of each ID. Checks that ran or fired without metadata in the report still
// get a rule, so that every result's ruleIndex is valid.
func buildRules(r *finding.Report) ([]Rule, map[string]int) {
	infos := map[string]finding.RuleInfo{}
	for _, ri := range r.Rules {
		infos[ri.ID] = ri
	}
	for _, c := range r.Checks {
		if _, ok := infos[c.ID]; !ok {
			infos[c.ID] = finding.RuleInfo{ID: c.ID, Family: c.Family, Severity: c.Severity}
		}
	}
	for _, f := range r.Findings {
		if _, ok := infos[f.CheckID]; !ok {
			infos[f.CheckID] = finding.RuleInfo{ID: f.CheckID, Family: f.Family, Severity: f.Severity, Security: f.Security}
		}
	}
	ids := make([]string, 0, len(infos))
	for id := range infos {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	rules := make([]Rule, 0, len(ids))
	index := make(map[string]int, len(ids))
	for i, id := range ids {
		index[id] = i
		rules = append(rules, rule(infos[id]))
	}
	return rules, index
}

func rule(ri finding.RuleInfo) Rule {
	id := view.NonEmpty(view.Line(ri.ID, 200), "unknown-check")
	title := view.NonEmpty(view.Line(ri.Title, maxDescription), id)
	sev := ri.Severity
	if sev == finding.SeverityNone {
		sev = finding.SeverityWarning
	}
	tags := []string{}
	if fam := view.Line(ri.Family, 100); strings.TrimSpace(fam) != "" {
		tags = append(tags, fam)
	}
	props := RuleProperties{
		Tags: tags,
		// Checks fire on observed HTTP evidence and are written to stay
		// silent when unsure, so their results are rarely wrong.
		Precision:       "high",
		ProblemSeverity: problemSeverity[sev],
	}
	if ri.Security {
		props.Tags = append(props.Tags, "security")
		props.SecuritySeverity = securitySeverity[sev]
	}
	for _, ref := range ri.SpecRefs {
		if c := view.Line(view.Clauses([]finding.SpecRef{ref}), 200); c != "" {
			props.Clauses = append(props.Clauses, c)
		}
	}
	return Rule{
		ID:                   id,
		Name:                 camel(id),
		ShortDescription:     Message{Text: title},
		FullDescription:      Message{Text: view.NonEmpty(fullDescription(ri), title)},
		HelpURI:              webURL(ri.DocsURL),
		Help:                 help(ri, title),
		DefaultConfiguration: Configuration{Level: level(sev)},
		Properties:           props,
	}
}

// camel turns "negotiation-head-status" into "NegotiationHeadStatus", the
// usual shape of a SARIF rule name.
func camel(id string) string {
	var b strings.Builder
	for _, part := range strings.FieldsFunc(id, func(r rune) bool { return r == '-' || r == '_' || r == '/' || r == ' ' }) {
		b.WriteString(strings.ToUpper(part[:1]))
		b.WriteString(part[1:])
	}
	if b.Len() == 0 {
		return "Check"
	}
	return b.String()
}

// fullDescription is the first paragraph of the help as plain text: the
// "why" of the check, bounded to GitHub's limit.
func fullDescription(ri finding.RuleInfo) string {
	para, _, _ := strings.Cut(strings.TrimSpace(strings.ReplaceAll(ri.Help, "\r\n", "\n")), "\n\n")
	para = strings.NewReplacer("`", "", "**", "").Replace(para)
	return view.Line(strings.Join(strings.Fields(para), " "), maxDescription)
}

// help is the check's documentation followed by its clauses and docs link,
// as text and as Markdown. Clause links are kept only when they are web URLs.
func help(ri finding.RuleInfo, title string) Help {
	body := strings.TrimSpace(view.Text(ri.Help, maxHelp))
	if body == "" {
		body = title
	}
	text, md := body, safeMarkdown(body)
	if ri.Family == houseRuleFamily {
		// A house rule's help is Markdown from a configuration, or from a
		// shard's report another job wrote: code scanning renders it in the
		// repository, so it shows as its literal text, with no image
		// fetched, no link, mention or HTML.
		md = sanitize.Markdown(body)
	}
	if clauses := view.Clauses(ri.SpecRefs); clauses != "" {
		text += "\n\nSpec: " + view.Line(clauses, maxValue)
		var links []string
		for _, ref := range ri.SpecRefs {
			label := mdEscape(view.Line(ref.String(), 200))
			if u := webURL(ref.URL); u != "" {
				label = "[" + label + "](" + mdURL(u) + ")"
			}
			if lvl := view.Line(ref.Level, 20); lvl != "" {
				label += " (" + mdEscape(lvl) + ")"
			}
			links = append(links, label)
		}
		md += "\n\n**Spec:** " + strings.Join(links, "; ")
	}
	if docs := webURL(ri.DocsURL); docs != "" {
		text += "\nDocs: " + docs
		md += "\n\n[Documentation](" + mdURL(docs) + ")"
	}
	return Help{Text: text, Markdown: md}
}

// mdEscape escapes the characters that would turn a clause label into
// Markdown syntax.
func mdEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, "[", `\[`, "]", `\]`, "*", `\*`, "_", `\_`, "`", "\\`", "<", "&lt;", ">", "&gt;").Replace(s)
}

// linkTarget finds the target of an inline Markdown link.
var linkTarget = regexp.MustCompile(`\]\(\s*<?([^)\s>]*)`)

// safeMarkdown keeps the help's Markdown but disarms what a hand-edited
// report could plant in it: raw HTML is escaped and links whose target is
// not a web URL lose their link syntax.
func safeMarkdown(s string) string {
	s = strings.NewReplacer("<", "&lt;", ">", "&gt;").Replace(s)
	return linkTarget.ReplaceAllStringFunc(s, func(m string) string {
		target := linkTarget.FindStringSubmatch(m)[1]
		if view.IsWebURL(target) {
			return m
		}
		return `\]\(` + strings.TrimPrefix(m, "](")
	})
}

// mdURL percent-encodes the parentheses that would end a Markdown link early.
func mdURL(u string) string { return strings.NewReplacer("(", "%28", ")", "%29").Replace(u) }
