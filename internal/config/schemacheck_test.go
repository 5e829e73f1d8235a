package config_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentready/agentready/internal/config"
)

// TestLoadCheckedReportsEveryProblemAtOnce: a file with several mistakes
// of shape, which the decoder would stop at the first of, gets each named
// with its line, in the file's order.
func TestLoadCheckedReportsEveryProblemAtOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), config.FileName)
	doc := "version: 1\nlimits:\n  max-pages: many\n  timeout: 10 seconds\ngate:\n  fail_on: error\nchecks:\n  vary-acept: off\n  vary-accept: fatal\n"
	if err := os.WriteFile(path, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := config.LoadChecked(path, config.Known{Checks: []string{"vary-accept"}, Families: []string{"negotiation"}})
	if err == nil {
		t.Fatal("a file with five mistakes loads")
	}
	want := []string{
		"line 3: limits.max-pages: got string, want integer",
		`line 4: limits.timeout: "10 seconds": want a duration`,
		`line 6: unknown key "fail_on" in gate (did you mean "fail-on"?)`,
		`line 8: checks.vary-acept: unknown check "vary-acept" (did you mean "vary-accept"?)`,
		"line 9: checks.vary-accept: value must be one of",
	}
	at := 0
	for _, w := range want {
		i := strings.Index(err.Error()[at:], w)
		if i < 0 {
			t.Fatalf("the error lacks %q after what came before, in order:\n%v", w, err)
		}
		at += i + len(w)
	}
}

// TestLoadCheckedPassesAGoodFile: the full example loads as Load reads it.
func TestLoadCheckedPassesAGoodFile(t *testing.T) {
	f, err := config.LoadChecked("testdata/full.yaml", config.Known{})
	if err != nil || f.Path != "testdata/full.yaml" {
		t.Fatalf("the full example: %v", err)
	}
}
