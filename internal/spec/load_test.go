package spec_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/longtest"
	"github.com/agentready/agentready/internal/spec"
)

const specDir = "../../testdata/specs/"

func load(t *testing.T, name string) *spec.Document {
	t.Helper()
	d, err := spec.LoadFile(specDir+name, spec.DefaultMaxSize)
	if err != nil {
		t.Fatalf("LoadFile(%s): %v", name, err)
	}
	return d
}

func op(t *testing.T, d *spec.Document, key string) *spec.Operation {
	t.Helper()
	for _, o := range d.Operations {
		if o.Key() == key {
			return o
		}
	}
	t.Fatalf("no operation %s in %s", key, d.Source)
	return nil
}

func TestLoadOperations(t *testing.T) {
	d := load(t, "orders31.yaml")
	if d.Version != "3.1.0" || d.Swagger2 || len(d.Problems) != 0 {
		t.Fatalf("version %q swagger2 %v problems %v", d.Version, d.Swagger2, d.Problems)
	}
	var keys []string
	for _, o := range d.Operations {
		keys = append(keys, o.Key())
	}
	if want := []string{"GET /orders", "POST /orders", "GET /orders/{id}", "DELETE /orders/{id}"}; !reflect.DeepEqual(keys, want) {
		t.Errorf("operations %v, want %v (document order)", keys, want)
	}
	if !reflect.DeepEqual(d.BasePaths, []string{"/v1"}) {
		t.Errorf("BasePaths %v: server variables take their defaults, duplicates collapse", d.BasePaths)
	}
	if !d.UsesHALRel {
		t.Error("UsesHALRel not set")
	}
	want := map[string]spec.SecurityScheme{"bearer": {Type: "http", Scheme: "bearer"}, "key": {Type: "apiKey", In: "header", Name: "X-Key"}}
	if !reflect.DeepEqual(d.SecuritySchemes, want) {
		t.Errorf("SecuritySchemes %v", d.SecuritySchemes)
	}

	list := op(t, d, "GET /orders")
	if list.OperationID != "listOrders" || list.Summary != "List orders" || list.MCPTool != "list_orders" {
		t.Errorf("list: id %q summary %q tool %q", list.OperationID, list.Summary, list.MCPTool)
	}
	if !reflect.DeepEqual(list.HALRels, []string{"orders"}) || list.HALRelsRaw != nil {
		t.Errorf("list x-hal-rel %v raw %v", list.HALRels, list.HALRelsRaw)
	}
	if got := list.Location; got.Line != 15 || got.Column != 5 || got.Pointer != "/paths/~1orders/get" || got.File != specDir+"orders31.yaml" {
		t.Errorf("list location %+v", got)
	}
	if got := list.HALRelLocation; got == nil || got.Line != 18 || got.Pointer != "/paths/~1orders/get/x-hal-rel" {
		t.Errorf("list x-hal-rel location %+v", got)
	}
	if !reflect.DeepEqual(list.Security, []map[string][]string{{"bearer": {}}}) {
		t.Errorf("list security %v: the document's applies", list.Security)
	}
	page := list.Responses["200"].Content["application/hal+json"]
	items := page["properties"].(map[string]any)["items"].(map[string]any)["items"].(map[string]any)
	if _, ok := items["allOf"]; !ok {
		t.Errorf("$ref to Order not resolved: %v", items)
	}

	create := op(t, d, "POST /orders")
	body := create.RequestBody["application/json"].(map[string]any)
	if !create.RequestBodyRequired || body["type"] != "object" || body["properties"].(map[string]any)["quantity"].(map[string]any)["minimum"] != 1.0 {
		t.Errorf("request body %v required %v", body, create.RequestBodyRequired)
	}
	if r, ok := create.Responses["4XX"]; !ok || r.Content["application/problem+json"] != nil {
		t.Errorf("4XX response %+v: media type without schema keeps a nil schema", r)
	}
	if _, ok := create.Responses["4XX"].Content["application/problem+json"]; !ok {
		t.Error("4XX media type lost")
	}

	get := op(t, d, "GET /orders/{id}")
	if get.Security == nil || len(get.Security) != 0 {
		t.Errorf("security: [] must remove the document's requirement, got %v", get.Security)
	}
	if get.OperationURI != "https://example.com/ops/getOrder" {
		t.Errorf("x-operation-uri %q", get.OperationURI)
	}
	if len(get.Parameters) != 1 || get.Parameters[0].Name != "id" || get.Parameters[0].In != "path" || !get.Parameters[0].Required {
		t.Errorf("path-level parameter not inherited: %+v", get.Parameters)
	}

	del := op(t, d, "DELETE /orders/{id}")
	if !del.Deprecated {
		t.Error("deprecated lost")
	}
	if len(del.Parameters) != 2 || del.Parameters[0].Schema["type"] != "integer" || del.Parameters[1].Name != "reason" {
		t.Errorf("operation parameter must override the path-level one, $ref parameter resolved: %+v", del.Parameters)
	}
	if !reflect.DeepEqual(del.HALRels, []string{"cancel"}) || del.HALRelsRaw != "cancel" {
		t.Errorf("a string x-hal-rel is malformed: rels %v raw %v", del.HALRels, del.HALRelsRaw)
	}
	if len(d.PathItems) != 2 || d.PathItems[1].Template != "/orders/{id}" || d.PathItems[1].Location.Line != 40 || len(d.PathItems[1].Parameters) != 1 {
		t.Errorf("path items %+v", d.PathItems)
	}
}

func TestLoadVersions(t *testing.T) {
	tests := []struct {
		file, version string
		ops           []string
	}{
		{"orders30.json", "3.0.3", []string{"GET /reports/{id}.json", "GET /health"}},
		{"oas32.yaml", "3.2.0", []string{"QUERY /search", "GET /search"}},
	}
	for _, tt := range tests {
		d := load(t, tt.file)
		var keys []string
		for _, o := range d.Operations {
			keys = append(keys, o.Key())
		}
		if d.Version != tt.version || !reflect.DeepEqual(keys, tt.ops) || len(d.Problems) != 0 {
			t.Errorf("%s: version %q ops %v problems %v", tt.file, d.Version, keys, d.Problems)
		}
	}
	json := load(t, "orders30.json")
	if l := op(t, json, "GET /health").Location; l.Line != 13 || l.Column != 7 {
		t.Errorf("JSON positions %+v", l)
	}
}

func TestLoadProblems(t *testing.T) {
	tests := []struct {
		file    string
		want    []string // message fragments, in order
		lines   []int
		warning []bool
		ops     int
	}{
		{"syntax.yaml", []string{"syntax error: did not find expected ',' or ']'"}, []int{7}, []bool{false}, 0},
		{"badref.yaml", []string{"unresolvable reference: component `#/components/schemas/Missing` does not exist"}, []int{13}, []bool{false}, 2},
		{"mixed30.yaml", []string{"type is a list", "exclusiveMinimum is a number", "const is an OpenAPI 3.1 schema keyword"}, []int{13, 15, 16}, []bool{false, false, true}, 1},
		{"mixed31.yaml", []string{"nullable is OpenAPI 3.0", "exclusiveMinimum is a boolean"}, []int{14, 16}, []bool{true, false}, 1},
	}
	for _, tt := range tests {
		d := load(t, tt.file)
		if len(d.Problems) != len(tt.want) {
			t.Errorf("%s: problems %+v, want %d", tt.file, d.Problems, len(tt.want))
			continue
		}
		for i, p := range d.Problems {
			if !strings.Contains(p.Message, tt.want[i]) || p.Location.Line != tt.lines[i] || p.Warning != tt.warning[i] || p.Location.File != specDir+tt.file {
				t.Errorf("%s problem %d = %+v, want %q at line %d warning %v", tt.file, i, p, tt.want[i], tt.lines[i], tt.warning[i])
			}
		}
		if len(d.Operations) != tt.ops {
			t.Errorf("%s: %d operations, want %d: a problem must not lose the rest", tt.file, len(d.Operations), tt.ops)
		}
	}
	// The broken $ref must not take the declared responses with it.
	if r := op(t, load(t, "badref.yaml"), "GET /orders").Responses; r["200"].Content == nil {
		t.Errorf("responses lost to a broken $ref: %+v", r)
	}
}

func TestLoadSwagger2(t *testing.T) {
	d := load(t, "swagger2.yaml")
	if !d.Swagger2 || d.Version != "2.0" || len(d.Operations) != 0 || len(d.Problems) != 0 {
		t.Fatalf("swagger 2: %+v", d)
	}
	if len(d.Notices) != 1 || !strings.Contains(d.Notices[0], "Swagger 2.0") || !strings.Contains(d.Notices[0], "not checked") {
		t.Errorf("notice %v must say what is not checked", d.Notices)
	}
}

func TestLoadNotOpenAPI(t *testing.T) {
	for _, data := range []string{"", "  \n", `{"_links": {"self": {"href": "/"}}}`, "<html><body>hi</body></html>"} {
		if d, err := spec.Load([]byte(data), "x", ""); !errors.Is(err, spec.ErrNotOpenAPI) {
			t.Errorf("Load(%q) = %+v, %v; want ErrNotOpenAPI", data, d, err)
		}
	}
	if _, err := spec.LoadFile(specDir+"does-not-exist.yaml", spec.DefaultMaxSize); err == nil || errors.Is(err, spec.ErrNotOpenAPI) {
		t.Errorf("missing file: %v", err)
	}
}

func TestLoadHALRelShapes(t *testing.T) {
	tests := []struct {
		yaml string
		rels []string
		raw  any
	}{
		{`[a, b]`, []string{"a", "b"}, nil},
		{`[a, "", a]`, []string{"a", "", "a"}, nil},
		{`a`, []string{"a"}, "a"},
		{`[a, 1]`, []string{"a"}, []any{"a", 1.0}},
		{`{rel: a}`, nil, map[string]any{"rel": "a"}},
		{`null`, nil, nil},
	}
	for _, tt := range tests {
		src := "openapi: 3.1.0\ninfo: {title: t, version: '1'}\npaths:\n  /a:\n    get:\n      x-hal-rel: " + tt.yaml + "\n      responses: {'200': {description: ok}}\n"
		d, err := spec.Load([]byte(src), "t.yaml", "t.yaml")
		if err != nil || len(d.Operations) != 1 {
			t.Fatalf("%s: %v %+v", tt.yaml, err, d)
		}
		o := d.Operations[0]
		if !reflect.DeepEqual(o.HALRels, tt.rels) || !reflect.DeepEqual(o.HALRelsRaw, tt.raw) || !d.UsesHALRel || o.HALRelLocation == nil {
			t.Errorf("x-hal-rel: %s: rels %#v raw %#v", tt.yaml, o.HALRels, o.HALRelsRaw)
		}
	}
}

func TestLoadCircularSchemaIsBounded(t *testing.T) {
	src := `openapi: 3.1.0
info: {title: t, version: '1'}
paths:
  /a:
    post:
      requestBody:
        content:
          application/json:
            schema: {$ref: '#/components/schemas/Node'}
      responses: {'204': {description: ok}}
components:
  schemas:
    Node:
      type: object
      properties:
        children: {type: array, items: {$ref: '#/components/schemas/Node'}}
        self: {$ref: '#/components/schemas/Self'}
    Self: {$ref: '#/components/schemas/Self'}
`
	d, err := spec.Load([]byte(src), "t.yaml", "t.yaml")
	if err != nil {
		t.Fatal(err)
	}
	body := d.Operations[0].RequestBody["application/json"].(map[string]any)
	children := body["properties"].(map[string]any)["children"].(map[string]any)["items"]
	if !reflect.DeepEqual(children, map[string]any{"$ref": "#/components/schemas/Node"}) {
		t.Errorf("a recursive schema must stay a $ref where it recurses, got %v", children)
	}
}

func TestLoadHostileShapes(t *testing.T) {
	deep := "openapi: 3.1.0\ninfo: {title: t, version: '1'}\npaths:\n  /a:\n    get:\n      x-deep: " +
		strings.Repeat("[", 5000) + strings.Repeat("]", 5000) + "\n      responses: {'200': {description: ok}}\n"
	bomb := "openapi: 3.1.0\ninfo: {title: t, version: '1'}\nx-a: &a [x, x, x, x, x, x, x, x, x, x]\nx-b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n" +
		"x-c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\nx-d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\npaths:\n  /a:\n    get:\n      x-bomb: [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\n      responses: {'200': {description: ok}}\n"
	for name, src := range map[string]string{"deep": deep, "aliases": bomb, "binary": "\x00\x01\xff\xfe"} {
		t.Run(name, func(t *testing.T) {
			d, err := spec.Load([]byte(src), name, name)
			if err != nil && !errors.Is(err, spec.ErrNotOpenAPI) {
				t.Fatalf("unexpected error %v", err)
			}
			if d != nil && len(d.Operations) == 0 && len(d.Problems) == 0 {
				t.Errorf("neither operations nor problems: %+v", d)
			}
		})
	}
}

// TestLoadLargeFile loads a generated 20 MB description: it must load, keep
// every operation and report nothing, and release the library's document.
func TestLoadLargeFile(t *testing.T) {
	longtest.Skip(t, "generates and loads a 20 MB description")
	path := filepath.Join(t.TempDir(), "large.yaml")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprint(f, "openapi: 3.1.0\ninfo: {title: large, version: '1'}\npaths:\n")
	desc := strings.Repeat("lorem ipsum ", 850)
	n := 0
	for size := int64(0); size < 20<<20; n++ {
		fmt.Fprintf(f, "  /r%d/{id}:\n    get:\n      operationId: get%d\n      description: %s\n      parameters: [{name: id, in: path, required: true, schema: {type: string}}]\n      x-hal-rel: [\"r:%d\"]\n      responses: {'200': {description: ok, content: {application/json: {schema: {$ref: '#/components/schemas/S'}}}}}\n", n, n, desc, n)
		st, _ := f.Stat()
		size = st.Size()
	}
	fmt.Fprint(f, "components:\n  schemas:\n    S: {type: object, properties: {a: {type: string}}}\n")
	f.Close()
	d, err := spec.LoadFile(path, spec.DefaultMaxSize)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Operations) != n || len(d.Problems) != 0 {
		t.Fatalf("%d operations (want %d), problems %v", len(d.Operations), n, d.Problems)
	}
	if got := d.Operations[n-1].Location.Line; got <= 1 {
		t.Errorf("last operation line %d", got)
	}
}

func TestLoadTooLarge(t *testing.T) {
	path := filepath.Join(t.TempDir(), "huge.yaml")
	if err := os.WriteFile(path, make([]byte, 3<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := spec.LoadFile(path, 2<<20)
	var tooLarge *spec.TooLargeError
	if !errors.As(err, &tooLarge) || tooLarge.Size != 3<<20 || tooLarge.Max != 2<<20 {
		t.Fatalf("oversized file: %v", err)
	}
	if want := "huge.yaml is 3 MiB, larger than the 2 MiB cap"; !strings.Contains(err.Error(), want) {
		t.Errorf("message %q, want it to say %q", err, want)
	}
	// A device has no size to check first: the cap holds while reading.
	if _, err := spec.LoadFile("/dev/zero", 1<<20); !errors.As(err, &tooLarge) || !strings.Contains(err.Error(), "larger than the 1 MiB cap") {
		t.Errorf("endless file: %v", err)
	}
}

// TestLoadDuplicateKeys reports a key written twice in one mapping where it
// is, and still loads the document, however large the mapping: a mapping of
// thousands of paths is checked in one pass, not pair by pair.
func TestLoadDuplicateKeys(t *testing.T) {
	const n = 5000
	var b strings.Builder
	b.WriteString("openapi: 3.1.0\ninfo: {title: t, version: '1'}\npaths:\n")
	for i := range n {
		fmt.Fprintf(&b, "  /r%d:\n    get: {operationId: get%d, responses: {'200': {description: ok}}}\n", i, i)
	}
	b.WriteString("  /r7:\n    post: {responses: {'201': {description: created}}}\n")
	b.WriteString("components:\n  schemas:\n    S: {type: object, type: string}\n")
	d, err := spec.Load([]byte(b.String()), "t.yaml", "t.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Operations) < n {
		t.Errorf("%d operations, want the document loaded despite its duplicates", len(d.Operations))
	}
	want := []spec.Problem{
		{Message: `duplicate key "/r7": the mapping already has it, and tools disagree on which value counts`,
			Location: finding.SourceLocation{File: "t.yaml", Line: 4 + 2*n, Column: 3, Pointer: "/paths/~1r7"}},
		{Message: `duplicate key "type": the mapping already has it, and tools disagree on which value counts`,
			Location: finding.SourceLocation{File: "t.yaml", Line: 8 + 2*n, Column: 23, Pointer: "/components/schemas/S/type"}},
	}
	if !reflect.DeepEqual(d.Problems, want) {
		t.Errorf("problems\n%+v\nwant\n%+v", d.Problems, want)
	}
}

// TestLoadProblemsAreCapped lists the first duplicates and counts the rest.
func TestLoadProblemsAreCapped(t *testing.T) {
	src := "openapi: 3.1.0\ninfo: {title: t, version: '1'}\npaths: {}\nx-many: {" + strings.Repeat("k: 1, ", spec.MaxListedProblems+21) + "}\n"
	d, err := spec.Load([]byte(src), "t.yaml", "t.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Problems) != spec.MaxListedProblems+1 {
		t.Fatalf("%d problems, want %d and a count", len(d.Problems), spec.MaxListedProblems)
	}
	if !slices.ContainsFunc(d.Problems, func(p spec.Problem) bool { return p.Message == "20 more duplicate keys were not listed" && p.Warning }) {
		t.Errorf("no problem counts the duplicates left out: %+v", d.Problems)
	}
}

func TestLoadResponseSchemaLocations(t *testing.T) {
	src := `openapi: 3.1.0
info: {title: t, version: "1"}
paths:
  /orders/{id}:
    get:
      responses:
        "200":
          $ref: '#/components/responses/Order'
        "404":
          description: gone
          content:
            application/problem+json:
              schema:
                type: object
components:
  responses:
    Order:
      description: an order
      content:
        application/json:
          schema:
            $ref: '#/components/schemas/Order'
  schemas:
    Order: {type: object}
`
	d, err := spec.Load([]byte(src), "t.yaml", "t.yaml")
	if err != nil {
		t.Fatal(err)
	}
	rs := d.Operations[0].Responses
	got404 := rs["404"].SchemaLocations["application/problem+json"]
	if got404.Line != 14 || got404.File != "t.yaml" || got404.Pointer != "/paths/~1orders~1{id}/get/responses/404/content/application~1problem+json/schema" {
		t.Errorf("404 schema at %+v", got404)
	}
	// A response by $ref is located where its schema is written.
	if got := rs["200"].SchemaLocations["application/json"]; got.Line != 22 || got.Pointer != "/paths/~1orders~1{id}/get/responses/200/content/application~1json/schema" {
		t.Errorf("200 schema at %+v", got)
	}
}

func TestLoadResponseHeaderNames(t *testing.T) {
	src := `openapi: 3.1.0
info: {title: t, version: "1"}
paths:
  /orders:
    get:
      responses:
        "200": {description: ok}
        "429":
          $ref: '#/components/responses/Throttled'
        "503":
          description: down
          headers:
            retry-after: {schema: {type: integer}}
            X-RateLimit-Reset: {schema: {type: integer}}
components:
  responses:
    Throttled:
      description: slow down
      headers:
        Retry-After:
          $ref: '#/components/headers/RetryAfter'
  headers:
    RetryAfter: {schema: {type: integer}}
`
	d, err := spec.Load([]byte(src), "t.yaml", "t.yaml")
	if err != nil {
		t.Fatal(err)
	}
	rs := d.Operations[0].Responses
	if got := rs["503"].Headers; !slices.Equal(got, []string{"Retry-After", "X-Ratelimit-Reset"}) {
		t.Errorf("503 headers %v", got)
	}
	if got := rs["429"].Headers; !slices.Equal(got, []string{"Retry-After"}) {
		t.Errorf("429 headers, by $ref, %v", got)
	}
	if got := rs["200"].Headers; got != nil {
		t.Errorf("200 declares no header, got %v", got)
	}
}

// The walk for constructs of another version extends one path in place:
// each problem's pointer must still name its own schema, not a sibling's
// or a deeper one's met before it.
func TestMixedFeaturePointers(t *testing.T) {
	doc := `openapi: 3.0.3
info: {title: Mixed, version: "1"}
paths:
  /things:
    get:
      parameters:
        - {name: a, in: query, schema: {type: string}}
        - {name: b, in: query, schema: {const: b}}
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema:
                properties:
                  deep:
                    properties:
                      inner: {type: [string, "null"], items: {const: 1}}
                  kind: {const: thing}
                oneOf:
                  - {properties: {x: {const: 1}}}
                  - {prefixItems: []}
components:
  schemas:
    Thing: {properties: {z: {const: z}}}
`
	d, err := spec.Load([]byte(doc), "mixed.yaml", "")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range d.Problems {
		got = append(got, p.Location.Pointer)
	}
	want := []string{
		"/paths/~1things/get/parameters/1/schema/const",
		"/paths/~1things/get/responses/200/content/application~1json/schema/properties/deep/properties/inner/type",
		"/paths/~1things/get/responses/200/content/application~1json/schema/properties/deep/properties/inner/items/const",
		"/paths/~1things/get/responses/200/content/application~1json/schema/properties/kind/const",
		"/paths/~1things/get/responses/200/content/application~1json/schema/oneOf/0/properties/x/const",
		"/paths/~1things/get/responses/200/content/application~1json/schema/oneOf/1/prefixItems",
		"/components/schemas/Thing/properties/z/const",
	}
	if !slices.Equal(got, want) {
		t.Errorf("pointers:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
