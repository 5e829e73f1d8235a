package longtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestEveryLongTestRunsInCI: a test that calls Skip is skipped by
// `go test ./...`, so .ci/run must run it: a line of .ci/run that sets
// AGENTREADY_LONG=1 names the test and its package.
func TestEveryLongTestRunsInCI(t *testing.T) {
	ci, err := os.ReadFile("../../.ci/run")
	if err != nil {
		t.Fatal(err)
	}
	long := longTests(t, "../..")
	if len(long) == 0 {
		t.Fatal("no test calls longtest.Skip: the scan of the test files is broken")
	}
	for _, lt := range long {
		if !namedIn(string(ci), lt) {
			t.Errorf("%s in ./%s calls longtest.Skip, but no line of .ci/run with %s=1 runs it", lt.name, lt.dir, Env)
		}
	}
}

// TestNamedIn: the test's name must be whole and its package named as
// go test takes it, on a line that sets the variable.
func TestNamedIn(t *testing.T) {
	lt := longTest{dir: "internal/scan", name: "TestSlow"}
	for _, tt := range []struct {
		ci   string
		want bool
	}{
		{"AGENTREADY_LONG=1 go test -run 'TestSlow' ./internal/scan/", true},
		{"AGENTREADY_LONG=1 go test -run '^(TestA|TestSlow)$' ./probe/ ./internal/scan/", true},
		{"go test -run 'TestSlow' ./internal/scan/", false},
		{"AGENTREADY_LONG=1 go test -run 'TestSlowly' ./internal/scan/", false},
		{"AGENTREADY_LONG=1 go test -run 'TestSlow' ./internal/scanner/", false},
		{"AGENTREADY_LONG=1 go test -run 'TestSlow' ./probe/\ngo test ./internal/scan/", false},
	} {
		if got := namedIn(tt.ci, lt); got != tt.want {
			t.Errorf("namedIn(%q) = %v, want %v", tt.ci, got, tt.want)
		}
	}
}

type longTest struct{ dir, name string }

// longTests lists the test functions under root that call longtest.Skip.
func longTests(t *testing.T, root string) []longTest {
	t.Helper()
	var out []longTest
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		file, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		dir, err := filepath.Rel(root, filepath.Dir(path))
		if err != nil {
			return err
		}
		for _, decl := range file.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if ok && strings.HasPrefix(fn.Name.Name, "Test") && callsSkip(fn) {
				out = append(out, longTest{dir: filepath.ToSlash(dir), name: fn.Name.Name})
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func callsSkip(fn *ast.FuncDecl) bool {
	found := false
	ast.Inspect(fn, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok && sel.Sel.Name == "Skip" {
			if pkg, ok := sel.X.(*ast.Ident); ok && pkg.Name == "longtest" {
				found = true
			}
		}
		return !found
	})
	return found
}

// namedIn reports whether a line of ci sets the variable and names both the
// test and its package.
func namedIn(ci string, lt longTest) bool {
	name := regexp.MustCompile(`(^|[^A-Za-z0-9_])` + regexp.QuoteMeta(lt.name) + `($|[^A-Za-z0-9_])`)
	for _, line := range strings.Split(ci, "\n") {
		if strings.Contains(line, Env+"=1") && name.MatchString(line) &&
			strings.Contains(line+" ", " ./"+lt.dir+"/ ") {
			return true
		}
	}
	return false
}
