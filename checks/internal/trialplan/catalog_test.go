package trialplan

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/agentready/agentready/checks/checkstest"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/spec"
)

// jsonPage is a crawled plain JSON page, with no state and no controls.
func jsonPage(path, body string) *exchange.Exchange {
	return checkstest.Exchange(exchange.PurposeCrawl, http.MethodGet, "http://a"+path).
		Status(200).Header("Content-Type", "application/json").Body(body).Build()
}

func jsonServerDoc(t *testing.T) *spec.Document {
	t.Helper()
	b, err := os.ReadFile("../../../testdata/trial/json-server.openapi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := spec.Load(b, "http://a/openapi.yaml", "json-server.openapi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// An API whose only declaration is its OpenAPI document: each
// state-changing operation on a path whose item the scan read is a task of
// player A, its body built from the document's examples; an operation
// whose body would need a guess is left out with a note.
func TestTasksFromTheDocument(t *testing.T) {
	rec := recording(
		jsonPage("/posts", `[{"id":1,"title":"t","authorId":1}]`),
		jsonPage("/posts/1", `{"id":1,"title":"t","authorId":1}`),
		jsonPage("/posts/2", `{"id":2,"title":"u","authorId":2}`),
		jsonPage("/comments", `[{"id":1,"body":"b","postId":1}]`),
		jsonPage("/comments/1", `{"id":1,"body":"b","postId":1}`),
		jsonPage("/posts?_page=2", `[]`),
	)
	p := Plan(Input{Recording: rec, Spec: jsonServerDoc(t), Rules: rules(t, "POST /*", "PATCH /*/*", "DELETE /*/*"), Reset: exchange.ResetRestart})
	var got []string
	for _, r := range p.Runs {
		call := r.Steps[1]
		got = append(got, fmt.Sprintf("%s %s %s %s %s", r.Player, exchange.PathOf(r.Resource), call.Method, exchange.PathOf(call.URL), call.Body))
	}
	want := []string{
		`A /posts POST /posts {"authorId":1,"title":"Written by a trial"}`,
		`A /posts/1 PATCH /posts/1 {"title":"Retitled by a trial"}`,
		`A /posts/1 DELETE /posts/1 `,
		`A /comments/1 DELETE /comments/1 `,
	}
	if !slices.Equal(got, want) {
		t.Errorf("runs\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if len(p.Notes) != 1 || !strings.Contains(p.Notes[0], `createComment on /comments (no state) is not played: /postId has no example`) {
		t.Errorf("notes %q, want one on createComment's postId", p.Notes)
	}
	// DELETE is idempotent over HTTP: it is sent again, and the resource read.
	if steps := p.Runs[2].Steps; len(steps) != 5 || steps[3].Role != exchange.StepRepeat {
		t.Errorf("DELETE's steps %+v, want a repeat", steps)
	}
	if p.Tasks[1].State != "" || p.Tasks[1].Kind != "/posts/{id}" {
		t.Errorf("task %+v, want a stateless /posts/{id}", p.Tasks[1])
	}
	// The allow-list still decides: without a DELETE rule, no DELETE.
	noDelete := Plan(Input{Recording: rec, Spec: jsonServerDoc(t), Rules: rules(t, "POST /*", "PATCH /*/*"), Reset: exchange.ResetRestart})
	for _, r := range noDelete.Runs {
		if r.Steps[1].Method == http.MethodDelete {
			t.Errorf("a DELETE was planned without a rule naming it: %s", r.Steps[1].URL)
		}
	}
}

// Without a reset, each task on a kind acts on a resource of its own where
// the scan saw several: json-server deletes a post's comments with the
// post, so deleting the post another task retitles, or the one a comment
// belongs to, would change what those tasks find. With a reset every task
// acts on the first. A kind with fewer resources than tasks shares them,
// and the plan's notes say so.
func TestTasksOnOneKindTakeResourcesOfTheirOwn(t *testing.T) {
	rec := recording(
		jsonPage("/posts", `[{"id":1,"title":"t","authorId":1}]`),
		jsonPage("/posts/1", `{"id":1,"title":"t","authorId":1}`),
		jsonPage("/posts/2", `{"id":2,"title":"u","authorId":2}`),
		jsonPage("/comments/1", `{"id":1,"body":"b","postId":1}`),
	)
	resourcesOf := func(p *exchange.TrialPlan) []string {
		var out []string
		for _, r := range p.Runs {
			out = append(out, r.Steps[1].Method+" "+exchange.PathOf(r.Resource)+" "+exchange.PathOf(r.Steps[1].URL))
		}
		return out
	}
	allow := rules(t, "POST /*", "PATCH /*/*", "DELETE /*/*")
	distinct := Plan(Input{Recording: rec, Spec: jsonServerDoc(t), Rules: allow, Reset: exchange.ResetDistinct})
	want := []string{"POST /posts /posts", "PATCH /posts/1 /posts/1", "DELETE /posts/2 /posts/2", "DELETE /comments/1 /comments/1"}
	if got := resourcesOf(distinct); !slices.Equal(got, want) {
		t.Errorf("distinct: runs %q, want %q", got, want)
	}
	if slices.ContainsFunc(distinct.Notes, func(n string) bool { return strings.Contains(n, "another task") }) {
		t.Errorf("distinct: notes %q say runs share a resource, and none does", distinct.Notes)
	}
	reset := Plan(Input{Recording: rec, Spec: jsonServerDoc(t), Rules: allow, Reset: exchange.ResetCommand})
	want = []string{"POST /posts /posts", "PATCH /posts/1 /posts/1", "DELETE /posts/1 /posts/1", "DELETE /comments/1 /comments/1"}
	if got := resourcesOf(reset); !slices.Equal(got, want) {
		t.Errorf("reset: runs %q, want %q", got, want)
	}
	onePost := recording(jsonPage("/posts/1", `{"id":1,"title":"t","authorId":1}`))
	shared := Plan(Input{Recording: onePost, Spec: jsonServerDoc(t), Rules: allow, Reset: exchange.ResetDistinct})
	want = []string{"PATCH /posts/1 /posts/1", "DELETE /posts/1 /posts/1"}
	if got := resourcesOf(shared); !slices.Equal(got, want) {
		t.Errorf("one post: runs %q, want %q", got, want)
	}
	if !slices.ContainsFunc(shared.Notes, func(n string) bool {
		return strings.Contains(n, "1 run(s) act on a resource a run of another task acts on too")
	}) {
		t.Errorf("one post: notes %q, want one on the DELETE that shares /posts/1 with the PATCH", shared.Notes)
	}
}

// A kind whose resources offer their own controls says what applies in
// each state: the document adds no task on it.
func TestDocumentAddsNoTaskWhereResourcesOfferControls(t *testing.T) {
	doc, err := spec.Load([]byte(`openapi: 3.1.0
info: {title: t, version: "1"}
paths:
  /orders/{id}:
    parameters: [{name: id, in: path, required: true, schema: {type: integer}}]
    get: {operationId: getOrder, responses: {"200": {description: ok}}}
    delete: {operationId: deleteOrder, responses: {"204": {description: gone}}}
  /orders/{id}/cancellation:
    parameters: [{name: id, in: path, required: true, schema: {type: integer}}]
    post: {operationId: cancelOrder, responses: {"200": {description: ok}}}
`), "http://a/openapi.yaml", "o.yaml")
	if err != nil {
		t.Fatal(err)
	}
	p := Plan(Input{Recording: recording(orderPage(1, "pending")), Spec: doc, Rules: rules(t, "POST /*", "DELETE /*"), Reset: exchange.ResetRestart})
	for _, tk := range p.Tasks {
		if tk.Operation == "deleteOrder" {
			t.Errorf("deleteOrder became a task on a kind that offers its own controls: %+v", p.Tasks)
		}
	}
}

// A body is built from what the document says, never guessed.
func TestDeclaredValue(t *testing.T) {
	for _, tc := range []struct {
		schema string
		want   string // "" when it must fail
	}{
		{`{"type":"string","example":"x"}`, `"x"`},
		{`{"type":"string","default":"d"}`, `"d"`},
		{`{"type":"string","enum":["a","b"]}`, `"a"`},
		{`{"type":"string","examples":["e"]}`, `"e"`},
		{`{"type":"string"}`, ``},
		{`{"type":"object","required":["a"],"properties":{"a":{"type":"integer","example":3},"b":{"type":"string","example":"o"},"c":{"type":"string"}}}`, `{"a":3,"b":"o"}`},
		{`{"type":"object","required":["a"],"properties":{"a":{"type":"object","required":["n"],"properties":{"n":{"type":"number"}}}}}`, ``},
		{`{"type":"object","required":["a"],"properties":{}}`, ``},
		{`{"type":"object","example":{"whole":true},"required":["a"]}`, `{"whole":true}`},
	} {
		var schema map[string]any
		if err := jsonUnmarshal(tc.schema, &schema); err != nil {
			t.Fatal(err)
		}
		v, ok, why := declaredValue(schema, "", 0)
		if tc.want == "" {
			if ok || why == "" {
				t.Errorf("%s: built %v, want a refusal with its reason", tc.schema, v)
			}
			continue
		}
		if got := jsonString(v); !ok || got != tc.want {
			t.Errorf("%s: got %s (%v, %q), want %s", tc.schema, got, ok, why, tc.want)
		}
	}
}

func jsonUnmarshal(s string, v any) error { return json.Unmarshal([]byte(s), v) }

func jsonString(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
