//go:build interop

// Trials played on real servers that accept writes, each started fresh for
// the test (a disposable state: nothing else reads it) and played without a
// reset, so that each task acts on a resource of its own, or started by the
// scan (--start), which restarts the app before each run:
//
//	bash internal/interop/servers.sh run go test -count=1 -tags interop -run RealServersTrial -v ./internal/interop/
//	bash internal/interop/matrix/matrix.sh run go test -count=1 -tags interop -run MatrixTrial -v ./internal/interop/
//
// What each task does was checked by hand with curl against a fresh server;
// the expectations below are those observations, and the state the server
// is left in is read back with plain GETs after the trial, apart from the
// scanner.

package interop_test

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// trialCase is one trial and what curl showed the server does.
type trialCase struct {
	target string
	args   []string
	// reset is the reset the report must name: distinct, unless the scan
	// starts the app itself (restart).
	reset   string
	tasks   []playedTask
	skipped []string // what the plan's notes say of a task left out
	// cleaned are the paths of what the runs created, each reported
	// created and cleaned; nothing may be left.
	cleaned []string
	after   []afterTrial
}

// playedTask is one task's run by player A, the only player of tasks the
// OpenAPI document declares: the operation, the path of the resource it
// acted on, and its outcome.
type playedTask struct {
	operation, resource, outcome string
}

// afterTrial is a GET sent once the trial is over and what it must answer:
// the status and, for a 2xx, a string the body contains.
type afterTrial struct {
	path     string
	status   int
	contains string
}

// playTrial scans tc.target with --trial, without a reset command, and
// checks the reset, the plan's resources, the outcomes, the trial family's
// silence and the server's state afterwards.
func playTrial(t *testing.T, tc trialCase) {
	t.Helper()
	// In CI a trial needs the configuration's consent; the file says so
	// only for this scan.
	consent := rulesConfig(t, "active:\n  ci: true\n")
	args := append([]string{"--config", consent, "--trial", "--yes"}, tc.args...)
	s := scanReal(t, tc.target, args...)
	s.stayedOnOrigin(t, tc.target)
	tr := s.report.Trials
	if tr == nil {
		t.Fatalf("no trials section in the report:\n%s", s.stderr)
	}
	if tr.Reset != tc.reset {
		t.Errorf("reset %q, want %s (no --trial-reset)", tr.Reset, tc.reset)
	}
	var got []playedTask
	for _, task := range tr.Tasks {
		for _, r := range task.Runs {
			u, err := url.Parse(r.Resource)
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, playedTask{task.Operation, u.Path, r.Outcome})
			if r.Player != "A" || r.Via != "http" {
				t.Errorf("%s: run by player %s via %s, want A over HTTP", task.Operation, r.Player, r.Via)
			}
		}
	}
	if !slices.Equal(got, tc.tasks) {
		t.Errorf("tasks played\n  %v\nwant\n  %v", got, tc.tasks)
	}
	var cleaned []string
	for _, task := range tr.Tasks {
		for _, r := range task.Runs {
			if r.Created == "" {
				continue
			}
			u, err := url.Parse(r.Created)
			if err != nil {
				t.Fatal(err)
			}
			if r.Cleanup == "cleaned" {
				cleaned = append(cleaned, u.Path)
			}
		}
	}
	if !slices.Equal(cleaned, tc.cleaned) || tr.Created != len(tc.cleaned) || tr.Cleaned != len(tc.cleaned) || tr.Left != 0 {
		t.Errorf("created %d, cleaned %d %v, left %d %+v; want %v cleaned and nothing left", tr.Created, tr.Cleaned, cleaned, tr.Left, tr.LeftBehind, tc.cleaned)
	}
	for _, p := range tr.Players {
		want := 0
		if p.Player == "A" {
			want = len(tc.tasks)
		}
		if p.Tasks != want || p.Completed != want || p.Refused != 0 {
			t.Errorf("player %s: %d tasks, %d completed, %d refused; want %d, %d, 0", p.Player, p.Tasks, p.Completed, p.Refused, want, want)
		}
	}
	for _, f := range s.report.Findings {
		if strings.HasPrefix(f.CheckID, "trial-") {
			t.Errorf("%s: %s (every operation did what it declared, by curl)", f.CheckID, f.Message)
		}
	}
	for _, note := range tc.skipped {
		if !strings.Contains(s.stderr, note) {
			t.Errorf("the plan does not say %q:\n%s", note, s.stderr)
		}
	}
	for _, a := range tc.after {
		u, _ := url.Parse(tc.target)
		u.Path, u.RawQuery = a.path, ""
		resp, err := http.Get(u.String())
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		resp.Body.Close()
		if resp.StatusCode != a.status || !strings.Contains(string(body), a.contains) {
			t.Errorf("after the trial, GET %s answered %d %s; want %d with %q", a.path, resp.StatusCode, body, a.status, a.contains)
		}
	}
}

// json-server 0.17.4 over internal/interop/db.json, with the document a
// json-server user would write for it. Without a reset, deletePost and
// retitlePost take posts of their own, and deleteComment a comment whose
// post no task deletes: json-server deletes a post's comments with the
// post.
func TestRealServersTrialJSONServer(t *testing.T) {
	t.Parallel()
	node, server := need(t, "AGENTREADY_NODE22"), need(t, "AGENTREADY_JSONSERVER")
	db := filepath.Join(t.TempDir(), "db.json")
	src, err := os.ReadFile("db.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(db, src, 0o600); err != nil {
		t.Fatal(err)
	}
	port := freePort(t)
	addr := startListening(t, "json-server", exec.Command(node, server, "--host", "127.0.0.1", "--port", fmt.Sprint(port), "--quiet", db), port)
	playTrial(t, trialCase{
		target: "http://" + addr + "/posts",
		reset:  "distinct",
		args: []string{"--openapi", "../../testdata/trial/json-server.openapi.yaml",
			"--active-allow", "POST /*", "--active-allow", "PATCH /*/*", "--active-allow", "DELETE /*/*"},
		tasks: []playedTask{
			{"createPost", "/posts", "completed"},
			{"retitlePost", "/posts/1", "completed"},
			{"deletePost", "/posts/2", "completed"},
			{"deleteComment", "/comments/1", "completed"},
		},
		skipped: []string{"createComment on /comments (no state) is not played: /postId has no example"},
		// createPost answers 201 with the new post's id, and the document
		// declares DELETE /posts/{id}: the post is removed after the run.
		cleaned: []string{"/posts/4"},
		after: []afterTrial{
			{"/posts/1", 200, `"title": "Retitled by a trial"`},
			{"/posts/2", 404, ""},
			{"/posts/3", 200, `"title": "Problem details for errors"`},
			{"/posts/4", 404, ""},
			{"/comments/1", 404, ""},
			// Gone with post 2, not by a task.
			{"/comments/2", 404, ""},
		},
	})
}

// FastAPI 0.92 as its tutorial writes the items CRUD, the matrix's only app
// that accepts writes, with the document FastAPI serves itself: every
// member of its Item is optional, so POST and PUT send an empty object.
func TestMatrixTrialFastAPI(t *testing.T) {
	t.Parallel()
	python := "/usr/bin/python3"
	if err := exec.Command(python, "-c", "import fastapi, uvicorn").Run(); err != nil {
		missing(t, "python3-fastapi and python3-uvicorn are not installed (matrix.sh installs them): "+err.Error())
	}
	port := freePort(t)
	cmd := exec.Command(python, "fastapi_app.py")
	cmd.Dir = filepath.Join(matrixDir, "python")
	cmd.Env = append(os.Environ(), fmt.Sprintf("PORT=%d", port))
	addr := startListening(t, "the FastAPI app", cmd, port)
	playTrial(t, trialCase{
		target: "http://" + addr + "/items",
		reset:  "distinct",
		args: []string{"--openapi", "http://" + addr + "/openapi.json",
			"--active-allow", "POST /*", "--active-allow", "PUT /*/*", "--active-allow", "DELETE /*/*"},
		tasks: []playedTask{
			{"create_item_items_post", "/items", "completed"},
			{"update_item_items__item_id__put", "/items/1", "completed"},
			{"delete_item_items__item_id__delete", "/items/2", "completed"},
		},
		// POST answers 201 with the item's id, which fills
		// /items/{item_id}, whose DELETE FastAPI's document declares.
		cleaned: []string{"/items/4"},
		after: []afterTrial{
			// PUT replaces the item with the empty object's defaults, twice alike.
			{"/items/1", 200, `{"id":"1","name":null,"price":null}`},
			{"/items/2", 404, ""},
			{"/items/3", 200, `"name":"Sarah Vaughan and Clifford Brown"`},
			{"/items/4", 404, ""},
		},
	})
}

// The same FastAPI app started by the scan itself (--start), which
// restarts it before each run: the app keeps its items in memory, so every
// run finds the item the scan saw, and the update and the delete both act
// on the first one. The app is stopped with the scan, so nothing is read
// afterwards.
func TestMatrixTrialFastAPIRestarted(t *testing.T) {
	t.Parallel()
	python := "/usr/bin/python3"
	if err := exec.Command(python, "-c", "import fastapi, uvicorn").Run(); err != nil {
		missing(t, "python3-fastapi and python3-uvicorn are not installed (matrix.sh installs them): "+err.Error())
	}
	app, err := filepath.Abs(filepath.Join(matrixDir, "python", "fastapi_app.py"))
	if err != nil {
		t.Fatal(err)
	}
	addr := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	_, port, _ := strings.Cut(addr, ":")
	playTrial(t, trialCase{
		target: "http://" + addr + "/items",
		reset:  "restart",
		args: []string{"--start", python + " " + app, "--start-env", "PORT=" + port,
			"--openapi", "http://" + addr + "/openapi.json",
			"--active-allow", "POST /*", "--active-allow", "PUT /*/*", "--active-allow", "DELETE /*/*"},
		tasks: []playedTask{
			{"create_item_items_post", "/items", "completed"},
			{"update_item_items__item_id__put", "/items/1", "completed"},
			{"delete_item_items__item_id__delete", "/items/1", "completed"},
		},
		// The created item is deleted before the next restart, as on a
		// server nothing restarts.
		cleaned: []string{"/items/4"},
	})
}
