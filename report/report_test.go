package report

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/agentready/agentready/internal/finding"
)

func TestFormatsSorted(t *testing.T) {
	got := Formats()
	if !slices.IsSorted(got) {
		t.Errorf("Formats() = %v, not sorted", got)
	}
	for _, want := range []string{"json", "text"} {
		if !slices.Contains(got, want) {
			t.Errorf("Formats() = %v, missing %q", got, want)
		}
	}
}

func TestNewUnknownFormatNamesTheValidOnes(t *testing.T) {
	_, err := New("yaml", Options{})
	if err == nil {
		t.Fatal("New(yaml) succeeded")
	}
	for _, f := range Formats() {
		if !strings.Contains(err.Error(), f) {
			t.Errorf("error %q does not name %q", err, f)
		}
	}
}

func TestEveryFormatRenders(t *testing.T) {
	r := &finding.Report{
		SchemaVersion: finding.SchemaVersion,
		Tool:          finding.ToolInfo{Name: "agentready", Version: "test"},
		Target:        "http://127.0.0.1/",
		Score:         finding.Score{PolicyVersion: "1", Grade: "N/A"},
	}
	for _, f := range Formats() {
		rep, err := New(f, Options{})
		if err != nil {
			t.Fatalf("New(%q): %v", f, err)
		}
		var buf bytes.Buffer
		if err := rep.Write(&buf, r); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if !strings.Contains(buf.String(), "127.0.0.1") {
			t.Errorf("%s output does not mention the target:\n%s", f, buf.String())
		}
	}
}

// A shard's report must never pass for the whole scan's, in any format.
func TestEveryFormatNamesTheShard(t *testing.T) {
	r := &finding.Report{
		SchemaVersion: finding.SchemaVersion,
		Tool:          finding.ToolInfo{Name: "agentready", Version: "test"},
		Target:        "http://127.0.0.1/",
		Score:         finding.Score{PolicyVersion: "2", Grade: "A", Value: 100},
		Shard:         &finding.Shard{Index: 2, Total: 3},
	}
	for _, f := range Formats() {
		rep, err := New(f, Options{})
		if err != nil {
			t.Fatalf("New(%q): %v", f, err)
		}
		var buf bytes.Buffer
		if err := rep.Write(&buf, r); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		want := "shard 2/3 (partial)"
		if f == "json" {
			want = `"shard": {`
		}
		if !strings.Contains(buf.String(), want) {
			t.Errorf("%s output does not name shard 2/3 (%q):\n%s", f, want, buf.String())
		}
	}
}
