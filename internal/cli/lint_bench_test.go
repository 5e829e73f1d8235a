package cli

import (
	"context"
	"io"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/agentready/agentready/internal/spec"
	"github.com/agentready/agentready/internal/spec/spectest"
)

// BenchmarkLint runs `agentready lint` (read, load, the static checks, a
// JSON report) next to its floor, libopenapi's parse and model build of the
// same file, in the same run: lint/floor is the ratio the documentation
// quotes. Set AGENTREADY_BENCH_SPEC to add a description file of your own.
func BenchmarkLint(b *testing.B) {
	for _, name := range spectest.BenchDocuments {
		b.Run(name, func(b *testing.B) {
			path := spectest.BenchPath(b, name)
			st, err := os.Stat(path)
			if err != nil {
				b.Fatal(err)
			}
			args := []string{"lint", "--format", "json", "--fail-on", "none", "--max-spec-size", strconv.FormatInt(st.Size(), 10), path}
			b.Run("floor", func(b *testing.B) { spectest.Floor(b, path, spec.BuildLibraryModel) })
			b.Run("lint", func(b *testing.B) {
				for b.Loop() {
					if code := Run(context.Background(), args, strings.NewReader(""), io.Discard, io.Discard, []string{"NO_COLOR="}); code != ExitOK {
						b.Fatalf("lint exited %d", code)
					}
				}
			})
		})
	}
}
