// Package spectest generates OpenAPI descriptions of a chosen size and shape
// for tests and benchmarks of loading and linting (large ones without a
// file in the repository, and the hostile shapes generated documents take),
// and holds what those benchmarks share: their documents and the floor
// they are measured against.
package spectest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// DuplicateOperationIDs is a JSON description of n GET operations, one per
// path, that all use the operationId "dup", indented as generators write
// them (about 180 bytes an operation).
func DuplicateOperationIDs(n int) []byte {
	var b strings.Builder
	b.WriteString("{\n  \"openapi\": \"3.1.0\",\n  \"info\": {\"title\": \"duplicates\", \"version\": \"1\"},\n  \"paths\": {")
	for i := range n {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, "\n    \"/r%d\": {\n      \"get\": {\n        \"operationId\": \"dup\",\n        \"summary\": \"Get resource %d\",\n"+
			"        \"responses\": {\"200\": {\"description\": \"ok\"}}\n      }\n    }", i, i)
	}
	b.WriteString("\n  }\n}\n")
	return []byte(b.String())
}

// schemas is the number of component schemas of Synthetic: enough that
// responses do not all share one, few enough to stay a small part of it.
const schemas = 200

// Synthetic is a JSON description of at least size bytes and one path, grown one path at
// a time. Each path has a path parameter, a GET with a query parameter,
// x-hal-rel and responses by $ref and inline, and a POST with an inline
// request body; component schemas reference each other in a cycle. It is
// denser in nodes than most hand-written descriptions, which makes it the
// hard case for memory.
func Synthetic(size int) []byte {
	var b strings.Builder
	b.Grow(size + 4096)
	b.WriteString(`{"openapi":"3.1.0","info":{"title":"synthetic","version":"1"},"servers":[{"url":"/"}],"components":{"schemas":{`)
	for i := range schemas {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `"Thing%d":{"type":"object","required":["id"],"properties":{"id":{"type":"integer"},`, i)
		for j := range 10 {
			fmt.Fprintf(&b, `"f%d":{"type":"string","description":"field %d of thing %d"},`, j, j, i)
		}
		fmt.Fprintf(&b, `"next":{"$ref":"#/components/schemas/Thing%d"}}}`, (i+1)%schemas)
	}
	b.WriteString(`}},"paths":{`)
	for i := 0; i == 0 || b.Len() < size; i++ {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `"/r%d/{id}":{"parameters":[{"name":"id","in":"path","required":true,"schema":{"type":"string"}}],`+
			`"get":{"operationId":"get%d","summary":"get item %d","x-hal-rel":["item%d"],`+
			`"parameters":[{"name":"q","in":"query","schema":{"type":"string"}}],`+
			`"responses":{"200":{"description":"ok","content":{"application/hal+json":{"schema":{"$ref":"#/components/schemas/Thing%d"}}}},`+
			`"404":{"description":"not found","content":{"application/problem+json":{"schema":{"type":"object","properties":{"title":{"type":"string"}}}}}}}},`+
			`"post":{"operationId":"post%d","requestBody":{"required":true,"content":{"application/json":{"schema":`+
			`{"type":"object","properties":{"name":{"type":"string"},"n":{"type":"integer","minimum":0}}}}}},`+
			`"responses":{"201":{"description":"created"}}}}`, i, i, i, i, i%schemas, i)
	}
	b.WriteString("}}\n")
	return []byte(b.String())
}

// BenchDocuments name the descriptions the load and lint benchmarks
// measure; BenchPath gives the file of each.
var BenchDocuments = []string{"file", "synthetic-30MB", "duplicates-50k"}

// BenchPath returns the file of a benchmark document. "file" is the one
// AGENTREADY_BENCH_SPEC names (.ci/bench/lint.sh sets it to GitHub's
// api.github.com description), and the benchmark is skipped when it is
// unset; the others are generated into a temporary directory, so that what
// a benchmark holds is what it reads, not the generator's output.
func BenchPath(b *testing.B, name string) string {
	var data []byte
	switch name {
	case "file":
		path := os.Getenv("AGENTREADY_BENCH_SPEC")
		if path == "" {
			b.Skip("set AGENTREADY_BENCH_SPEC to a description file (.ci/bench/lint.sh does)")
		}
		return path
	case "synthetic-30MB":
		data = Synthetic(30_000_000)
	case "duplicates-50k":
		data = DuplicateOperationIDs(50_000)
	default:
		b.Fatalf("no benchmark document %q", name)
	}
	path := filepath.Join(b.TempDir(), name+".json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		b.Fatal(err)
	}
	return path
}

// Floor is the yardstick of the benchmarks: build, which is
// spec.BuildLibraryModel (libopenapi's parse and model build, and nothing
// else), run on the file. It takes build as a function so that this package
// does not compile the library's model again.
func Floor(b *testing.B, path string, build func([]byte) error) {
	for b.Loop() {
		data, err := os.ReadFile(path)
		if err != nil {
			b.Fatal(err)
		}
		if err := build(data); err != nil {
			b.Fatal(err)
		}
	}
}
