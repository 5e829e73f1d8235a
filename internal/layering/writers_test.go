package layering_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
)

// configWriters are the packages that may write a probe.Config: the CLI,
// which builds the one the user asked for, and the probe itself, which
// fills in its defaults and what a session adds in copies of its own. What
// the scan adds for its checks goes on the probe.Session instead, so that
// the configuration a probe runs with is the user's, as the CLI built it.
var configWriters = []string{"internal/cli", "probe"}

// exported is what go list says of a package, with its export data for the
// type checker.
type exported struct {
	ImportPath string
	Dir        string
	Export     string
	GoFiles    []string
	Deps       []string
}

// TestProbeConfigHasOneWriter type-checks, outside configWriters, every
// package of the binary that depends on the probe, and fails on any write
// to a probe.Config there: an assignment to one or to its fields (or to
// what they hold), an increment, a composite literal, or taking its address.
// Test files set up their scans as they need, and so do the test-only
// helpers (testOnly).
func TestProbeConfigHasOneWriter(t *testing.T) {
	all := listExported(t)
	exports := map[string]string{}
	for _, p := range all {
		exports[p.ImportPath] = p.Export
	}
	fset := token.NewFileSet()
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		file, ok := exports[path]
		if !ok || file == "" {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(file)
	})
	checked := 0
	for _, p := range all {
		rel, ok := ownPath(p.ImportPath)
		if !ok || slices.Contains(configWriters, rel) || slices.Contains(testOnly, rel) ||
			!slices.Contains(p.Deps, module+"probe") {
			continue
		}
		var files []*ast.File
		for _, name := range p.GoFiles {
			f, err := parser.ParseFile(fset, filepath.Join(p.Dir, name), nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, f)
		}
		info := &types.Info{Types: map[ast.Expr]types.TypeAndValue{}, Selections: map[*ast.SelectorExpr]*types.Selection{}}
		conf := types.Config{Importer: imp}
		if _, err := conf.Check(p.ImportPath, fset, files, info); err != nil {
			t.Fatalf("type-checking %s: %v", rel, err)
		}
		checked++
		for _, f := range files {
			for _, pos := range configWrites(f, info) {
				at := fset.Position(pos)
				at.Filename = filepath.Join(rel, filepath.Base(at.Filename))
				t.Errorf("%s writes a probe.Config: only %v do; what the scan adds belongs on the probe.Session", at, configWriters)
			}
		}
	}
	if checked == 0 {
		t.Fatal("no package that depends on the probe was checked")
	}
}

// listExported lists the module's packages and their dependencies, each
// with its export data.
func listExported(t *testing.T) []exported {
	t.Helper()
	cmd := exec.Command("go", "list", "-export", "-deps", "-json=ImportPath,Dir,Export,GoFiles,Deps", module+"...")
	cmd.Dir = "../.."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var all []exported
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p exported
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		all = append(all, p)
	}
	return all
}

// configWrites are the places in f that write a probe.Config.
func configWrites(f *ast.File, info *types.Info) []token.Pos {
	var out []token.Pos
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			for _, lhs := range n.Lhs {
				if reachesConfig(lhs, info) {
					out = append(out, lhs.Pos())
				}
			}
		case *ast.IncDecStmt:
			if reachesConfig(n.X, info) {
				out = append(out, n.X.Pos())
			}
		case *ast.UnaryExpr:
			if n.Op == token.AND && reachesConfig(n.X, info) {
				out = append(out, n.Pos())
			}
		case *ast.CompositeLit:
			if isProbeConfig(info.Types[n].Type) {
				out = append(out, n.Pos())
			}
		}
		return true
	})
	return out
}

// reachesConfig reports whether e is a probe.Config, or is reached through
// one: a field of it, an element of a field, and so on.
func reachesConfig(e ast.Expr, info *types.Info) bool {
	for {
		if tv, ok := info.Types[e]; ok && isProbeConfig(tv.Type) {
			if _, local := e.(*ast.Ident); !local {
				return true
			}
		}
		switch x := e.(type) {
		case *ast.SelectorExpr:
			if sel := info.Selections[x]; sel != nil && sel.Kind() == types.FieldVal && isProbeConfig(sel.Recv()) {
				return true
			}
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.StarExpr:
			e = x.X
		case *ast.ParenExpr:
			e = x.X
		default:
			return false
		}
	}
}

// isProbeConfig reports probe.Config and pointers to it.
func isProbeConfig(t types.Type) bool {
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	n, ok := t.(*types.Named)
	return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == module+"probe" && n.Obj().Name() == "Config"
}

func ownPath(p string) (string, bool) {
	own := own([]string{p})
	if len(own) == 0 {
		return "", false
	}
	return own[0], true
}
