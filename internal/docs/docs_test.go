package docs

import (
	"bytes"
	"path/filepath"
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
