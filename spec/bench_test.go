package spec

import (
	"os"
	"testing"

	"github.com/pb33f/libopenapi"
)

// benchSpec reads the description named by AGENTREADY_BENCH_SPEC (bench/lint.sh
// sets it to GitHub's api.github.com description).
func benchSpec(b *testing.B) []byte {
	path := os.Getenv("AGENTREADY_BENCH_SPEC")
	if path == "" {
		b.Skip("set AGENTREADY_BENCH_SPEC to a description file (bench/lint.sh does)")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	return data
}

// BenchmarkParseGitHub is the floor: the library's parse and model build of
// the same file with the same configuration, and nothing of ours.
func BenchmarkParseGitHub(b *testing.B) {
	data := benchSpec(b)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		doc, err := libopenapi.NewDocumentWithConfiguration(data, loadConfig())
		if err != nil {
			b.Fatal(err)
		}
		if m, _ := doc.BuildV3Model(); m == nil {
			b.Fatal("no model")
		}
		doc.Release()
	}
}

// BenchmarkLoadGitHub is Load: the floor plus what we extract.
func BenchmarkLoadGitHub(b *testing.B) {
	data := benchSpec(b)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := Load(data, "github.json", "github.json"); err != nil {
			b.Fatal(err)
		}
	}
}
