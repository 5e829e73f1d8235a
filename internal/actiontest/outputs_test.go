package actiontest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

var (
	setOutputCall = regexp.MustCompile(`\bset_output\s+([A-Za-z0-9_-]+)\s`)
	stepOutputRef = regexp.MustCompile(`steps\.([A-Za-z0-9_-]+)\.outputs\.([A-Za-z0-9_-]+)`)
)

// written lists, per step ID, the outputs its script sets.
func written(t testing.TB, a *action) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for _, s := range a.Runs.Steps {
		if strings.Contains(s.Run, "GITHUB_OUTPUT") {
			t.Errorf("step %q writes GITHUB_OUTPUT itself; set_output refuses a value that would add outputs", s.Name)
		}
		for _, m := range setOutputCall.FindAllStringSubmatch(s.Run, -1) {
			if s.ID == "" {
				t.Errorf("step %q sets output %s but has no id to read it by", s.Name, m[1])
			}
			if !slices.Contains(out[s.ID], m[1]) {
				out[s.ID] = append(out[s.ID], m[1])
			}
		}
	}
	return out
}

// reads lists the step outputs a step reads, as "id.name".
func reads(s step) []string {
	var refs []string
	for _, text := range append(append([]string{s.If}, mapValues(s.Env)...), mapValues(s.With)...) {
		for _, m := range stepOutputRef.FindAllStringSubmatch(text, -1) {
			refs = append(refs, m[1]+"."+m[2])
		}
	}
	return refs
}

func mapValues(m map[string]string) []string {
	var v []string
	for _, x := range m {
		v = append(v, x)
	}
	return v
}

// TestEveryOutputIsDeclared holds action.yml to one rule: the steps the
// action's outputs come from have every output they set declared (a
// workflow reading an undeclared one gets nothing, and actionlint says
// `property "markdown" is not defined`); any other step's output is read
// by a later step; and every declared output is set.
func TestEveryOutputIsDeclared(t *testing.T) {
	a, _ := loadAction(t)
	declared := map[string]string{} // "id.name" → the action's output
	for name, o := range a.Outputs {
		m := stepOutputRef.FindStringSubmatch(o.Value)
		if m == nil || strings.TrimSpace(o.Value) != "${{ "+m[0]+" }}" {
			t.Errorf("output %q is %q, want ${{ steps.ID.outputs.NAME }}", name, o.Value)
			continue
		}
		declared[m[1]+"."+m[2]] = name
	}
	sets := written(t, a)
	results := map[string]bool{} // steps the action's outputs come from
	for ref := range declared {
		id, name, _ := strings.Cut(ref, ".")
		results[id] = true
		if !slices.Contains(sets[id], name) {
			t.Errorf("output %q reads %s, which no step sets", declared[ref], ref)
		}
	}
	for i, s := range a.Runs.Steps {
		for _, name := range sets[s.ID] {
			ref := s.ID + "." + name
			if results[s.ID] {
				if declared[ref] == "" {
					t.Errorf("step %q sets %s, but action.yml does not declare it under outputs:", s.Name, name)
				}
				continue
			}
			read := false
			for _, later := range a.Runs.Steps[i+1:] {
				read = read || slices.Contains(reads(later), ref)
			}
			if !read && declared[ref] == "" {
				t.Errorf("step %q sets %s, which nothing reads", s.Name, name)
			}
		}
	}
}

// TestVendoredActionPassesActionlint lints, with the actionlint that
// .ci/actionlint.sh pins (AGENTREADY_ACTIONLINT), a workflow that uses a
// copy of the action, gives it the inputs this change added, and reads
// every output its result steps set: clean when each is declared. A
// workflow that reads an output the action lacks shows that the check
// bites.
func TestVendoredActionPassesActionlint(t *testing.T) {
	actionlint := os.Getenv("AGENTREADY_ACTIONLINT")
	if actionlint == "" {
		t.Skip("AGENTREADY_ACTIONLINT is not set: .ci/actionlint.sh runs this test with the actionlint it pins")
	}
	a, root := loadAction(t)
	sets := written(t, a)
	var names []string
	for _, o := range a.Outputs {
		if m := stepOutputRef.FindStringSubmatch(o.Value); m != nil {
			for _, name := range sets[m[1]] {
				if !slices.Contains(names, name) {
					names = append(names, name)
				}
			}
		}
	}
	slices.Sort(names)
	if len(names) < 9 {
		t.Fatalf("only %v: the result steps set more", names)
	}

	project := t.TempDir()
	raw, err := os.ReadFile(filepath.Join(root, "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{".git", ".github/workflows"} {
		os.MkdirAll(filepath.Join(project, dir), 0o755)
	}
	os.WriteFile(filepath.Join(project, "action.yml"), raw, 0o644)
	workflow := func(outputs []string) string {
		var b strings.Builder
		b.WriteString(`name: vendored
on: pull_request
permissions:
  contents: read
jobs:
  scan:
    runs-on: ubuntu-latest
    steps:
      - id: agentready
        uses: ./
        with:
          url: http://127.0.0.1:8080/
          install: release
          version: v1.2.3
          sarif-anchor: api/openapi.yaml
      - env:
`)
		for i, name := range outputs {
			fmt.Fprintf(&b, "          OUT_%d: ${{ steps.agentready.outputs.%s }}\n", i, name)
		}
		b.WriteString("        run: env | grep '^OUT_'\n")
		return b.String()
	}
	lint := func(name, content string) (string, error) {
		path := filepath.Join(".github/workflows", name)
		os.WriteFile(filepath.Join(project, path), []byte(content), 0o644)
		cmd := exec.Command(actionlint, "-no-color", path)
		cmd.Dir = project
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	if out, err := lint("vendored.yml", workflow(names)); err != nil {
		t.Errorf("actionlint on a workflow reading %v: %v\n%s", names, err, out)
	}
	os.Remove(filepath.Join(project, ".github/workflows/vendored.yml"))
	if out, err := lint("undeclared.yml", workflow([]string{"no-such-output"})); err == nil || !strings.Contains(out, `property "no-such-output" is not defined`) {
		t.Errorf("actionlint accepted an output the action does not declare: %v\n%s", err, out)
	}
}
