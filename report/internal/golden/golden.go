// Package golden compares rendered reports with files under testdata, for
// the reporters' tests. Run the tests with -update to rewrite the files, then
// review the diff.
package golden

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// Updating reports whether -update was given.
func Updating() bool { return *update }

// Check compares got with the file at path, or writes it under -update.
func Check(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("output differs from %s; if the change is intended, run go test with -update and review the diff\n%s",
			path, firstDiff(got, want))
	}
}

// firstDiff shows the first differing line, which is usually enough to see
// what changed without printing a whole page.
func firstDiff(got, want []byte) string {
	g, w := bytes.Split(got, []byte("\n")), bytes.Split(want, []byte("\n"))
	for i := 0; i < len(g) || i < len(w); i++ {
		var gl, wl []byte
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if !bytes.Equal(gl, wl) {
			return "line " + strconv.Itoa(i+1) + ":\n  got:  " + clip(gl) + "\n  want: " + clip(wl)
		}
	}
	return ""
}

func clip(b []byte) string {
	if len(b) > 300 {
		return string(b[:300]) + "…"
	}
	return string(b)
}

var port = regexp.MustCompile(`127\.0\.0\.1:\d+`)

// NormalizePorts replaces the port of httptest servers, which changes on
// every run.
func NormalizePorts(b []byte) []byte { return port.ReplaceAll(b, []byte("127.0.0.1:PORT")) }
