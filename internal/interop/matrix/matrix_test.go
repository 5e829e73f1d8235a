package matrix

import (
	"strings"
	"testing"

	"github.com/agentready/agentready/internal/finding"
)

func ptr(b bool) *bool { return &b }

// at is a finding of check on GET path (or another method), with status.
func at(check, method, path string, status int) *finding.Finding {
	return &finding.Finding{CheckID: check, Evidence: []finding.Evidence{{Method: method, URL: "http://127.0.0.1:1" + path, Status: status,
		Curl: "curl -sS -i http://127.0.0.1:1" + path}}}
}

var rows = []Row{
	{Check: "problem-json-media-type", Scope: "resource", Method: "GET", Path: "/x", Status: 404, Defect: ptr(true), Curl: "a"},
	{Check: "negotiation-head-status", Scope: "resource", Method: "HEAD", Path: "/x", Defect: ptr(false), Curl: "b"},
	{Check: "negotiation-head-status", Scope: "resource", Method: "HEAD", Path: "/y", Defect: ptr(true), Curl: "c"},
	{Check: "mcp-origin-validated", Scope: "site", Method: "POST", Path: "/mcp", Defect: ptr(false), Curl: "d"},
	{Check: "mcp-tool-description", Scope: "site", Method: "POST", Path: "/mcp", Curl: "e"},
	{Check: "mcp-tool-input-schema", Scope: "site", Method: "POST", Path: "/mcp", Tool: "greet", Defect: ptr(true), Curl: "f"},
	{Check: "problem-json-server-error", Scope: "resource", Method: "GET", Path: "/x?limit=-1", Status: 500, Defect: ptr(true), Curl: "g"},
}

// TestClassify: a row that shows the defect confirms, one that shows
// conformance contradicts, and a row of another target, method, status,
// tool or check decides nothing.
func TestClassify(t *testing.T) {
	withSubject := func(f *finding.Finding, s string) *finding.Finding { f.Subject = s; return f }
	for _, c := range []struct {
		f    *finding.Finding
		want Oracle
		curl string
	}{
		{at("problem-json-media-type", "GET", "/x", 404), Confirmed, "a"},
		{at("problem-json-media-type", "GET", "/x", 406), Undecided, ""},
		{at("problem-json-media-type", "OPTIONS", "/x", 404), Undecided, ""},
		{at("negotiation-head-status", "HEAD", "/x", 0), Contradicted, "b"},
		{at("negotiation-head-status", "HEAD", "/z", 0), Undecided, ""},
		{at("mcp-origin-validated", "POST", "/", 0), Contradicted, "d"},
		{at("mcp-tool-description", "POST", "/mcp", 0), Undecided, ""},
		{withSubject(at("mcp-tool-input-schema", "POST", "/mcp", 0), "greet"), Confirmed, "f"},
		{withSubject(at("mcp-tool-input-schema", "POST", "/mcp", 0), "add"), Undecided, ""},
		{at("problem-json-server-error", "GET", "/x?limit=-1", 500), Confirmed, "g"},
		{at("problem-json-server-error", "GET", "/x", 500), Undecided, ""},
		{at("vary-accept", "GET", "/x", 0), Undecided, ""},
	} {
		got, row := Classify(rows, c.f)
		curl := ""
		if row != nil {
			curl = row.Curl
		}
		if got != c.want || curl != c.curl {
			t.Errorf("%s %s %s: verdict %d by row %q, want %d by %q", c.f.CheckID, c.f.PrimaryMethod(), c.f.PrimaryURL(), got, curl, c.want, c.curl)
		}
	}
}

func TestMissed(t *testing.T) {
	m := Missed(rows, []finding.Finding{*at("problem-json-media-type", "GET", "/x", 404), *at("mcp-tool-input-schema", "POST", "/mcp", 0)})
	var got []string
	for _, r := range m {
		got = append(got, r.Curl)
	}
	if strings.Join(got, " ") != "c g" {
		t.Errorf("misses %v, want the HEAD defect on /y and the 5xx", got)
	}
}

// TestJudge: the oracle decides first; the hand list decides what it
// cannot, gives the cause of what it shows false, and may not repeat or
// overrule it; what neither decides, and an entry nothing matches, is a
// problem that names what to do.
func TestJudge(t *testing.T) {
	const base = "http://127.0.0.1:1"
	entry := func(check, method, path, verdict string) Judged {
		return Judged{Server: "s", Check: check, Method: method, Path: path, Verdict: verdict, Cause: "why", Curl: "curl"}
	}
	judged := []Judged{
		entry("vary-accept", "GET", "/x", VerdictFalse),
		entry("negotiation-head-status", "HEAD", "/x", VerdictFalse),
		entry("problem-json-media-type", "GET", "/x", VerdictTrue),
		entry("mcp-origin-validated", "POST", "/mcp", VerdictTrue),
		entry("negotiation-wildcard", "GET", "/x", "maybe"),
		entry("negotiation-q-zero", "GET", "/stale", VerdictTrue),
		{Server: "other", Check: "vary-accept", Method: "GET", Path: "/y", Verdict: VerdictTrue, Cause: "c", Curl: "c"},
	}
	j := NewJudge("s", Record{Rows: rows}, judged)
	for _, c := range []struct {
		f       *finding.Finding
		true    bool
		by      string
		problem string
	}{
		{at("vary-accept", "GET", "/x", 200), false, "hand", ""},
		{at("negotiation-head-status", "HEAD", "/x", 0), false, "hand", ""},
		{at("negotiation-head-status", "HEAD", "/y", 0), true, "oracle", ""},
		{at("problem-json-media-type", "GET", "/x", 404), false, "", "the oracle confirms it"},
		{at("mcp-origin-validated", "POST", "/mcp", 0), false, "", "the oracle shows the server conforms"},
		{at("negotiation-wildcard", "GET", "/x", 200), false, "", `verdict is "maybe"`},
		{at("vary-accept", "GET", "/y", 200), false, "", `undecided: no oracle row decides it and judged.json has no entry`},
	} {
		d := j.Decide(c.f, base)
		if c.problem != "" {
			if !strings.Contains(d.Problem, c.problem) {
				t.Errorf("%s %s: problem %q, want one saying %q", c.f.CheckID, c.f.PrimaryURL(), d.Problem, c.problem)
			}
			continue
		}
		if d.Problem != "" || d.True != c.true || d.By != c.by {
			t.Errorf("%s %s: %+v, want true=%v by %s", c.f.CheckID, c.f.PrimaryURL(), d, c.true, c.by)
		}
	}
	// A false positive the oracle shows, without its entry, asks for one.
	fresh := NewJudge("s", Record{Rows: rows}, nil)
	if d := fresh.Decide(at("negotiation-head-status", "HEAD", "/x", 0), base); !strings.Contains(d.Problem, "a false positive") ||
		!strings.Contains(d.Problem, `"verdict":"false"`) || !strings.Contains(d.Problem, `"curl":"curl -sS -i \"$BASE\"/x"`) {
		t.Errorf("problem %q: want the entry to add, with the curl line on $BASE", d.Problem)
	}
	unused := j.Unused()
	if len(unused) != 1 || unused[0].Path != "/stale" {
		t.Errorf("unused %+v, want only the entry no finding matched", unused)
	}
}

func TestTallyAndPrecision(t *testing.T) {
	var tl Tally
	tl.Add(at("b-check", "GET", "/x", 404), Decision{True: true, By: "oracle", Curl: "one"})
	tl.Add(at("b-check", "GET", "/x", 404), Decision{True: false, By: "hand", Curl: "two"})
	tl.Add(at("b-check", "GET", "/y", 404), Decision{Problem: "undecided"})
	tl.Add(at("a-check", "HEAD", "/y", 0), Decision{Problem: "undecided"})
	tl.Add(at("a-check", "HEAD", "/y", 0), Decision{True: true, By: "oracle", Curl: "three"})
	tl.Add(&finding.Finding{CheckID: "c-check", Location: &finding.SourceLocation{File: "openapi.json", Pointer: "/paths/~1x/get"}},
		Decision{True: true, By: "oracle", Curl: "four"})
	got := tl.Outcomes()
	want := []CheckOutcome{
		{Check: "a-check", Severity: "none", Count: 2, True: 1, At: []string{"HEAD /y"}, Curl: "three"},
		{Check: "b-check", Severity: "none", Count: 3, True: 1, False: 1, At: []string{"GET /x", "GET /y"}, Curl: "one"},
		{Check: "c-check", Severity: "none", Count: 1, True: 1, At: []string{"document #/paths/~1x/get"}, Curl: "four"},
	}
	if len(got) != len(want) {
		t.Fatalf("outcomes %+v", got)
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.Check != w.Check || g.Severity != w.Severity || g.Count != w.Count || g.True != w.True || g.False != w.False ||
			strings.Join(g.At, ",") != strings.Join(w.At, ",") || g.Curl != w.Curl {
			t.Errorf("outcome %d: %+v, want %+v", i, g, w)
		}
	}
	if p, ok := Precision(got); !ok || p != 300.0/4 {
		t.Errorf("precision %v %v, want 75%%", p, ok)
	}
	if _, ok := Precision(nil); ok {
		t.Error("no decided finding has no precision")
	}
}

func TestPinnedVersions(t *testing.T) {
	script := []byte("NPM_PACKAGES=(\n  express@5.3.0\n  @nestjs/core@12.5.1 rxjs@7.8.2\n)\nDEBIAN_PACKAGES=(python3-flask ruby-webrick)\n" +
		"start_go() {\n  serve go-stdmux app /items - \"$bin/stdmux\"\n  GIN_MODE=release serve go-gin app /items - \"$bin/gin\"\n  serve mcp-go-sdk mcp /mcp - x\n}\n")
	gomod := []byte("module m\n\ngo 1.26.0\n\nrequire (\n\tgithub.com/go-chi/chi/v5 v5.5.0\n\tgolang.org/x/net v0.60.0 // indirect\n)\n\nrequire github.com/gin-gonic/gin v1.12.0\n")
	v := pinnedVersions(script, gomod)
	for k, want := range map[string]string{
		"npm:express": "5.3.0", "npm:@nestjs/core": "12.5.1", "npm:rxjs": "7.8.2",
		"go:github.com/go-chi/chi/v5": "v5.5.0", "go:golang.org/x/net": "v0.60.0", "go:github.com/gin-gonic/gin": "v1.12.0", "go": "1.26.0",
	} {
		if v[k] != want {
			t.Errorf("%s: %q, want %q", k, v[k], want)
		}
	}
	f := &Files{script: script, versions: v, generators: [][2]string{{"github.com/oapi-codegen/oapi-codegen/v2/cmd/oapi-codegen", "v2.8.2"}}}
	for pkg, want := range map[string]string{"debian:python3-flask=2.2.2": "2.2.2", "go:github.com/oapi-codegen/oapi-codegen/v2": "v2.8.2", "npm:express": "5.3.0"} {
		if got, err := f.Version(pkg); err != nil || got != want {
			t.Errorf("Version(%s) = %q, %v; want %q", pkg, got, err, want)
		}
	}
	for _, pkg := range []string{"debian:python3-django=4.0", "npm:left-pad", "go:github.com/x/y"} {
		if _, err := f.Version(pkg); err == nil {
			t.Errorf("Version(%s): want an error, since the matrix does not pin it", pkg)
		}
	}
	if got := strings.Join(servedNames(script), " "); got != "go-stdmux go-gin mcp-go-sdk" {
		t.Errorf("served %q", got)
	}
}

// TestPageRefusesFilesThatDisagree: the page is not rendered over a
// finding without its fix, a fix for a finding gone, an undecided finding
// or a server frameworks.json does not describe.
func TestPageRefusesFilesThatDisagree(t *testing.T) {
	good := func() *Files {
		return &Files{
			Servers: []string{"s"},
			Records: map[string]Record{"s": {Server: "s", Kind: "app"}},
			Results: map[string]Results{"s": {Server: "s", Findings: []CheckOutcome{{Check: "c", Count: 1, True: 1}}}},
			Frameworks: []Framework{{Server: "s", Name: "S", Language: "Go", App: "a.go", Packages: []string{"go"},
				Fixes: map[string]string{"c": "do this"}}},
			versions: map[string]string{"go": "1.26.0"},
		}
	}
	if _, err := good().Page(); err != nil {
		t.Fatalf("consistent files: %v", err)
	}
	for name, c := range map[string]struct {
		spoil func(*Files)
		want  string
	}{
		"no fix":        {func(f *Files) { f.Frameworks[0].Fixes = nil }, "add its one-line fix"},
		"stale fix":     {func(f *Files) { f.Frameworks[0].Fixes["d"] = "x" }, "no longer gets"},
		"undecided":     {func(f *Files) { f.Results["s"].Findings[0].Count = 2 }, "undecided"},
		"two lines":     {func(f *Files) { f.Frameworks[0].Fixes["c"] = "a\nb" }, "more than one line"},
		"undescribed":   {func(f *Files) { f.Servers = append(f.Servers, "t") }, "does not describe"},
		"unpinned":      {func(f *Files) { f.Frameworks[0].Packages = []string{"npm:left-pad"} }, "pinned neither"},
		"judged ghost":  {func(f *Files) { f.Judged = []Judged{{Server: "ghost"}} }, "does not start"},
		"wrong results": {func(f *Files) { r := f.Results["s"]; r.Server = "t"; f.Results["s"] = r }, "names the server"},
	} {
		f := good()
		c.spoil(f)
		if _, err := f.Page(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error saying %q", name, err, c.want)
		}
	}
}
