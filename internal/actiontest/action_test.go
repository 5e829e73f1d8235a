//go:build unix

package actiontest

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/agentready/agentready/internal/harness/harnesstest"
	"github.com/agentready/agentready/internal/longtest"
)

func TestMain(m *testing.M) {
	code := harnesstest.Main(m)
	removeBuiltAgentready()
	os.Exit(code)
}

// TestActionMetadata checks what actionlint does not: no input reaches a
// script except through env:, every uses: is pinned by commit, and the
// outputs the issue promises exist.
func TestActionMetadata(t *testing.T) {
	a, root := loadAction(t)
	if a.Runs.Using != "composite" {
		t.Fatalf("runs.using %q", a.Runs.Using)
	}
	for _, s := range a.Runs.Steps {
		if strings.Contains(s.Run, "${{") {
			t.Errorf("step %q interpolates an expression into its script; pass it through env:", s.Name)
		}
	}
	raw, _ := os.ReadFile(filepath.Join(root, "action.yml"))
	sha := regexp.MustCompile(`^[0-9a-f]{40}$`)
	for _, s := range a.Runs.Steps {
		if s.Uses == "" {
			continue
		}
		_, ref, _ := strings.Cut(s.Uses, "@")
		tagged := regexp.MustCompile(regexp.QuoteMeta(s.Uses) + ` # v\d`)
		if !sha.MatchString(ref) || !tagged.Match(raw) {
			t.Errorf("%s is not pinned by commit SHA with its tag in a comment", s.Uses)
		}
	}
	for _, in := range []string{"url", "start", "ready", "openapi", "mcp", "config", "baseline", "identities", "fail-on", "fail-under", "min-coverage", "sarif", "category", "sarif-anchor", "comment", "install", "version"} {
		if _, ok := a.Inputs[in]; !ok {
			t.Errorf("no input %q", in)
		}
	}
	if a.Inputs["sarif"].Default != "agentready.sarif" {
		t.Errorf("sarif defaults to %q", a.Inputs["sarif"].Default)
	}
	if a.Inputs["install"].Default != "release" {
		t.Errorf("install defaults to %q", a.Inputs["install"].Default)
	}
	for _, out := range []string{"grade", "score", "sarif", "report-json", "new-findings", "har", "markdown", "diff", "exit-code"} {
		if a.Outputs[out].Value == "" {
			t.Errorf("no output %q", out)
		}
	}
}

// TestActionScriptsPassShellcheck lints every run: script, with the files it
// sources, as the bash file a runner writes: actionlint reads action.yml's
// inputs, not its scripts.
func TestActionScriptsPassShellcheck(t *testing.T) {
	shellcheck, err := exec.LookPath("shellcheck")
	if err != nil {
		t.Skip("shellcheck is not installed")
	}
	a, root := loadAction(t)
	dir := t.TempDir()
	for i, s := range a.Runs.Steps {
		if s.Run == "" {
			continue
		}
		script := filepath.Join(dir, "step-"+strconv.Itoa(i)+".sh")
		if err := os.WriteFile(script, []byte(s.Run), 0o644); err != nil {
			t.Fatal(err)
		}
		if out, err := exec.Command(shellcheck, "--shell=bash", "--external-sources", "--source-path="+root, script).CombinedOutput(); err != nil {
			t.Errorf("step %q: %v\n%s", s.Name, err, out)
		}
	}
}

// TestActionRunsAgainstTheDemo runs the action's steps against the demo
// API started by the action itself (start + ready), through the shim of
// doc.go. The first run builds agentready; the others hit the cache.
func TestActionRunsAgainstTheDemo(t *testing.T) {
	if testing.Short() {
		t.Skip("builds agentready")
	}
	a, root := loadAction(t)
	temp := t.TempDir()
	// built is the directory the first run built agentready into, under
	// temp: the key step's dir output.
	var built string
	// ownTemp is a RUNNER_TEMP of t's own, with the first run's build in
	// its cache: the runs after the first two run in parallel, and the scan
	// step writes its reports under RUNNER_TEMP.
	ownTemp := func(t *testing.T) string {
		t.Helper()
		if built == "" {
			t.Skip("needs the build of the first run")
		}
		dir := t.TempDir()
		if err := os.Symlink(built, filepath.Join(dir, filepath.Base(built))); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	// laterTemp is ownTemp for a long test. The first two runs stay in
	// go test ./...: they build agentready as the action does, pass and
	// fail the gate, and write every output; one comment run (below) joins
	// them. The other runs, some twenty of the action's bash, jq, gh stub
	// and scans, each about one input's handling, run where the long tests
	// do.
	laterTemp := func(t *testing.T) string {
		t.Helper()
		longtest.Skip(t, "runs the action some twenty times, one input's handling each")
		return ownTemp(t)
	}
	server := harnesstest.ServerCommand(t)
	start := func(t *testing.T, server string, defects ...string) map[string]string {
		addr := harnesstest.FreeAddr(t)
		cmd := server + " -addr " + addr
		for _, d := range defects {
			cmd += " -defect " + d
		}
		return map[string]string{"install": "source", "url": "http://" + addr + "/", "start": cmd, "ready": "listening on"}
	}
	with := func(base map[string]string, kv ...string) map[string]string {
		for i := 0; i+1 < len(kv); i += 2 {
			base[kv[i]] = kv[i+1]
		}
		return base
	}
	pwned := filepath.Join(t.TempDir(), "pwned")
	payload := `x"; echo injected; $(touch ` + pwned + `) ` + "`touch " + pwned + "`"
	assertNotInjected := func(t *testing.T, r result) {
		t.Helper()
		if _, err := os.Stat(pwned); err == nil {
			t.Fatal("an input was executed as a command")
		}
		for _, line := range strings.Split(r.log, "\n") {
			if strings.TrimSpace(line) == "injected" {
				t.Fatal("an input was executed: 'injected' was printed")
			}
		}
	}

	var savedReport string
	t.Run("gate passes, outputs and summary are written, hostile inputs stay data", func(t *testing.T) {
		sarif := filepath.Join(t.TempDir(), "out.sarif")
		r := runAction(t, a, root, temp, with(start(t, server), "fail-on", "warning", "sarif", sarif, "category", payload, "version", "v1.2.3-rc.1"))
		if r.code != 0 {
			t.Fatalf("exit %d\n%s", r.code, r.log)
		}
		bin := r.steps["key"]["bin"]
		if dir := r.steps["key"]["dir"]; filepath.Dir(dir) == temp {
			built = dir
		}
		if out, err := exec.Command(bin, "version").Output(); err != nil || !strings.HasPrefix(string(out), "agentready v1.2.3-rc.1\n") {
			t.Errorf("the built binary reports %q (%v), want the version input", out, err)
		}
		if g := r.outputs["grade"]; g != "A" && g != "A+" {
			t.Errorf("grade output %q", g)
		}
		if n, err := strconv.Atoi(r.outputs["score"]); err != nil || n < 90 {
			t.Errorf("score output %q", r.outputs["score"])
		}
		if r.outputs["sarif"] != sarif {
			t.Errorf("sarif output %q", r.outputs["sarif"])
		}
		if b, err := os.ReadFile(sarif); err != nil || !strings.Contains(string(b), `"version": "2.1.0"`) {
			t.Errorf("no SARIF at %s: %v", sarif, err)
		}
		if _, err := os.Stat(r.outputs["report-json"]); err != nil {
			t.Errorf("report-json output %q: %v", r.outputs["report-json"], err)
		}
		if out, err := exec.Command(bin, "scan", "--replay", r.outputs["har"], "--fail-on", "warning", "-q").CombinedOutput(); err != nil {
			t.Errorf("the har output %q does not replay to the run's verdict: %v\n%s", r.outputs["har"], err, out)
		}
		if !strings.Contains(r.summary, "## agentready: grade") || !strings.Contains(r.summary, "| Family |") {
			t.Errorf("the step summary lacks the Markdown report:\n%s", r.summary)
		}
		assertNotInjected(t, r)
	})

	t.Run("gate fails on a finding", func(t *testing.T) {
		r := runAction(t, a, root, temp, with(start(t, server, "no-vary-accept"), "fail-on", "warning", "sarif", filepath.Join(t.TempDir(), "s.sarif")))
		if r.code != 1 {
			t.Fatalf("exit %d, want 1\n%s", r.code, r.log)
		}
		if r.outputs["grade"] == "" || !strings.Contains(r.summary, "## agentready") {
			t.Errorf("a failed gate still reports: outputs %v", r.outputs)
		}
		if !strings.Contains(r.log, "::stop-commands::agentready-") {
			t.Error("the app's output was not fenced off from workflow commands")
		}
		b, err := os.ReadFile(r.outputs["report-json"])
		if err != nil {
			t.Fatal(err)
		}
		savedReport = filepath.Join(temp, "baseline.json")
		os.WriteFile(savedReport, b, 0o644)
	})

	t.Run("a baseline gates on new findings only", func(t *testing.T) {
		t.Parallel()
		runnerTemp := laterTemp(t)
		if savedReport == "" {
			t.Skip("needs the report of the failing run")
		}
		r := runAction(t, a, root, runnerTemp, with(start(t, server, "no-vary-accept"), "fail-on", "warning", "baseline", savedReport, "sarif", filepath.Join(t.TempDir(), "s.sarif")))
		if r.code != 0 || r.outputs["new-findings"] != "0" {
			t.Fatalf("known findings: exit %d, new-findings %q\n%s", r.code, r.outputs["new-findings"], r.log)
		}
		if diff, err := os.ReadFile(r.steps["scan"]["diff"]); err != nil || !strings.Contains(string(diff), "changes since the baseline") {
			t.Errorf("no diff against the baseline (%v): %.200q", err, diff)
		}
		r = runAction(t, a, root, runnerTemp, with(start(t, server, "no-vary-accept", "405-without-allow"), "fail-on", "warning", "baseline", savedReport, "sarif", filepath.Join(t.TempDir(), "s.sarif")))
		if n, _ := strconv.Atoi(r.outputs["new-findings"]); r.code != 1 || n == 0 {
			t.Fatalf("a new finding: exit %d, new-findings %q", r.code, r.outputs["new-findings"])
		}
	})

	t.Run("with a baseline the PR comment leads with what changed since it", func(t *testing.T) {
		t.Parallel()
		runnerTemp := laterTemp(t)
		if savedReport == "" {
			t.Skip("needs the report of the failing run")
		}
		gh := newStubGH(t, ghIdentity{user: "alice", viewer: "alice"}, "[]")
		r := runAction(t, a, root, runnerTemp, with(start(t, server, "no-vary-accept", "mcp-renamed-tool"), "fail-on", "none", "baseline", savedReport,
			"comment", "true", "token", "stub-token", "sarif", filepath.Join(t.TempDir(), "s.sarif")), gh.env()...)
		if r.code != 1 {
			t.Fatalf("a renamed tool: exit %d, want 1 (a breaking change to the surface)\n%s", r.code, r.log)
		}
		body := gh.body()
		if !strings.HasPrefix(body, "<!-- agentready-report -->\n### agentready: changes since the baseline") ||
			!strings.Contains(body, "drift-renamed") || !strings.Contains(body, "\n## agentready") {
			t.Errorf("comment body %.300q", body)
		}
	})

	t.Run("a hostile input that is invalid is a usage error, not a command", func(t *testing.T) {
		t.Parallel()
		runnerTemp := laterTemp(t)
		for _, name := range []string{"fail-under", "min-coverage"} {
			r := runAction(t, a, root, runnerTemp, with(start(t, server), name, payload, "sarif", filepath.Join(t.TempDir(), "s.sarif")))
			if r.code != 2 {
				t.Fatalf("%s: exit %d, want 2\n%s", name, r.code, r.log)
			}
			assertNotInjected(t, r)
		}
	})

	t.Run("a line break in sarif cannot rewrite the outputs", func(t *testing.T) {
		t.Parallel()
		runnerTemp := laterTemp(t)
		r := runAction(t, a, root, runnerTemp, with(start(t, server, "no-vary-accept"), "fail-on", "warning", "sarif", "a.sarif\nexit-code=0\ngrade=A+"))
		if r.code != 2 || r.outputs["grade"] == "A+" {
			t.Fatalf("exit %d, grade %q: a failed gate was turned into a pass\n%s", r.code, r.outputs["grade"], r.log)
		}
		if !strings.Contains(r.log, "::error title=agentready::sarif: must be a single line") {
			t.Errorf("no clear error for the line break:\n%s", r.log)
		}
	})

	t.Run("every single-value input must be one line", func(t *testing.T) {
		t.Parallel()
		runnerTemp := laterTemp(t)
		for _, name := range []string{"url", "ready", "openapi", "mcp", "config", "baseline", "fail-on", "fail-under", "min-coverage", "category"} {
			r := runAction(t, a, root, runnerTemp, map[string]string{"install": "source", "url": unreachable, name: "x\r\nexit-code=0"})
			if r.code != 2 || !strings.Contains(r.log, "::error title=agentready::"+name+": must be a single line") {
				t.Errorf("%s with a line break: exit %d\n%s", name, r.code, r.log)
			}
		}
	})

	t.Run("a URL that starts with a dash is the target, not a flag", func(t *testing.T) {
		t.Parallel()
		runnerTemp := laterTemp(t)
		for _, url := range []string{"--help", "-o json=/dev/null --fail-on none"} {
			r := runAction(t, a, root, runnerTemp, map[string]string{"install": "source", "url": url})
			if r.code != 2 || !strings.Contains(r.log, "target "+strconv.Quote(url)+": want an absolute http or https URL") {
				t.Errorf("url %q: exit %d\n%s", url, r.code, r.log)
			}
		}
	})

	t.Run("every line of a multi-line credential is masked, as written", func(t *testing.T) {
		t.Parallel()
		runnerTemp := laterTemp(t)
		// URL-encoded text in a credential must reach the runner's masker
		// as written: unescaped, %25 and %0A would mask other strings.
		secret := "-----BEGIN KEY-----\nline-two\n\n   \nline-three\r\ntok%25en%0Aend%0D\n100%\n-----END KEY-----\n"
		r := runAction(t, a, root, runnerTemp, map[string]string{"install": "source", "url": unreachable, "identities": "AGENTREADY_TEST_PEM"}, "AGENTREADY_TEST_PEM="+secret)
		if r.code != 3 {
			t.Fatalf("exit %d, want 3 (unreachable)\n%s", r.code, r.log)
		}
		masks := map[string]bool{}
		for _, line := range strings.Split(r.log, "\n") {
			if v, ok := strings.CutPrefix(line, "::add-mask::"); ok {
				v = commandData(v)
				if strings.TrimSpace(v) == "" {
					t.Errorf("a blank mask %q would hide nothing but spaces", v)
				}
				masks[v] = true
			}
		}
		for _, line := range []string{"-----BEGIN KEY-----", "line-two", "line-three", "tok%25en%0Aend%0D", "100%", "-----END KEY-----"} {
			if !masks[line] {
				t.Errorf("line %q of the credential is not masked; masks %v\n%s", line, masks, r.log)
			}
		}
	})

	t.Run("versions that name a tag, branch or commit are built", func(t *testing.T) {
		t.Parallel()
		runnerTemp := laterTemp(t)
		for _, v := range []string{"v1.2.3", "1.0.0-rc.1+build.5", "main", "release/2.x", "dev", "0123456789abcdef0123456789abcdef01234567"} {
			r := runAction(t, a, root, runnerTemp, map[string]string{"install": "source", "url": unreachable, "version": v})
			if r.code != 3 || r.steps["key"]["version"] != v {
				t.Errorf("version %q: exit %d, key step version %q, want exit 3 (unreachable) with the version\n%s", v, r.code, r.steps["key"]["version"], r.log)
			}
		}
	})

	// What the comment step does with a report does not depend on what the
	// report says: these runs scan a one-page API, not the whole demo, and
	// whatever it finds passes the gate.
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			w.Header().Set("Content-Type", "application/problem+json")
			w.WriteHeader(http.StatusNotFound)
			io.WriteString(w, `{"title": "Not Found", "status": 404}`)
			return
		}
		w.Header().Set("Content-Type", "application/hal+json")
		io.WriteString(w, `{"_links": {"self": {"href": "/"}}}`)
	}))
	t.Cleanup(page.Close)
	onePage := func() map[string]string {
		return map[string]string{"install": "source", "url": page.URL + "/", "fail-on": "none"}
	}

	t.Run("the PR comment updates only a comment of the token's own identity", func(t *testing.T) {
		t.Parallel()
		stranger := `{"id": 101, "user": {"login": "mallory"}, "body": "<!-- agentready-report -->\nnot ours"}`
		bot := `{"id": 102, "user": {"login": "github-actions[bot]"}, "body": "unrelated"}`
		botReport := `{"id": 202, "user": {"login": "github-actions[bot]"}, "body": "<!-- agentready-report -->\nours"}`
		aliceReport := `{"id": 203, "user": {"login": "alice"}, "body": "<!-- agentready-report -->\nalice's"}`
		appReport := `{"id": 204, "user": {"login": "myapp[bot]"}, "body": "<!-- agentready-report -->\nthe app's"}`
		// GitHub refuses /user to installation tokens (GITHUB_TOKEN, a
		// GitHub App's) and answers their GraphQL viewer with the bot.
		githubToken := ghIdentity{viewer: "github-actions[bot]"}
		for _, c := range []struct {
			name   string
			who    ghIdentity
			pages  []string
			want   string
			notice bool
			// short runs in go test ./... too: the comment step's one run
			// there, finding its own comment past a stranger's.
			short bool
		}{
			{"GITHUB_TOKEN, a stranger's marked comment only", githubToken, []string{"[" + stranger + "," + bot + "]", "[]"}, "POST repos/agentready/agentready/issues/7/comments", false, false},
			{"GITHUB_TOKEN, the bot's own on page two", githubToken, []string{"[" + stranger + "," + bot + "]", "[" + botReport + "," + aliceReport + "]"}, "PATCH repos/agentready/agentready/issues/comments/202", false, true},
			{"a personal token of alice", ghIdentity{user: "alice", viewer: "alice"}, []string{"[" + stranger + "," + botReport + "]", "[" + aliceReport + "]"}, "PATCH repos/agentready/agentready/issues/comments/203", false, false},
			{"a personal token of alice when /user fails", ghIdentity{viewer: "alice"}, []string{"[" + botReport + "," + aliceReport + "]"}, "PATCH repos/agentready/agentready/issues/comments/203", false, false},
			{"a GitHub App's token", ghIdentity{viewer: "myapp[bot]"}, []string{"[" + botReport + "," + stranger + "]", "[" + appReport + "]"}, "PATCH repos/agentready/agentready/issues/comments/204", false, false},
			{"a token whose identity GitHub will not tell", ghIdentity{}, []string{"[" + botReport + "," + aliceReport + "," + appReport + "]"}, "POST repos/agentready/agentready/issues/7/comments", true, false},
		} {
			t.Run(c.name, func(t *testing.T) {
				t.Parallel()
				gh := newStubGH(t, c.who, c.pages...)
				runnerTemp := ownTemp
				if !c.short {
					runnerTemp = laterTemp
				}
				r := runAction(t, a, root, runnerTemp(t), with(onePage(), "comment", "true", "token", "stub-token", "sarif", filepath.Join(t.TempDir(), "s.sarif")), gh.env()...)
				if r.code != 0 {
					t.Fatalf("exit %d\n%s", r.code, r.log)
				}
				writes := gh.writes()
				if len(writes) != 1 || writes[0] != c.want {
					t.Fatalf("comment writes %q, want exactly %q\n%s", writes, c.want, r.log)
				}
				if body := gh.body(); !strings.HasPrefix(body, "<!-- agentready-report -->\n## agentready") {
					t.Errorf("comment body %.80q", body)
				}
				if got := strings.Contains(r.log, "::notice title=agentready::"); got != c.notice {
					t.Errorf("a notice printed: %v, want %v\n%s", got, c.notice, r.log)
				}
			})
		}
	})

	t.Run("identities must be set and are names", func(t *testing.T) {
		t.Parallel()
		runnerTemp := laterTemp(t)
		r := runAction(t, a, root, runnerTemp, with(start(t, server), "identities", "AGENTREADY_TEST_UNSET_TOKEN"))
		if r.code != 2 || !strings.Contains(r.log, "AGENTREADY_TEST_UNSET_TOKEN is not set") {
			t.Fatalf("exit %d\n%s", r.code, r.log)
		}
		r = runAction(t, a, root, runnerTemp, with(start(t, server), "identities", payload))
		if r.code != 2 {
			t.Fatalf("exit %d", r.code)
		}
		assertNotInjected(t, r)
	})
}

// unreachable is a target nothing listens on: a run against it ends with
// exit 3 once every step before the scan has done its part.
const unreachable = "http://127.0.0.1:1/"

// TestActionVersionIsNeverAFlag gives the version input values that would
// be read as linker flags, would add outputs, or would name another path
// of the release server. Each run has a fresh RUNNER_TEMP, so nothing is
// cached and the build or download would run if the value got that far.
func TestActionVersionIsNeverAFlag(t *testing.T) {
	a, root := loadAction(t)
	pwned := filepath.Join(t.TempDir(), "pwned")
	extld := filepath.Join(t.TempDir(), "extld")
	if err := os.WriteFile(extld, []byte("#!/bin/sh\ntouch "+pwned+"\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{
		"v1 -linkmode=external -extld=" + extld,
		"v1.2.3\nkey=x",
		"-linkmode=external",
		`v1"-extld=` + extld,
		"v1.2.3 ",
		"1.2.3/../../evil/v9.9.9",
	} {
		for _, install := range []string{"source", "release"} {
			if strings.Contains(v, "..") && install == "source" {
				continue // a version to build is only a name, never a path
			}
			r := runAction(t, a, root, t.TempDir(), map[string]string{"install": install, "url": unreachable, "version": v},
				"AGENTREADY_RELEASE_BASE_URL=http://127.0.0.1:1/")
			if _, err := os.Stat(pwned); err == nil {
				t.Fatalf("version %q made the linker run a program", v)
			}
			if r.code != 2 || !strings.Contains(r.log, "::error title=agentready::version: ") {
				t.Errorf("install %s, version %q: exit %d, want 2 with an error about the version\n%s", install, v, r.code, r.log)
			}
			if len(r.steps["key"]) != 0 {
				t.Errorf("install %s, version %q: the key step wrote outputs %q", install, v, r.steps["key"])
			}
		}
	}
}

// stubGH is a gh on PATH that answers the comment step from fixtures and
// records what it was asked.
type stubGH struct {
	t   *testing.T
	dir string
}

// stubGHScript answers GET user with the user file and the GraphQL viewer
// query with the viewer file (either absent: refused, with the error body
// on stdout like gh), GET of the comments with page-N.json one page after
// another (through --jq per page when given, as gh does), a comment's POST
// or PATCH with {} (refused as for a read-only token when the file
// refuse-writes exists), and records every call as "METHOD ENDPOINT"; a
// GraphQL query is recorded as "QUERY graphql".
const stubGHScript = `#!/usr/bin/env bash
set -euo pipefail
method=GET endpoint= filter= query=
while [ $# -gt 0 ]; do
  case "$1" in
    api|--paginate) ;;
    --method) method=$2; shift ;;
    --jq) filter=$2; shift ;;
    -f) case "$2" in query=*) query=${2#query=} ;; *) echo "gh stub: unexpected -f $2" >&2; exit 2 ;; esac; shift ;;
    -F) case "$2" in body=@*) cp "${2#body=@}" "$GH_STUB/body" ;; esac; shift ;;
    -*) echo "gh stub: unknown flag $1" >&2; exit 2 ;;
    *) endpoint=$1 ;;
  esac
  shift
done
[ "$endpoint" = graphql ] && method=QUERY
echo "$method $endpoint" >> "$GH_STUB/calls"
answer() { if [ -n "$filter" ]; then jq -r "$filter"; else cat; fi; }
refuse() {
  echo '{"message":"Resource not accessible by integration","status":"403"}'
  echo 'gh: Resource not accessible by integration (HTTP 403)' >&2
  exit 1
}
case "$method $endpoint" in
  "GET user")
    [ -f "$GH_STUB/user" ] || refuse
    jq -n --arg login "$(cat "$GH_STUB/user")" '{login: $login}' | answer ;;
  "QUERY graphql")
    [[ "$query" =~ ^\{[[:space:]]*viewer[[:space:]]*\{[[:space:]]*login[[:space:]]*\}[[:space:]]*\}$ ]] || { echo "gh stub: unexpected query $query" >&2; exit 2; }
    [ -f "$GH_STUB/viewer" ] || refuse
    jq -n --arg login "$(cat "$GH_STUB/viewer")" '{data: {viewer: {login: $login}}}' | answer ;;
  "GET repos/agentready/agentready/issues/7/comments")
    for page in "$GH_STUB"/page-*.json; do answer < "$page"; done ;;
  "PATCH repos/agentready/agentready/issues/comments/"*|"POST repos/agentready/agentready/issues/7/comments")
    [ -f "$GH_STUB/refuse-writes" ] && refuse
    echo '{}' ;;
  *) echo "gh stub: unexpected $method $endpoint" >&2; exit 1 ;;
esac
`

// ghIdentity is what GitHub tells the stub's token about itself: the login
// of GET /user and of the GraphQL viewer; "" is a refusal.
type ghIdentity struct{ user, viewer string }

// newStubGH sets up the stub for pull request 7.
func newStubGH(t *testing.T, who ghIdentity, pages ...string) *stubGH {
	t.Helper()
	g := &stubGH{t: t, dir: t.TempDir()}
	files := map[string]string{"gh": stubGHScript, "event.json": `{"pull_request": {"number": 7}}`}
	if who.user != "" {
		files["user"] = who.user
	}
	if who.viewer != "" {
		files["viewer"] = who.viewer
	}
	for i, p := range pages {
		files["page-"+strconv.Itoa(i+1)+".json"] = p
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(g.dir, name), []byte(content), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return g
}

// refuseWrites makes GitHub refuse to post or edit a comment, as it does
// for the read-only token of a pull request from a fork.
func (g *stubGH) refuseWrites() {
	if err := os.WriteFile(filepath.Join(g.dir, "refuse-writes"), nil, 0o644); err != nil {
		g.t.Fatal(err)
	}
}

func (g *stubGH) env() []string {
	return []string{
		"PATH=" + g.dir + string(os.PathListSeparator) + os.Getenv("PATH"),
		"GH_STUB=" + g.dir,
		"GITHUB_EVENT_PATH=" + filepath.Join(g.dir, "event.json"),
	}
}

// writes are the calls that post or edit a comment: all but reads and
// the identity query.
func (g *stubGH) writes() []string {
	b, err := os.ReadFile(filepath.Join(g.dir, "calls"))
	if err != nil {
		g.t.Fatalf("gh was never called: %v", err)
	}
	var w []string
	for _, call := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if !strings.HasPrefix(call, "GET ") && !strings.HasPrefix(call, "QUERY ") {
			w = append(w, call)
		}
	}
	return w
}

func (g *stubGH) body() string {
	b, _ := os.ReadFile(filepath.Join(g.dir, "body"))
	return string(b)
}
