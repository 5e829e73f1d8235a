package docs

import (
	"bytes"
	"flag"
	"os"
	"testing"

	"github.com/agentready/agentready/checks/builtin"
)

var update = flag.Bool("update", false, "rewrite docs/checks.md")

func TestChecksDocIsCurrent(t *testing.T) {
	reg, err := builtin.Registry()
	if err != nil {
		t.Fatal(err)
	}
	want := ChecksMarkdown(reg)
	const path = "../../docs/checks.md"
	if *update {
		if err := os.WriteFile(path, want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("docs/checks.md is stale; run: go generate ./internal/docs")
	}
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
