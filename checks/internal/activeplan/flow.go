package activeplan

import (
	"encoding/json"
	"hash/fnv"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/agentready/agentready/checks/internal/hypermedia"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/jsonorder"
	"github.com/agentready/agentready/internal/spec"
)

// The pieces below serve every request that acts on a next_actions flow:
// the nodes a crawl read, the operation an entry names and its URL on the
// node, the body that operation takes, the re-read of the node, and the
// comparisons that tell what a request changed. The flow kinds of this
// package plan with them, the stateful checks judge with them, and a player
// that walks a flow step by step can call them too: they are pure, and
// sending stays in probe.

// Node is one crawled resource that lists its next_actions: what an agent
// reading it is told it may call, and what it may change.
type Node struct {
	X *exchange.Exchange
	// Kind is the node's path shape: nodes of one kind run one flow.
	Kind string
	// State is its node, status or state member, "" when it has none.
	State string
	// Root is the decoded representation.
	Root *jsonorder.Value
	// Listed are the operations its entries resolve to, in list order.
	Listed []*spec.Operation
	// AllowedPatch is its allowed_patch, as written.
	AllowedPatch []string

	template string            // the path template the node's URL matches
	vars     map[string]string // the values that URL binds, still escaped
}

// FlowNodes reads, from rec's crawl, each resource whose representation
// carries a next_actions array, in URL order, with the operations its
// entries name in doc. Without a document no entry resolves, and no node is
// returned: the URL of a step cannot be told from its name alone.
func FlowNodes(rec *exchange.Recording, doc *spec.Document) []Node {
	if rec == nil || doc == nil {
		return nil
	}
	ops := ActionOperations(doc)
	idx := doc.Index()
	seen := map[string]bool{}
	var out []Node
	for _, x := range rec.Exchanges {
		if x.Purpose != exchange.PurposeCrawl || !fetchedOK(x) || seen[x.Request.URL] {
			continue
		}
		v := x.Response.ReadHAL()
		if v.Err != nil || v.Doc.Root == nil || !v.Doc.Root.Get("next_actions").Is(jsonorder.Array) {
			continue
		}
		u, err := url.Parse(x.Request.URL)
		if err != nil {
			continue
		}
		template, vars, ok := idx.Bind(u.EscapedPath())
		if !ok {
			continue
		}
		seen[x.Request.URL] = true
		root := v.Doc.Root
		n := Node{X: x, Kind: hypermedia.ShapeOf(x), Root: root, template: template, vars: vars}
		if s, ok := root.Get("node").Str(); ok {
			n.State = s
		} else {
			_, n.State = hypermedia.StateOf(root)
		}
		for _, it := range root.Get("next_actions").Elements() {
			if op := ops[EntryName(it)]; op != nil && !slices.Contains(n.Listed, op) {
				n.Listed = append(n.Listed, op)
			}
		}
		for _, f := range root.Get("allowed_patch").Elements() {
			if s, ok := f.Str(); ok {
				n.AllowedPatch = append(n.AllowedPatch, s)
			}
		}
		out = append(out, n)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].X.Request.URL < out[j].X.Request.URL })
	return out
}

// EntryName is the tool or operation a next_actions entry names, or "".
func EntryName(entry *jsonorder.Value) string {
	for _, k := range []string{"tool", "operation"} {
		if s, ok := entry.Get(k).Str(); ok && strings.TrimSpace(s) != "" {
			return s
		}
	}
	return ""
}

// ActionOperations maps each name a next_actions entry may use for an
// operation of doc (its operationId, x-mcp-tool or x-operation-uri) to it;
// the first operation to claim a name keeps it.
func ActionOperations(doc *spec.Document) map[string]*spec.Operation {
	out := map[string]*spec.Operation{}
	if doc == nil {
		return out
	}
	for _, op := range doc.Operations {
		for _, id := range []string{op.OperationID, op.MCPTool, op.OperationURI} {
			if _, dup := out[id]; id != "" && !dup {
				out[id] = op
			}
		}
	}
	return out
}

// Target is the URL of op on the node: op's path template must extend the
// node's (POST /checkouts/{id}/confirmation on /checkouts/7), and the node's
// URL must bind every expression of it. ok is false otherwise: a value is
// never invented.
func (n Node) Target(op *spec.Operation) (string, bool) {
	if op == nil || !spec.HasTemplatePrefix(op.PathTemplate, n.template) {
		return "", false
	}
	own, ok := spec.Expand(n.template, n.vars)
	if !ok {
		return "", false
	}
	filled, ok := spec.Expand(op.PathTemplate, n.vars)
	if !ok {
		return "", false
	}
	u, err := url.Parse(n.X.Request.URL)
	if err != nil {
		return "", false
	}
	base, found := strings.CutSuffix(u.EscapedPath(), own)
	if !found {
		return "", false
	}
	t, err := url.Parse(base + filled)
	if err != nil {
		return "", false
	}
	return u.ResolveReference(t).String(), true
}

// Lists reports whether the node lists op among its next_actions.
func (n Node) Lists(op *spec.Operation) bool { return slices.Contains(n.Listed, op) }

// Reread is the GET of the node sent right after a probe that acted on it,
// with the Accept its crawl sent, so that the two representations compare.
// after is the URL of the probe: the check pairs the two by it.
func (n Node) Reread(purpose, identity, after string, repeat int) exchange.ActiveRequest {
	h := http.Header{}
	accept := n.X.Request.Header.Get("Accept")
	if accept == "" {
		accept = "application/json"
	}
	h.Set("Accept", accept)
	return exchange.ActiveRequest{
		PlannedRequest: exchange.PlannedRequest{Purpose: purpose, Method: http.MethodGet, URL: n.X.Request.URL, Header: h, BasedOn: after, Repeat: repeat},
		Identity:       identity,
		Operation:      "re-read",
	}
}

// idempotencyKeyMembers are the request body members that carry an
// idempotency key.
var idempotencyKeyMembers = []string{"idempotency_key", "idempotencyKey", "Idempotency-Key"}

// KeyCarriers says where op takes an idempotency key: an Idempotency-Key
// header parameter, and the body member of idempotencyKeyMembers its JSON
// request schema lists ("" when none).
func KeyCarriers(op *spec.Operation) (header bool, member string) {
	for _, p := range op.Parameters {
		if strings.EqualFold(p.In, "header") && strings.EqualFold(p.Name, "Idempotency-Key") {
			header = true
		}
	}
	return header, KeyMember(JSONBody(op))
}

// KeyMember is the member of idempotencyKeyMembers that the input schema s
// lists, "" when none.
func KeyMember(s map[string]any) string {
	props := Properties(s)
	for _, m := range idempotencyKeyMembers {
		if _, ok := props[m]; ok {
			return m
		}
	}
	return ""
}

// ProbeKey is the idempotency key a probe of method and target sends: the
// same for the same request, so that planning stays pure and a replay of
// the plan sends what was printed. It hashes the target's path, not its
// origin, so that the key does not change with the port a test server or
// a preview happens to listen on.
func ProbeKey(method, target string) string {
	h := fnv.New64a()
	h.Write([]byte(method + " " + exchange.PathOf(target)))
	return "agentready-" + strconv.FormatUint(h.Sum64(), 16)
}

// JSONBody is op's JSON request schema, nil when it declares none.
func JSONBody(op *spec.Operation) map[string]any {
	types := make([]string, 0, len(op.RequestBody))
	for mt := range op.RequestBody {
		types = append(types, mt)
	}
	sort.Strings(types)
	for _, mt := range types {
		if s, ok := op.RequestBody[mt].(map[string]any); ok && exchange.IsJSONMediaType(mt) {
			return s
		}
	}
	return nil
}

// Properties are a schema's properties, nil when it lists none.
func Properties(s map[string]any) map[string]any {
	p, _ := s["properties"].(map[string]any)
	return p
}

// StepBody is the JSON body for op sent on the node: the members of set,
// then each required property of op's schema, from the node's member of the
// same name (action_id, version), else the schema's const, first enum
// value, example or default, else a placeholder of its type. It is {} when
// op declares no JSON schema.
func (n Node) StepBody(op *spec.Operation, set map[string]any) []byte {
	schema := JSONBody(op)
	props := Properties(schema)
	values := map[string]any{}
	required, _ := schema["required"].([]any)
	for _, r := range required {
		name, _ := r.(string)
		if name == "" {
			continue
		}
		prop, _ := props[name].(map[string]any)
		if v, ok := n.declared(name, prop); ok {
			values[name] = v
			continue
		}
		values[name] = schemaValue(prop)
	}
	for k, v := range set {
		values[k] = v
	}
	raw, err := json.Marshal(values)
	if err != nil {
		return []byte("{}")
	}
	return raw
}

// declared is the value of the required member name that the node or the
// schema gives, without inventing one: the node's member of that name
// (action_id, version), else the schema's own (schemaDeclared).
func (n Node) declared(name string, prop map[string]any) (any, bool) {
	if v := n.Root.Get(name); v != nil && (v.Is(jsonorder.String) || v.Is(jsonorder.Number) || v.Is(jsonorder.Bool)) {
		return v.Any(), true
	}
	return schemaDeclared(prop)
}

// Undeclared names the first required member of op's JSON body, in the
// schema's order, whose value StepBody would make up: neither the node nor
// the schema gives it, and it is not the idempotency key, which a client
// chooses by design. "" when every value is declared.
func (n Node) Undeclared(op *spec.Operation) string {
	schema := JSONBody(op)
	props := Properties(schema)
	_, key := KeyCarriers(op)
	required, _ := schema["required"].([]any)
	for _, r := range required {
		name, _ := r.(string)
		prop, _ := props[name].(map[string]any)
		if name == "" || name == key {
			continue
		}
		if _, ok := n.declared(name, prop); !ok {
			return name
		}
	}
	return ""
}

// schemaDeclared is the value a schema names for itself: its const, first
// enum value, example or default.
func schemaDeclared(s map[string]any) (any, bool) {
	if v, ok := s["const"]; ok {
		return v, true
	}
	if e, ok := s["enum"].([]any); ok && len(e) > 0 {
		return e[0], true
	}
	for _, k := range []string{"example", "default"} {
		if v, ok := s[k]; ok && v != nil {
			return v, true
		}
	}
	return nil, false
}

// schemaValue is the value a schema names for itself, or a placeholder of
// its type.
func schemaValue(s map[string]any) any {
	if v, ok := schemaDeclared(s); ok {
		return v
	}
	switch s["type"] {
	case "integer", "number":
		if m, ok := s["minimum"]; ok {
			return m
		}
		return 1
	case "boolean":
		return true
	case "object":
		return map[string]any{}
	case "array":
		return []any{}
	}
	return placeholder
}

// Step is the request behind op at target on the node, as the identity:
// its body from StepBody with the members of set, an idempotency key where
// op takes one (ProbeKey, in the header or the body member it declares),
// and the Accept the active probes send. Why is left for the caller.
func (n Node) Step(op *spec.Operation, target, purpose, identity string, set map[string]any) exchange.ActiveRequest {
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	h.Set("Accept", "application/problem+json, application/hal+json;q=0.9, application/json;q=0.8")
	header, member := KeyCarriers(op)
	key := ProbeKey(op.Method, target)
	if header {
		h.Set("Idempotency-Key", key)
	}
	if member != "" {
		withKey := map[string]any{member: key}
		for k, v := range set {
			withKey[k] = v
		}
		set = withKey
	}
	name := op.OperationID
	if name == "" {
		name = op.Method + " " + op.PathTemplate
	}
	return exchange.ActiveRequest{
		PlannedRequest: exchange.PlannedRequest{Purpose: purpose, Method: op.Method, URL: target, Header: h, BasedOn: n.X.Request.URL, Body: n.StepBody(op, set)},
		Identity:       identity,
		Operation:      name,
	}
}

// Sequence is one flow probe as recorded: its requests of the kind, in the
// order sent, and the re-reads of the node sent after them.
type Sequence struct {
	Probes  []*exchange.Exchange
	Rereads []*exchange.Exchange
}

// Sequences gathers the recorded exchanges of a flow kind by the URL they
// acted on, in the order first sent: each probe of purpose, and each
// re-read of purpose reread whose BasedOn names it. Re-reads of a URL no
// probe of purpose acted on make no sequence.
func Sequences(rec *exchange.Recording, purpose, reread string) []*Sequence {
	if rec == nil {
		return nil
	}
	var order []*Sequence
	by := map[string]*Sequence{}
	get := func(u string) *Sequence {
		s := by[u]
		if s == nil {
			s = &Sequence{}
			by[u] = s
			order = append(order, s)
		}
		return s
	}
	for _, x := range rec.Exchanges {
		switch x.Purpose {
		case purpose:
			s := get(x.Request.URL)
			s.Probes = append(s.Probes, x)
		case reread:
			if x.BasedOn != "" {
				s := get(x.BasedOn)
				s.Rereads = append(s.Rereads, x)
			}
		}
	}
	return slices.DeleteFunc(order, func(s *Sequence) bool { return len(s.Probes) == 0 })
}

// Contains reports whether x's JSON body holds the string value anywhere,
// bounded in depth like hypermedia.WalkObjects.
func Contains(x *exchange.Exchange, value string) bool {
	if x == nil || x.Response == nil || !x.Response.Whole() {
		return false
	}
	doc, err := x.Response.JSON()
	if err != nil {
		return false
	}
	return containsString(doc, value, 0)
}

func containsString(v any, s string, depth int) bool {
	if depth > 16 {
		return false
	}
	switch t := v.(type) {
	case string:
		return t == s
	case map[string]any:
		for _, m := range t {
			if containsString(m, s, depth+1) {
				return true
			}
		}
	case []any:
		for _, m := range t {
			if containsString(m, s, depth+1) {
				return true
			}
		}
	}
	return false
}

// Changed compares two reads of one resource and returns the JSON pointer
// of the first difference, in key order, or "" when they hold the same
// state. Members named for what changes on every read (a time, a request
// or trace ID) are not compared; a version is, since it moves only when
// the resource is written. ok is false when either read cannot be compared
// (not a whole JSON 200).
func Changed(a, b *exchange.Exchange) (pointer string, ok bool) {
	da, errA := wholeJSON(a)
	db, errB := wholeJSON(b)
	if !errA || !errB {
		return "", false
	}
	return firstDifference(da, db, "", 0), true
}

// Comparable reports a read Changed can compare: a whole JSON 200.
func Comparable(x *exchange.Exchange) bool {
	_, ok := wholeJSON(x)
	return ok
}

func wholeJSON(x *exchange.Exchange) (any, bool) {
	if x == nil || x.Response == nil || x.Response.Status != http.StatusOK || !x.Response.Whole() || !exchange.IsJSONMediaType(x.Response.MediaType()) {
		return nil, false
	}
	v, err := x.Response.JSON()
	return v, err == nil
}

// readVolatile are words of member names whose values change on every
// read rather than on a write.
var readVolatile = []string{"time", "date", "stamp", "nonce", "request", "trace", "span", "correlation", "served", "generated", "expire"}

func volatileMember(name string) bool {
	n := strings.ToLower(name)
	for _, w := range readVolatile {
		if strings.Contains(n, w) {
			return true
		}
	}
	return strings.HasSuffix(name, "At") || strings.HasSuffix(n, "_at")
}

func firstDifference(a, b any, ptr string, depth int) string {
	if depth > 16 {
		return ""
	}
	switch ta := a.(type) {
	case map[string]any:
		tb, ok := b.(map[string]any)
		if !ok {
			return orRoot(ptr)
		}
		keys := map[string]bool{}
		for k := range ta {
			keys[k] = true
		}
		for k := range tb {
			keys[k] = true
		}
		sorted := make([]string, 0, len(keys))
		for k := range keys {
			sorted = append(sorted, k)
		}
		sort.Strings(sorted)
		for _, k := range sorted {
			if volatileMember(k) {
				continue
			}
			va, inA := ta[k]
			vb, inB := tb[k]
			if inA != inB {
				return jsonorder.Join(ptr, k)
			}
			if d := firstDifference(va, vb, jsonorder.Join(ptr, k), depth+1); d != "" {
				return d
			}
		}
		return ""
	case []any:
		tb, ok := b.([]any)
		if !ok || len(ta) != len(tb) {
			return orRoot(ptr)
		}
		for i := range ta {
			if d := firstDifference(ta[i], tb[i], ptr+"/"+strconv.Itoa(i), depth+1); d != "" {
				return d
			}
		}
		return ""
	}
	if jsonText(a) != jsonText(b) {
		return orRoot(ptr)
	}
	return ""
}

func orRoot(ptr string) string {
	if ptr == "" {
		return "/"
	}
	return ptr
}

func jsonText(v any) string {
	raw, _ := json.Marshal(v)
	return string(raw)
}
