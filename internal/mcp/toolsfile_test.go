package mcp_test

import (
	"strings"
	"testing"

	"github.com/agentready/agentready/internal/mcp"
)

func TestReadToolsFileTakesEveryShapeAndLocatesEachTool(t *testing.T) {
	const tools = `[
  {"name": "getOrder", "description": "Get an order.", "inputSchema": {"type": "object"}},
    {"name": "listOrders", "inputSchema": {"type": "object"}}
]`
	tests := []struct {
		name, file, prefix string
		line, column       int
	}{
		{"tools/list result", "{\n\"tools\": " + tools + "}", "/tools", 4, 5},
		{"JSON-RPC response", `{"jsonrpc": "2.0", "id": 1, "result": {"ttlMs": 0, "tools": ` + tools + "}}", "/result/tools", 3, 5},
		{"agentready mcp --format json", `{"endpoint": "x", "tools": [{"name": "summary"}], "catalogFingerprint": "sha256:1", "toolsList": {"tools": ` + tools + "}}", "/toolsList/tools", 3, 5},
		{"bare array", tools, "", 3, 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tf, err := mcp.ReadToolsFile([]byte(tt.file), "tools.json")
			if err != nil {
				t.Fatal(err)
			}
			l := tf.Snapshot.Listings[0]
			if len(l.Tools) != 2 || l.Tools[1].Name != "listOrders" || l.Tools[1].Index != 1 || !l.Complete {
				t.Fatalf("tools %+v", l.Tools)
			}
			if !tf.Snapshot.Assessed() || tf.Snapshot.Endpoint.Source != mcp.SourceToolsFile {
				t.Errorf("snapshot %+v is not one the checks judge", tf.Snapshot.Verdict)
			}
			loc := tf.Location("/result/tools/1/inputSchema")
			if loc == nil || loc.File != "tools.json" || loc.Line != tt.line || loc.Column != tt.column || loc.Pointer != tt.prefix+"/1/inputSchema" {
				t.Errorf("location %+v, want tools.json:%d:%d at %s/1/inputSchema", loc, tt.line, tt.column, tt.prefix)
			}
			if tf.Location("/result/tools/2") != nil || tf.Location("/status") != nil {
				t.Error("a pointer to no tool has a location")
			}
		})
	}
}

func TestReadToolsFileRefusesWhatHoldsNoCatalog(t *testing.T) {
	for name, file := range map[string]string{
		"not JSON":              `openapi: 3.1.0`,
		"an OpenAPI document":   `{"openapi": "3.1.0", "paths": {}}`,
		"tools not an array":    `{"tools": {"name": "x"}}`,
		"mcp without toolsList": `{"endpoint": "x", "era": "modern", "tools": [{"name": "x"}], "catalogFingerprint": "sha256:1"}`,
	} {
		if _, err := mcp.ReadToolsFile([]byte(file), "f.json"); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	_, err := mcp.ReadToolsFile([]byte(`{"endpoint": "x", "era": "modern", "catalogFingerprint": "sha256:1"}`), "f.json")
	if err == nil || !strings.Contains(err.Error(), "agentready mcp URL --format json") {
		t.Errorf("an output of agentready mcp without definitions: %v", err)
	}
}

func TestReadToolsFileKeepsWhatItCannotDecodeAsNotes(t *testing.T) {
	tf, err := mcp.ReadToolsFile([]byte(`{"tools": [1, {"name": "ok"}]}`), "f.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(tf.Snapshot.Listings[0].Tools) != 1 || len(tf.Snapshot.Notes) != 1 {
		t.Errorf("tools %+v, notes %v", tf.Snapshot.Listings[0].Tools, tf.Snapshot.Notes)
	}
	if loc := tf.Location("/result/tools/1/name"); loc == nil || loc.Line != 1 {
		t.Errorf("the second tool keeps its own location: %+v", loc)
	}
	if tf.Location("/result/tools/0") != nil {
		t.Error("an entry that is no tool has a location")
	}
}
