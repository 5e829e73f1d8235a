package exchange

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/agentready/agentready/internal/jsonorder"
	"github.com/agentready/agentready/internal/urlx"
)

// CreatedBy is the URL of the resource an accepted attempt created, on the
// origin of the request, "" when its answer names none: a 201 Created with
// a Location (RFC 9110 §15.3.2), else, given template (the item path the
// OpenAPI document declares under the collection the attempt was sent
// to), the answer's HAL link to itself (_links.self) or its id filling the
// template (its one variable taken from the member of that name, else
// "id"). With a template, a Location must fit it too, so that a cleanup
// sent to the URL is the DELETE the plan showed.
func CreatedBy(x *Exchange, template string) string {
	if x == nil || x.Response == nil || x.Response.Status/100 != 2 {
		return ""
	}
	base, err := url.Parse(x.Request.URL)
	if err != nil {
		return ""
	}
	fits := func(ref string) string {
		u, err := base.Parse(ref)
		if err != nil || !urlx.SameOrigin(base, u) || u.RawQuery != "" || u.Fragment != "" {
			return ""
		}
		u.User = nil
		s := u.String()
		if s == x.Request.URL || (template != "" && !FitsTemplate(s, template)) {
			return ""
		}
		return s
	}
	if x.Response.Status == http.StatusCreated {
		if loc := x.Response.Header.Get("Location"); loc != "" {
			return fits(loc)
		}
	}
	if template == "" {
		// Without an item path to fit, a body's self link may well be
		// the resource an action acted on, not one it created.
		return ""
	}
	v := x.Response.ReadHAL()
	if v.Err != nil || v.Doc.Root == nil {
		return ""
	}
	root := v.Doc.Root
	if self, ok := root.Get("_links").Get("self").Get("href").Str(); ok && self != "" {
		if u := fits(self); u != "" {
			return u
		}
	}
	name, ok := TemplateVariable(template)
	if !ok {
		return ""
	}
	id := root.Get(name)
	if id == nil {
		id = root.Get("id")
	}
	var seg string
	if s, ok := id.Str(); ok {
		seg = s
	} else if id.Is(jsonorder.Number) {
		seg = id.Text
	}
	if seg == "" || seg == "." || seg == ".." || strings.ContainsAny(seg, "/\\?#") {
		return ""
	}
	return fits(strings.Replace(template, "{"+name+"}", url.PathEscape(seg), 1))
}

// TemplateVariable is the name of a template's one variable, which is its last
// segment.
func TemplateVariable(template string) (string, bool) {
	if strings.Count(template, "{") != 1 {
		return "", false
	}
	last := template[strings.LastIndex(template, "/")+1:]
	if !strings.HasPrefix(last, "{") || !strings.HasSuffix(last, "}") {
		return "", false
	}
	return last[1 : len(last)-1], true
}

// FitsTemplate reports an absolute URL whose path is template's with each
// variable one plain segment (not empty, . or ..), on template's origin.
func FitsTemplate(rawURL, template string) bool {
	u, err := url.Parse(rawURL)
	t, terr := url.Parse(strings.NewReplacer("{", "%7B", "}", "%7D").Replace(template))
	if err != nil || terr != nil || !urlx.SameOrigin(u, t) || u.RawQuery != "" {
		return false
	}
	us, ts := strings.Split(u.EscapedPath(), "/"), strings.Split(t.EscapedPath(), "/")
	if len(us) != len(ts) {
		return false
	}
	for i := range ts {
		if strings.HasPrefix(ts[i], "%7B") && strings.HasSuffix(ts[i], "%7D") {
			low := strings.ToLower(us[i])
			if us[i] == "" || us[i] == "." || us[i] == ".." || strings.Contains(low, "%2f") || strings.Contains(low, "%5c") || strings.Contains(low, "%2e") {
				return false
			}
			continue
		}
		if us[i] != ts[i] {
			return false
		}
	}
	return true
}
