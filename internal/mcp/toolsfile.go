package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/agentready/agentready/internal/finding"
)

// SourceToolsFile is the endpoint source of a catalog read from a file
// rather than listed by a server.
const SourceToolsFile = "--mcp-tools"

// PurposeUnrecorded is the purpose of the evidence of a call that no
// exchange records, as those of a catalog read from a file: lint replaces
// it with what the file holds.
const PurposeUnrecorded = "mcp"

// ToolsFile is a tool catalog read from a file: the snapshot the checks of
// the catalog judge, as if one tools/list page had returned it, and where
// each tool is written in the file.
type ToolsFile struct {
	Snapshot *Snapshot
	// Locations are each tool's place in the file, by its index in the
	// listing (Tool.Index).
	Locations []finding.SourceLocation
	// prefix is the JSON pointer of the tools array in the file.
	prefix string
}

// ReadToolsFile reads a catalog in one of the shapes tools are kept in: a
// tools/list result ({"tools": [...]}), the whole JSON-RPC response to
// tools/list ({"result": {"tools": [...]}}), what `agentready mcp --format
// json` writes ({"toolsList": {"tools": [...]}}), or a bare array of tools.
// file names the file in locations. Entries that are not objects are notes
// of the snapshot, as a server's would be.
func ReadToolsFile(data []byte, file string) (*ToolsFile, error) {
	path, err := toolsPath(data)
	if err != nil {
		return nil, err
	}
	raws, offsets, err := arrayAt(data, path)
	if err != nil {
		return nil, err
	}
	tf := &ToolsFile{}
	for _, key := range path {
		tf.prefix += "/" + key
	}
	var tools []Tool
	var notes []string
	for i, raw := range raws {
		if i >= MaxTools {
			notes = append(notes, fmt.Sprintf("more than %d tools; the rest were not read", MaxTools))
			break
		}
		t, err := decodeTool(raw)
		if err != nil {
			notes = append(notes, fmt.Sprintf("tool %d: %v", i+1, err))
			continue
		}
		t.Index = i
		tools = append(tools, t)
		for len(tf.Locations) < i {
			tf.Locations = append(tf.Locations, finding.SourceLocation{})
		}
		line, col := lineColumn(data, offsets[i])
		tf.Locations = append(tf.Locations, finding.SourceLocation{File: file, Line: line, Column: col})
	}
	result, err := json.Marshal(map[string][]json.RawMessage{"tools": raws})
	if err != nil {
		return nil, err
	}
	call := &Call{Method: "tools/list", Era: EraModern}
	tf.Snapshot = &Snapshot{
		Endpoint: Endpoint{URL: file, Source: SourceToolsFile},
		Verdict:  Verdict{Era: EraModern, Version: Modern, Reason: "the catalog was read from " + file + ", not listed by a server"},
		Listings: []Listing{{Label: "file", Pages: []Page{{Call: call, Raw: result}}, Tools: tools, Complete: true}},
		Catalog:  NewCatalog(tools),
		Notes:    notes,
	}
	return tf, nil
}

// Location is where the tool at a JSON pointer of the listing
// (/result/tools/N/...) is written in the file, or nil.
func (tf *ToolsFile) Location(pointer string) *finding.SourceLocation {
	var i int
	var rest string
	if n, _ := fmt.Sscanf(pointer, "/result/tools/%d%s", &i, &rest); n == 0 || i < 0 || i >= len(tf.Locations) {
		return nil
	}
	loc := tf.Locations[i]
	if loc.Line == 0 {
		return nil
	}
	loc.Pointer = fmt.Sprintf("%s/%d%s", tf.prefix, i, rest)
	return &loc
}

// ToolsList is the tool definitions of the first listing as one tools/list
// result, {"tools": [...]}, which ReadToolsFile reads back; nil when nothing
// was listed.
func (s *Snapshot) ToolsList() json.RawMessage {
	if s == nil || len(s.Listings) == 0 {
		return nil
	}
	raws := []json.RawMessage{}
	for _, t := range s.Listings[0].Tools {
		raws = append(raws, t.Raw)
	}
	out, err := json.Marshal(map[string][]json.RawMessage{"tools": raws})
	if err != nil {
		return nil
	}
	return out
}

// toolsPath is the members that lead to the tools array, by the file's
// shape.
func toolsPath(data []byte) ([]string, error) {
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) > 0 && trimmed[0] == '[' {
		return nil, nil
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, fmt.Errorf("not a JSON object or array: %w", err)
	}
	// The output of agentready mcp has a tools member too, of summaries:
	// the definitions are under toolsList.
	switch {
	case top["toolsList"] != nil:
		return []string{"toolsList", "tools"}, nil
	case top["tools"] != nil && top["catalogFingerprint"] == nil:
		return []string{"tools"}, nil
	case top["result"] != nil:
		return []string{"result", "tools"}, nil
	case top["catalogFingerprint"] != nil || top["era"] != nil:
		return nil, errors.New("an output of agentready mcp without the tool definitions (toolsList); write it again with agentready mcp URL --format json")
	}
	return nil, errors.New(`no tools: want what tools/list returns ({"tools": [...]}), its JSON-RPC response, or the output of agentready mcp URL --format json`)
}

// arrayAt walks data down the members of path to an array, and returns its
// elements with the byte offset of each.
func arrayAt(data []byte, path []string) ([]json.RawMessage, []int, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	for _, key := range path {
		if err := expectDelim(dec, '{', key); err != nil {
			return nil, nil, err
		}
		found := false
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				return nil, nil, err
			}
			if k == key {
				found = true
				break
			}
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return nil, nil, err
			}
		}
		if !found {
			return nil, nil, fmt.Errorf("no %q member", key)
		}
	}
	if err := expectDelim(dec, '[', "tools"); err != nil {
		return nil, nil, err
	}
	var raws []json.RawMessage
	var offsets []int
	for dec.More() {
		start := int(dec.InputOffset())
		for start < len(data) && bytes.IndexByte([]byte(" \t\r\n,"), data[start]) >= 0 {
			start++
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, nil, err
		}
		raws, offsets = append(raws, raw), append(offsets, start)
	}
	return raws, offsets, nil
}

func expectDelim(dec *json.Decoder, want json.Delim, what string) error {
	t, err := dec.Token()
	if err != nil {
		return err
	}
	if d, ok := t.(json.Delim); !ok || d != want {
		kind := "an object"
		if want == '[' {
			kind = "an array"
		}
		return fmt.Errorf("%s is not %s", what, kind)
	}
	return nil
}

// lineColumn is the 1-based line and column (in bytes) of an offset.
func lineColumn(data []byte, offset int) (int, int) {
	before := data[:min(offset, len(data))]
	line := 1 + bytes.Count(before, []byte("\n"))
	return line, offset - bytes.LastIndexByte(before, '\n')
}
