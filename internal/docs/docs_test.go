package docs

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/agentready/agentready/checks/builtin"
	"github.com/agentready/agentready/internal/golden"
	"github.com/agentready/agentready/internal/interop/matrix"
)

func TestChecksDocIsCurrent(t *testing.T) {
	reg, err := builtin.Registry()
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "../../docs/checks.md", ChecksMarkdown(reg))
}

func TestEveryCheckHasAnAnchor(t *testing.T) {
	reg, err := builtin.Registry()
	if err != nil {
		t.Fatal(err)
	}
	doc := ChecksMarkdown(reg)
	for _, c := range reg.All() {
		if !bytes.Contains(doc, []byte(`<a id="`+c.Meta().ID+`"></a>`)) {
			t.Errorf("no anchor for %s", c.Meta().ID)
		}
	}
}

var (
	// fence is a fenced block, whose backquotes would pair the spans
	// after it wrongly.
	fence    = regexp.MustCompile("(?ms)^```.*?^```$")
	codeSpan = regexp.MustCompile("`([^`]+)`")
	// repoPath is a span that reads as a path: no space, no placeholder.
	repoPath     = regexp.MustCompile(`^\.?[A-Za-z0-9_-]+(/[A-Za-z0-9_.-]+)*/?$`)
	testName     = regexp.MustCompile(`\b(?:Test|Example_)[A-Za-z0-9_]+\b`)
	testDeclared = regexp.MustCompile(`(?m)^func ((?:Test|Example_)[A-Za-z0-9_]+)\(`)
)

// TestContributingNamesWhatExists: the files and folders CONTRIBUTING.md's
// recipes name, and the tests that hold each recipe to the code, exist, so
// that a recipe cannot outlive what it describes.
func TestContributingNamesWhatExists(t *testing.T) {
	root := golden.Root()
	doc, err := os.ReadFile(filepath.Join(root, "CONTRIBUTING.md"))
	if err != nil {
		t.Fatal(err)
	}
	prose := fence.ReplaceAllString(string(doc), "")
	for _, m := range codeSpan.FindAllStringSubmatch(prose, -1) {
		span := m[1]
		top, _, nested := strings.Cut(span, "/")
		if !nested || !repoPath.MatchString(span) {
			continue
		}
		// A media type (text/markdown) is not a path: only what starts
		// at a folder of the repository is one.
		if info, err := os.Stat(filepath.Join(root, top)); err != nil || !info.IsDir() {
			continue
		}
		if _, err := os.Stat(filepath.Join(root, span)); err != nil {
			t.Errorf("CONTRIBUTING.md names %s, which does not exist", span)
		}
	}
	declared := map[string]bool{}
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && (d.Name() == ".git" || d.Name() == "testdata"):
			return filepath.SkipDir
		case d.IsDir() || !strings.HasSuffix(path, "_test.go"):
			return nil
		}
		src, err := os.ReadFile(path)
		for _, m := range testDeclared.FindAllStringSubmatch(string(src), -1) {
			declared[m[1]] = true
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range testName.FindAllString(string(doc), -1) {
		if !declared[name] {
			t.Errorf("CONTRIBUTING.md names %s, which no test declares", name)
			declared[name] = true // once is enough
		}
	}
}

// TestFrameworksDocIsCurrent holds docs/frameworks.md to what the interop
// matrix's committed files (the oracle's records, the scan's results, the
// hand verdicts and the fixes) make of it.
func TestFrameworksDocIsCurrent(t *testing.T) {
	files, err := matrix.Load(filepath.Join(golden.Root(), "internal", "interop", "matrix"))
	if err != nil {
		t.Fatal(err)
	}
	page, err := files.Page()
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join(golden.Root(), matrix.PagePath), page)
}
