package actiontest

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	yaml "github.com/pb33f/go-yaml"
)

// action is the part of action.yml the runner needs.
type action struct {
	Name   string `yaml:"name"`
	Inputs map[string]struct {
		Description string `yaml:"description"`
		Default     string `yaml:"default"`
	} `yaml:"inputs"`
	Outputs map[string]struct {
		Description string `yaml:"description"`
		Value       string `yaml:"value"`
	} `yaml:"outputs"`
	Runs struct {
		Using string `yaml:"using"`
		Steps []step `yaml:"steps"`
	} `yaml:"runs"`
}

type step struct {
	Name  string            `yaml:"name"`
	ID    string            `yaml:"id"`
	If    string            `yaml:"if"`
	Uses  string            `yaml:"uses"`
	With  map[string]string `yaml:"with"`
	Shell string            `yaml:"shell"`
	Env   map[string]string `yaml:"env"`
	Run   string            `yaml:"run"`
}

func loadAction(t testing.TB) (*action, string) {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(root, "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var a action
	if err := yaml.Unmarshal(b, &a); err != nil {
		t.Fatal(err)
	}
	return &a, root
}

// runner holds one run of the action.
type runner struct {
	t       testing.TB
	a       *action
	root    string
	temp    string
	inputs  map[string]string
	outputs map[string]map[string]string // step id → outputs
	summary string
	log     bytes.Buffer
	failed  bool
	code    int      // exit status of the first failed step
	env     []string // what the test adds to the runner's environment
	// workspace is the working directory of every step, GITHUB_WORKSPACE.
	workspace string
}

// result is what a workflow would see, and the outputs of each step.
type result struct {
	code    int
	outputs map[string]string
	steps   map[string]map[string]string
	summary string
	log     string
}

// runAction runs every step of the action with these inputs; temp is
// RUNNER_TEMP, shared between runs so the cached build is reused. env
// ("NAME=value") overrides the runner's environment: a stub on PATH, an
// event file.
func runAction(t testing.TB, a *action, root, temp string, inputs map[string]string, env ...string) result {
	t.Helper()
	return runActionIn(t, a, root, temp, t.TempDir(), inputs, env...)
}

// runActionIn is runAction with the steps run in workspace, where a
// workflow has checked out its repository.
func runActionIn(t testing.TB, a *action, root, temp, workspace string, inputs map[string]string, env ...string) result {
	t.Helper()
	r := &runner{t: t, a: a, root: root, temp: temp, inputs: map[string]string{}, outputs: map[string]map[string]string{}, env: env, workspace: workspace}
	for name, in := range a.Inputs {
		r.inputs[name] = in.Default
	}
	for name, v := range inputs {
		if _, ok := a.Inputs[name]; !ok {
			t.Fatalf("action.yml has no input %q", name)
		}
		r.inputs[name] = v
	}
	r.summary = filepath.Join(t.TempDir(), "summary.md")
	for i, s := range a.Runs.Steps {
		if !r.condition(s.If) {
			continue
		}
		if s.Uses != "" {
			r.shim(s)
			continue
		}
		r.runStep(i, s)
	}
	out := map[string]string{}
	for name, o := range a.Outputs {
		out[name] = r.expand(o.Value)
	}
	summary, _ := os.ReadFile(r.summary)
	return result{code: r.code, outputs: out, steps: r.outputs, summary: string(summary), log: r.log.String()}
}

var expr = regexp.MustCompile(`\$\{\{\s*(.*?)\s*\}\}`)

// value resolves one reference of the supported subset.
func (r *runner) value(ref string) string {
	switch {
	case strings.HasPrefix(ref, "inputs."):
		v, ok := r.inputs[strings.TrimPrefix(ref, "inputs.")]
		if !ok {
			r.t.Fatalf("unknown input in %q", ref)
		}
		return v
	case strings.HasPrefix(ref, "steps."):
		parts := strings.Split(ref, ".")
		if len(parts) != 4 || parts[2] != "outputs" {
			r.t.Fatalf("unsupported step reference %q", ref)
		}
		return r.outputs[parts[1]][parts[3]]
	case ref == "github.action_path":
		return r.root
	case ref == "github.token":
		return ""
	case ref == "runner.temp":
		return r.temp
	}
	r.t.Fatalf("expression %q is outside the subset this runner supports (see doc.go)", ref)
	return ""
}

func (r *runner) expand(s string) string {
	return expr.ReplaceAllStringFunc(s, func(m string) string {
		return r.value(expr.FindStringSubmatch(m)[1])
	})
}

var comparison = regexp.MustCompile(`^([a-z_.\-]+)\s*(==|!=)\s*'([^']*)'$`)

// condition evaluates an if: in the supported subset.
func (r *runner) condition(cond string) bool {
	cond = strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(cond), "${{"), "}}"))
	always := false
	ok := true
	if cond != "" {
		for _, term := range strings.Split(cond, "&&") {
			term = strings.TrimSpace(term)
			if term == "always()" {
				always = true
				continue
			}
			m := comparison.FindStringSubmatch(term)
			if m == nil {
				r.t.Fatalf("if: term %q is outside the supported subset", term)
			}
			eq := r.value(m[1]) == m[3]
			ok = ok && (eq == (m[2] == "=="))
		}
	}
	if r.failed && !always {
		return false
	}
	return ok
}

// shim stands in for the uses: steps; see doc.go.
func (r *runner) shim(s step) {
	with := map[string]string{}
	for k, v := range s.With {
		with[k] = r.expand(v)
	}
	fmt.Fprintf(&r.log, "##[step] %s\n", s.Name)
	name, _, _ := strings.Cut(s.Uses, "@")
	switch name {
	case "actions/setup-go":
		if _, err := os.Stat(with["go-version-file"]); err != nil {
			r.t.Fatalf("setup-go: go-version-file: %v", err)
		}
		if out, err := exec.Command("go", "version").CombinedOutput(); err != nil {
			r.t.Fatalf("setup-go shim: no go on PATH: %v %s", err, out)
		}
	case "actions/cache/restore":
		hit := "false"
		if entries, err := os.ReadDir(with["path"]); err == nil && len(entries) > 0 {
			hit = "true"
		}
		if with["key"] == "" {
			r.t.Fatal("actions/cache/restore without a key")
		}
		r.setOutputs(s.ID, map[string]string{"cache-hit": hit})
	case "actions/cache/save":
		if entries, err := os.ReadDir(with["path"]); err != nil || len(entries) == 0 || with["key"] == "" {
			r.t.Fatalf("actions/cache/save of %q (key %q), which holds nothing: %v", with["path"], with["key"], err)
		}
	default:
		r.t.Fatalf("no shim for uses: %s", s.Uses)
	}
}

func (r *runner) setOutputs(id string, kv map[string]string) {
	if id == "" {
		return
	}
	if r.outputs[id] == nil {
		r.outputs[id] = map[string]string{}
	}
	for k, v := range kv {
		r.outputs[id][k] = v
	}
}

// runID is the run every test run of the action is: its page is
// runURL, which a cut pull-request comment links.
const (
	runID  = "4242"
	runURL = "https://github.com/agentready/agentready/actions/runs/" + runID
)

// baseEnv is the process environment minus anything a runner would set,
// plus what it sets.
func (r *runner) baseEnv(outputFile string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "GITHUB_") || strings.HasPrefix(kv, "INPUT_") || strings.HasPrefix(kv, "RUNNER_") {
			continue
		}
		env = append(env, kv)
	}
	event := filepath.Join(r.temp, "event.json")
	os.WriteFile(event, []byte("{}"), 0o644)
	return append(append(env,
		"GITHUB_ACTIONS=true", "CI=true",
		"GITHUB_OUTPUT="+outputFile, "GITHUB_STEP_SUMMARY="+r.summary,
		"GITHUB_ACTION_PATH="+r.root, "GITHUB_EVENT_PATH="+event, "GITHUB_WORKSPACE="+r.workspace,
		"GITHUB_REPOSITORY=agentready/agentready", "GITHUB_ACTION_REF=",
		"GITHUB_SERVER_URL=https://github.com", "GITHUB_RUN_ID="+runID,
		"GITHUB_WORKFLOW_REF=agentready/agentready/.github/workflows/ci.yml@refs/pull/7/merge",
		"RUNNER_TEMP="+r.temp, "RUNNER_OS=Linux", "RUNNER_ARCH=X64",
	), r.env...) // later entries win in exec.Cmd.Env
}

func (r *runner) runStep(i int, s step) {
	if s.Shell != "bash" {
		r.t.Fatalf("step %q: shell %q; this runner knows bash", s.Name, s.Shell)
	}
	dir := r.t.TempDir()
	script := filepath.Join(dir, fmt.Sprintf("step-%d.sh", i))
	if err := os.WriteFile(script, []byte(s.Run), 0o644); err != nil {
		r.t.Fatal(err)
	}
	outputFile := filepath.Join(dir, "output")
	os.WriteFile(outputFile, nil, 0o644)
	cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", script)
	cmd.Dir = r.workspace
	cmd.Env = r.baseEnv(outputFile)
	for k, v := range s.Env {
		cmd.Env = append(cmd.Env, k+"="+r.expand(v))
	}
	cmd.Stdout, cmd.Stderr = &r.log, &r.log
	fmt.Fprintf(&r.log, "##[step] %s\n", s.Name)
	err := cmd.Run()
	outs, perr := parseOutputs(outputFile)
	if perr != nil {
		r.t.Fatalf("step %q: GITHUB_OUTPUT: %v", s.Name, perr)
	}
	r.setOutputs(s.ID, outs)
	if err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			r.t.Fatalf("step %q: %v", s.Name, err)
		}
		if !r.failed {
			r.failed, r.code = true, ee.ExitCode()
		}
	}
}

// parseOutputs reads GITHUB_OUTPUT: name=value lines and name<<DELIM blocks.
func parseOutputs(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if name, delim, ok := strings.Cut(line, "<<"); ok && !strings.Contains(name, "=") {
			var val []string
			for sc.Scan() && sc.Text() != delim {
				val = append(val, sc.Text())
			}
			out[name] = strings.Join(val, "\n")
			continue
		}
		name, val, ok := strings.Cut(line, "=")
		if !ok {
			return nil, fmt.Errorf("malformed line %q", line)
		}
		out[name] = val
	}
	return out, sc.Err()
}

// commandData is what the runner makes of a workflow command's data: it
// undoes %0D, %0A and %25, in that order, so a value is masked or reported
// as written only when it was escaped the same way.
func commandData(escaped string) string {
	for _, m := range []struct{ escaped, raw string }{{"%0D", "\r"}, {"%0A", "\n"}, {"%25", "%"}} {
		escaped = strings.ReplaceAll(escaped, m.escaped, m.raw)
	}
	return escaped
}
