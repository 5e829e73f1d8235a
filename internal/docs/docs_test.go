package docs

import (
	"bytes"
	"testing"

	"github.com/agentready/agentready/checks/builtin"
	"github.com/agentready/agentready/internal/golden"
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
