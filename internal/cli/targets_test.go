package cli

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/agentready/agentready/fixtures/demo"
	"github.com/agentready/agentready/report/json"
)

// combinedDoc is the part of the combined JSON report the tests read.
type combinedDoc struct {
	Summary struct {
		ExitCode                                int
		Targets, Passed, GateFailed, Incomplete int
	}
	Targets []struct {
		Name, URL, Outcome, Error string
		ExitCode                  int
		Report                    json.RawMessage
	}
}

func readCombined(t *testing.T, path string) combinedDoc {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc combinedDoc
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return doc
}

// TestTwoTargetsGiveTwoReportsAndTheWorstGate is the acceptance test: a
// clean demo and one with a defect, named in the configuration, give a
// report each, one summary, and exit 1 because one gate failed.
func TestTwoTargetsGiveTwoReportsAndTheWorstGate(t *testing.T) {
	clean, broken := serve(t), serve(t, demo.DefectNoVaryAccept)
	dir := t.TempDir()
	cfg := writeConfig(t, fmt.Sprintf("targets:\n  - name: clean\n    url: %s\n  - name: broken\n    url: %s\n    sarif-category: ci/broken\n", clean, broken))
	all, sarifPath := filepath.Join(dir, "all.json"), filepath.Join(dir, "all.sarif")
	each := filepath.Join(dir, "report-{target}.md")
	r := run(t, "--config", cfg, "scan", "--fail-on", "warning", "-o", "json="+all, "-o", "sarif="+sarifPath, "-o", "markdown="+each)
	if r.code != ExitGateFailed {
		t.Fatalf("exit %d, want %d\nstderr: %s", r.code, ExitGateFailed, r.stderr)
	}
	order := []string{"=== Target 1 of 2: clean", "Gate passed", "=== Target 2 of 2: broken", "Gate FAILED", "vary-accept",
		"=== Summary of 2 targets: 1 passed, 1 gate failed ===", "Exit 1: the gate failed for broken"}
	at := 0
	for _, want := range order {
		i := strings.Index(r.stdout[at:], want)
		if i < 0 {
			t.Fatalf("stdout lacks %q after byte %d:\n%s", want, at, r.stdout)
		}
		at += i + len(want)
	}

	doc := readCombined(t, all)
	if s := doc.Summary; s.ExitCode != 1 || s.Targets != 2 || s.Passed != 1 || s.GateFailed != 1 {
		t.Fatalf("summary %+v", s)
	}
	for i, want := range []struct{ name, url, outcome string }{{"clean", clean, "passed"}, {"broken", broken, "gate-failed"}} {
		got := doc.Targets[i]
		if got.Name != want.name || got.URL != want.url || got.Outcome != want.outcome {
			t.Errorf("targets[%d] = %s %s %s, want %+v", i, got.Name, got.URL, got.Outcome, want)
		}
		rep, err := jsonreport.Read(strings.NewReader(string(got.Report)))
		if err != nil || rep.Target != want.url || rep.Gate == nil {
			t.Fatalf("targets[%d].report: %v %+v", i, err, rep)
		}
	}

	var log struct {
		Runs []struct{ AutomationDetails struct{ ID string } }
	}
	b, _ := os.ReadFile(sarifPath)
	if err := json.Unmarshal(b, &log); err != nil || len(log.Runs) != 2 ||
		log.Runs[0].AutomationDetails.ID != "agentready/clean/" || log.Runs[1].AutomationDetails.ID != "ci/broken/" {
		t.Fatalf("SARIF runs %+v (%v)", log.Runs, err)
	}
	for name, has := range map[string]string{"clean": clean, "broken": "vary-accept"} {
		md, err := os.ReadFile(filepath.Join(dir, "report-"+name+".md"))
		if err != nil || !strings.Contains(string(md), has) {
			t.Errorf("report-%s.md: %v, want it to hold %q", name, err, has)
		}
	}
}

// TestATargetThatCannotBeScannedStopsNoOther: the unreachable one exits 3,
// worse than a failed gate, and the others are still scanned and reported.
func TestATargetThatCannotBeScannedStopsNoOther(t *testing.T) {
	gone, broken := closedPort(t), serve(t, demo.DefectNoVaryAccept)
	all := filepath.Join(t.TempDir(), "all.json")
	r := run(t, "scan", "-q", "--timeout", "2s", "--fail-on", "warning", "-o", "json="+all, gone, broken)
	if r.code != ExitIncomplete {
		t.Fatalf("exit %d, want %d\nstderr: %s", r.code, ExitIncomplete, r.stderr)
	}
	if !strings.Contains(r.stderr, "1 of 2 targets could not be scanned or judged: 127.0.0.1-") {
		t.Errorf("stderr: %s", r.stderr)
	}
	doc := readCombined(t, all)
	if len(doc.Targets) != 2 || doc.Targets[0].Outcome != "incomplete" || string(doc.Targets[0].Report) != "null" ||
		!strings.Contains(doc.Targets[0].Error, "unreachable") || doc.Targets[1].Outcome != "gate-failed" {
		t.Fatalf("targets %+v", doc.Targets)
	}
	if doc.Summary.ExitCode != 3 || doc.Summary.Incomplete != 1 || doc.Summary.GateFailed != 1 {
		t.Errorf("summary %+v", doc.Summary)
	}
}

// headerLog records every value of one header a server receives.
type headerLog struct {
	mu     sync.Mutex
	values []string
	all    []string
}

func (l *headerLog) wrap(name string, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		l.mu.Lock()
		l.values = append(l.values, r.Header.Values(name)...)
		for _, vs := range r.Header {
			l.all = append(l.all, vs...)
		}
		l.mu.Unlock()
		h.ServeHTTP(w, r)
	})
}

// TestATargetsCredentialsGoToItAlone: two loopback servers, a key only
// target A declares; B never receives it, in any header, and no output
// shows it.
func TestATargetsCredentialsGoToItAlone(t *testing.T) {
	const secret = "key-of-target-a-5f3c9a1e7b"
	var seenA, seenB headerLog
	a := serveHandler(t, seenA.wrap("X-Api-Key", demo.New()))
	b := serveHandler(t, seenB.wrap("X-Api-Key", demo.New()))
	dir := t.TempDir()
	cfg := writeConfig(t, fmt.Sprintf("targets:\n  - name: a\n    url: %s\n    identities:\n      - {name: svc, header: X-Api-Key, env: A_KEY}\n  - name: b\n    url: %s\n", a, b))
	out := filepath.Join(dir, "r-{target}.json")
	r := runWith(t, t.Context(), []string{"A_KEY=" + secret}, "--config", cfg, "scan", "-v", "--format", "json", "-o", "sarif="+filepath.Join(dir, "all.sarif"), "-o", "json="+out)
	if r.code != ExitOK {
		t.Fatalf("exit %d\nstderr: %s", r.code, r.stderr)
	}
	if len(seenA.values) == 0 || seenA.values[0] != secret {
		t.Fatalf("target a never received its key (%d requests with it)", len(seenA.values))
	}
	for _, v := range seenB.all {
		if strings.Contains(v, secret) {
			t.Fatal("target b received target a's key")
		}
	}
	if len(seenB.values) != 0 {
		t.Fatalf("target b received X-Api-Key %d times", len(seenB.values))
	}
	outputs := r.stdout + r.stderr
	for _, name := range []string{"all.sarif", "r-a.json", "r-b.json"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		outputs += string(b)
	}
	if strings.Contains(outputs, secret) {
		t.Fatal("the key appears in an output")
	}
}

// TestTargetsUsageErrorsComeBeforeAnyRequest: every target is planned
// before the first is scanned, so a mistake in the last one sends nothing.
func TestTargetsUsageErrorsComeBeforeAnyRequest(t *testing.T) {
	var hits atomic.Int64
	counted := serveHandler(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		demo.New().ServeHTTP(w, r)
	}))
	other := serve(t)
	dir := t.TempDir()
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"html on stdout", []string{"scan", "--format", "html", counted, other}, "html on stdout holds one report"},
		{"junit file without {target}", []string{"scan", "-o", "junit=" + filepath.Join(dir, "r.xml"), counted, other}, "put {target} in the file name"},
		{"baseline without {target}", []string{"scan", "--baseline", filepath.Join(dir, "b.json"), counted, other}, "--baseline with several targets"},
		{"active", []string{"scan", "--active", "--active-allow", "GET /x", counted, other}, "--active sends state-changing requests to one target"},
		{"record", []string{"scan", "--record", filepath.Join(dir, "x.har"), counted, other}, "--record records one target"},
		{"same URL twice", []string{"scan", counted, counted}, "is given twice"},
		{"bad last URL", []string{"scan", counted, "ftp://example.test/"}, "target example.test: target \"ftp://example.test/\": want an absolute http"},
		{"shared MCP on another origin", []string{"scan", "--mcp", other + "mcp", counted, other}, "the shared mcp"},
		{"missing baseline of one target", []string{"scan", "--baseline", filepath.Join(dir, "{target}.json"), counted, other}, "--baseline"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := run(t, c.args...)
			if r.code != ExitUsage || !strings.Contains(r.stderr, c.want) {
				t.Errorf("exit %d, want %d with %q\nstderr: %s", r.code, ExitUsage, c.want, r.stderr)
			}
		})
	}
	cfg := writeConfig(t, fmt.Sprintf("targets:\n  - {name: first, url: %q}\n  - name: second\n    url: %q\n    identities: [{name: x, env: UNSET_TOKEN_VAR}]\n", counted, other))
	if r := run(t, "--config", cfg, "scan"); r.code != ExitUsage || !strings.Contains(r.stderr, "target second: identity x: environment variable UNSET_TOKEN_VAR is unset") {
		t.Errorf("unset identity variable of the second target: exit %d\n%s", r.code, r.stderr)
	}
	cfg = writeConfig(t, fmt.Sprintf("targets:\n  - {name: first, url: %q}\n  - {name: second, url: %q, sarif-category: agentready/first}\n", counted, other))
	if r := run(t, "--config", cfg, "scan"); r.code != ExitUsage || !strings.Contains(r.stderr, `targets first and second have one SARIF category, "agentready/first"`) {
		t.Errorf("two targets under one SARIF category: exit %d\n%s", r.code, r.stderr)
	}
	if n := hits.Load(); n != 0 {
		t.Fatalf("%d requests were sent before a usage error", n)
	}
}

func TestConfigCheckNamesTheLineOfABadTarget(t *testing.T) {
	cfg := writeConfig(t, "targets:\n  - name: api\n    url: http://a.test/\n  - name: api\n    url: http://b.test/\n  - name: web\n    openapi: web.yaml\n")
	r := run(t, "--config", cfg, "config", "check")
	for _, want := range []string{`line 4: targets[1]: name "api" is used twice`, "line 6: targets[2]: url is required"} {
		if r.code != ExitUsage || !strings.Contains(r.stderr, want) {
			t.Errorf("exit %d, want %d with %q\n%s", r.code, ExitUsage, want, r.stderr)
		}
	}
	good := writeConfig(t, "targets:\n  - name: api\n    url: http://a.test/\n  - url: http://b.test/v2/\n")
	r = run(t, "--config", good, "config", "check")
	if r.code != ExitOK || !strings.Contains(r.stdout, "target api") || !strings.Contains(r.stdout, "target b.test-v2") {
		t.Errorf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// TestEachTargetIsComparedWithItsOwnBaseline: {target} in --baseline names
// one baseline per target, so the broken target's known findings no longer
// fail the gate, and the summary says so.
func TestEachTargetIsComparedWithItsOwnBaseline(t *testing.T) {
	clean, broken := serve(t), serve(t, demo.DefectNoVaryAccept)
	dir := t.TempDir()
	for name, url := range map[string]string{"clean": clean, "broken": broken} {
		if r := run(t, "baseline", "write", "-o", filepath.Join(dir, name+".json"), url); r.code != ExitOK {
			t.Fatalf("baseline write %s: exit %d\n%s", name, r.code, r.stderr)
		}
	}
	cfg := writeConfig(t, fmt.Sprintf("targets:\n  - {name: clean, url: %q}\n  - {name: broken, url: %q}\n", clean, broken))
	r := run(t, "--config", cfg, "scan", "--fail-on", "warning", "--baseline", filepath.Join(dir, "{target}.json"))
	if r.code != ExitOK || !strings.Contains(r.stdout, "Exit 0: every target passed its gate") {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
}

// TestTargetsOfAnUntrustedFileGetNoCredentials: a file found in a parent
// directory may neither send its targets' identities nor choose where -H
// goes, as for target:.
func TestTargetsOfAnUntrustedFileGetNoCredentials(t *testing.T) {
	target, _, all := headerServer(t, "X-Tenant")
	cfg := inParentConfig(t, fmt.Sprintf("targets:\n  - {name: a, url: %q}\n  - name: b\n    url: %q\n    identities: [{name: x, header: X-Tenant, env: TENANT}]\n", target, target+"v2/"))
	r := runWith(t, t.Context(), []string{"TENANT=tenantsecret4242"}, "scan", "-q")
	if r.code != ExitUsage || !strings.Contains(r.stderr, cfg+" sets targets") {
		t.Errorf("identities of a target: exit %d, stderr %q", r.code, r.stderr)
	}
	cfg = inParentConfig(t, fmt.Sprintf("targets:\n  - {name: a, url: %q}\n", target))
	r = run(t, "scan", "-q", "-H", "X-Tenant: tenantsecret4242")
	if r.code != ExitUsage || !strings.Contains(r.stderr, cfg+" sets targets") {
		t.Errorf("-H to the file's targets: exit %d, stderr %q", r.code, r.stderr)
	}
	if n := all.Load(); n != 0 {
		t.Fatalf("%d request(s) reached the server", n)
	}
}

// TestOneTargetNamesItsFilesToo: the flags of a run of several targets
// serve a run of one; {target} is its name, not part of a file name.
func TestOneTargetNamesItsFilesToo(t *testing.T) {
	url := serve(t)
	dir := t.TempDir()
	r := run(t, "scan", "-q", "-o", "json="+filepath.Join(dir, "report-{target}.json"), url)
	if r.code != ExitOK {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	name := strings.NewReplacer("http://", "", ":", "-", "/", "").Replace(url)
	if _, err := os.Stat(filepath.Join(dir, "report-"+name+".json")); err != nil {
		entries, _ := os.ReadDir(dir)
		t.Fatalf("%v; the directory holds %v", err, entries)
	}
}
