package trialplan

import (
	"net/http"
	"strings"
	"testing"

	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/spec"
)

// createRun is the plan's run of createPost, json-server's POST /posts.
func createRun(t *testing.T, p *exchange.TrialPlan) exchange.TrialRun {
	t.Helper()
	for _, r := range p.Runs {
		if r.Steps[1].Method == http.MethodPost && exchange.PathOf(r.Steps[1].URL) == "/posts" {
			return r
		}
	}
	t.Fatalf("no run of createPost in %+v", p.Runs)
	return exchange.TrialRun{}
}

func cleanupSteps(r exchange.TrialRun) []exchange.TrialStep {
	var out []exchange.TrialStep
	for _, s := range r.Steps {
		if exchange.IsHousekeeping(s.Role) {
			out = append(out, s)
		}
	}
	return out
}

// A run that creates (a POST to a collection) is planned with the DELETE
// the document declares on the collection's item, after its last re-read,
// to the URL its answer will give, and a read to confirm; the DELETE
// counts against trial.writes.
func TestCleanupPlannedForACreatingRun(t *testing.T) {
	rec := recording(jsonPage("/posts", `[{"id":1,"title":"t","authorId":1}]`))
	for _, allow := range []string{"DELETE /*/*", "deletePost"} {
		p := Plan(Input{Recording: rec, Spec: jsonServerDoc(t), Rules: rules(t, "POST /*", allow), Reset: exchange.ResetDistinct})
		r := createRun(t, p)
		if r.CreatedAt != "http://a/posts/{id}" || r.NoCleanup != "" {
			t.Errorf("%s: created at %q, no cleanup %q; want http://a/posts/{id} and a cleanup", allow, r.CreatedAt, r.NoCleanup)
		}
		steps := r.Steps[len(r.Steps)-2:]
		if steps[0].Role != exchange.StepCleanup || steps[0].Method != http.MethodDelete || steps[0].URL != exchange.CreatedURL ||
			steps[1].Role != exchange.StepCleanupRead || steps[1].Method != http.MethodGet || steps[1].URL != exchange.CreatedURL {
			t.Errorf("%s: last steps %+v, want the cleanup and its read", allow, steps)
		}
		if r.Steps[len(r.Steps)-3].Role != exchange.StepReread {
			t.Errorf("%s: the cleanup does not follow the last re-read: %+v", allow, r.Steps)
		}
		if p.Writes() != 2 {
			t.Errorf("%s: %d writes, want the POST and its cleanup", allow, p.Writes())
		}
	}
	// The cleanup counts against trial.writes: one write leaves no room.
	bounded := Plan(Input{Recording: rec, Spec: jsonServerDoc(t), Rules: rules(t, "POST /*", "DELETE /*/*"), Reset: exchange.ResetDistinct, MaxWrites: 1})
	if len(bounded.Runs) != 0 || !strings.Contains(strings.Join(bounded.Notes, "\n"), "stopped before createPost") {
		t.Errorf("with trial.writes 1: runs %d, notes %q; want createPost stopped", len(bounded.Runs), bounded.Notes)
	}
}

// No cleanup is sent that the allow-list does not name: an exact URL rule
// cannot name an id known only once the attempt is answered.
func TestNoCleanupWhenNotAllowed(t *testing.T) {
	rec := recording(jsonPage("/posts", `[{"id":1,"title":"t","authorId":1}]`))
	for _, allow := range []string{"PATCH /*/*", "DELETE /posts/1", "DELETE /comments/*"} {
		p := Plan(Input{Recording: rec, Spec: jsonServerDoc(t), Rules: rules(t, "POST /*", allow), Reset: exchange.ResetDistinct})
		r := createRun(t, p)
		if got := cleanupSteps(r); len(got) != 0 {
			t.Errorf("%s: cleanup planned: %+v", allow, got)
		}
		if r.NoCleanup != "the allow-list does not name DELETE /posts/{id}" || r.CreatedAt != "http://a/posts/{id}" {
			t.Errorf("%s: no cleanup %q, created at %q", allow, r.NoCleanup, r.CreatedAt)
		}
	}
}

// No cleanup where the document declares no DELETE on the item, or no
// item at all.
func TestNoCleanupWithoutADeclaredDelete(t *testing.T) {
	for name, tc := range map[string]struct{ item, want string }{
		"no DELETE": {item: `
  /items/{item_id}:
    get:
      operationId: readItem
      parameters: [{name: item_id, in: path, required: true, schema: {type: string}}]
      responses: {"200": {description: ok}}`, want: "the document declares no DELETE on /items/{item_id}"},
		"no item": {want: "the document declares no item path under /items"},
	} {
		doc, err := spec.Load([]byte(`openapi: 3.1.0
info: {title: items, version: "1"}
paths:
  /items:
    post:
      operationId: createItem
      responses: {"201": {description: created}}`+tc.item+"\n"), "http://a/openapi.yaml", "items.yaml")
		if err != nil {
			t.Fatal(err)
		}
		p := Plan(Input{Recording: recording(jsonPage("/items", `[]`)), Spec: doc, Rules: rules(t, "POST /*", "DELETE /*/*"), Reset: exchange.ResetDistinct})
		if len(p.Runs) != 1 {
			t.Fatalf("%s: runs %+v, notes %q", name, p.Runs, p.Notes)
		}
		if got := cleanupSteps(p.Runs[0]); len(got) != 0 || p.Runs[0].NoCleanup != tc.want {
			t.Errorf("%s: cleanup %+v, no cleanup %q; want none, %q", name, got, p.Runs[0].NoCleanup, tc.want)
		}
	}
}
