package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/agentready/agentready/internal/golden"
)

var readmePath = filepath.Join(golden.Root(), "README.md")

// excerptBlock is the README's terminal excerpt: the command it was taken
// from, then the fenced block that follows.
var excerptBlock = regexp.MustCompile("(?s)An excerpt from `agentready ([^`]+)`:\n\n```\n(.*?)```\n")

// elision is the line by which the README skips part of the output.
const elision = "  …"

// readmePort stands in the README for the demo's port, which changes on
// every run; it has as many digits as the ports the system hands out, so
// that lines wrap where they did.
const readmePort = "127.0.0.1:36835"

// TestREADMEExcerptIsRealOutput runs the command the README names and holds
// the README's excerpt to its output: each stretch between elisions must be
// lines of the output, in order. .ci/regenerate rewrites the excerpt from
// the run.
func TestREADMEExcerptIsRealOutput(t *testing.T) {
	readme, err := os.ReadFile(readmePath)
	if err != nil {
		t.Fatal(err)
	}
	m := excerptBlock.FindSubmatchIndex(readme)
	if m == nil {
		t.Fatal("README.md has no block after \"An excerpt from `agentready …`:\"")
	}
	command, block := string(readme[m[2]:m[3]]), string(readme[m[4]:m[5]])
	r := runCLI(t, strings.Fields(command)...)
	if r.code != 0 && r.code != 1 {
		t.Fatalf("agentready %s: exit %d\n%s", command, r.code, r.stderr)
	}
	out := normalize(r.stdout)
	if golden.Updating() {
		excerpt, err := readmeExcerpt(out)
		if err != nil {
			t.Fatal(err)
		}
		updated := string(readme[:m[4]]) + strings.ReplaceAll(excerpt, "127.0.0.1:PORT", readmePort) + string(readme[m[5]:])
		if err := os.WriteFile(readmePath, []byte(updated), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if err := isExcerpt(normalize(block), out); err != nil {
		golden.Stale(t, readmePath, fmt.Sprintf("its excerpt of `agentready %s` %v", command, err))
	}
}

// readmeExcerpt picks what the README shows of a demo run: the first
// screen (the grade, the gate and the checks that found something), the
// first four families, and the first finding up to its first curl line.
func readmeExcerpt(out string) (string, error) {
	lines := strings.Split(out, "\n")
	grade := indexOf(lines, 0, func(l string) bool { return strings.HasPrefix(l, "  Grade ") })
	families := indexOf(lines, grade, func(l string) bool { return strings.HasPrefix(l, "  Family ") })
	findings := indexOf(lines, families, func(l string) bool { return l == "Findings by check" })
	curl := indexOf(lines, findings, func(l string) bool { return strings.HasPrefix(l, "    $ curl ") })
	if grade < 0 || families < 0 || findings < 0 || curl < 0 || families+5 > findings {
		return "", fmt.Errorf("the demo's output lacks a grade, a family table, a finding or a curl line:\n%s", out)
	}
	excerpt := append(append(lines[grade:families+5:families+5], elision), lines[findings+1:curl+1]...)
	return strings.Join(excerpt, "\n") + "\n", nil
}

func indexOf(lines []string, from int, match func(string) bool) int {
	if from < 0 {
		return -1
	}
	for i := from; i < len(lines); i++ {
		if match(lines[i]) {
			return i
		}
	}
	return -1
}

// isExcerpt says why excerpt is not out with parts elided: each stretch
// between elision lines must be consecutive lines of out, after the
// previous stretch.
func isExcerpt(excerpt, out string) error {
	lines := strings.Split(out, "\n")
	at := 0
	for _, want := range stretches(excerpt) {
		found := -1
		for i := at; i+len(want) <= len(lines); i++ {
			if slices.Equal(lines[i:i+len(want)], want) {
				found = i
				break
			}
		}
		if found < 0 {
			return fmt.Errorf("has lines the output does not have at that place:\n%s", strings.Join(want, "\n"))
		}
		at = found + len(want)
	}
	return nil
}

// stretches splits an excerpt at its elisions, lines of "…" alone.
func stretches(excerpt string) [][]string {
	var all [][]string
	var cur []string
	for _, l := range strings.Split(strings.TrimSuffix(excerpt, "\n"), "\n") {
		if strings.TrimSpace(l) != "…" {
			cur = append(cur, l)
			continue
		}
		if len(cur) > 0 {
			all = append(all, cur)
		}
		cur = nil
	}
	if len(cur) > 0 {
		all = append(all, cur)
	}
	return all
}

func TestIsExcerpt(t *testing.T) {
	out := "a\nb\nc\nd\ne\n"
	for excerpt, ok := range map[string]bool{
		"a\nb\n":                          true,
		"b\nc\n" + elision + "\ne\n":      true,
		"a\n" + elision + "\nc\nd\n":      true,
		"…\nc\n…\n":                       true,
		"a\nc\n":                          false, // a skipped line needs an elision
		"c\n" + elision + "\nb\n":         false, // out of order
		"b\n" + elision + "\nb\n":         false, // a line used twice
		"a\nb\n" + elision + "\nx\n":      false,
		"  Grade A\n" + elision + "\na\n": false,
	} {
		if err := isExcerpt(excerpt, out); (err == nil) != ok {
			t.Errorf("isExcerpt(%q) = %v, want ok %v", excerpt, err, ok)
		}
	}
}
