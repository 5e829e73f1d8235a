package openapihal

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/spec"
)

// needDocument skips without a spec that has operations to judge. Static
// checks need no x-hal-rel to run: the absence is itself what Unlinked reads.
func needDocument(in *checks.Input) error {
	if err := in.NeedSpec(); err != nil {
		return err
	}
	if in.Spec.Swagger2 {
		return checks.Skip("the OpenAPI document is Swagger 2.0, whose operations are not checked")
	}
	return nil
}

// Malformed: x-hal-rel must be an array of non-empty strings without repeats.
type Malformed struct{ static }

func (Malformed) Meta() checks.Meta {
	return checks.Meta{
		ID:        "openapi-hal-rel-malformed",
		Documents: checks.DocOpenAPI,
		Since:     checks.FirstRelease,
		Family:    checks.FamilyOpenAPIHAL,
		Title:     "x-hal-rel is an array of distinct, non-empty strings",
		Severity:  finding.SeverityError,
		SpecRefs:  []finding.SpecRef{hdtcBridge, oasExtensions},
		Help: `HDTC defines ` + "`x-hal-rel`" + ` as an array of link relations. A plain string, a
number, an object, an empty string or a repeated entry is not what agents
and code generators expect: some ignore the whole extension, others split a
string differently, and the operation silently drops out of coordinate
matching.

(Other rules of this family read a string leniently as a space-separated list,
so that one mistake is reported once, here.)

**How to fix:** write ` + "`x-hal-rel: [\"order:pay\", \"pay\"]`" + `, each relation once.`,
	}
}

func (c Malformed) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	if err := needDocument(in); err != nil {
		return nil, err
	}
	var out checks.Findings
	for _, op := range in.Spec.Operations {
		raw, ok := rawHALRel(op)
		if !ok {
			continue
		}
		if problem := halRelProblem(raw); problem != "" {
			f := checks.New(c.Meta(), op.Key(), op.Key()+": x-hal-rel "+problem,
				specEvidence(op, "an array of distinct, non-empty strings", render(raw)))
			f.Location = locationOf(op, true)
			out.Add(f)
		}
	}
	return out.List(), ctx.Err()
}

// halRelProblem says what is wrong with an x-hal-rel value, or "".
func halRelProblem(raw any) string {
	var elems []any
	switch v := raw.(type) {
	case []any:
		elems = v
	case []string:
		for _, s := range v {
			elems = append(elems, s)
		}
	case string:
		return fmt.Sprintf("is the string %q, not an array", v)
	case nil:
		return "is null, not an array"
	default:
		return fmt.Sprintf("is %s, not an array", kindOf(v))
	}
	seen := map[string]int{}
	for i, e := range elems {
		s, ok := e.(string)
		switch {
		case !ok:
			return fmt.Sprintf("element %d is %s, not a string", i, kindOf(e))
		case strings.TrimSpace(s) == "":
			return fmt.Sprintf("element %d is an empty string", i)
		case strings.ContainsAny(s, " \t\r\n"):
			return fmt.Sprintf("element %d (%q) contains whitespace, which no relation name has", i, s)
		}
		if j, dup := seen[strings.ToLower(s)]; dup {
			return fmt.Sprintf("lists %q twice (elements %d and %d)", s, j, i)
		}
		seen[strings.ToLower(s)] = i
	}
	return ""
}

func kindOf(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case string:
		return "a string"
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	}
	return "a number"
}

// render is a short JSON rendering of a value for evidence.
func render(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	if len(b) > 200 {
		return string(b[:200]) + "…"
	}
	return string(b)
}

// Ambiguous: one relation on several operations of one path template, so
// that the href and the relation together do not name one operation.
type Ambiguous struct{ static }

func (Ambiguous) Meta() checks.Meta {
	return checks.Meta{
		ID:        "openapi-hal-rel-ambiguous",
		Documents: checks.DocOpenAPI,
		Since:     checks.FirstRelease,
		Family:    checks.FamilyOpenAPIHAL,
		Title:     "A relation and an href identify exactly one operation",
		Severity:  finding.SeverityWarning,
		SpecRefs:  []finding.SpecRef{hdtcCollision},
		Help: `Coordinate matching takes a relation and an href to one operation. When two
operations on the same path template (say ` + "`POST`" + ` and ` + "`DELETE`" + ` on
` + "`/orders/{id}/cancellation`" + `) both list the same relation, the pair names two
operations, and a plain link does not say which method to use.

**How to fix:** give each operation its own relation (` + "`order:cancel`" + `,
` + "`order:revoke-cancellation`" + `).`,
	}
}

func (c Ambiguous) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	if err := needDocument(in); err != nil {
		return nil, err
	}
	// Operations sharing relations on one path are reported once, with every
	// relation they share.
	type key struct{ path, ops string }
	shared := map[key][]string{}
	sharers := map[key][]*spec.Operation{}
	var order []key
	paths, opsAt := pathsOf(in.Spec)
	for _, path := range paths {
		byRel := map[string][]*spec.Operation{}
		var rels []string
		for _, op := range opsAt[path] {
			for _, r := range relsOf(op) {
				lr := strings.ToLower(r)
				if byRel[lr] == nil {
					rels = append(rels, r)
				}
				byRel[lr] = append(byRel[lr], op)
			}
		}
		for _, r := range rels {
			ops := byRel[strings.ToLower(r)]
			if len(ops) < 2 {
				continue
			}
			k := key{path, strings.Join(opKeys(ops), ", ")}
			if shared[k] == nil {
				order = append(order, k)
				sharers[k] = ops
			}
			shared[k] = append(shared[k], r)
		}
	}
	var out checks.Findings
	for _, k := range order {
		ops := sharers[k]
		all := "all"
		if len(ops) == 2 {
			all = "both"
		}
		rels := checks.JoinFew(shared[k])
		msg := fmt.Sprintf("%s %s list %s in x-hal-rel, so a link to %s with that relation names no single operation",
			keys(ops), all, rels, k.path)
		f := checks.New(c.Meta(), k.path, msg, specEvidence(ops[1], "one operation per relation and path", rels))
		f.Location = locationOf(ops[1], true)
		out.Add(f)
	}
	return out.List(), ctx.Err()
}

// BareCollision: the same bare relation on operations of different
// resources, where not every one of them also offers a namespaced form.
type BareCollision struct{ static }

func (BareCollision) Meta() checks.Meta {
	return checks.Meta{
		ID:        "openapi-hal-bare-rel-collision",
		Documents: checks.DocOpenAPI,
		Since:     checks.FirstRelease,
		Family:    checks.FamilyOpenAPIHAL,
		Title:     "A bare relation shared across resources has namespaced forms",
		Severity:  finding.SeverityWarning,
		SpecRefs:  []finding.SpecRef{hdtcCollision, hdtcNegotiation},
		Help: `When ` + "`cancel`" + ` cancels an order on one path and a subscription on another,
an agent that sees "cancel" must fall back on the path template to tell them
apart, and a model reasoning about the user's intent ("cancel it") can pick
the wrong one. HDTC's answer is a namespaced relation per resource
(` + "`order:cancel`" + `, ` + "`subscription:cancel`" + `), offered when the client sends
` + "`Prefer: namespaced-rels`" + `, with the bare name kept for older clients.

The bare name may stay on several resources as long as each operation also
lists a namespaced form of it; this check fires when one of them does not.

**How to fix:** add ` + "`<resource>:<relation>`" + ` to the x-hal-rel of each operation
that shares the bare relation, and offer it under ` + "`Prefer: namespaced-rels`" + `.`,
	}
}

func (c BareCollision) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	if err := needDocument(in); err != nil {
		return nil, err
	}
	byRel := map[string][]*spec.Operation{}
	var rels []string
	for _, op := range in.Spec.Operations {
		for _, r := range relsOf(op) {
			if prefix, _ := splitRel(r); prefix != "" || strings.EqualFold(r, "self") {
				continue
			}
			lr := strings.ToLower(r)
			if byRel[lr] == nil {
				rels = append(rels, lr)
			}
			byRel[lr] = append(byRel[lr], op)
		}
	}
	sort.Strings(rels)
	var out checks.Findings
	for _, r := range rels {
		ops := byRel[r]
		paths := distinctPaths(ops)
		if len(paths) < 2 {
			continue
		}
		var lacking []*spec.Operation
		for _, op := range ops {
			if !hasNamespacedForm(op, r) {
				lacking = append(lacking, op)
			}
		}
		if len(lacking) == 0 {
			continue
		}
		msg := fmt.Sprintf("bare relation %q is listed on %d path templates (%s), and %s lists no namespaced form of it",
			r, len(paths), checks.JoinFew(paths), keys(lacking))
		f := checks.New(c.Meta(), r, msg, specEvidence(lacking[0], "a namespaced form such as <resource>:"+r, render(relsOf(lacking[0]))))
		f.Location = locationOf(lacking[0], true)
		out.Add(f)
	}
	return out.List(), ctx.Err()
}

// pathsOf lists the path templates in document order, with the operations
// of each.
func pathsOf(d *spec.Document) ([]string, map[string][]*spec.Operation) {
	var out []string
	ops := map[string][]*spec.Operation{}
	for _, op := range d.Operations {
		if ops[op.PathTemplate] == nil {
			out = append(out, op.PathTemplate)
		}
		ops[op.PathTemplate] = append(ops[op.PathTemplate], op)
	}
	return out, ops
}

// distinctPaths lists the path templates of ops, in order, once each.
func distinctPaths(ops []*spec.Operation) []string {
	var out []string
	seen := map[string]bool{}
	for _, op := range ops {
		if !seen[op.PathTemplate] {
			seen[op.PathTemplate] = true
			out = append(out, op.PathTemplate)
		}
	}
	return out
}

// hasNamespacedForm reports whether op lists prefix:bare for some prefix.
func hasNamespacedForm(op *spec.Operation, bare string) bool {
	for _, r := range relsOf(op) {
		if prefix, local := splitRel(r); prefix != "" && strings.EqualFold(local, bare) {
			return true
		}
	}
	return false
}

// Unlinked: a state-changing operation without x-hal-rel, in a document
// that uses x-hal-rel elsewhere.
type Unlinked struct{ static }

func (Unlinked) Meta() checks.Meta {
	return checks.Meta{
		ID:        "openapi-hal-unlinked-operation",
		Documents: checks.DocOpenAPI,
		Since:     checks.FirstRelease,
		Family:    checks.FamilyOpenAPIHAL,
		Title:     "State-changing operations list the relations that invoke them",
		Severity:  finding.SeverityWarning,
		SpecRefs:  []finding.SpecRef{hdtcServer},
		Help: `Under HDTC an agent may only call what a representation offers, and it finds the
operation through ` + "`x-hal-rel`" + `. A ` + "`POST`" + `, ` + "`PUT`" + `, ` + "`PATCH`" + ` or ` + "`DELETE`" + ` without
` + "`x-hal-rel`" + `, in a document that uses it elsewhere, can never be reached that
way: it is either dead, or called by agents that bypass the state rules.

Deprecated operations are not reported.

**How to fix:** add ` + "`x-hal-rel`" + ` with the relation the representations use to offer
the operation, or mark it deprecated if nothing should call it.`,
	}
}

func (c Unlinked) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	if err := needDocument(in); err != nil {
		return nil, err
	}
	if !usesHALRel(in.Spec) {
		return nil, checks.Skip("no operation of the OpenAPI document has x-hal-rel")
	}
	var out checks.Findings
	for _, op := range in.Spec.Operations {
		if op.IsSafe() || op.Deprecated || hasHALRel(op) {
			continue
		}
		msg := fmt.Sprintf("%s (%s) changes state but has no x-hal-rel, so no representation can offer it", op.Key(), opName(op))
		f := checks.New(c.Meta(), op.Key(), msg, specEvidence(op, "x-hal-rel with the relations that offer it", "(absent)"))
		f.Location = locationOf(op, false)
		out.Add(f)
	}
	return out.List(), ctx.Err()
}

func opName(op *spec.Operation) string {
	if op.OperationID != "" {
		return "operationId " + op.OperationID
	}
	return "no operationId"
}
