package surface

import (
	"net/http"
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/internal/llmstxt"
	"github.com/agentready/agentready/checks/internal/purpose"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/halview"
	"github.com/agentready/agentready/internal/jsonorder"
	"github.com/agentready/agentready/internal/mcp"
	"github.com/agentready/agentready/internal/spec"
	"github.com/agentready/agentready/internal/textdist"
)

// Projection names, in matrix column order.
const (
	ProjOpenAPI    = "OpenAPI"
	ProjMCP        = "MCP tools"
	ProjLLMs       = "llms.txt"
	ProjAgentCard  = "agent card"
	ProjHypermedia = "hypermedia"
	ProjSkills     = "skills index"
	ProjSitemap    = "sitemap"
	ProjX402       = "x402"
)

var projectionOrder = []string{ProjOpenAPI, ProjMCP, ProjLLMs, ProjAgentCard, ProjHypermedia, ProjSkills, ProjSitemap, ProjX402}

// entry is one name a projection gives, and what it was matched to.
type entry struct {
	projection string
	name       string
	op         *spec.Operation // nil when it names no operation
	how        string          // how the match was made
	// renamed: matched by path, pointer or a near-identical name, under a
	// name that is not the operationId.
	renamed bool
	// unknown: it names an operation (by METHOD /path or JSON pointer) that
	// the OpenAPI document does not have.
	unknown   bool
	reference string // the METHOD /path or URL it pointed at, for messages
	ev        finding.Evidence
	tool      *mcp.Tool
}

type model struct {
	projections []finding.SurfaceProjection
	entries     []entry
}

var modelKey = checks.NewKey[*model]()

// build derives every projection once per scan.
func build(in *checks.Input) *model {
	return checks.Memo(in, modelKey, func() *model {
		m := &model{}
		for _, p := range []struct {
			name      string
			fn        func(*checks.Input) ([]entry, string)
			perCaller bool
		}{
			{ProjOpenAPI, openAPIEntries, false}, {ProjMCP, mcpEntries, true}, {ProjLLMs, llmsEntries, false},
			{ProjAgentCard, cardEntries, false}, {ProjHypermedia, hypermediaEntries, true},
			{ProjSkills, skillEntries, false}, {ProjSitemap, sitemapEntries, false}, {ProjX402, x402Entries, false},
		} {
			entries, reason := p.fn(in)
			m.projections = append(m.projections, finding.SurfaceProjection{Name: p.name, Assessed: reason == "", Reason: reason, PerCaller: p.perCaller})
			m.entries = append(m.entries, entries...)
		}
		return m
	})
}

func openAPIEntries(in *checks.Input) ([]entry, string) {
	doc := in.Spec
	var out []entry
	for _, op := range doc.Operations {
		name := op.OperationID
		if name == "" {
			name = op.Key()
		}
		out = append(out, entry{projection: ProjOpenAPI, name: name, op: op, how: "itself"})
	}
	return out, ""
}

// byName matches a name to an operation: exactly by operationId (or
// x-mcp-tool when tools is set), else by a near-identical operationId.
func byName(doc *spec.Document, name string, tools bool) (op *spec.Operation, how string, renamed bool) {
	for _, o := range doc.Operations {
		if o.OperationID == name {
			return o, "operationId", false
		}
		if tools && o.MCPTool != "" && o.MCPTool == name {
			return o, "x-mcp-tool", false
		}
	}
	best, bestDist := (*spec.Operation)(nil), 1<<30
	for _, o := range doc.Operations {
		if d, ok := nearIdentical(name, o.OperationID); ok && d < bestDist {
			best, bestDist = o, d
		}
	}
	if best != nil {
		return best, "near-identical name", true
	}
	return nil, "", false
}

// nearIdentical compares names ignoring case and separators (cancel_order,
// cancelOrder and Cancel-Order are one name), and tolerates a small edit: at
// most two characters and a quarter of the shorter name.
func nearIdentical(a, b string) (int, bool) {
	na, nb := normalize(a), normalize(b)
	if na == "" || nb == "" {
		return 0, false
	}
	if len(na) > maxNameLength || len(nb) > maxNameLength {
		return 0, false
	}
	d := textdist.Distance(na, nb, 2)
	return d, d <= 2 && d*4 <= min(len(na), len(nb))
}

func normalize(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// maxNameLength: a longer string is prose or data, not a name someone
// renamed, so it is never near-identical to an operationId.
const maxNameLength = 256

var identifier = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.-]{0,127}$`)

// mcpEntries names the tools of the first complete listing. A tool that
// maps to nothing is left to the mcp family, which reports it.
func mcpEntries(in *checks.Input) ([]entry, string) {
	s := in.MCP
	switch {
	case s == nil:
		return nil, "no MCP endpoint was found or named"
	case !s.Assessed() || len(s.Listings) == 0 || len(s.Listings[0].Pages) == 0:
		return nil, "the MCP endpoint gave no tool listing"
	}
	l := &s.Listings[0]
	var ev finding.Evidence
	if c := l.Pages[0].Call; c != nil && c.Exchange != nil {
		ev = checks.Evidence(c.Exchange, nil, []string{"Content-Type"})
	}
	var out []entry
	for i := range l.Tools {
		t := &l.Tools[i]
		op, how, renamed := byName(in.Spec, t.Name, true)
		e := entry{projection: ProjMCP, name: t.Name, op: op, how: how, renamed: renamed, ev: ev, tool: t}
		e.ev.JSONPointer = "/tools/" + strconv.Itoa(i) + "/name"
		out = append(out, e)
	}
	return out, ""
}

// llmsEntries names what the file lists of llms.txt link to: an operation's
// entry in the OpenAPI document (by JSON pointer) or a path an operation
// serves with GET.
func llmsEntries(in *checks.Input) ([]entry, string) {
	x := in.Probe(purpose.LLMs, wellKnown(in.Target, purpose.LLMsPath))
	if !usable(x) {
		return nil, "no llms.txt was found"
	}
	specPath := specPath(in.Spec)
	var out []entry
	for _, l := range llmstxt.Parse(x.Response.Body).Links() {
		u, err := url.Parse(x.Request.URL)
		if err != nil {
			break
		}
		ref, err := url.Parse(l.URL)
		if err != nil {
			continue
		}
		abs := u.ResolveReference(ref)
		if !strings.EqualFold(abs.Host, in.Target.Host) {
			continue
		}
		e := entry{projection: ProjLLMs, name: l.Name, reference: l.URL, ev: evidence(x, l.Line)}
		switch method, template, ok := pointerOperation(abs, specPath); {
		case ok:
			e.op = findOp(in.Spec, method, template)
			e.how, e.unknown = "JSON pointer", e.op == nil
			e.reference = method + " " + template
		default:
			e.op = in.Spec.Index().Match(http.MethodGet, abs.String())
			e.how = "path"
		}
		if e.op == nil && !e.unknown {
			continue // a page or document, not an operation
		}
		e.renamed = e.op != nil && renamedName(l.Name, e.op)
		out = append(out, e)
	}
	return out, ""
}

// renamedName reports an identifier that is near-identical to the
// operationId without being it; prose titles ("Find orders") are not names.
func renamedName(name string, op *spec.Operation) bool {
	if !identifier.MatchString(name) || name == op.OperationID {
		return false
	}
	_, near := nearIdentical(name, op.OperationID)
	return near
}

// pointerOperation reads a link to the OpenAPI document whose fragment is a
// JSON pointer to an operation: #/paths/~1orders~1{id}/get.
func pointerOperation(u *url.URL, specPath string) (method, template string, ok bool) {
	if specPath == "" || u.Path != specPath || !strings.HasPrefix(u.Fragment, "/paths/") {
		return "", "", false
	}
	parts := strings.Split(strings.TrimPrefix(u.Fragment, "/paths/"), "/")
	if len(parts) != 2 {
		return "", "", false
	}
	template = jsonorder.Unescape(parts[0])
	return strings.ToUpper(parts[1]), template, true
}

func specPath(doc *spec.Document) string {
	u, err := url.Parse(doc.Source)
	if err != nil || u.Host == "" {
		return ""
	}
	return u.Path
}

var methodPath = regexp.MustCompile(`\b(GET|HEAD|POST|PUT|PATCH|DELETE|OPTIONS) (/[^\s"'),;]*)`)

// cardEntries names what agent card skills reference: an operationId as
// the skill id, or a "METHOD /path" in its name or description.
func cardEntries(in *checks.Input) ([]entry, string) {
	var x *exchange.Exchange
	for _, loc := range []struct{ purpose, path string }{
		{purpose.AgentCard, purpose.AgentCardPath},
		{purpose.AgentCardLegacy, "/.well-known/agent.json"},
	} {
		if c := in.Probe(loc.purpose, wellKnown(in.Target, loc.path)); usable(c) {
			x = c
			break
		}
	}
	if x == nil {
		return nil, "no A2A agent card was found"
	}
	v, err := x.Response.JSON()
	obj, isObj := v.(map[string]any)
	if err != nil || !isObj {
		return nil, "the agent card is not a JSON object"
	}
	skills, _ := obj["skills"].([]any)
	var out []entry
	for i, s := range skills {
		skill, _ := s.(map[string]any)
		id, _ := skill["id"].(string)
		name, _ := skill["name"].(string)
		desc, _ := skill["description"].(string)
		e := entry{projection: ProjAgentCard, name: id, ev: checks.Evidence(x, nil, []string{"Content-Type"})}
		e.ev.JSONPointer = "/skills/" + strconv.Itoa(i)
		if m := methodPath.FindStringSubmatch(name + " " + desc); m != nil {
			e.reference = m[1] + " " + m[2]
			e.op = findOp(in.Spec, m[1], m[2])
			e.how, e.unknown = "METHOD /path", e.op == nil
			e.renamed = e.op != nil && id != "" && id != e.op.OperationID && identifier.MatchString(id)
		} else if id != "" {
			e.op, e.how, e.renamed = byName(in.Spec, id, false)
		}
		if e.op != nil || e.unknown {
			out = append(out, e)
		}
	}
	return out, ""
}

// hypermediaEntries names what the crawled HAL documents link to: each
// relation whose href an operation serves, and each HAL-FORMS template.
func hypermediaEntries(in *checks.Input) ([]entry, string) {
	ix := in.Spec.Index()
	var out []entry
	found := false
	for x := range in.Recording.Crawled() {
		if x.Response == nil || x.Response.Dropped || x.Response.Truncated || !exchange.IsJSONMediaType(x.Response.MediaType()) {
			continue
		}
		root := x.Response.ReadHAL().Root // every page; only the entries are kept
		if root == nil {
			continue
		}
		base, _ := url.Parse(x.Request.URL)
		for _, l := range halLinks(root) {
			found = true
			ref, err := url.Parse(l.href)
			if err != nil || base == nil {
				continue
			}
			if op := linkTarget(ix, l, base.ResolveReference(ref)); op != nil {
				out = append(out, entry{projection: ProjHypermedia, name: l.rel, op: op, how: "href"})
			}
		}
	}
	if !found {
		return nil, "the crawl found no HAL links"
	}
	return out, ""
}

type halLink struct{ rel, href, method string }

// linkTarget is the operation a HAL control invokes. A template states its
// method; a plain link is a GET when its path has one, and otherwise the one
// operation of its path (an HDTC action link such as "pay" names a POST).
func linkTarget(ix *spec.Index, l halLink, u *url.URL) *spec.Operation {
	_, ops := ix.MatchPath(u.EscapedPath())
	for _, m := range sortedOps(ops) {
		if ops[m].HALRels != nil && contains(ops[m].HALRels, l.rel) {
			return ops[m] // x-hal-rel says which operation the relation invokes
		}
	}
	if op := ix.Match(l.method, u.String()); op != nil || l.method != http.MethodGet {
		return op
	}
	if len(ops) != 1 {
		return nil
	}
	for _, op := range ops {
		return op
	}
	return nil
}

func sortedOps(ops map[string]*spec.Operation) []string {
	out := make([]string, 0, len(ops))
	for m := range ops {
		out = append(out, m)
	}
	sort.Strings(out)
	return out
}

// maxEmbedded bounds the descent into _embedded of hostile documents.
const maxEmbedded = 4

var optionalQuery = regexp.MustCompile(`\{[?&][^{}]*\}`)

// halLinks lists the controls of a document: those of its embedded
// resources first, then its own links (but self) and templates, each in
// name order.
func halLinks(r *halview.Resource) []halLink {
	if r.Depth > maxEmbedded {
		return nil
	}
	var out []halLink
	for _, e := range r.SortedEmbedded() {
		for _, er := range e.Resources {
			out = append(out, halLinks(er)...)
		}
	}
	for _, rel := range r.SortedRelations() {
		if rel.Name == "curies" || (rel.Name == "self" && r.Depth == 0) {
			continue
		}
		for _, l := range rel.Links {
			if l.Href != "" {
				out = append(out, halLink{rel: rel.Name, href: optionalQuery.ReplaceAllString(l.Href, ""), method: http.MethodGet})
			}
		}
	}
	for _, t := range r.SortedTemplates() {
		if t.Target != "" && t.Method != "" {
			out = append(out, halLink{rel: "_templates." + t.Key, href: t.Target, method: strings.ToUpper(t.Method)})
		}
	}
	return out
}

var templateVar = regexp.MustCompile(`\{[^{}]*\}`)

// findOp finds the operation with method on a path template, comparing
// templates with their variable names erased.
func findOp(doc *spec.Document, method, template string) *spec.Operation {
	if u, err := url.PathUnescape(template); err == nil {
		template = u
	}
	want := templateVar.ReplaceAllString(template, "{}")
	for _, op := range doc.Operations {
		if op.Method == strings.ToUpper(method) && templateVar.ReplaceAllString(op.PathTemplate, "{}") == want {
			return op
		}
	}
	return nil
}

func usable(x *exchange.Exchange) bool {
	if x == nil || x.Response == nil || x.Response.Status < 200 || x.Response.Status > 299 || x.Response.Dropped {
		return false
	}
	mt := x.Response.MediaType()
	return mt != "text/html" && mt != "application/xhtml+xml"
}

func evidence(x *exchange.Exchange, line int) finding.Evidence {
	ev := checks.Evidence(x, nil, []string{"Content-Type"})
	if line > 0 {
		ev.Actual = "line " + strconv.Itoa(line)
	}
	return ev
}

func wellKnown(target *url.URL, path string) string {
	return (&url.URL{Scheme: target.Scheme, Host: target.Host, Path: path}).String()
}

// matrix lays the entries out: operations in document order, then the names
// that match no operation, each with its names per projection. An operation
// the scanned caller may not call says why, so that the projections that
// show each caller only its own operations are not read as missing it.
func (m *model) matrix(in *checks.Input) *finding.SurfaceMatrix {
	doc := in.Spec
	col := map[string]int{}
	for i, p := range projectionOrder {
		col[p] = i
	}
	sm := &finding.SurfaceMatrix{Projections: m.projections}
	rowOf := map[*spec.Operation]int{}
	for _, op := range doc.Operations {
		rowOf[op] = len(sm.Rows)
		row := finding.SurfaceRow{Operation: op.Key(), InOpenAPI: true, Names: make([][]string, len(projectionOrder))}
		if access, why := in.MayCall(op, in.Caller); access != checks.AccessAllowed {
			row.NotForCaller = why
		}
		sm.Rows = append(sm.Rows, row)
	}
	unknownRow := map[string]int{}
	for _, e := range m.entries {
		var r int
		switch {
		case e.op != nil:
			r = rowOf[e.op]
		case e.unknown:
			key := e.reference
			i, ok := unknownRow[key]
			if !ok {
				i = len(sm.Rows)
				unknownRow[key] = i
				sm.Rows = append(sm.Rows, finding.SurfaceRow{Operation: key, Names: make([][]string, len(projectionOrder))})
			}
			r = i
		default:
			continue
		}
		names := sm.Rows[r].Names[col[e.projection]]
		if !contains(names, e.name) {
			names = append(names, e.name)
			sort.Strings(names)
		}
		sm.Rows[r].Names[col[e.projection]] = names
	}
	return sm
}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}
