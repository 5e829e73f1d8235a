package problemjson_test

import (
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/checkstest"
	"github.com/agentready/agentready/checks/problemjson"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/spec"
)

// problemResponse declares problem+json, with type and status pinned when given.
func problemResponse(types []any, status any) spec.Response {
	props := map[string]any{"title": map[string]any{"type": "string"}}
	if types != nil {
		props["type"] = map[string]any{"type": "string", "enum": types}
	}
	if status != nil {
		props["status"] = map[string]any{"const": status}
	}
	return spec.Response{Content: map[string]map[string]any{
		"application/problem+json": {"allOf": []any{map[string]any{"properties": props}}},
	}}
}

func testSpec() *spec.Document {
	hal := spec.Response{Content: map[string]map[string]any{"application/hal+json": nil}}
	return &spec.Document{File: "openapi.yaml", Operations: []*spec.Operation{
		{Method: "GET", PathTemplate: "/orders", Responses: map[string]spec.Response{
			"200": hal, "4XX": problemResponse(nil, nil),
		}},
		{Method: "GET", PathTemplate: "/orders/{id}", Location: finding.SourceLocation{File: "openapi.yaml", Line: 12},
			Responses: map[string]spec.Response{
				"200": hal,
				"404": problemResponse([]any{"https://api.test/problems/not-found"}, 404),
			}},
		{Method: "POST", PathTemplate: "/orders/{id}/payment", Responses: map[string]spec.Response{
			"default": problemResponse(nil, nil),
		}},
		{Method: "GET", PathTemplate: "/plain", Responses: map[string]spec.Response{
			"404": {Content: map[string]map[string]any{"text/plain": nil}},
		}},
	}}
}

func withSpec(in *checks.Input) *checks.Input {
	in.Spec = testSpec()
	return in
}

type specCase struct {
	what string
	rs   []errResp
	want []string
}

func TestSpecChecks(t *testing.T) {
	for _, tt := range specCases() {
		t.Run(tt.what, func(t *testing.T) {
			_, got := runLive(t, withSpec(input(tt.rs...)))
			if !slices.Equal(got, tt.want) {
				t.Errorf("fired %v, want %v", got, tt.want)
			}
		})
	}
}

func specCases() []specCase {
	missing := base + "/orders/" + problemjson.MissingID
	return []specCase{
		{"declared and kept", []errResp{e(problemjson.PurposeNotFound, missing, 404, prob, notFound)}, nil},
		{"range declared and kept", []errResp{e(problemjson.PurposeNegativeLimit, base+"/orders?limit=-1", 400, prob, `{"type":"/p/bad","title":"Bad","status":400}`)}, nil},
		{"declared problem, html served", []errResp{e(problemjson.PurposeNotFound, missing, 404, "text/html", "<h1>nope</h1>")},
			[]string{"problem-json-declared-media-type"}},
		{"declared problem via range, text served", []errResp{e(problemjson.PurposeNegativeLimit, base+"/orders?limit=-1", 400, "text/plain", "bad limit\n")},
			[]string{"problem-json-declared-media-type"}},
		{"declared problem, served as plain JSON", []errResp{e(problemjson.PurposeNotFound, missing, 404, "application/json", notFound)},
			[]string{"problem-json-declared-media-type"}},
		{"declared text stays a readiness warning", []errResp{e(exchange.PurposeCrawl, base+"/plain", 404, "text/plain", "no\n")},
			[]string{"problem-json-media-type"}},
		{"undeclared type", []errResp{e(problemjson.PurposeNotFound, missing, 404, prob, `{"type":"https://api.test/problems/gone","title":"Gone Away","status":404}`)},
			[]string{"problem-json-declared-type"}},
		{"absent type is about:blank, not declared", []errResp{e(problemjson.PurposeNotFound, missing, 404, prob, `{"title":"Not Found","status":404}`)},
			[]string{"problem-json-declared-type"}},
		{"undeclared status on an operation", []errResp{e("negotiation/unsupported", base+"/orders/1", 406, prob, `{"type":"/p/na","title":"Not Acceptable","status":406}`)},
			[]string{"problem-json-undeclared-status"}},
		{"5xx is a failure, not an undeclared status", []errResp{e(problemjson.PurposeValuelessFlag, base+"/orders?debug&limit=1", 500, prob,
			`{"type":"/p/internal","title":"Internal Server Error","status":500}`)}, []string{"problem-json-server-error"}},
		{"unknown path matches no operation", []errResp{e(problemjson.PurposeUnknownPath, base+"/"+problemjson.MissingID, 404, prob, notFound)}, nil},
		{"GET on a POST-only path matches no GET operation", []errResp{e(exchange.PurposeCrawl, base+"/orders/1/payment", 405, prob,
			`{"type":"/p/m","title":"Method Not Allowed","status":405}`)}, nil},
	}
}

// documentCase is an operation's declared responses, judged by the checks
// that read the document alone.
type documentCase struct {
	what      string
	responses map[string]spec.Response
	want      []string
}

// problemJSON is an error response declared as problem details.
var problemJSON = content("application/problem+json")

func content(mediaTypes ...string) spec.Response {
	c := map[string]map[string]any{}
	for _, mt := range mediaTypes {
		c[mt] = nil
	}
	return spec.Response{Content: c}
}

func documentCases() []documentCase {
	return []documentCase{
		{"errors declared as problems", map[string]spec.Response{"200": content("application/json"), "404": content("application/problem+json"), "default": content("application/problem+json")}, nil},
		{"success declared as a problem", map[string]spec.Response{"200": content("application/json", "application/problem+json; charset=utf-8"), "4XX": problemJSON},
			[]string{"problem-json-success-declared"}},
		{"success range declared as a problem", map[string]spec.Response{"2XX": content("application/problem+json"), "default": problemJSON}, []string{"problem-json-success-declared"}},
		{"problem+xml on a success is not judged", map[string]spec.Response{"200": content("application/problem+xml"), "500": content("application/problem+xml")}, nil},
		{"errors declared without problem details", map[string]spec.Response{"200": content("application/json"), "404": content("application/json"), "409": content("application/problem+json; charset=utf-8")},
			[]string{"problem-json-errors-declared"}},
		{"error declared without content", map[string]spec.Response{"200": content("application/json"), "5XX": {}}, []string{"problem-json-errors-declared"}},
		// Declaring no error at all is openapi-hal-errors-undeclared's defect.
		{"no error response declared", map[string]spec.Response{"200": content("application/json"), "304": {}}, nil},
	}
}

// withDocument sets a document of one operation, GET /status at line 7,
// declaring responses.
func withDocument(in *checks.Input, responses map[string]spec.Response) *checks.Input {
	in.Spec = &spec.Document{File: "openapi.yaml", Operations: []*spec.Operation{{
		Method: "GET", PathTemplate: "/status", Responses: responses,
		Location: finding.SourceLocation{File: "openapi.yaml", Line: 7, Pointer: "/paths/~1status/get"},
	}}}
	return in
}

func TestDocumentChecks(t *testing.T) {
	for _, tt := range documentCases() {
		t.Run(tt.what, func(t *testing.T) {
			_, got := runAll(t, withDocument(input(), tt.responses))
			if !slices.Equal(got, tt.want) {
				t.Errorf("fired %v, want %v", got, tt.want)
			}
		})
	}
	// lint runs it over a document and an empty recording.
	in := checks.NewStaticInput(&url.URL{Scheme: "file", Path: "openapi.yaml"}, nil)
	fs := runOne(t, problemjson.SuccessDeclared{}, withDocument(in, map[string]spec.Response{"200": content("application/problem+json")}))
	if len(fs) != 1 || fs[0].Location.Pointer != "/paths/~1status/get/responses/200/content/application~1problem+json" ||
		fs[0].Message != "GET /status declares application/problem+json for its 200 response; a success labelled so is read as an error" {
		t.Errorf("findings = %+v", fs)
	}
}

func TestSpecFindingsPointAtTheOperation(t *testing.T) {
	in := withSpec(input(e(problemjson.PurposeNotFound, base+"/orders/x", 404, "text/html", "<h1>nope</h1>")))
	fs, _ := checkstest.Run(t, problemjson.DeclaredMediaType{}, in)
	if len(fs) != 1 || fs[0].Location == nil || fs[0].Location.Line != 12 || !strings.Contains(fs[0].Message, `responses.404`) {
		t.Errorf("findings = %+v", fs)
	}
}

func TestSwagger2IsSkipped(t *testing.T) {
	in := input(e(problemjson.PurposeNotFound, base+"/orders/x", 404, "text/html", "x"))
	in.Spec = &spec.Document{Swagger2: true}
	for _, c := range []checks.Check{problemjson.DeclaredMediaType{}, problemjson.DeclaredType{}, problemjson.UndeclaredStatus{}} {
		if _, reason := checkstest.Run(t, c, in); !strings.Contains(reason, "Swagger 2.0") {
			t.Errorf("%s: reason %q", c.Meta().ID, reason)
		}
	}
}

// The error responses of an operation without problem details are one
// finding, at the first; an operation that declares none is not this
// check's (openapi-hal-errors-undeclared reports it); HEAD and OPTIONS are
// not judged.
func TestErrorsDeclaredFindings(t *testing.T) {
	in := withDocument(input(), map[string]spec.Response{"200": content("application/json"),
		"400": content("text/html", "application/json"), "404": {}, "default": problemJSON})
	in.Spec.Operations = append(in.Spec.Operations,
		&spec.Operation{Method: "POST", PathTemplate: "/orders", Responses: map[string]spec.Response{"201": {}},
			Location: finding.SourceLocation{File: "openapi.yaml", Line: 20, Pointer: "/paths/~1orders/post"}},
		&spec.Operation{Method: "PUT", PathTemplate: "/orders/{id}", Responses: map[string]spec.Response{"200": {}, "409": content("application/json")},
			Location: finding.SourceLocation{File: "openapi.yaml", Line: 25, Pointer: "/paths/~1orders~1{id}/put"}},
		&spec.Operation{Method: "HEAD", PathTemplate: "/status", Responses: map[string]spec.Response{"200": {}},
			Location: finding.SourceLocation{File: "openapi.yaml", Line: 30, Pointer: "/paths/~1status/head"}},
		&spec.Operation{Method: "OPTIONS", PathTemplate: "/status", Responses: map[string]spec.Response{"204": {}},
			Location: finding.SourceLocation{File: "openapi.yaml", Line: 40, Pointer: "/paths/~1status/options"}})
	fs := runOne(t, problemjson.ErrorsDeclared{}, in)
	var got []string
	for _, f := range fs {
		got = append(got, f.Subject+" @ "+f.Location.Pointer+": "+f.Message)
	}
	want := []string{
		"GET /status @ /paths/~1status/get/responses/400: GET /status declares its error responses 400 with application/json, text/html; 404 with no content, not application/problem+json: an agent is not told the problem's type, title and status",
		"PUT /orders/{id} @ /paths/~1orders~1{id}/put/responses/409: PUT /orders/{id} declares its error responses 409 with application/json, not application/problem+json: an agent is not told the problem's type, title and status",
	}
	if !slices.Equal(got, want) {
		t.Errorf("findings\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if ev := fs[1].Evidence[0]; ev.Method != "PUT" || ev.URL != "/orders/{id}" {
		t.Errorf("evidence %+v, want the operation", ev)
	}
}
