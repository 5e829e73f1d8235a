package discovery

import (
	"context"
	"fmt"
	"net/url"
	"strings"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
)

const a2aSpecURL = "https://a2a-protocol.org/latest/specification/"

func a2a(section, level string) finding.SpecRef {
	return ref("A2A Protocol 1.0", section, level, a2aSpecURL)
}

// card is an agent card exchange and its decoded JSON object.
type card struct {
	x      *exchange.Exchange
	obj    map[string]any
	legacy bool
}

// agentCard returns the card at the current location, or else at the legacy
// one; a skip when neither answered a JSON object.
func agentCard(in *checks.Input) (*card, error) {
	for _, loc := range []struct {
		doc    document
		legacy bool
	}{{docAgentCard, false}, {docAgentCardLegacy, true}} {
		x := loc.doc.fetched(in)
		if !ok2xx(x) || isHTML(x) {
			continue
		}
		v, err := x.Response.JSON()
		obj, isObj := v.(map[string]any)
		if err != nil || !isObj {
			return &card{x: x, legacy: loc.legacy}, nil
		}
		return &card{x: x, obj: obj, legacy: loc.legacy}, nil
	}
	return nil, checks.Skip("no agent card at /.well-known/agent-card.json or /.well-known/agent.json")
}

// interfaceURLs are the supportedInterfaces URLs of a card exchange, resolved.
func interfaceURLs(target *url.URL, x *exchange.Exchange) []resolvedLink {
	if !ok2xx(x) || isHTML(x) {
		return nil
	}
	v, err := x.Response.JSON()
	obj, ok := v.(map[string]any)
	if err != nil || !ok {
		return nil
	}
	var refs []string
	for _, i := range objects(obj["supportedInterfaces"]) {
		if u, ok := i["url"].(string); ok && u != "" {
			refs = append(refs, u)
		}
	}
	return resolve(target, x.Request.URL, refs)
}

func objects(v any) []map[string]any {
	arr, _ := v.([]any)
	var out []map[string]any
	for _, e := range arr {
		if m, ok := e.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

// AgentCardLegacy reports a card served only at the pre-0.3 location.
type AgentCardLegacy struct{ plans }

func (AgentCardLegacy) Meta() checks.Meta {
	return checks.Meta{
		ID: "discovery-agent-card-legacy", Family: checks.FamilyDiscovery, Severity: finding.SeverityInfo,
		Since:    checks.FirstRelease,
		Title:    "The A2A agent card is at /.well-known/agent-card.json",
		SpecRefs: []finding.SpecRef{a2a("8.2", "MUST")},
		Help: `Since A2A 0.3 the agent card's well-known location is ` + "`/.well-known/agent-card.json`" + `
(A2A §8.2). The old ` + "`/.well-known/agent.json`" + ` is still found by some clients, but current
ones look only at the new name.

**How to fix:** serve the card at ` + "`/.well-known/agent-card.json`" + ` (keep the old path as a
copy or redirect while old clients matter).`,
	}
}

func (c AgentCardLegacy) Run(_ context.Context, in *checks.Input) ([]finding.Finding, error) {
	cd, err := agentCard(in)
	if err != nil || !cd.legacy {
		return nil, err
	}
	ev := evidence(cd.x)
	ev.Expected, ev.Actual = "/.well-known/agent-card.json", "/.well-known/agent.json only"
	return []finding.Finding{checks.New(c.Meta(), "", "the agent card is served only at the legacy /.well-known/agent.json", ev)}, nil
}

// requiredCardFields are the AgentCard members the released schema marks
// REQUIRED, with the JSON type each must have.
var requiredCardFields = []struct{ name, kind string }{
	{"name", "string"}, {"description", "string"}, {"supportedInterfaces", "array"}, {"version", "string"},
	{"capabilities", "object"}, {"defaultInputModes", "array"}, {"defaultOutputModes", "array"}, {"skills", "array"},
}

// AgentCardFields reports missing or mistyped required members.
type AgentCardFields struct{ plans }

func (AgentCardFields) Meta() checks.Meta {
	return checks.Meta{
		ID: "discovery-agent-card-fields", Family: checks.FamilyDiscovery, Severity: finding.SeverityError,
		Since:     checks.FirstRelease,
		Documents: checks.DocAgentCard,
		Title:     "The A2A agent card has every required member",
		SpecRefs:  []finding.SpecRef{a2a("4.4.1 AgentCard", "REQUIRED")},
		Help: `The released A2A schema marks these AgentCard members REQUIRED: ` + "`name`" + `, ` + "`description`" + `,
` + "`supportedInterfaces`" + ` (each with ` + "`url`" + `, ` + "`protocolBinding`" + ` and ` + "`protocolVersion`" + `), ` + "`version`" + `,
` + "`capabilities`" + `, ` + "`defaultInputModes`" + `, ` + "`defaultOutputModes`" + ` and ` + "`skills`" + `. A client that
validates the card rejects it without them. Pre-1.0 cards used a top-level ` + "`url`" + ` and
` + "`preferredTransport`" + ` instead of ` + "`supportedInterfaces`" + `.

**How to fix:** add the members named in the finding.`,
	}
}

func (c AgentCardFields) Run(_ context.Context, in *checks.Input) ([]finding.Finding, error) {
	cd, err := agentCard(in)
	if err != nil {
		return nil, err
	}
	ev := evidence(cd.x)
	if cd.obj == nil {
		ev.Expected, ev.Actual, ev.Excerpt = "a JSON object", "not a JSON object", checks.Excerpt(cd.x)
		return []finding.Finding{checks.New(c.Meta(), "", "the agent card is not a JSON object", ev)}, nil
	}
	var missing []string
	for _, f := range requiredCardFields {
		if !hasKind(cd.obj[f.name], f.kind) {
			missing = append(missing, "/"+f.name)
		}
	}
	for i, iface := range objects(cd.obj["supportedInterfaces"]) {
		for _, m := range []string{"url", "protocolBinding", "protocolVersion"} {
			if !hasKind(iface[m], "string") {
				missing = append(missing, fmt.Sprintf("/supportedInterfaces/%d/%s", i, m))
			}
		}
	}
	if len(missing) == 0 {
		return nil, nil
	}
	msg := "the agent card lacks required " + strings.Join(missing, ", ")
	if _, old := cd.obj["preferredTransport"]; old {
		msg += " (it has pre-1.0 members: a 1.0 card lists supportedInterfaces)"
	}
	ev.JSONPointer, ev.Expected, ev.Actual = missing[0], "present, of the schema's type", "absent or mistyped"
	return []finding.Finding{checks.New(c.Meta(), "", msg, ev)}, nil
}

func hasKind(v any, kind string) bool {
	switch kind {
	case "string":
		s, ok := v.(string)
		return ok && s != ""
	case "array":
		_, ok := v.([]any)
		return ok
	case "object":
		_, ok := v.(map[string]any)
		return ok
	}
	return false
}

// AgentCardSkills reports skills without their required members.
type AgentCardSkills struct{ plans }

func (AgentCardSkills) Meta() checks.Meta {
	return checks.Meta{
		ID: "discovery-agent-card-skills", Family: checks.FamilyDiscovery, Severity: finding.SeverityError,
		Since:     checks.FirstRelease,
		Documents: checks.DocAgentCard,
		Title:     "A2A agent card skills have id, name, description and tags",
		SpecRefs:  []finding.SpecRef{a2a("4.4.5 AgentSkill", "REQUIRED")},
		Help: `Each AgentSkill requires ` + "`id`" + `, ` + "`name`" + `, ` + "`description`" + ` and ` + "`tags`" + ` (an array of
strings). Clients pick a skill by these; a skill without them cannot be selected
or shown.

**How to fix:** complete the skills named in the finding.`,
	}
}

func (c AgentCardSkills) Run(_ context.Context, in *checks.Input) ([]finding.Finding, error) {
	cd, err := agentCard(in)
	if err != nil {
		return nil, err
	}
	skills, isArray := cd.obj["skills"].([]any)
	if !isArray || len(skills) == 0 {
		return nil, checks.Skip("the agent card lists no skills")
	}
	var out checks.Findings
	for i, s := range skills {
		skill, _ := s.(map[string]any)
		var missing []string
		for _, f := range []struct{ name, kind string }{{"id", "string"}, {"name", "string"}, {"description", "string"}, {"tags", "array"}} {
			if !hasKind(skill[f.name], f.kind) {
				missing = append(missing, f.name)
			}
		}
		if len(missing) == 0 {
			continue
		}
		ev := evidence(cd.x)
		ev.JSONPointer = fmt.Sprintf("/skills/%d/%s", i, missing[0])
		ev.Expected, ev.Actual = "id, name, description and tags", "missing "+strings.Join(missing, ", ")
		id, _ := skill["id"].(string)
		out.Add(checks.New(c.Meta(), fmt.Sprintf("skill %d", i), fmt.Sprintf(
			"agent card skill %d (%q) lacks %s", i, id, strings.Join(missing, ", ")), ev))
	}
	return out.List(), nil
}

// AgentCardInterfaces reports supportedInterfaces URLs that do not answer.
type AgentCardInterfaces struct{ plans }

func (AgentCardInterfaces) Meta() checks.Meta {
	return checks.Meta{
		ID: "discovery-agent-card-interfaces", Family: checks.FamilyDiscovery, Severity: finding.SeverityWarning,
		Since:    checks.FirstRelease,
		Title:    "A2A supportedInterfaces URLs answer",
		SpecRefs: []finding.SpecRef{a2a("4.4.6 AgentInterface", "REQUIRED")},
		Help: `The first entry of ` + "`supportedInterfaces`" + ` is where a client sends its first A2A call.
An interface URL that answers 404, 410 or a server error makes the card a promise
nobody can take up. URLs on the target's origin are checked with HEAD; a 405 counts
as answering, since A2A endpoints take POST.

**How to fix:** correct the URL or remove the interface.`,
	}
}

func (c AgentCardInterfaces) Run(_ context.Context, in *checks.Input) ([]finding.Finding, error) {
	cd, err := agentCard(in)
	if err != nil {
		return nil, err
	}
	urls := interfaceURLs(in.Target, cd.x)
	if len(urls) == 0 {
		return nil, checks.Skip("the agent card lists no interface URL")
	}
	return deadLinks(in, c.Meta(), "the agent card's supportedInterfaces", urls), nil
}

// AgentCardCaching reports a card served without Cache-Control max-age or ETag.
type AgentCardCaching struct{ plans }

func (AgentCardCaching) Meta() checks.Meta {
	return checks.Meta{
		ID: "discovery-agent-card-caching", Family: checks.FamilyDiscovery, Severity: finding.SeverityWarning,
		Since:    checks.FirstRelease,
		Title:    "The A2A agent card is served with Cache-Control max-age and an ETag",
		SpecRefs: []finding.SpecRef{a2a("8.6", "SHOULD")},
		Help: `A2A §8.6: agent card endpoints SHOULD send ` + "`Cache-Control`" + ` with ` + "`max-age`" + ` and an ` + "`ETag`" + `,
so clients can keep the card and revalidate it with ` + "`If-None-Match`" + ` instead of
downloading it before every task.

**How to fix:** add ` + "`Cache-Control: max-age=3600`" + ` (or what suits you) and a strong ` + "`ETag`" + `.`,
	}
}

func (c AgentCardCaching) Run(_ context.Context, in *checks.Input) ([]finding.Finding, error) {
	cd, err := agentCard(in)
	if err != nil {
		return nil, err
	}
	h := cd.x.Response.Header
	var lacking []string
	if !strings.Contains(strings.ToLower(strings.Join(h.Values("Cache-Control"), ",")), "max-age") {
		lacking = append(lacking, "Cache-Control max-age")
	}
	if h.Get("ETag") == "" {
		lacking = append(lacking, "ETag")
	}
	if len(lacking) == 0 {
		return nil, nil
	}
	ev := evidence(cd.x, "Cache-Control", "ETag")
	ev.Expected, ev.Actual = "Cache-Control: max-age=… and ETag", "no "+strings.Join(lacking, ", no ")
	return []finding.Finding{checks.New(c.Meta(), "", "the agent card is served without "+strings.Join(lacking, " and "), ev)}, nil
}
