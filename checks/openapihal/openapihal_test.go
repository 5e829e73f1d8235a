package openapihal

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/checkstest"
	"github.com/agentready/agentready/checks/internal/conneg"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/spec"
)

const target = "https://api.example/"

// op builds an operation at line; rels become x-hal-rel (none when empty).
func op(line int, method, path string, rels ...string) *spec.Operation {
	o := &spec.Operation{
		Method: method, PathTemplate: path, OperationID: strings.ToLower(method) + path,
		Location:  finding.SourceLocation{File: "openapi.yaml", Line: line, Column: 5},
		Responses: map[string]spec.Response{"200": {Content: map[string]map[string]any{"application/hal+json": nil}}},
	}
	if len(rels) > 0 {
		o.HALRels = rels
		o.HALRelLocation = &finding.SourceLocation{File: "openapi.yaml", Line: line + 2, Column: 7}
	}
	return o
}

func doc(ops ...*spec.Operation) *spec.Document {
	d := &spec.Document{Operations: ops}
	for _, o := range ops {
		if len(o.HALRels) > 0 || o.HALRelsRaw != nil {
			d.UsesHALRel = true
		}
	}
	return d
}

// orders is the spec most cases share.
func orders() *spec.Document {
	return doc(
		op(10, "GET", "/orders/{id}"),
		op(20, "POST", "/orders/{id}/payment", "order:pay", "pay"),
		op(30, "POST", "/orders/{id}/cancellation", "order:cancel", "cancel"),
		op(40, "GET", "/orders", "orders", "order:find", "find"),
	)
}

func hal(purpose, u, body string, headers ...string) *exchange.Exchange {
	b := checkstest.Exchange(purpose, "GET", u).Status(200).Header("Content-Type", "application/hal+json").Body(body)
	for i := 0; i+1 < len(headers); i += 2 {
		if strings.HasPrefix(headers[i], ">") {
			b.ReqHeader(headers[i][1:], headers[i+1])
		} else {
			b.Header(headers[i], headers[i+1])
		}
	}
	return b.Build()
}

func input(d *spec.Document, samples []string, xs ...*exchange.Exchange) *checks.Input {
	in := checkstest.Input(target, samples, xs...)
	in.Spec = d
	return in
}

func run(t *testing.T, c checks.Check, in *checks.Input) ([]finding.Finding, string) {
	t.Helper()
	return checkstest.Run(t, c, in)
}

func TestCoordinateMatching(t *testing.T) {
	u := target + "orders/1"
	tests := []struct {
		name string
		body string
		want []string
	}{
		{"listed relation at its template", `{"_links":{"self":{"href":"/orders/1"},"pay":{"href":"/orders/1/payment"},"order:cancel":{"href":"https://api.example/orders/1/cancellation"}}}`, nil},
		{"registered and reserved relations are exempt", `{"_links":{"self":{"href":"/orders/1"},"collection":{"href":"/orders"},"next":{"href":"/orders/2"},"curies":[{"name":"order","href":"/rels/{rel}","templated":true}]}}`, nil},
		{"templated href matches its template", `{"_links":{"find":{"href":"/orders{?state}","templated":true},"pay":{"href":"/orders/{id}/payment","templated":true}}}`, nil},
		{"off-origin links are not matched", `{"_links":{"refund":{"href":"https://pay.example/refunds/1"}}}`, nil},
		{"relation listed nowhere", `{"_links":{"refund":{"href":"/orders/1/refund"}}}`, []string{"openapi-hal-unlisted-rel"}},
		{"relation in an embedded resource", `{"_embedded":{"orders":[{"_links":{"archive":{"href":"/orders/1/archive"}}}]}}`, []string{"openapi-hal-unlisted-rel"}},
		{"href off the listing operation's template", `{"_links":{"pay":{"href":"/orders/1/pay"}}}`, []string{"openapi-hal-wrong-coordinate"}},
		{"relation of another operation", `{"_links":{"cancel":{"href":"/orders/1/payment"}}}`, []string{"openapi-hal-wrong-coordinate"}},
		{"template method differs", `{"_templates":{"pay":{"method":"PUT","target":"/orders/1/payment"}}}`, []string{"openapi-hal-method-mismatch"}},
		{"default template method differs", `{"_templates":{"default":{"method":"DELETE","target":"/orders/1/payment"}}}`, []string{"openapi-hal-method-mismatch"}},
		{"template method agrees, any case", `{"_templates":{"pay":{"method":"post","target":"/orders/1/payment"},"default":{"method":"POST","target":"/orders/1/cancellation"}}}`, nil},
		{"template without target acts on the document", `{"_templates":{"default":{"method":"GET"}}}`, nil},
		{"hostile body", `{"_links":{"pay":[1,"x",{"href":7},{"href":""}]},"_embedded":{"a":"b"},"_templates":[]}`, nil},
	}
	cs := []checks.Check{UnlistedRel{}, WrongCoordinate{}, MethodMismatch{}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := input(orders(), []string{u}, hal(exchange.PurposeCrawl, u, tt.body))
			var all []finding.Finding
			for _, c := range cs {
				fs, reason := run(t, c, in)
				if reason != "" {
					t.Fatalf("%s skipped: %s", c.Meta().ID, reason)
				}
				all = append(all, fs...)
			}
			if got := checkstest.IDs(all); !slices.Equal(got, tt.want) {
				t.Errorf("fired %v, want %v", got, tt.want)
			}
		})
	}
}

func TestCoordinateFindingsPointAtTheSpec(t *testing.T) {
	u := target + "orders/1"
	in := input(orders(), []string{u}, hal(exchange.PurposeCrawl, u, `{"_links":{"pay":{"href":"/orders/1/pay"}},"_templates":{"cancel":{"method":"PUT","target":"/orders/1/cancellation"}}}`))
	fs, _ := run(t, WrongCoordinate{}, in)
	if len(fs) != 1 || fs[0].Location == nil || fs[0].Location.Line != 22 || fs[0].Evidence[0].JSONPointer != "/_links/pay" {
		t.Fatalf("wrong-coordinate finding %+v", fs)
	}
	fs, _ = run(t, MethodMismatch{}, in)
	if len(fs) != 1 || fs[0].Location == nil || fs[0].Location.Line != 30 || fs[0].Evidence[0].JSONPointer != "/_templates/cancel/method" {
		t.Fatalf("method-mismatch finding %+v", fs)
	}
	if !strings.Contains(fs[0].Message, "says PUT") || !strings.Contains(fs[0].Message, "POST /orders/{id}/cancellation") {
		t.Errorf("message %q", fs[0].Message)
	}
}

func TestSkipsWithoutSpecOrXHALRel(t *testing.T) {
	u := target + "orders/1"
	x := hal(exchange.PurposeCrawl, u, `{"_links":{"refund":{"href":"/orders/1/refund"}}}`)
	for _, d := range []*spec.Document{nil, doc(op(1, "GET", "/orders/{id}")), {Swagger2: true}} {
		for _, c := range []checks.Check{UnlistedRel{}, WrongCoordinate{}, MethodMismatch{}, UndeclaredCurie{}, NamespacedRels{}, NeverOffered{}} {
			if _, reason := run(t, c, input(d, []string{u}, x)); reason == "" {
				t.Errorf("%s ran with spec %+v", c.Meta().ID, d)
			}
		}
	}
}

func rawOp(raw any) *spec.Operation {
	o := op(50, "POST", "/orders/{id}/shipment")
	o.Extensions = map[string]any{"x-hal-rel": raw}
	o.HALRelLocation = &finding.SourceLocation{File: "openapi.yaml", Line: 52}
	return o
}

func TestMalformed(t *testing.T) {
	tests := []struct {
		raw  any
		want string // part of the message, "" for no finding
	}{
		{[]any{"order:ship", "ship"}, ""},
		{[]string{"ship"}, ""},
		{"order:ship ship", `is the string "order:ship ship", not an array`},
		{map[string]any{"rel": "ship"}, "is an object"},
		{[]any{"ship", 3.0}, "element 1 is a number"},
		{[]any{"ship", ""}, "element 1 is an empty string"},
		{[]any{"ship", "order:ship", "Ship"}, `lists "Ship" twice (elements 0 and 2)`},
		{[]any{"order ship"}, "contains whitespace"},
		{nil, "is null"},
	}
	for _, tt := range tests {
		fs, _ := run(t, Malformed{}, checks.NewStaticInput(&url.URL{Scheme: "file", Path: "openapi.yaml"}, doc(rawOp(tt.raw), op(1, "GET", "/orders"))))
		switch {
		case tt.want == "" && len(fs) > 0:
			t.Errorf("%#v: unexpected %s", tt.raw, fs[0].Message)
		case tt.want != "" && (len(fs) != 1 || !strings.Contains(fs[0].Message, tt.want)):
			t.Errorf("%#v: findings %v, want one saying %q", tt.raw, fs, tt.want)
		case tt.want != "" && (fs[0].Location == nil || fs[0].Location.Line != 52):
			t.Errorf("%#v: location %+v", tt.raw, fs[0].Location)
		}
	}
	// The lenient reading keeps the other rules quiet about the same mistake.
	if got := relsOf(rawOp("order:ship ship")); !slices.Equal(got, []string{"order:ship", "ship"}) {
		t.Errorf("relsOf(string) = %v", got)
	}
}

func TestStaticChecks(t *testing.T) {
	nsCancel := op(30, "POST", "/orders/{id}/cancellation", "order:cancel", "cancel")
	tests := []struct {
		name string
		doc  *spec.Document
		want []string
	}{
		{"namespaced forms everywhere", doc(nsCancel, op(60, "POST", "/subscriptions/{id}/cancellation", "subscription:cancel", "cancel")), nil},
		{"bare cancel on two resources, one without a namespaced form",
			doc(nsCancel, op(60, "POST", "/subscriptions/{id}/cancellation", "cancel")), []string{"openapi-hal-bare-rel-collision"}},
		{"one relation on two operations of a path",
			doc(nsCancel, op(70, "DELETE", "/orders/{id}/cancellation", "order:cancel")), []string{"openapi-hal-rel-ambiguous"}},
		{"state-changing operation without x-hal-rel",
			doc(nsCancel, op(80, "POST", "/orders/{id}/archive")), []string{"openapi-hal-unlinked-operation"}},
		{"safe and deprecated operations need none",
			doc(nsCancel, op(90, "GET", "/orders/{id}"), func() *spec.Operation { o := op(95, "DELETE", "/orders/{id}"); o.Deprecated = true; return o }()), nil},
	}
	cs := []checks.Check{Ambiguous{}, BareCollision{}, Unlinked{}, Malformed{}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := checks.NewStaticInput(&url.URL{Scheme: "file", Path: "openapi.yaml"}, tt.doc)
			var all []finding.Finding
			for _, c := range cs {
				if !checks.IsStatic(c) {
					t.Fatalf("%s is not static", c.Meta().ID)
				}
				fs, _ := run(t, c, in)
				all = append(all, fs...)
			}
			if got := checkstest.IDs(all); !slices.Equal(got, tt.want) {
				t.Errorf("fired %v, want %v", got, tt.want)
			}
			for _, f := range all {
				if f.Location == nil || f.Location.File != "openapi.yaml" {
					t.Errorf("%s without location", f.CheckID)
				}
			}
		})
	}
	in := checks.NewStaticInput(&url.URL{Scheme: "file", Path: "openapi.yaml"}, doc(op(80, "POST", "/orders")))
	if _, reason := run(t, Unlinked{}, in); reason == "" {
		t.Error("unlinked-operation ran on a document without x-hal-rel")
	}
}

func TestUndeclaredCurie(t *testing.T) {
	u := target + "orders/1"
	curies := `"curies":[{"name":"order","href":"https://rels.example/order/{rel}","templated":true}]`
	tests := []struct {
		name, body string
		fires      bool
	}{
		{"declared", `{"_links":{` + curies + `,"order:pay":{"href":"/orders/1/payment"}}}`, false},
		{"declared by the enclosing resource", `{"_links":{` + curies + `},"_embedded":{"o":{"_links":{"order:pay":{"href":"/orders/1/payment"}}}}}`, false},
		{"undeclared", `{"_links":{"order:pay":{"href":"/orders/1/payment"}}}`, true},
		{"undeclared in an embedded resource", `{"_embedded":{"o":[{"_links":{"order:cancel":{"href":"/orders/1/cancellation"}}}]}}`, true},
		{"not an x-hal-rel relation", `{"_links":{"acme:widgets":{"href":"/widgets"}}}`, false},
		{"absolute URI relation", `{"_links":{"https://rels.example/pay":{"href":"/orders/1/payment"}}}`, false},
	}
	for _, tt := range tests {
		fs, _ := run(t, UndeclaredCurie{}, input(orders(), []string{u}, hal(exchange.PurposeCrawl, u, tt.body)))
		if (len(fs) > 0) != tt.fires {
			t.Errorf("%s: findings %v", tt.name, fs)
		}
		if tt.fires && (fs[0].Subject != "order" || fs[0].Location == nil) {
			t.Errorf("%s: finding %+v", tt.name, fs[0])
		}
	}
}

// negotiated builds the crawl sample and the two probes of one resource.
func negotiated(u, plainBody, nsBody string, nsHeaders ...string) []*exchange.Exchange {
	vary := []string{"Vary", "Accept, Prefer"}
	return []*exchange.Exchange{
		hal(exchange.PurposeCrawl, u, plainBody, vary...),
		hal(conneg.PurposeOwn, u, plainBody, append([]string{">Accept", "application/hal+json"}, vary...)...),
		hal(PurposeNamespaced, u, nsBody, append([]string{">Accept", "application/hal+json", ">Prefer", PreferNamespaced}, nsHeaders...)...),
	}
}

func TestNamespacedRels(t *testing.T) {
	u := target + "orders/1"
	bare := `{"_links":{"self":{"href":"/orders/1"},"pay":{"href":"/orders/1/payment"}}}`
	ns := `{"_links":{"self":{"href":"/orders/1"},"curies":[{"name":"order","href":"/r/{rel}","templated":true}],"order:pay":{"href":"/orders/1/payment"}}}`
	applied := []string{"Preference-Applied", "namespaced-rels", "Vary", "Accept, Prefer"}
	tests := []struct {
		name        string
		plain, pref string
		headers     []string
		want        string // part of the message, "" for none
	}{
		{"switches and says so", bare, ns, applied, ""},
		{"ignored", bare, bare, []string{"Vary", "Accept, Prefer"}, "pay stayed bare"},
		{"switches silently", bare, ns, []string{"Vary", "Accept, Prefer"}, "no Preference-Applied: namespaced-rels"},
		{"namespaced without being asked", ns, ns, applied, "order:pay is already namespaced"},
		{"nothing to switch", `{"_links":{"self":{"href":"/orders/1"}}}`, `{"_links":{"self":{"href":"/orders/1"}}}`, nil, ""},
	}
	for _, tt := range tests {
		in := input(orders(), []string{u}, negotiated(u, tt.plain, tt.pref, tt.headers...)...)
		fs, reason := run(t, NamespacedRels{}, in)
		if reason != "" {
			t.Fatalf("%s: skipped: %s", tt.name, reason)
		}
		switch {
		case tt.want == "" && len(fs) > 0:
			t.Errorf("%s: unexpected %s", tt.name, fs[0].Message)
		case tt.want != "" && (len(fs) != 1 || !strings.Contains(fs[0].Message, tt.want)):
			t.Errorf("%s: findings %v, want one saying %q", tt.name, fs, tt.want)
		}
	}
	onlyBare := doc(op(20, "POST", "/orders/{id}/payment", "pay"))
	if _, reason := run(t, NamespacedRels{}, input(onlyBare, []string{u}, negotiated(u, bare, bare)...)); reason == "" {
		t.Error("ran on a spec without namespaced relations")
	}
}

func TestNamespacedVary(t *testing.T) {
	u := target + "orders/1"
	bare := `{"_links":{"pay":{"href":"/orders/1/payment"}}}`
	ns := `{"_links":{"order:pay":{"href":"/orders/1/payment"}}}`
	minimal := func(vary string) *exchange.Exchange {
		return hal(conneg.PurposePrefer, u, `{}`, ">Accept", "application/hal+json", ">Prefer", "return=minimal",
			"Preference-Applied", "return=minimal", "Vary", vary)
	}
	withVary := func(plainVary, nsVary string, extra ...*exchange.Exchange) []*exchange.Exchange {
		xs := []*exchange.Exchange{
			hal(exchange.PurposeCrawl, u, bare),
			hal(conneg.PurposeOwn, u, bare, ">Accept", "application/hal+json", "Vary", plainVary),
			hal(PurposeNamespaced, u, ns, ">Accept", "application/hal+json", ">Prefer", PreferNamespaced, "Vary", nsVary, "Preference-Applied", "namespaced-rels"),
		}
		return append(xs, extra...)
	}
	tests := []struct {
		name string
		xs   []*exchange.Exchange
		want string
	}{
		{"both list Prefer", withVary("Accept, Prefer", "Accept, Prefer"), ""},
		{"Vary: * covers it", withVary("*", "*"), ""},
		{"namespaced response lacks it", withVary("Accept, Prefer", "Accept"), "on the namespaced response"},
		{"both lack it, nothing else sees it", withVary("Accept", "Accept"), "on both responses"},
		{"vary-prefer already reports the resource", withVary("Accept", "Accept", minimal("Accept")), ""},
	}
	for _, tt := range tests {
		fs, reason := run(t, NamespacedVary{}, input(nil, []string{u}, tt.xs...))
		if reason != "" {
			t.Fatalf("%s: skipped: %s", tt.name, reason)
		}
		switch {
		case tt.want == "" && len(fs) > 0:
			t.Errorf("%s: unexpected %s", tt.name, fs[0].Message)
		case tt.want != "" && (len(fs) != 1 || !strings.Contains(fs[0].Message, tt.want)):
			t.Errorf("%s: findings %v, want one saying %q", tt.name, fs, tt.want)
		}
	}
	same := []*exchange.Exchange{
		hal(exchange.PurposeCrawl, u, bare),
		hal(conneg.PurposeOwn, u, bare, ">Accept", "application/hal+json"),
		hal(PurposeNamespaced, u, bare, ">Accept", "application/hal+json", ">Prefer", PreferNamespaced),
	}
	if _, reason := run(t, NamespacedVary{}, input(nil, []string{u}, same...)); reason == "" {
		t.Error("judged Vary of a resource that ignores the preference")
	}
}

func TestUnknownPreference(t *testing.T) {
	u := target + "orders/1"
	for _, status := range []int{200, 400, 500} {
		probe := checkstest.Exchange(PurposeUnknown, "GET", u).ReqHeader("Accept", "application/hal+json").
			ReqHeader("Prefer", PreferUnknown).Status(status).Header("Content-Type", "application/problem+json").Body(`{}`).Build()
		plain := hal(conneg.PurposeOwn, u, `{}`, ">Accept", "application/hal+json")
		in := input(nil, []string{u}, checkstest.WithRepeats(hal(exchange.PurposeCrawl, u, `{}`), plain, probe)...)
		fs, reason := run(t, UnknownPreference{}, in)
		if reason != "" {
			t.Fatalf("skipped: %s", reason)
		}
		if (len(fs) > 0) != (status >= 400) {
			t.Errorf("status %d: findings %v", status, fs)
		}
		// A rejection that a repeat does not confirm is not one.
		flip := checkstest.Resent(probe, 3)
		flip.Response = plain.Response
		once := input(nil, []string{u}, hal(exchange.PurposeCrawl, u, `{}`), plain, probe, checkstest.Resent(plain, 2), checkstest.Resent(plain, 3), checkstest.Resent(probe, 2), flip)
		if fs, _ := run(t, UnknownPreference{}, once); len(fs) > 0 {
			t.Errorf("status %d not confirmed on a repeat: findings %v", status, fs)
		}
	}
}

func TestNeverOffered(t *testing.T) {
	u := target + "orders/1"
	d := orders()
	d.Operations = append(d.Operations, op(100, "POST", "/orders/{id}/refund", "order:refund", "refund"), op(110, "POST", "/orders/{id}/notes", "order:note"))
	body := `{"_links":{"pay":{"href":"/orders/1/payment"},"order:cancel":{"href":"/orders/1/cancellation"},"find":{"href":"/orders{?state}","templated":true}},` +
		`"_templates":{"default":{"method":"POST","target":"/orders/1/notes"}}}`
	fs, _ := run(t, NeverOffered{}, input(d, []string{u}, hal(exchange.PurposeCrawl, u, body)))
	if len(fs) != 1 || fs[0].Subject != "POST /orders/{id}/refund" || fs[0].Severity != finding.SeverityInfo || fs[0].Location.Line != 102 {
		t.Fatalf("findings %+v", fs)
	}
	if !strings.Contains(fs[0].Message, "may not have reached a state") {
		t.Errorf("message %q", fs[0].Message)
	}
}

// TestNeverOfferedJudgesOnlyWhatTheCallerMayCall: an operation the scanned
// caller may not call is rightly absent from its view; it is judged only
// when the caller may call it, and otherwise named in an observation.
func TestNeverOfferedJudgesOnlyWhatTheCallerMayCall(t *testing.T) {
	u := target + "orders/1"
	refund := op(100, "POST", "/orders/{id}/refund", "order:refund", "refund")
	refund.Security = []map[string][]string{{"bearer": {"admin"}}}
	admin := exchange.Caller{Name: "admin", Credentials: []string{"Authorization"}, Roles: []string{"admin"}}
	tests := []struct {
		name    string
		caller  exchange.Caller
		access  checks.AccessRules
		judged  bool
		observe string
	}{
		{"anonymous", exchange.Caller{}, nil, false, "this caller sent no credentials"},
		{"a role the requirement lacks", exchange.Caller{Name: "user", Credentials: []string{"Authorization"}, Roles: []string{"user"}}, nil, false, `"user" holds role user`},
		{"roles not configured", exchange.Caller{Name: "someone", Credentials: []string{"Authorization"}}, nil, false, "no roles are configured"},
		{"the required role", admin, nil, true, ""},
		{"mapped to everyone", exchange.Caller{}, checks.AccessRules{"post/orders/{id}/refund": {}}, true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := orders()
			d.Operations = append(d.Operations, refund)
			d.SecuritySchemes = map[string]spec.SecurityScheme{"bearer": {Type: "http", Scheme: "bearer"}}
			in := input(d, []string{u}, hal(exchange.PurposeCrawl, u, `{"_links":{"pay":{"href":"/orders/1/payment"},"cancel":{"href":"/orders/1/cancellation"},"find":{"href":"/orders"}}}`))
			in.Caller, in.Access = tt.caller, tt.access
			fs, _ := run(t, NeverOffered{}, in)
			if judged := len(fs) == 1 && fs[0].Subject == "POST /orders/{id}/refund"; judged != tt.judged || len(fs) > 1 {
				t.Fatalf("findings %+v, want judged %v", fs, tt.judged)
			}
			obs := strings.Join(in.Observations(NeverOffered{}.Meta().ID), "\n")
			if tt.observe == "" && obs != "" || !strings.Contains(obs, tt.observe) || tt.observe != "" && !strings.HasPrefix(obs, "post/orders/{id}/refund not judged: ") {
				t.Errorf("observations %q, want one naming %q", obs, tt.observe)
			}
		})
	}
}

func TestUndeclaredResponse(t *testing.T) {
	u := target + "orders/1"
	get := op(10, "GET", "/orders/{id}")
	get.Responses = map[string]spec.Response{
		"200": {Content: map[string]map[string]any{"application/hal+json": nil, "text/*": nil}},
		"4XX": {Content: map[string]map[string]any{"application/problem+json": nil}},
	}
	d := doc(get, op(20, "POST", "/orders/{id}/payment", "pay"))
	tests := []struct {
		status int
		ct     string
		want   string
	}{
		{200, "application/hal+json", ""},
		{200, "text/html; charset=utf-8", ""},
		{404, "application/problem+json", ""},
		{200, "application/json", "200 application/json"},
		{500, "application/problem+json", "500"},
	}
	for _, tt := range tests {
		x := checkstest.Exchange(exchange.PurposeCrawl, "GET", u).Status(tt.status).Header("Content-Type", tt.ct).Body(`{}`).Build()
		fs, _ := run(t, UndeclaredResponse{}, input(d, nil, x))
		switch {
		case tt.want == "" && len(fs) > 0:
			t.Errorf("%d %s: unexpected %s", tt.status, tt.ct, fs[0].Message)
		case tt.want != "" && (len(fs) != 1 || fs[0].Evidence[0].Actual != tt.want || fs[0].Location.Line != 10):
			t.Errorf("%d %s: findings %+v", tt.status, tt.ct, fs)
		}
	}
	// A GET the document does not describe is not judged.
	x := checkstest.Exchange(exchange.PurposeCrawl, "GET", target+"elsewhere").Status(200).Header("Content-Type", "text/plain").Build()
	if _, reason := run(t, UndeclaredResponse{}, input(d, nil, x)); reason == "" {
		t.Error("judged a GET that matches no operation")
	}
}

func TestPlan(t *testing.T) {
	u := target + "orders/1"
	sample := hal(exchange.PurposeCrawl, u, `{"_links":{}}`)
	page := checkstest.Exchange(exchange.PurposeCrawl, "GET", target+"about").Status(200).Header("Content-Type", "text/html").Body("<p>").Build()
	purposes := func(d *spec.Document) []string {
		var out []string
		for _, p := range (probes{}).Plan(&checks.PlanInput{Samples: []*exchange.Exchange{sample, page}, Spec: d}) {
			if p.Method != http.MethodGet {
				t.Errorf("planned %s", p.Method)
			}
			out = append(out, p.Purpose+" "+exchange.PathOf(p.URL)+" "+p.Header.Get("Prefer"))
		}
		slices.Sort(out)
		return out
	}
	want := []string{
		PurposeForms + " /orders/1 ",
		PurposeNamespaced + " /orders/1 " + PreferNamespaced,
		PurposePlain + " /about ",
		PurposePlain + " /orders/1 ",
		PurposeUnknown + " /about " + PreferUnknown,
		PurposeUnknown + " /orders/1 " + PreferUnknown,
	}
	if got := purposes(orders()); !slices.Equal(got, want) {
		t.Errorf("plan %v\nwant %v", got, want)
	}
	if got := purposes(doc(op(1, "GET", "/orders"))); len(got) != 4 {
		t.Errorf("a spec without x-hal-rel still gets namespaced probes: %v", got)
	}
}

func TestHostileRepresentation(t *testing.T) {
	u := target + "orders/1"
	rel := "\x1b[31m" + strings.Repeat("r", 10_000)
	nested := `{"_links":{"` + strings.ReplaceAll(rel, "\x1b", `\u001b`) + `":{"href":"/x"}}}`
	for range 40 {
		nested = `{"_embedded":{"e":` + nested + `}}`
	}
	in := input(orders(), []string{u}, hal(exchange.PurposeCrawl, u, nested))
	fs, _ := run(t, UnlistedRel{}, in)
	for _, f := range fs {
		if len(f.Message) > 1000 || strings.Contains(f.Message, "\x1b") {
			t.Errorf("unbounded or unsafe message (%d bytes)", len(f.Message))
		}
	}
	// The relation sits below the embedding bound, so it is not reached.
	if len(fs) != 0 {
		t.Errorf("walked %d levels of _embedded", 40)
	}
	shallow := `{"_links":{"` + strings.ReplaceAll(rel, "\x1b", `\u001b`) + `":{"href":"/x"}}}`
	fs, _ = run(t, UnlistedRel{}, input(orders(), []string{u}, hal(exchange.PurposeCrawl, u, shallow)))
	if len(fs) != 1 {
		t.Fatalf("findings %d, want 1", len(fs))
	}
	if len(fs[0].Message) > 1000 || strings.Contains(fs[0].Message, "\x1b") {
		t.Errorf("message %.80q (%d bytes)", fs[0].Message, len(fs[0].Message))
	}
}
