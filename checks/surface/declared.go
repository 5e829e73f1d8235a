package surface

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/internal/agentskills"
	"github.com/agentready/agentready/checks/internal/purpose"
	"github.com/agentready/agentready/checks/internal/sitemap"
	"github.com/agentready/agentready/checks/internal/x402"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/urlx"
)

// maxSkillReferences bounds the operations one skill's text may name.
const maxSkillReferences = 200

// skillMethodPath is a "METHOD /path" in Markdown prose, where code spans
// and punctuation end the path.
var skillMethodPath = regexp.MustCompile("\\b(GET|HEAD|POST|PUT|PATCH|DELETE|OPTIONS) (/[^\\s\"'),;`]*)")

// skillEntries names the operations each skill of the Agent Skills index
// tells agents to call: every "METHOD /path" of its description and of the
// SKILL.md the scan fetched.
func skillEntries(in *checks.Input) ([]entry, string) {
	x := in.Probe(purpose.SkillsIndex, wellKnown(in.Target, agentskills.Path))
	if !usable(x) || !x.Response.Whole() {
		return nil, "no Agent Skills index was found"
	}
	ix, err := agentskills.ParseIndex(x.Response.Body)
	if err != nil {
		return nil, "the Agent Skills index does not parse"
	}
	base, _ := url.Parse(x.Request.URL)
	var out []entry
	for _, s := range ix.Skills {
		src, text := x, s.Description
		if ref, err := url.Parse(s.URL); err == nil && base != nil {
			if md := in.Probe(purpose.Skill, base.ResolveReference(ref).String()); usable(md) {
				src, text = md, text+"\n"+string(md.Response.Body)
			}
		}
		for _, m := range skillMethodPath.FindAllStringSubmatch(text, maxSkillReferences) {
			path := strings.TrimRight(m[2], ":.")
			e := entry{projection: ProjSkills, name: s.Name, reference: m[1] + " " + path, how: "METHOD /path",
				ev: checks.Evidence(src, nil, []string{"Content-Type"})}
			e.op = findOp(in.Spec, m[1], path)
			e.unknown = e.op == nil
			out = append(out, e)
		}
	}
	return out, ""
}

// sitemapEntries names the GET operations whose resources the fetched
// sitemaps list, by the path of each entry.
func sitemapEntries(in *checks.Input) ([]entry, string) {
	ix := in.Spec.Index()
	found := false
	var out []entry
	for x := range in.Recording.WithPurpose(purpose.Sitemap) {
		if !usable(x) || !x.Response.Whole() {
			continue
		}
		f, err := sitemap.Parse(x.Response.Body)
		if err != nil || f.Kind == sitemap.KindIndex {
			continue
		}
		found = true
		for _, e := range f.Entries {
			u, err := url.Parse(e.Loc)
			if err != nil || !urlx.SameOrigin(u, in.Target) {
				continue
			}
			if op := ix.Match(http.MethodGet, u.String()); op != nil {
				out = append(out, entry{projection: ProjSitemap, name: exchange.PathOf(u.String()), op: op, how: "path"})
			}
		}
	}
	if !found {
		return nil, "no sitemap was found"
	}
	return out, ""
}

// x402Entries names the operations that answered 402 with an x402
// challenge, by what the challenge asks (never reported, only shown:
// discovery-x402-challenge judges the challenge).
func x402Entries(in *checks.Input) ([]entry, string) {
	pcs := x402.PaymentChallenges(in)
	if len(pcs) == 0 {
		return nil, "no response answered 402 with an x402 challenge"
	}
	ix := in.Spec.Index()
	var out []entry
	for _, pc := range pcs {
		if op := ix.Match(pc.Exchange.Request.Method, pc.Exchange.Request.URL); op != nil {
			out = append(out, entry{projection: ProjX402, name: pc.Describe(), op: op, how: "402 answer"})
		}
	}
	return out, ""
}
