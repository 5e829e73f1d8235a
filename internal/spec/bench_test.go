package spec_test

import (
	"os"
	"testing"

	"github.com/agentready/agentready/internal/spec"
	"github.com/agentready/agentready/internal/spec/spectest"
)

// BenchmarkLoad measures, per document and in the same run, the floor
// (libopenapi's parse and model build with the configuration Load gives it)
// and Load itself. .ci/bench/lint.sh runs BenchmarkLoad/file/floor alone to
// measure the floor's peak memory: this test binary holds nothing else.
func BenchmarkLoad(b *testing.B) {
	for _, name := range spectest.BenchDocuments {
		b.Run(name, func(b *testing.B) {
			path := spectest.BenchPath(b, name)
			b.Run("floor", func(b *testing.B) { spectest.Floor(b, path, spec.BuildLibraryModel) })
			b.Run("load", func(b *testing.B) {
				for b.Loop() {
					data, err := os.ReadFile(path)
					if err != nil {
						b.Fatal(err)
					}
					if d, err := spec.Load(data, path, path); err != nil || len(d.Operations) == 0 {
						b.Fatalf("%v, %+v", err, d)
					}
				}
			})
		})
	}
}
