package probe

import (
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/jsonorder"
	"github.com/agentready/agentready/internal/spec"
)

// Bounds of what one page gives the exploration: a hostile body can hold
// millions of values, and only a few per name are ever used.
const (
	harvestDepth      = 4   // object nesting walked
	harvestItems      = 5   // elements read of each array
	harvestValues     = 400 // values taken from one page
	harvestPerName    = 4   // values taken per name from one page
	maxValueLength    = 200
	harvestMaxDepth   = 12 // nesting decoded; deeper containers read as empty
	harvestMaxValues  = 100_000
	harvestMaxPointer = 4 << 20
)

// identifierFields name a resource in a URL, most specific first: GitHub's
// users by login, repositories by name, issues by number, gists by id.
var identifierFields = []string{"login", "slug", "name", "number", "key", "uuid", "id"}

// envelopeArrays hold the items of a collection returned inside an object.
var envelopeArrays = []string{"items", "data", "results", "records", "entries", "content", "values", "elements"}

// harvest is what one crawled page gives the exploration: values by name,
// the items of a collection, and the operations its OpenAPI links fill.
type harvest struct {
	// noun is what the page's resources are called (the last literal path
	// segment, singular), under which their identifiers are pooled.
	noun   string
	values []namedValue
	items  []map[string]string
	links  []linkFill
}

// namedValue is a scalar seen in a response, under a normalized name:
// "owner_id" and "ownerId" are both "ownerid".
type namedValue struct{ name, value string }

// linkFill is an operation an OpenAPI link fills, with the values of its
// parameters by name, unescaped.
type linkFill struct {
	op   *spec.Operation
	vals map[string]string
}

// harvestPage reads the values of a 2xx JSON page. It runs in the fetching
// goroutine, on the scrubbed exchange: a value that held a secret is not
// reused in a URL. doc may be nil (the start page is read before the
// document is loaded); the document and its index are read-only here.
func harvestPage(x *exchange.Exchange, doc *spec.Document) *harvest {
	r := x.Response
	if r == nil || r.Status/100 != 2 || len(r.Body) == 0 || r.Truncated || !exchange.IsJSONMediaType(r.MediaType()) {
		return nil
	}
	d, err := jsonorder.Decode(r.Body, jsonorder.Limits{MaxDepth: harvestMaxDepth, PruneDeeper: true,
		MaxValues: harvestMaxValues, MaxPointerBytes: harvestMaxPointer})
	if err != nil {
		return nil
	}
	u, err := url.Parse(x.Request.URL)
	if err != nil {
		return nil
	}
	h := &harvest{noun: pageNoun(u.EscapedPath(), doc)}
	s := &valueSink{perName: map[string]int{}}
	root := d.Root
	items := collectionItems(root)
	for _, it := range items {
		s.identifiers(h.noun, it)
		s.object(it, h.noun, 1)
		h.items = append(h.items, scalarMembers(it))
	}
	if root.Is(jsonorder.Object) {
		if items == nil {
			s.identifiers(h.noun, root)
			s.object(root, h.noun, 0)
		} else {
			s.object(root, "", 0)
		}
	}
	h.values = s.out
	if doc != nil {
		h.links = evalLinks(doc, x, u, root)
	}
	return h
}

// collectionItems are the first object elements of a top-level array or of
// an envelope's items array, or nil when the page is not a collection.
func collectionItems(root *jsonorder.Value) []*jsonorder.Value {
	arr := root
	if root.Is(jsonorder.Object) {
		arr = nil
		for _, k := range envelopeArrays {
			if v := root.Get(k); v.Is(jsonorder.Array) {
				arr = v
				break
			}
		}
	}
	if !arr.Is(jsonorder.Array) {
		return nil
	}
	out := []*jsonorder.Value{}
	for _, e := range arr.Items {
		if e.Is(jsonorder.Object) {
			out = append(out, e)
			if len(out) == harvestItems {
				break
			}
		}
	}
	return out
}

// pageNoun is the singular of the last literal segment of the template the
// path matches, else of the path's last segment that is not a number.
func pageNoun(rawPath string, doc *spec.Document) string {
	segs := strings.Split(strings.Trim(rawPath, "/"), "/")
	if doc != nil {
		if matched, _, ok := doc.Index().Bind(rawPath); ok {
			segs = strings.Split(strings.Trim(matched, "/"), "/")
		}
	}
	for i := len(segs) - 1; i >= 0; i-- {
		s := segs[i]
		if s == "" || strings.Contains(s, "{") {
			continue
		}
		if _, err := strconv.ParseFloat(s, 64); err == nil {
			continue
		}
		if un, err := url.PathUnescape(s); err == nil {
			s = un
		}
		return singular(normName(s))
	}
	return ""
}

// valueSink collects a page's values within the harvest bounds.
type valueSink struct {
	out     []namedValue
	perName map[string]int
}

func (s *valueSink) add(name, value string) {
	if name == "" || value == "" || len(value) > maxValueLength || len(s.out) >= harvestValues || s.perName[name] >= harvestPerName ||
		strings.Contains(value, exchange.Redacted) || strings.ContainsAny(value, "\x00\r\n\t") {
		return
	}
	s.perName[name]++
	s.out = append(s.out, namedValue{name, value})
}

// identifiers pools the identifying members of obj under name.
func (s *valueSink) identifiers(name string, obj *jsonorder.Value) {
	for _, f := range identifierFields {
		if v, ok := scalarText(obj.Get(f)); ok {
			s.add(name, v)
		}
	}
}

// object pools every scalar member of obj by its name, and its identifying
// members also under owner+name ("issue" and "number" give "issuenumber");
// nested objects are pooled under their key, arrays of objects under their
// key's singular.
func (s *valueSink) object(obj *jsonorder.Value, owner string, depth int) {
	if depth > harvestDepth {
		return
	}
	for _, m := range obj.Members {
		name := normName(m.Key)
		switch v := m.Value; {
		case v.Is(jsonorder.Object):
			s.identifiers(name, v)
			s.object(v, name, depth+1)
		case v.Is(jsonorder.Array):
			noun, n := singular(name), 0
			for _, e := range v.Items {
				if !e.Is(jsonorder.Object) {
					continue
				}
				s.identifiers(noun, e)
				s.object(e, noun, depth+1)
				if n++; n == harvestItems {
					break
				}
			}
		default:
			text, ok := scalarText(v)
			if !ok {
				continue
			}
			s.add(name, text)
			if owner != "" && isIdentifierField(name) {
				s.add(owner+name, text)
			}
		}
	}
}

func isIdentifierField(name string) bool {
	for _, f := range identifierFields {
		if f == name {
			return true
		}
	}
	return false
}

// scalarMembers are the scalar members of an item by normalized name.
func scalarMembers(obj *jsonorder.Value) map[string]string {
	out := map[string]string{}
	for _, m := range obj.Members {
		if v, ok := scalarText(m.Value); ok && len(v) <= maxValueLength && !strings.Contains(v, exchange.Redacted) {
			if _, dup := out[normName(m.Key)]; !dup {
				out[normName(m.Key)] = v
			}
		}
	}
	return out
}

// scalarText is a string or number as it would appear in a URL.
func scalarText(v *jsonorder.Value) (string, bool) {
	switch {
	case v.Is(jsonorder.String), v.Is(jsonorder.Number):
		return v.Text, v.Text != ""
	}
	return "", false
}

// normName folds the spellings of one name together: case, and the
// separators of snake, kebab and dotted case.
func normName(s string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case '_', '-', '.', ' ':
			return -1
		}
		return r
	}, strings.ToLower(s))
}

// singular is a plural noun's singular, for the common English plurals.
func singular(s string) string {
	switch {
	case strings.HasSuffix(s, "ies") && len(s) > 3:
		return s[:len(s)-3] + "y"
	case strings.HasSuffix(s, "ses") && len(s) > 3:
		return s[:len(s)-2]
	case strings.HasSuffix(s, "s") && !strings.HasSuffix(s, "ss") && len(s) > 1:
		return s[:len(s)-1]
	}
	return s
}

// runtimeExpression matches an embedded expression, "{$response.body#/id}".
var runtimeExpression = regexp.MustCompile(`\{(\$[^{}]+)\}`)

// evalLinks evaluates the OpenAPI links of the operation x answered for,
// keeping those that fill every path parameter of a GET operation.
func evalLinks(doc *spec.Document, x *exchange.Exchange, u *url.URL, root *jsonorder.Value) []linkFill {
	src := doc.Index().Match(http.MethodGet, x.Request.URL)
	if src == nil || len(src.Links) == 0 {
		return nil
	}
	ctx := linkContext{u: u, root: root, header: x.Response.Header}
	_, ctx.pathVars, _ = doc.Index().Bind(u.EscapedPath())
	status := strconv.Itoa(x.Response.Status)
	var out []linkFill
	for _, l := range src.Links {
		if l.Status != status && !strings.EqualFold(l.Status, status[:1]+"XX") && l.Status != "default" {
			continue
		}
		target := doc.LinkTarget(l)
		if target == nil || target.Method != http.MethodGet {
			continue
		}
		vals := map[string]string{}
		for name, expr := range l.Parameters {
			if v, ok := ctx.eval(expr); ok {
				vals[linkParamName(name)] = v
			}
		}
		if _, ok := spec.Expand(target.PathTemplate, vals); ok {
			out = append(out, linkFill{op: target, vals: vals})
		}
	}
	return out
}

// linkParamName drops the location prefix a link may qualify a name with.
func linkParamName(name string) string {
	for _, in := range []string{"path.", "query.", "header.", "cookie."} {
		if rest, ok := strings.CutPrefix(name, in); ok {
			return rest
		}
	}
	return name
}

// linkContext is what a link's runtime expressions read.
type linkContext struct {
	u        *url.URL
	root     *jsonorder.Value
	header   http.Header
	pathVars map[string]string
}

// eval evaluates a link parameter: a constant, a runtime expression, or a
// string with embedded expressions (OpenAPI 3.1 §4.8.20.4).
func (c linkContext) eval(v any) (string, bool) {
	switch t := v.(type) {
	case string:
		if strings.HasPrefix(t, "$") {
			return c.expression(t)
		}
		ok := true
		out := runtimeExpression.ReplaceAllStringFunc(t, func(m string) string {
			s, found := c.expression(m[1 : len(m)-1])
			ok = ok && found
			return s
		})
		if !ok || out == "" {
			return "", false
		}
		return out, true
	case float64:
		return strconv.FormatFloat(t, 'f', -1, 64), true
	case bool:
		return strconv.FormatBool(t), true
	}
	return "", false
}

// expression evaluates the runtime expressions a GET response can answer.
func (c linkContext) expression(e string) (string, bool) {
	switch {
	case strings.HasPrefix(e, "$response.body"):
		ptr, _ := strings.CutPrefix(strings.TrimPrefix(e, "$response.body"), "#")
		return scalarText(pointerValue(c.root, ptr))
	case strings.HasPrefix(e, "$response.header."):
		v := c.header.Get(strings.TrimPrefix(e, "$response.header."))
		return v, v != ""
	case strings.HasPrefix(e, "$request.path."):
		raw, ok := c.pathVars[strings.TrimPrefix(e, "$request.path.")]
		if !ok {
			return "", false
		}
		v, err := url.PathUnescape(raw)
		return v, err == nil && v != ""
	case strings.HasPrefix(e, "$request.query."):
		v := c.u.Query().Get(strings.TrimPrefix(e, "$request.query."))
		return v, v != ""
	}
	return "", false
}

// pointerValue resolves a JSON Pointer (RFC 6901) in a decoded document.
func pointerValue(root *jsonorder.Value, ptr string) *jsonorder.Value {
	if ptr == "" {
		return root
	}
	if !strings.HasPrefix(ptr, "/") {
		return nil
	}
	v := root
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = jsonorder.Unescape(tok)
		switch {
		case v.Is(jsonorder.Object):
			v = v.Get(tok)
		case v.Is(jsonorder.Array):
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(v.Items) {
				return nil
			}
			v = v.Items[i]
		default:
			return nil
		}
	}
	return v
}
