package report

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// viewHelpers are the concepts report/internal/view owns, lower-cased: a
// format that declares its own copy renders the same thing in its own words
// and drifts from the others.
var viewHelpers = map[string]bool{
	"plural":         true,
	"nonempty":       true,
	"nonemptyname":   true,
	"groupfindings":  true,
	"occurrenceless": true,
	"gradedon":       true,
}

// TestFormatsShareTheViewHelpers: the grouping of findings and its order,
// plural and nonEmpty are declared once, in view, and every format calls
// that one.
func TestFormatsShareTheViewHelpers(t *testing.T) {
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		if filepath.Dir(path) == filepath.Join("internal", "view") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, name := range declaredNames(f) {
			if viewHelpers[strings.ToLower(name)] {
				t.Errorf("%s declares %s; use the one in report/internal/view", path, name)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// declaredNames lists a file's top-level functions, types and variables.
func declaredNames(f *ast.File) []string {
	var names []string
	for _, decl := range f.Decls {
		switch d := decl.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil {
				names = append(names, d.Name.Name)
			}
		case *ast.GenDecl:
			for _, spec := range d.Specs {
				switch s := spec.(type) {
				case *ast.TypeSpec:
					names = append(names, s.Name.Name)
				case *ast.ValueSpec:
					for _, n := range s.Names {
						names = append(names, n.Name)
					}
				}
			}
		}
	}
	return names
}
