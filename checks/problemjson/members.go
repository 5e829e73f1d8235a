package problemjson

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/jsonorder"
)

// judgedProblem is an error response with a problem body.
type judgedProblem struct {
	x *exchange.Exchange
	p problem
}

// problemsToJudge returns the error responses that carry problem details,
// or a skip explaining why there are none.
func problemsToJudge(ctx context.Context, in *checks.Input) ([]judgedProblem, error) {
	out, err := eachError(ctx, in, func(x *exchange.Exchange) []judgedProblem {
		if p, ok := decodeProblem(x); ok {
			return []judgedProblem{{x, p}}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, checks.Skip("no error response carried a problem details object")
	}
	return out, nil
}

func pointerEvidence(x *exchange.Exchange, member, actual, expected string) finding.Evidence {
	ev := evidence(x, actual, expected)
	ev.JSONPointer = "/" + member
	return ev
}

// StatusMismatch checks §3.1.2: the status member equals the HTTP status.
type StatusMismatch struct{ probes }

func (StatusMismatch) Meta() checks.Meta {
	return checks.Meta{
		ID:       "problem-json-status-mismatch",
		Since:    checks.FirstRelease,
		Family:   checks.FamilyProblemJSON,
		Title:    "The problem's status member equals the HTTP status",
		Severity: finding.SeverityError,
		SpecRefs: []finding.SpecRef{rfc9457("3.1.2", "MUST")},
		Help: `RFC 9457 §3.1.2: the ` + "`status`" + ` member is advisory, and a generator must use the
same status code in the actual HTTP response. An agent that reads a 400 in
the body of a 405 will fix its input instead of its method, or retry
something that cannot succeed.

**How to fix:** derive the ` + "`status`" + ` member from the status the response is sent
with, in one place, rather than setting both by hand.`,
	}
}

func (c StatusMismatch) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	ps, err := problemsToJudge(ctx, in)
	if err != nil {
		return nil, err
	}
	var occs []occurrence
	for _, jp := range ps {
		n, ok := jp.p.members["status"].(json.Number)
		if !ok {
			continue // absent, or the wrong type (MemberType reports it)
		}
		v, err := n.Float64()
		got := jp.x.Response.Status
		if err != nil || v == float64(got) {
			continue
		}
		msg := fmt.Sprintf("problem \"status\" is %s but %s was answered with HTTP %d", n, describe(jp.x), got)
		occs = append(occs, occurrence{x: jp.x, message: msg, ev: pointerEvidence(jp.x, "status", n.String(), fmt.Sprint(got))})
	}
	return group(c.Meta(), occs), nil
}

// MemberType checks that standard members have their JSON types.
type MemberType struct{ probes }

func (MemberType) Meta() checks.Meta {
	return checks.Meta{
		ID:       "problem-json-member-type",
		Since:    checks.FirstRelease,
		Family:   checks.FamilyProblemJSON,
		Title:    "Problem members have the JSON types RFC 9457 defines",
		Severity: finding.SeverityError,
		SpecRefs: []finding.SpecRef{rfc9457("3.1", "MUST"), rfc9457("3.1.2", "MUST")},
		Help: `RFC 9457 §3.1: when a member's value has the wrong JSON type, consumers must
ignore the member and carry on as if it were absent. So ` + "`\"status\": \"404\"`" + ` is
silently dropped, and ` + "`\"type\": 42`" + ` turns the problem into ` + "`about:blank`" + `: the
information is sent but never arrives. ` + "`status`" + ` is a number; ` + "`type`" + `, ` + "`title`" + `,
` + "`detail`" + ` and ` + "`instance`" + ` are strings.

**How to fix:** emit ` + "`status`" + ` as a JSON number and the other members as strings;
check custom serializers and templated error bodies.`,
	}
}

func (c MemberType) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	ps, err := problemsToJudge(ctx, in)
	if err != nil {
		return nil, err
	}
	var occs []occurrence
	for _, jp := range ps {
		for _, name := range standardMembers {
			v, present := jp.p.members[name]
			if !present {
				continue
			}
			want := "string"
			if name == "status" {
				want = "number"
			}
			got := jsonType(v)
			if got == want {
				continue
			}
			msg := fmt.Sprintf("%q is a %s (%s) in the %d to %s, where RFC 9457 requires a %s; consumers must ignore it, so it is silently dropped",
				name, got, shortJSON(v), jp.x.Response.Status, describe(jp.x), want)
			occs = append(occs, occurrence{x: jp.x, subject: name, message: msg, ev: pointerEvidence(jp.x, name, got, want)})
		}
	}
	return group(c.Meta(), occs), nil
}

func jsonType(v any) string {
	switch v.(type) {
	case string:
		return "string"
	case json.Number, float64:
		return "number"
	case bool:
		return "boolean"
	case nil:
		return "null"
	case []any:
		return "array"
	}
	return "object"
}

func shortJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return "?"
	}
	s := string(b)
	if len(s) > 40 {
		s = s[:40] + "…"
	}
	return s
}

// TypeURI checks that type is a URI reference that resolves the same way
// wherever the problem occurs.
type TypeURI struct{ probes }

func (TypeURI) Meta() checks.Meta {
	return checks.Meta{
		ID:       "problem-json-type-uri",
		Since:    checks.FirstRelease,
		Family:   checks.FamilyProblemJSON,
		Title:    "The problem type is an absolute URI or an absolute-path reference",
		Severity: finding.SeverityWarning,
		SpecRefs: []finding.SpecRef{rfc9457("3.1.1", "SHOULD"), {
			Doc: "RFC 3986", Section: "4.1", Level: "MUST", URL: "https://www.rfc-editor.org/rfc/rfc3986#section-4.1",
		}},
		Help: `The ` + "`type`" + ` member is a URI reference and the primary identifier of the problem
(RFC 9457 §3.1.1); agents compare it to decide what to do. A relative
reference such as ` + "`not-found`" + ` resolves against the request URL, so the same
problem gets a different identifier on every path (` + "`/orders/not-found`" + `,
` + "`/orders/7/not-found`" + `); RFC 9457 recommends absolute URIs or references that start
with ` + "`/`" + `. A value that is not a URI reference at all (with spaces, say) is a
title in the wrong member.

**How to fix:** use absolute type URIs, e.g.
` + "`https://example.com/problems/out-of-stock`" + `, ideally pointing at documentation.`,
	}
}

func (c TypeURI) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	ps, err := problemsToJudge(ctx, in)
	if err != nil {
		return nil, err
	}
	var occs []occurrence
	for _, jp := range ps {
		t, ok := jp.p.str("type")
		if !ok {
			continue
		}
		why := typeURIProblem(t, jp.x.Request.URL)
		if why == "" {
			continue
		}
		msg := fmt.Sprintf("problem type %q in the %d to %s %s", clip(t), jp.x.Response.Status, describe(jp.x), why)
		occs = append(occs, occurrence{x: jp.x, subject: clip(t), message: msg, ev: pointerEvidence(jp.x, "type", t, "an absolute URI")})
	}
	return group(c.Meta(), occs), nil
}

var schemePattern = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*$`)

// typeURIProblem says what is wrong with a type value, or "".
func typeURIProblem(t, requestURL string) string {
	if bad := invalidURIChar(t); bad != "" {
		return "is not a URI reference (it contains " + bad + ")"
	}
	if scheme, _, found := strings.Cut(t, ":"); found && !strings.ContainsAny(scheme, "/?#") {
		if !schemePattern.MatchString(scheme) {
			return "is not a URI reference (invalid scheme " + fmt.Sprintf("%q", scheme) + ")"
		}
		return ""
	}
	if strings.HasPrefix(t, "/") {
		return ""
	}
	ref, err := url.Parse(t)
	base, berr := url.Parse(requestURL)
	if err != nil || berr != nil {
		return "is not a URI reference"
	}
	return fmt.Sprintf("is a relative reference that resolves against the request URL (here to %s), so the same problem has a different type on every path", base.ResolveReference(ref).EscapedPath())
}

// invalidURIChar names the first character RFC 3986 does not allow in a
// URI reference, including a malformed percent-encoding, or "".
func invalidURIChar(s string) string {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '%':
			if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
				return "a malformed percent-encoding"
			}
		case c == ' ':
			return "a space"
		case c >= 0x80:
			return "non-ASCII characters"
		case c < 0x21 || strings.IndexByte(`"<>\^`+"`"+`{|}`, c) >= 0:
			return fmt.Sprintf("%q", string(c))
		}
	}
	return ""
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}

// TitleReasonPhrase checks §4.2.1: with about:blank the title is the
// status's reason phrase.
type TitleReasonPhrase struct{ probes }

func (TitleReasonPhrase) Meta() checks.Meta {
	return checks.Meta{
		ID:       "problem-json-title-reason-phrase",
		Since:    checks.FirstRelease,
		Family:   checks.FamilyProblemJSON,
		Title:    "An about:blank problem's title is the status's reason phrase",
		Severity: finding.SeverityWarning,
		SpecRefs: []finding.SpecRef{rfc9457("4.2.1", "SHOULD"), rfc9457("3.1.1", "SHOULD")},
		Help: `A problem without ` + "`type`" + ` (or with ` + "`about:blank`" + `) says nothing beyond the HTTP
status code, and its ` + "`title`" + ` should then be that status's reason phrase, such as
"Not Found" (RFC 9457 §4.2.1; it may be localized). A custom title under
` + "`about:blank`" + ` is a problem type in disguise: agents key on ` + "`type`" + ` and never see
the distinction the title tries to make.

**How to fix:** either use the reason phrase as the title, or give the
problem its own ` + "`type`" + ` URI and keep the custom title there.`,
	}
}

// reasonAliases are RFC 9110 phrases where Go's table still has older ones.
var reasonAliases = map[int]string{
	http.StatusRequestEntityTooLarge: "Content Too Large",
	http.StatusRequestURITooLong:     "URI Too Long",
	http.StatusUnprocessableEntity:   "Unprocessable Content",
}

func (c TitleReasonPhrase) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	ps, err := problemsToJudge(ctx, in)
	if err != nil {
		return nil, err
	}
	var occs []occurrence
	for _, jp := range ps {
		status := jp.x.Response.Status
		title, ok := jp.p.str("title")
		reason := http.StatusText(status)
		if !ok || reason == "" || jp.p.typeURI() != "about:blank" || localized(jp.x) {
			continue
		}
		t := strings.TrimSpace(title)
		if strings.EqualFold(t, reason) || strings.EqualFold(t, reasonAliases[status]) {
			continue
		}
		msg := fmt.Sprintf("about:blank problem in the %d to %s has title %q, not the reason phrase %q", status, describe(jp.x), clip(title), reason)
		occs = append(occs, occurrence{x: jp.x, message: msg, ev: pointerEvidence(jp.x, "title", clip(title), reason)})
	}
	return group(c.Meta(), occs), nil
}

// localized reports a response in a language other than English, whose
// title may be a translated reason phrase.
func localized(x *exchange.Exchange) bool {
	lang := strings.ToLower(strings.TrimSpace(x.Response.Header.Get("Content-Language")))
	return lang != "" && !strings.HasPrefix(lang, "en")
}

// TitleVaries checks §3.1.3: one type, one title.
type TitleVaries struct{ probes }

func (TitleVaries) Meta() checks.Meta {
	return checks.Meta{
		ID:       "problem-json-title-varies",
		Since:    checks.FirstRelease,
		Family:   checks.FamilyProblemJSON,
		Title:    "A problem type keeps one title",
		Severity: finding.SeverityWarning,
		SpecRefs: []finding.SpecRef{rfc9457("3.1.3", "SHOULD NOT")},
		Help: `The ` + "`title`" + ` summarises the problem type and should not change from occurrence
to occurrence, except for localization (RFC 9457 §3.1.3); what differs
belongs in ` + "`detail`" + `. Titles that embed IDs or paths defeat grouping and caching
of error handling, and hint that the type URI is too coarse.

**How to fix:** keep the title fixed per type and move the specifics
(the missing ID, the offending parameter) into ` + "`detail`" + ` or an extension member.`,
	}
}

func (c TitleVaries) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	ps, err := problemsToJudge(ctx, in)
	if err != nil {
		return nil, err
	}
	type seenTitle struct {
		title string
		x     *exchange.Exchange
	}
	byType := map[string][]seenTitle{}
	for _, jp := range ps {
		title, ok := jp.p.str("title")
		if !ok {
			continue
		}
		key := typeKey(jp)
		titles := byType[key]
		known := false
		for _, st := range titles {
			known = known || st.title == title
		}
		if !known {
			byType[key] = append(titles, seenTitle{title, jp.x})
		}
	}
	var out []finding.Finding
	for _, key := range slices.Sorted(maps.Keys(byType)) {
		titles := byType[key]
		if len(titles) < 2 {
			continue
		}
		quoted := make([]string, len(titles))
		for i, st := range titles {
			quoted[i] = fmt.Sprintf("%q (%s)", clip(st.title), describe(st.x))
		}
		typ, _, _ := strings.Cut(key, "\x00")
		msg := fmt.Sprintf("problem type %s has %d titles: %s", typ, len(titles), strings.Join(quoted, ", "))
		a, b := titles[0], titles[1]
		out = append(out, checks.New(c.Meta(), typ, msg,
			pointerEvidence(a.x, "title", clip(a.title), clip(a.title)),
			pointerEvidence(b.x, "title", clip(b.title), clip(a.title))))
	}
	return out, nil
}

// typeKey identifies a problem type as consumers do: the resolved type URI,
// per status for about:blank (whose title follows the status), and per
// language, since translated titles may differ.
func typeKey(jp judgedProblem) string {
	t := jp.p.typeURI()
	if ref, err := url.Parse(t); err == nil && !ref.IsAbs() {
		if base, err := url.Parse(jp.x.Request.URL); err == nil {
			t = base.ResolveReference(ref).String()
		}
	}
	if t == "about:blank" {
		t = fmt.Sprintf("about:blank (status %d)", jp.x.Response.Status)
	}
	return t + "\x00" + strings.ToLower(jp.x.Response.Header.Get("Content-Language"))
}

// ExtensionNames checks the §3.2 advice on extension member names.
type ExtensionNames struct{ probes }

func (ExtensionNames) Meta() checks.Meta {
	return checks.Meta{
		ID:       "problem-json-extension-names",
		Since:    checks.FirstRelease,
		Family:   checks.FamilyProblemJSON,
		Title:    "Extension member names start with a letter and use letters, digits and underscores",
		Severity: finding.SeverityInfo,
		SpecRefs: []finding.SpecRef{rfc9457("3.2", "SHOULD")},
		Help: `Problem types may add extension members (RFC 9457 §3.2). So that they can
also be represented in XML (Appendix B), their names should start with a
letter, contain only letters, digits and underscores, and be at least three
characters long. Names like ` + "`invalid-params`" + ` or ` + "`_links`" + ` work in JSON but not in
the XML form.

**How to fix:** rename extension members, e.g. ` + "`invalid_params`" + ` or ` + "`invalidParams`" + `.`,
	}
}

var extensionName = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]{2,}$`)

func (c ExtensionNames) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	ps, err := problemsToJudge(ctx, in)
	if err != nil {
		return nil, err
	}
	first := map[string]*exchange.Exchange{}
	count := map[string]int{}
	for _, jp := range ps {
		for name := range jp.p.members {
			if isStandard(name) || extensionName.MatchString(name) {
				continue
			}
			if first[name] == nil || jp.x.ID < first[name].ID {
				first[name] = jp.x
			}
			count[name]++
		}
	}
	var out []finding.Finding
	for _, name := range slices.Sorted(maps.Keys(first)) {
		x := first[name]
		msg := fmt.Sprintf("extension member %q (in %d problem responses, first the %d to %s) is not a letter followed by two or more letters, digits or underscores",
			clip(name), count[name], x.Response.Status, describe(x))
		ev := evidence(x, clip(name), "^[A-Za-z][A-Za-z0-9_]{2,}$")
		ev.JSONPointer = jsonorder.Join("", name)
		out = append(out, checks.New(c.Meta(), clip(name), msg, ev))
	}
	return out, nil
}

func isStandard(name string) bool {
	for _, m := range standardMembers {
		if m == name {
			return true
		}
	}
	return false
}
