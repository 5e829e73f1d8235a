// Package golden is the one comparison of generated output with committed
// files: report goldens, CLI snapshots, and the generated documentation and
// schemas. Every such test calls Check, so that one command regenerates them
// all: .ci/regenerate, which runs those tests with AGENTREADY_UPDATE=1. A
// failure names that command; review the diff it makes before committing.
package golden

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Command regenerates every generated file in the repository.
const Command = ".ci/regenerate"

// UpdateEnv is the variable Command sets; tests rewrite their files instead
// of comparing when it is "1". An environment variable rather than a test
// flag, so that `go test ./...` accepts it in packages without goldens.
const UpdateEnv = "AGENTREADY_UPDATE"

// Updating reports whether the files are being regenerated.
func Updating() bool { return os.Getenv(UpdateEnv) == "1" }

// Root is the repository's root directory, found from this file's location
// so that tests of any package agree on it.
func Root() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// Path is the golden file name of a scenario: testdata/golden/<scenario>/<name>.
func Path(scenario, name string) string {
	return filepath.Join(Root(), "testdata", "golden", scenario, name)
}

// Check compares got with the file at path, or writes it when Updating.
func Check(t testing.TB, path string, got []byte) {
	t.Helper()
	if Updating() {
		write(t, path, got)
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v; run %s to create it", err, Command)
		return
	}
	if !bytes.Equal(got, want) {
		Stale(t, path, FirstDiff(got, want))
	}
}

// Stale fails t for a generated file that no longer matches what generates
// it, naming the command that rewrites it. detail says what differs.
func Stale(t testing.TB, path, detail string) {
	t.Helper()
	t.Errorf("%s is out of date; if the change is intended, run %s and review the diff\n%s", rel(path), Command, detail)
}

func write(t testing.TB, path string, b []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// rel shortens a path to the repository's root, so messages name the file
// the way a contributor would.
func rel(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return path
	}
	root, err := filepath.Abs(Root())
	if err != nil {
		return path
	}
	if r, err := filepath.Rel(root, abs); err == nil && !strings.HasPrefix(r, "..") {
		return r
	}
	return abs
}

// FirstDiff shows the first differing line, which is usually enough to see
// what changed without printing a whole page.
func FirstDiff(got, want []byte) string {
	g, w := bytes.Split(got, []byte("\n")), bytes.Split(want, []byte("\n"))
	for i := 0; i < len(g) || i < len(w); i++ {
		var gl, wl []byte
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if !bytes.Equal(gl, wl) {
			return "line " + strconv.Itoa(i+1) + ":\n  got:  " + clip(gl) + "\n  want: " + clip(wl)
		}
	}
	return ""
}

func clip(b []byte) string {
	if len(b) > 300 {
		return string(b[:300]) + "…"
	}
	return string(b)
}

var port = regexp.MustCompile(`127\.0\.0\.1:\d+`)

// NormalizePorts replaces the port of loopback test servers, which changes
// on every run.
func NormalizePorts(b []byte) []byte { return port.ReplaceAll(b, []byte("127.0.0.1:PORT")) }

// Schema compiles the published JSON Schema at path, registered under id,
// with format assertions on: the schemas under docs/schema are generated
// files, and the tests that check them also validate documents with them.
func Schema(t testing.TB, path, id string) *jsonschema.Schema {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource(id, doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(id)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
