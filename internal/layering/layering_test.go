// Package layering_test keeps the imports flowing one way: network code and
// reporters never reach the checks, the checks never reach the network,
// the report model and the recording sit at the bottom, and the scan
// orchestrates without knowing any family. Inside checks/, no family
// imports another, and what families share sits in checks/internal, which
// imports no family.
package layering_test

import (
	"encoding/json"
	"io"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
)

const module = "github.com/agentready/agentready/"

type pkg struct {
	ImportPath string
	Imports    []string
	Deps       []string
}

// packages lists every package of the module with its imports and
// transitive dependencies, test files left out.
func packages(t *testing.T) map[string]pkg {
	t.Helper()
	all, err := listed()
	if err != nil {
		t.Fatal(err)
	}
	return all
}

// listed is what go list says of the module, asked once for every test
// here: each listing loads the whole module again.
var listed = sync.OnceValues(func() (map[string]pkg, error) {
	cmd := exec.Command("go", "list", "-json", "-deps=false", module+"...")
	cmd.Dir = "../.."
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	all := map[string]pkg{}
	dec := json.NewDecoder(out)
	for {
		var p pkg
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			return nil, err
		}
		all[strings.TrimPrefix(p.ImportPath, module)] = p
	}
	return all, cmd.Wait()
})

// own is the module's packages among paths, relative to the module.
func own(paths []string) []string {
	var out []string
	for _, p := range paths {
		if rel, ok := strings.CutPrefix(p, module); ok {
			out = append(out, rel)
		}
	}
	return out
}

func under(p, root string) bool { return p == root || strings.HasPrefix(p, root+"/") }

// rule forbids packages under from to depend on packages under any of to.
type rule struct {
	from       string
	to         []string
	transitive bool
	why        string
}

var rules = []rule{
	{"probe", []string{"checks", "report", "internal/scan", "internal/cli"}, true, "the network code records; it never judges or renders"},
	{"report", []string{"checks", "probe", "internal/scan", "internal/cli"}, true, "reporters render a finished report"},
	{"checks", []string{"probe", "report", "internal/scan", "internal/cli", "internal/score"}, true, "checks are pure functions of the recording"},
	{"internal/finding", []string{"checks", "probe", "report", "internal/scan", "internal/cli", "internal/config", "internal/score", "internal/spec", "internal/mcp", "internal/exchange"}, true, "the report model is the bottom layer"},
	{"internal/exchange", []string{"checks", "probe", "report", "internal/scan", "internal/cli", "internal/config", "internal/score", "internal/spec", "internal/mcp", "internal/finding"}, true, "the recording is the bottom layer"},
	{"internal/config", []string{"report", "internal/score", "checks", "probe", "internal/scan"}, true, "the configuration is read before anything runs"},
	{"internal/score", []string{"checks", "report", "probe", "internal/scan"}, true, "grading reads findings and results only"},
	{"internal/scan", []string{"report", "internal/cli", "checks/builtin"}, true, "the scan orchestrates what it is given"},
	{"internal/pipeline", []string{"probe", "report", "internal/scan", "internal/cli", "internal/score"}, true, "post-processing reads findings, the document and the policy"},
	{"internal/coverage", []string{"checks", "report", "internal/scan", "internal/cli", "internal/score"}, true, "coverage reads the recording only"},
}

// testOnly are helpers of tests that sit beside the tests they serve: the
// rules of their folder do not bind them, since no package of the binary
// imports them (TestTestOnlyHelpersStayInTests).
var testOnly = []string{
	"report/internal/demoscan",   // scans the demo for the reporters' goldens
	"fixtures/expect/expecttest", // scans fixture cases for the tests that hold them to their expectations
}

func TestImportsFlowOneWay(t *testing.T) {
	for path, p := range packages(t) {
		if slices.Contains(testOnly, path) {
			continue
		}
		for _, r := range rules {
			if !under(path, r.from) {
				continue
			}
			deps := p.Imports
			if r.transitive {
				deps = p.Deps
			}
			for _, d := range own(deps) {
				for _, forbidden := range r.to {
					if under(d, forbidden) {
						t.Errorf("%s depends on %s: %s", path, d, r.why)
					}
				}
			}
		}
	}
}

// TestTestOnlyHelpersStayInTests: a helper the layering rules let reach
// further than its folder is imported by tests alone, never by a package of
// the binary.
func TestTestOnlyHelpersStayInTests(t *testing.T) {
	for path, p := range packages(t) {
		for _, d := range own(p.Deps) {
			if slices.Contains(testOnly, d) {
				t.Errorf("%s depends on %s, which serves tests only", path, d)
			}
		}
	}
}

// TestScanImportsNoFamily: the scan orchestrates checks it is given, and
// learns what they plan and need through the interfaces of checks; a family
// it depended on, even through the probe, would be one it knows by name.
func TestScanImportsNoFamily(t *testing.T) {
	for _, d := range own(packages(t)["internal/scan"].Deps) {
		if strings.HasPrefix(d, "checks/") {
			t.Errorf("the scan depends on %s: what it needs of a family belongs behind an interface of checks", d)
		}
	}
}

// infrastructure are the packages of checks/ that are not families: the
// one list of checks, the test helpers, and what families share.
var infrastructure = []string{"checks/builtin", "checks/checkstest", "checks/internal"}

// family is the family package p belongs to, "" for checks itself and its
// infrastructure. openapidoc holds the openapi-hal family's document-only
// checks (lint runs them without a network): one family in two packages,
// whose checks bring the same parts, so it counts as openapihal.
func family(p string) string {
	if !strings.HasPrefix(p, "checks/") {
		return ""
	}
	for _, infra := range infrastructure {
		if under(p, infra) {
			return ""
		}
	}
	if p == "checks/openapidoc" {
		return "checks/openapihal"
	}
	return p
}

// TestFamiliesImportNoFamily: what two families share (a purpose, a parser,
// the evidence of an MCP tool) sits in checks/internal, so that a change to
// one family never reaches into another, and checks/internal imports no
// family, so that it stays below them all.
func TestFamiliesImportNoFamily(t *testing.T) {
	for path, p := range packages(t) {
		mine := family(path)
		shared := under(path, "checks/internal")
		if mine == "" && !shared {
			continue
		}
		for _, d := range own(p.Deps) {
			switch theirs := family(d); {
			case theirs == "" || theirs == mine:
			case shared:
				t.Errorf("%s depends on the family %s: checks/internal is what families share, below them all", path, d)
			default:
				t.Errorf("%s depends on the family %s: what two families share belongs in checks/internal", path, d)
			}
		}
	}
}
