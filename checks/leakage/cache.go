package leakage

import (
	"context"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/internal/hypermedia"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/jsonorder"
)

// SharedCache flags a URL whose response differs between identities while
// one of those responses may be stored by a shared cache and reused for
// another caller.
type SharedCache struct{ family }

func (SharedCache) Meta() checks.Meta {
	return checks.Meta{
		ID:       "leakage-shared-cache",
		Since:    checks.FirstRelease,
		Family:   checks.FamilyLeakage,
		Title:    "Responses that differ per caller cannot be served to another caller by a shared cache",
		Severity: finding.SeverityError,
		Security: true,
		SpecRefs: []finding.SpecRef{
			{Doc: "RFC 9111", Section: "3.5", Level: "MUST NOT", URL: "https://www.rfc-editor.org/rfc/rfc9111#section-3.5"},
			{Doc: "RFC 9111", Section: "5.2.2.7", Level: "MUST NOT", URL: "https://www.rfc-editor.org/rfc/rfc9111#section-5.2.2.7"},
			{Doc: "RFC 9110", Section: "12.5.5", Level: "SHOULD", URL: "https://www.rfc-editor.org/rfc/rfc9110#section-12.5.5"},
		},
		Help: `When two callers get different answers from one URL, a shared cache (a CDN,
a corporate proxy) must never store one caller's answer and hand it to the
other. It stores a response to a request carrying ` + "`Authorization`" + ` only when
the response says ` + "`public`" + `, ` + "`s-maxage`" + ` or ` + "`must-revalidate`" + ` (RFC 9111 §3.5),
and stores an anonymous response whenever it is cacheable and not ` + "`private`" + `;
agentready judges one only when its caching is explicit (` + "`public`" + `, ` + "`s-maxage`" + `,
` + "`max-age`" + ` or ` + "`Expires`" + `), since heuristic freshness is each cache's choice.
Without ` + "`Vary: Authorization`" + ` (or ` + "`Cookie`" + `, whichever carries the credential)
the cache keys the response on the URL alone, so an agent may be shown
another caller's orders, or a privileged caller an anonymous view.

Only a successful (2xx) response that a shared cache may store is judged: a
stale ` + "`404`" + ` hides nothing, and answering ` + "`404`" + ` to callers who may not see a
resource is what ` + "`leakage-existence-oracle`" + ` recommends. Two requests for one
URL with the same ` + "`Accept`" + ` are answered differently per caller when the other
caller got another 2xx status or media type or, for JSON bodies, another
set of member names (at any depth, array positions and identifier-like keys
folded) or of offered controls (links, HAL-FORMS templates and affordances,
by name, method and target path), or another string or boolean value at
the same place (a name, an email: the per-user body of a public /me).
Values that change on every fetch whoever asks are not compared: numbers,
strings that read as a timestamp, a UUID or a nonce, and members named for
a time, a request, a trace or a version. Other bodies are judged by status
and media type alone. A response to a request with credentials also counts when
another caller was refused (401, 403, 404, 410): the cache would hand it to
that caller.

**How to fix:** send ` + "`Cache-Control: private`" + ` (or ` + "`no-store`" + `) on every response
whose content depends on the caller, or list the credential header in ` + "`Vary`" + `.`,
	}
}

func (c SharedCache) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	vs, err := views(in)
	if err != nil {
		return nil, err
	}
	// Responses are compared only between requests that asked for the same
	// thing: a crawl GET and an Accept-less probe may rightly differ.
	byURL := map[string][]*exchange.Exchange{}
	for _, v := range vs {
		for u, x := range gets(v.Recording) {
			if whole(x) {
				k := u + "\x00" + x.Request.Header.Get("Accept")
				byURL[k] = append(byURL[k], x)
			}
		}
	}
	urls := make([]string, 0, len(byURL))
	for u := range byURL {
		urls = append(urls, u)
	}
	sort.Strings(urls)
	m := c.Meta()
	var out []finding.Finding
	for _, u := range urls {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		xs := byURL[u]
		for _, x := range xs {
			why, ok := sharedStorable(x)
			if !ok || !successful(x.Response.Status) || varyOnCredentials(x) {
				continue
			}
			diff, ok := perCaller(x, xs)
			if !ok {
				continue
			}
			msg := fmt.Sprintf("%s answers differently per caller (%s), and the response to %q is %s without Vary: Authorization; expected Cache-Control: private or Vary on the credential",
				exchange.PathOf(x.Request.URL), diff, x.Identity, why)
			out = append(out, checks.New(m, x.Identity, msg, checks.Evidence(x, []string{"Authorization", "Cookie"}, []string{"Cache-Control", "Vary", "Expires"})))
			break
		}
	}
	return out, nil
}

func successful(status int) bool { return status >= 200 && status < 300 }

// refused are the statuses of a caller denied what another caller got.
var refused = map[int]bool{401: true, 403: true, 404: true, 410: true}

// perCaller says how another identity's response differs from x, which a
// shared cache could store, in a way a second fetch by the same caller
// would not: status, media type, JSON member names or offered controls. A
// refusal counts only against a response to a request with credentials,
// whose content the cache would hand to the refused caller; an anonymous
// response holds nothing that caller could not fetch itself. Other statuses
// (3xx, 429, 5xx) say nothing about the caller and are ignored.
func perCaller(x *exchange.Exchange, xs []*exchange.Exchange) (string, bool) {
	for _, y := range xs {
		if y.Identity == x.Identity {
			continue
		}
		status := y.Response.Status
		switch {
		case refused[status] && checks.SentCredentials(x):
			return fmt.Sprintf("%d to %q, %d to %q", x.Response.Status, x.Identity, status, y.Identity), true
		case !successful(status):
			continue
		case status != x.Response.Status:
			return fmt.Sprintf("%d to %q, %d to %q", x.Response.Status, x.Identity, status, y.Identity), true
		}
		if a, b := x.Response.MediaType(), y.Response.MediaType(); a != b {
			return fmt.Sprintf("%s to %q, %s to %q", orNone(a), x.Identity, orNone(b), y.Identity), true
		}
		if diff, ok := shapeDiff(x, y); ok {
			return diff, true
		}
		if diff, ok := valueDiff(x, y); ok {
			return diff, true
		}
	}
	return "", false
}

func orNone(mediaType string) string {
	if mediaType == "" {
		return "no Content-Type"
	}
	return mediaType
}

// shapeDiff compares the member names, then the offered controls, of two
// JSON bodies and names the first difference in sorted order.
func shapeDiff(x, y *exchange.Exchange) (string, bool) {
	a, ok := shapeOf(x)
	if !ok {
		return "", false
	}
	b, ok := shapeOf(y)
	if !ok {
		return "", false
	}
	if d, ok := onlyIn("member", a.members, b.members, x.Identity, y.Identity); ok {
		return d, true
	}
	return onlyIn("control", a.controls, b.controls, x.Identity, y.Identity)
}

// shape is what a JSON body holds and offers, whatever its member values.
type shape struct{ members, controls map[string]bool }

// maxMembers bounds the member names collected from one hostile body.
const maxMembers = 4096

func shapeOf(x *exchange.Exchange) (shape, bool) {
	if !exchange.IsJSONMediaType(x.Response.MediaType()) {
		return shape{}, false
	}
	v, err := x.Response.JSON()
	if err != nil {
		return shape{}, false
	}
	s := shape{members: map[string]bool{}, controls: map[string]bool{}}
	memberNames(v, "", 0, s.members)
	if len(s.members) >= maxMembers {
		// A partial list could differ by where it was cut.
		return shape{}, false
	}
	for _, o := range hypermedia.Offers([]*exchange.Exchange{x}) {
		s.controls[fmt.Sprintf("%s (%s %s)", o.Name, o.Method, exchange.PathShape(exchange.PathOf(o.Target)))] = true
	}
	return s, true
}

// memberNames adds the JSON pointer of every member, array positions as "*"
// and identifier-like keys (IDs, dates) as "{id}", so that two fetches of
// one document by one caller agree.
func memberNames(v any, ptr string, depth int, out map[string]bool) {
	if depth > maxWalkDepth || len(out) >= maxMembers {
		return
	}
	switch t := v.(type) {
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(t)) {
			name := k
			if exchange.PathShape("/"+k) == "/{id}" {
				name = "{id}"
			}
			p := jsonorder.Join(ptr, name)
			out[p] = true
			memberNames(t[k], p, depth+1, out)
		}
	case []any:
		for _, e := range t {
			memberNames(e, ptr+"/*", depth+1, out)
		}
	}
}

// valueDiff names the first member, in document order, whose value differs
// between two JSON bodies of the same shape: the per-user body (a name, an
// email) a public /me would hand to everyone. Values that change from one
// fetch to the next whoever asks are not compared: those of members named
// for a time, a request or a version, values that read as a timestamp, a
// UUID or a long hex or base64 nonce, and numbers. Arrays are
// compared element by element only when their lengths agree. The values
// themselves are not quoted: they are another caller's data.
func valueDiff(x, y *exchange.Exchange) (string, bool) {
	a, errA := x.Response.JSON()
	b, errB := y.Response.JSON()
	if errA != nil || errB != nil {
		return "", false
	}
	if ptr, ok := firstValueDiff(a, b, "", "", 0); ok {
		return fmt.Sprintf("the value of %s differs between the responses to %q and %q", ptr, x.Identity, y.Identity), true
	}
	return "", false
}

func firstValueDiff(a, b any, ptr, name string, depth int) (string, bool) {
	if depth > maxWalkDepth {
		return "", false
	}
	switch ta := a.(type) {
	case map[string]any:
		tb, ok := b.(map[string]any)
		if !ok {
			return "", false
		}
		for _, k := range slices.Sorted(maps.Keys(ta)) {
			if vb, ok := tb[k]; ok {
				if p, diff := firstValueDiff(ta[k], vb, jsonorder.Join(ptr, k), k, depth+1); diff {
					return p, true
				}
			}
		}
	case []any:
		tb, ok := b.([]any)
		if !ok || len(ta) != len(tb) {
			return "", false
		}
		for i := range ta {
			if p, diff := firstValueDiff(ta[i], tb[i], fmt.Sprintf("%s/%d", ptr, i), name, depth+1); diff {
				return p, true
			}
		}
	case string, bool:
		if volatileName(name) || volatileValue(a) || volatileValue(b) {
			return "", false
		}
		if fmt.Sprint(a) != fmt.Sprint(b) {
			return ptr, true
		}
	}
	// Numbers are not compared: counters, stock and scores move between
	// two fetches by anyone.
	return "", false
}

var volatileWords = []string{"time", "date", "stamp", "nonce", "request", "trace", "span", "correlation", "etag", "expire", "version", "random", "uuid", "elapsed", "duration", "latency", "took", "now", "served", "generated", "updated", "modified", "created", "seen", "age"}

// volatileName reports a member named for something that changes between
// fetches: servedAt, requestId, traceparent, expiresIn, lastSeen.
func volatileName(name string) bool {
	n := strings.ToLower(name)
	for _, w := range volatileWords {
		if strings.Contains(n, w) {
			return true
		}
	}
	return strings.HasSuffix(name, "At") || strings.HasSuffix(n, "_at")
}

var (
	timestampLike = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2})?|^\w{3}, \d{2} \w{3} \d{4} \d{2}:\d{2}`)
	uuidLike      = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)
	nonceLike     = regexp.MustCompile(`^[0-9a-fA-F]{16,}$|^[A-Za-z0-9+/_=-]{24,}$`)
)

// volatileValue reports a string that reads as a timestamp or an
// identifier minted per request.
func volatileValue(v any) bool {
	t, ok := v.(string)
	return ok && (timestampLike.MatchString(t) || uuidLike.MatchString(t) || nonceLike.MatchString(t))
}

// onlyIn names the first entry, in sorted order, that one set lacks.
func onlyIn(kind string, a, b map[string]bool, aName, bName string) (string, bool) {
	var diffs []string
	for k := range a {
		if !b[k] {
			diffs = append(diffs, fmt.Sprintf("%s %s only in the response to %q", kind, k, aName))
		}
	}
	for k := range b {
		if !a[k] {
			diffs = append(diffs, fmt.Sprintf("%s %s only in the response to %q", kind, k, bName))
		}
	}
	if len(diffs) == 0 {
		return "", false
	}
	sort.Strings(diffs)
	return diffs[0], true
}

// sharedStorable says why a shared cache may store the response, or ok false.
func sharedStorable(x *exchange.Exchange) (string, bool) {
	cc := directives(x.Response.Header.Values("Cache-Control"))
	if cc["private"] || cc["no-store"] {
		return "", false
	}
	if checks.SentCredentials(x) {
		// RFC 9111 §3.5: only these let a shared cache store it.
		for _, d := range []string{"public", "s-maxage", "must-revalidate"} {
			if cc[d] {
				return "sent with credentials and marked " + d, true
			}
		}
		return "", false
	}
	switch {
	case cc["public"]:
		return "marked public", true
	case cc["s-maxage"], cc["max-age"], x.Response.Header.Get("Expires") != "":
		return "cacheable (explicit freshness) and not private", true
	}
	// Heuristic freshness (RFC 9111 §4.2.2) is left to each cache: a
	// response without explicit caching is not judged, since whether any
	// cache stores it cannot be told.
	return "", false
}

// directives are the Cache-Control directive names present, lower-cased.
func directives(values []string) map[string]bool {
	out := map[string]bool{}
	for _, v := range values {
		for _, part := range strings.Split(v, ",") {
			name, _, _ := strings.Cut(strings.TrimSpace(part), "=")
			if name != "" {
				out[lower(strings.TrimSpace(name))] = true
			}
		}
	}
	return out
}

// varyOnCredentials reports Vary: * or a Vary naming a credential header.
func varyOnCredentials(x *exchange.Exchange) bool {
	for _, v := range x.Response.Header.Values("Vary") {
		for _, f := range strings.Split(v, ",") {
			f = strings.TrimSpace(f)
			if f == "*" || exchange.IsSensitiveHeader(f) || x.Request.Header.Get(f) == exchange.Redacted {
				return true
			}
		}
	}
	return false
}
