package halforms

import (
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"regexp/syntax"
	"strings"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/internal/hypermedia"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/jsonorder"
)

// analysis is every HAL-FORMS issue of the recording, by check ID, plus the
// templates found, for the checks that compare them with the spec.
type analysis struct {
	docs      int
	issues    map[string][]hypermedia.Issue
	templates []*template
}

// template is one well-formed enough template: it has a method and a target
// (its own or the self link), so it can be matched to an operation.
type template struct {
	doc        *hypermedia.Doc
	key        string
	v          *jsonorder.Value
	method     string // upper-cased for matching
	target     string // absolute
	targetPtr  string
	properties []property
}

type property struct {
	name     string
	required bool
	v        *jsonorder.Value
}

func (a *analysis) add(id string, is hypermedia.Issue) { a.issues[id] = append(a.issues[id], is) }

var analysisKey = checks.NewKey[*analysis]()

func analyze(in *checks.Input) *analysis {
	return checks.Memo(in, analysisKey, func() *analysis {
		a := &analysis{issues: map[string][]hypermedia.Issue{}}
		served := hypermedia.HALFormsDocs(in)
		for _, d := range served {
			a.document(in, d)
		}
		for _, d := range carriedDocs(in, served) {
			a.document(in, d)
		}
		return a
	})
}

func (a *analysis) document(in *checks.Input, d *hypermedia.Doc) {
	if errors.Is(d.Err, jsonorder.ErrLimit) {
		return
	}
	a.docs++
	carrier := d.X.Response.MediaType()
	issue := func(id string, v *jsonorder.Value, msg, expected, actual string) {
		if carrier != hypermedia.MediaHALForms {
			msg += fmt.Sprintf(" (the _templates were carried in %s)", carrier)
		}
		is := hypermedia.Issue{X: d.X, Message: msg, Expected: expected, Actual: actual, Value: v}
		if v != nil {
			is.Pointer = v.Pointer
		}
		a.add(id, is)
	}
	if d.Err != nil {
		issue(idTemplatesMissing, nil, "the body served as HAL-FORMS is not JSON ("+d.Err.Error()+"), so it has no _templates", "a JSON object with _templates", "not JSON")
		return
	}
	if d.HAL.Root == nil {
		root := d.Root()
		issue(idTemplatesMissing, root, fmt.Sprintf("the HAL-FORMS body is a JSON %s, not an object with _templates", root.Kind), "object", root.Kind.String())
		return
	}
	tpls := d.HAL.Root.TemplatesValue
	switch {
	case tpls == nil:
		issue(idTemplatesMissing, d.HAL.Root.Value, "the response is served as HAL-FORMS but has no _templates, so clients ignore the whole document", "_templates", "(absent)")
		return
	case tpls.Kind != jsonorder.Object:
		issue(idTemplatesMissing, tpls, fmt.Sprintf("_templates is a JSON %s, not an object of templates", tpls.Kind), "object", tpls.Kind.String())
		return
	case len(tpls.Members) == 0:
		issue(idTemplatesEmpty, tpls, "_templates is empty; a HAL-FORMS document needs at least one template", "at least one template", "{}")
		return
	}
	if tpls.Get("default") == nil {
		in.Observe(idTemplatesMissing, fmt.Sprintf("no \"default\" template in %s; clients take the first in document order: %q",
			hypermedia.ShapeOf(d.X), tpls.Members[0].Key))
	}
	self := strings.TrimSpace(d.HAL.Root.SelfHref())
	for _, tpl := range d.HAL.Root.Templates {
		if t := a.template(d, tpl.Key, tpl.Value, self, issue); t != nil {
			a.templates = append(a.templates, t)
		}
	}
}

// carriedDocs are the JSON responses, HAL ones included, that carry
// _templates without being served as HAL-FORMS: producers put them there,
// and clients that read them meet the same defects. A resource already
// judged through its HAL-FORMS representation is not judged twice.
func carriedDocs(in *checks.Input, served []*hypermedia.Doc) []*hypermedia.Doc {
	judged := map[string]bool{}
	for _, d := range served {
		judged[d.X.Request.URL] = true
	}
	carried := hypermedia.Carried(in)
	return hypermedia.Docs(in, "hal-forms-carried", func(x *exchange.Exchange) bool {
		return carried[x] && !judged[x.Request.URL]
	})
}

type issueFunc func(id string, v *jsonorder.Value, msg, expected, actual string)

func (a *analysis) template(d *hypermedia.Doc, key string, v *jsonorder.Value, self string, issue issueFunc) *template {
	if v.Kind != jsonorder.Object {
		issue(idMethodMissing, v, fmt.Sprintf("template %q is a JSON %s, not a template object with a method", key, v.Kind), "object with method", v.Kind.String())
		return nil
	}
	t := &template{doc: d, key: key, v: v}
	t.method = checkMethod(key, v, issue)
	t.target, t.targetPtr = checkTarget(d, key, v, self, issue)
	checkContentType(key, v, issue)
	t.properties = checkProperties(key, v, issue)
	if t.method == "" || t.target == "" {
		return nil
	}
	return t
}

// checkMethod returns the method as a matchable upper-case name, or "" when
// there is none to match.
func checkMethod(key string, v *jsonorder.Value, issue issueFunc) string {
	mv := v.Get("method")
	m, ok := mv.Str()
	switch {
	case mv == nil || (ok && m == ""):
		issue(idMethodMissing, v, fmt.Sprintf("template %q has no method; clients MUST then send GET", key), `"method": "POST" (or another)`, mv.Literal())
		return ""
	case !ok:
		issue(idMethodMissing, mv, fmt.Sprintf("template %q has method %s, not a string; clients MUST then send GET", key, mv.Literal()), "a method name", mv.Literal())
		return ""
	case !isToken(m):
		issue(idMethodInvalid, mv, fmt.Sprintf("template %q method %q is not an HTTP method token; clients MUST treat it as GET", key, m), "an HTTP method such as POST", m)
		return ""
	case !registeredMethods[m]:
		hint := "it is not a registered method"
		if registeredMethods[strings.ToUpper(m)] {
			hint = "methods are case-sensitive, so it is not " + strings.ToUpper(m)
		}
		issue(idMethodUnrecognized, mv, fmt.Sprintf("template %q method %q may not be understood (%s); strict clients MUST then send GET", key, m, hint),
			strings.ToUpper(m), m)
	}
	return strings.ToUpper(m)
}

// checkTarget returns the absolute URL the template submits to: its target,
// or the self link when the target is absent or unusable.
func checkTarget(d *hypermedia.Doc, key string, v *jsonorder.Value, self string, issue issueFunc) (string, string) {
	base, err := url.Parse(d.X.Request.URL)
	if err != nil {
		return "", ""
	}
	tv := v.Get("target")
	if raw, ok := tv.Str(); ok && strings.TrimSpace(raw) != "" {
		if u, err := base.Parse(strings.TrimSpace(raw)); err == nil {
			return u.String(), tv.Pointer
		}
	}
	if self != "" {
		if u, err := base.Parse(self); err == nil {
			return u.String(), "/_links/self/href"
		}
	}
	what := "no target"
	if tv != nil {
		what = "target " + tv.Literal() + ", which does not resolve,"
	}
	at := v
	if tv != nil {
		at = tv
	}
	issue(idTargetUnresolvable, at, fmt.Sprintf("template %q has %s and the document has no self link to fall back on", key, what), "a target URL or a self link", tv.Literal())
	return "", ""
}

func checkContentType(key string, v *jsonorder.Value, issue issueFunc) {
	cv := v.Get("contentType")
	ct, ok := cv.Str()
	if !ok || strings.TrimSpace(ct) == "" {
		return
	}
	mt := strings.ToLower(strings.TrimSpace(strings.SplitN(ct, ";", 2)[0]))
	if mt == "application/json" || strings.HasSuffix(mt, "+json") || mt == "application/x-www-form-urlencoded" {
		return
	}
	issue(idContentType, cv, fmt.Sprintf("template %q contentType %q is neither JSON nor form-encoded; clients are only required to support those", key, ct),
		"application/json or application/x-www-form-urlencoded", ct)
}

func checkProperties(key string, v *jsonorder.Value, issue issueFunc) []property {
	pv := v.Get("properties")
	if pv == nil || pv.Kind == jsonorder.Null {
		return nil
	}
	if pv.Kind != jsonorder.Array {
		issue(idPropertyName, pv, fmt.Sprintf("template %q properties is a JSON %s, not an array of property objects", key, pv.Kind), "array", pv.Kind.String())
		return nil
	}
	var out []property
	seen := map[string]bool{}
	for _, p := range pv.Items {
		if p.Kind != jsonorder.Object {
			issue(idPropertyName, p, fmt.Sprintf("template %q has a property that is a JSON %s, not an object with a name", key, p.Kind), "object with name", p.Kind.String())
			continue
		}
		nv := p.Get("name")
		name, ok := nv.Str()
		if !ok || strings.TrimSpace(name) == "" {
			issue(idPropertyName, p, fmt.Sprintf("template %q has a property without a name (name is %s); clients ignore it", key, nv.Literal()), `"name": "<field>"`, nv.Literal())
			continue
		}
		if seen[name] {
			issue(idPropertyDuplicate, nv, fmt.Sprintf("template %q declares property %q twice", key, name), "unique names", name)
		}
		seen[name] = true
		checkProperty(key, name, p, issue)
		out = append(out, property{name: name, required: p.Get("required").IsTrue(), v: p})
	}
	return out
}

func checkProperty(key, name string, p *jsonorder.Value, issue issueFunc) {
	where := fmt.Sprintf("template %q property %q", key, name)
	if rv := p.Get("regex"); rv != nil {
		if re, ok := rv.Str(); ok && re != "" {
			if err := htmlPattern(re); err != nil {
				issue(idRegex, rv, fmt.Sprintf("%s regex %q does not compile as an HTML pattern: %v", where, re, err), "a valid pattern", re)
			}
		}
	}
	for _, pair := range [][2]string{{"min", "max"}, {"minLength", "maxLength"}} {
		lo, okLo := p.Get(pair[0]).Float()
		hi, okHi := p.Get(pair[1]).Float()
		if okLo && okHi && lo > hi {
			issue(idRange, p.Get(pair[0]), fmt.Sprintf("%s has %s %s greater than %s %s, so no value is valid", where, pair[0], p.Get(pair[0]).Text, pair[1], p.Get(pair[1]).Text),
				fmt.Sprintf("%s ≤ %s", pair[0], pair[1]), fmt.Sprintf("%s > %s", p.Get(pair[0]).Text, p.Get(pair[1]).Text))
		}
	}
	if tv := p.Get("type"); tv != nil {
		if ty, ok := tv.Str(); ok && ty != "" && !inputTypes[ty] {
			issue(idPropertyType, tv, fmt.Sprintf("%s type %q is not one of the HAL-FORMS input types; clients treat it as text", where, ty), "a listed type (text, number, date, …)", ty)
		}
	}
	checkOptions(where, p, issue)
}

func checkOptions(where string, p *jsonorder.Value, issue issueFunc) {
	ov := p.Get("options")
	if ov == nil || ov.Kind != jsonorder.Object {
		return
	}
	inline, link := ov.Get("inline"), ov.Get("link")
	if inline == nil && link == nil {
		issue(idOptionsSource, ov, where+" has options with neither inline values nor a link, so clients ignore them", "inline or link", "neither")
	}
	if link != nil {
		if href, ok := link.Get("href").Str(); !ok || strings.TrimSpace(href) == "" {
			issue(idOptionsLinkHref, link, where+" options.link has no href, so the values cannot be fetched", `"href": "<URL>"`, link.Get("href").Literal())
		}
	}
	required := p.Get("required").IsTrue()
	minItems, hasMin := ov.Get("minItems").Float()
	switch {
	case hasMin && required && minItems == 0:
		issue(idRequiredMinItems, ov.Get("minItems"), where+" is required but options.minItems is 0", "minItems ≥ 1 when required", "0")
	case hasMin && !required && minItems >= 1:
		issue(idRequiredMinItems, ov.Get("minItems"), fmt.Sprintf("%s is not required but options.minItems is %s", where, ov.Get("minItems").Text), "required: true when minItems ≥ 1", "required: false")
	}
}

// isToken reports an RFC 9110 §5.6.2 token.
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0 {
			continue
		}
		return false
	}
	return true
}

// registeredMethods are the IANA HTTP Method Registry entries, as written
// (methods are case-sensitive, RFC 9110 §9.1).
var registeredMethods = setOf("GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH",
	"ACL", "BASELINE-CONTROL", "BIND", "CHECKIN", "CHECKOUT", "COPY", "LABEL", "LINK", "LOCK", "MERGE",
	"MKACTIVITY", "MKCALENDAR", "MKCOL", "MKREDIRECTREF", "MKWORKSPACE", "MOVE", "ORDERPATCH", "PRI",
	"PROPFIND", "PROPPATCH", "QUERY", "REBIND", "REPORT", "SEARCH", "UNBIND", "UNCHECKOUT", "UNLINK",
	"UNLOCK", "UPDATE", "UPDATEREDIRECTREF", "VERSION-CONTROL")

// inputTypes are the property types the HAL-FORMS spec lists.
var inputTypes = setOf("hidden", "text", "textarea", "search", "tel", "url", "email", "password", "date",
	"month", "week", "time", "datetime-local", "number", "range", "color")

func setOf(vs ...string) map[string]bool {
	m := make(map[string]bool, len(vs))
	for _, v := range vs {
		m[v] = true
	}
	return m
}

// jsOnly matches syntax that ECMAScript patterns accept and RE2 does not:
// lookaround, backreferences, \uXXXX and \cX escapes. A pattern using them cannot be judged here.
var jsOnly = regexp.MustCompile(`\(\?<?[=!]|\\[0-9]|\\k<|\\u|\\c[A-Za-z]`)

// htmlPattern compiles p as HTML's pattern attribute does, anchored as
// ^(?:p)$, and returns the error a browser would also raise. Constructs RE2
// does not support but ECMAScript does are given the benefit of the doubt,
// as are repeat counts over RE2's limit.
func htmlPattern(p string) error {
	if jsOnly.MatchString(p) {
		return nil
	}
	_, err := syntax.Parse("^(?:"+p+")$", syntax.Perl)
	var se *syntax.Error
	if errors.As(err, &se) {
		switch se.Code {
		case syntax.ErrInvalidRepeatSize, syntax.ErrLarge, syntax.ErrNestingDepth:
			return nil
		}
		return fmt.Errorf("%s", se.Code)
	}
	return err
}
