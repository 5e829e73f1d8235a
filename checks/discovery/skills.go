package discovery

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/internal/agentskills"
	"github.com/agentready/agentready/checks/internal/purpose"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
)

// maxSkillFetches bounds the SKILL.md files fetched.
const maxSkillFetches = 5

const skillsRFCURL = "https://github.com/cloudflare/agent-skills-discovery-rfc"

func skillsRef(section, level string) finding.SpecRef {
	return ref("Agent Skills Discovery RFC v0.2.0 (vendor draft)", section, level, skillsRFCURL)
}

// parsedSkillsIndex is the skills index as read, or why it could not be.
type parsedSkillsIndex struct {
	ix  *agentskills.Index
	err error
}

var skillsIndexKey = checks.NewKey[parsedSkillsIndex]()

// skillsIndex is the index exchange and its parse, when the site serves one.
func skillsIndex(in *checks.Input) (*exchange.Exchange, *agentskills.Index, error, error) {
	x := docSkills.fetched(in)
	switch {
	case x == nil || x.Response == nil:
		return nil, nil, nil, checks.Skip(agentskills.Path + " was not fetched or got no response")
	case !ok2xx(x):
		return nil, nil, nil, checks.Skip(fmt.Sprintf("%s answered %d: the site publishes no skills index", agentskills.Path, x.Response.Status))
	case isHTML(x):
		return nil, nil, nil, checks.Skip(agentskills.Path + " answered an HTML page, not an index")
	case !x.Response.Whole():
		return nil, nil, nil, checks.Skip("the body of " + agentskills.Path + " was cut or not kept")
	}
	p := checks.Memo(in, skillsIndexKey, func() parsedSkillsIndex {
		ix, err := agentskills.ParseIndex(x.Response.Body)
		return parsedSkillsIndex{ix, err}
	})
	return x, p.ix, p.err, nil
}

// skillURLs are the same-origin SKILL.md URLs of an index, resolved against
// it, each with its entry.
func skillURLs(target *url.URL, x *exchange.Exchange, ix *agentskills.Index) map[string]agentskills.Skill {
	out := map[string]agentskills.Skill{}
	if ix == nil {
		return out
	}
	for _, s := range ix.Skills {
		if s.Type != "skill-md" || s.URL == "" {
			continue
		}
		for _, l := range resolve(target, x.Request.URL, []string{s.URL}) {
			if l.sameOrigin && len(out) < maxSkillFetches {
				out[l.url] = s
			}
		}
	}
	return out
}

func planSkills(target *url.URL, byPurpose map[string][]*exchange.Exchange) []exchange.PlannedRequest {
	var out []exchange.PlannedRequest
	for _, x := range byPurpose[purpose.SkillsIndex] {
		if !ok2xx(x) || isHTML(x) || !x.Response.Whole() {
			continue
		}
		ix, err := agentskills.ParseIndex(x.Response.Body)
		if err != nil {
			continue
		}
		for _, s := range ix.Skills {
			for _, l := range resolve(target, x.Request.URL, []string{s.URL}) {
				if l.sameOrigin && s.Type == "skill-md" && len(out) < maxSkillFetches {
					out = append(out, request(purpose.Skill, http.MethodGet, l.url, "", l.url))
				}
			}
		}
	}
	return out
}

// SkillsIndex reports an Agent Skills index that clients cannot read.
type SkillsIndex struct{ plans }

func (SkillsIndex) Meta() checks.Meta {
	return checks.Meta{
		ID: "discovery-skills-index", Family: checks.FamilyDiscovery, Severity: finding.SeverityError,
		Since: checks.FirstRelease,
		Title: "The Agent Skills index is JSON with $schema and complete skill entries",
		SpecRefs: []finding.SpecRef{
			skillsRef("Index format", "MUST"), skillsRef("HTTP Considerations", "MUST"),
			ref("Agent Skills specification", "name field", "must", "https://agentskills.io/specification"),
		},
		Help: `A site that offers Agent Skills lists them at ` + "`" + agentskills.Path + "`" + ` (Agent Skills
Discovery RFC v0.2.0, a vendor draft): served as ` + "`application/json`" + `, with a top-level
` + "`$schema`" + `, and for each skill a ` + "`name`" + ` following the Agent Skills naming rules, a ` + "`type`" + `
of ` + "`skill-md`" + ` or ` + "`archive`" + `, a ` + "`description`" + ` of at most 1024 characters, a ` + "`url`" + ` and a
` + "`digest`" + ` of the form ` + "`sha256:`" + ` and 64 lowercase hex digits. Clients skip entries they
cannot read. (v0.1.0 used ` + "`" + agentskills.LegacyPath + "`" + `, which is not read.)

**How to fix:** generate the index from the skill files, computing each digest over
the bytes served.`,
	}
}

func (c SkillsIndex) Run(_ context.Context, in *checks.Input) ([]finding.Finding, error) {
	x, ix, perr, err := skillsIndex(in)
	if err != nil {
		return nil, err
	}
	var problem, pointer string
	switch {
	case x.Response.MediaType() != "application/json":
		problem = fmt.Sprintf("is served as %q, not application/json", x.Response.Header.Get("Content-Type"))
	case perr != nil:
		problem = "is not an index: " + perr.Error()
	case len(ix.Problems.Items) > 0:
		problem, pointer = ix.Problems.Items[0].Message, ix.Problems.Items[0].Pointer
		if n := len(ix.Problems.Items) + ix.Problems.Dropped; n > 1 {
			problem += fmt.Sprintf(" (and %d more)", n-1)
		}
	default:
		return nil, nil
	}
	ev := evidence(x)
	ev.Expected, ev.Actual, ev.JSONPointer, ev.Excerpt = "an Agent Skills index v0.2.0 as application/json", problem, pointer, checks.Excerpt(x)
	return []finding.Finding{checks.New(c.Meta(), "", agentskills.Path+" "+problem, ev)}, nil
}

// SkillsArtifacts reports SKILL.md files that do not answer, or differ
// from what the index says of them.
type SkillsArtifacts struct{ plans }

func (SkillsArtifacts) Meta() checks.Meta {
	return checks.Meta{
		ID: "discovery-skills-artifacts", Family: checks.FamilyDiscovery, Severity: finding.SeverityError,
		Since: checks.FirstRelease,
		Title: "Each SKILL.md the index lists answers, matches its digest and names itself as the index does",
		SpecRefs: []finding.SpecRef{
			skillsRef("Skill entry: digest", "MUST"), skillsRef("HTTP Considerations", "MUST"),
			ref("Agent Skills specification", "SKILL.md frontmatter", "must", "https://agentskills.io/specification"),
		},
		Help: `Clients fetch each ` + "`skill-md`" + ` entry's ` + "`url`" + `, check the SHA-256 of the bytes against the
entry's ` + "`digest`" + `, and refuse a mismatch. The file is served as ` + "`text/markdown`" + ` or
` + "`text/plain`" + `, starts with YAML frontmatter, and its ` + "`name`" + ` is the entry's. A file that
moved, was edited after the index was generated, or is converted on the way (CRLF,
compression) is a skill no client will load.

The first ` + "`skill-md`" + ` entries on the site's origin are fetched with GET, up to a bound.

**How to fix:** regenerate the index whenever a skill changes, and serve the files
byte for byte.`,
	}
}

func (c SkillsArtifacts) Run(_ context.Context, in *checks.Input) ([]finding.Finding, error) {
	x, ix, perr, err := skillsIndex(in)
	if err != nil {
		return nil, err
	}
	if perr != nil {
		return nil, checks.Skip("the index does not parse: discovery-skills-index reports it")
	}
	urls := skillURLs(in.Target, x, ix)
	if len(urls) == 0 {
		return nil, checks.Skip("the index lists no skill-md file on the site's origin")
	}
	var out []finding.Finding
	for _, u := range slices.Sorted(maps.Keys(urls)) {
		s := urls[u]
		sx := in.Probe(purpose.Skill, u)
		if sx == nil {
			continue
		}
		problem := skillProblem(sx, s)
		if problem == "" {
			continue
		}
		ev := evidence(sx)
		ev.Expected, ev.Actual, ev.JSONPointer = "the SKILL.md the index describes", problem, s.Pointer
		out = append(out, checks.New(c.Meta(), s.Name, fmt.Sprintf("skill %q (%s): %s", s.Name, exchange.PathOf(u), problem), ev))
	}
	return out, nil
}

func skillProblem(x *exchange.Exchange, s agentskills.Skill) string {
	if !ok2xx(x) {
		return "answered " + statusText(x)
	}
	if mt := x.Response.MediaType(); mt != "text/markdown" && mt != "text/plain" {
		return fmt.Sprintf("is served as %q, not text/markdown or text/plain", x.Response.Header.Get("Content-Type"))
	}
	if !x.Response.Whole() {
		return ""
	}
	sum := sha256.Sum256(x.Response.Body)
	if got := "sha256:" + hex.EncodeToString(sum[:]); s.Digest != "" && got != s.Digest {
		return fmt.Sprintf("the bytes served hash to %s, not the index's %s", got, s.Digest)
	}
	name, _, ok := agentskills.Frontmatter(x.Response.Body)
	switch {
	case !ok:
		return "has no YAML frontmatter"
	case name != s.Name:
		return fmt.Sprintf("its frontmatter names it %q, the index %q", name, s.Name)
	}
	return ""
}
