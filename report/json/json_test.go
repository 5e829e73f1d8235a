package jsonreport

import (
	"bytes"
	"encoding/json"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/golden"
	"github.com/agentready/agentready/report/internal/sample"
)

func write(t *testing.T, r *finding.Report) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := New().Write(&buf, r); err != nil {
		t.Fatalf("Write: %v", err)
	}
	return buf.Bytes()
}

func TestGolden(t *testing.T) {
	golden.Check(t, golden.Path("sample", "report.json"), write(t, sample.Report()))
}

func TestFormat(t *testing.T) {
	out := write(t, sample.Report())
	if !bytes.HasSuffix(out, []byte("}\n")) || bytes.HasSuffix(out, []byte("\n\n")) {
		t.Error("output does not end in exactly one newline")
	}
	if !bytes.Contains(out, []byte("\n  \"schemaVersion\": 1,\n")) {
		t.Error("output is not indented with two spaces")
	}
	if bytes.Contains(out, []byte(`\u003c`)) {
		t.Error("HTML characters are escaped, making URLs and excerpts unreadable")
	}
	if !bytes.Equal(out, write(t, sample.Report())) {
		t.Error("two writes of the same report differ")
	}
}

func TestRoundTrip(t *testing.T) {
	want := sample.Report()
	got, err := Read(bytes.NewReader(write(t, want)))
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("round trip changed the report:\n%+v\nwant\n%+v", got, want)
	}
}

func TestReadAcceptsUnknownFields(t *testing.T) {
	in := `{"schemaVersion": 1, "target": "https://x.example/", "addedLater": {"a": 1}}`
	r, err := Read(strings.NewReader(in))
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	if r.Target != "https://x.example/" {
		t.Errorf("target = %q", r.Target)
	}
}

func TestReadRejects(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"not JSON", `<html>`, "not a JSON report"},
		{"no version", `{"target": "x"}`, "no schemaVersion"},
		{"newer version", `{"schemaVersion": 2}`, "newer"},
		{"version zero", `{"schemaVersion": 0}`, "unsupported schemaVersion 0"},
		{"wrong type", `{"schemaVersion": 1, "findings": {}}`, "read report"},
		{"trailing data", `{"schemaVersion": 1} {"schemaVersion": 1}`, "after top-level value"},
		{"array", `[]`, "not a JSON report"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Read(strings.NewReader(tt.in))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Read(%q) error = %v, want one mentioning %q", tt.in, err, tt.want)
			}
		})
	}
}

func TestWriteNil(t *testing.T) {
	if err := New().Write(&bytes.Buffer{}, nil); err == nil {
		t.Error("writing a nil report succeeded")
	}
}

func TestInvalidUTF8BecomesValidJSON(t *testing.T) {
	r := sample.Report()
	r.Findings[0].Message = "bad \xff\xfe bytes \x1b[2J"
	out := write(t, r)
	if !json.Valid(out) {
		t.Fatal("output is not valid JSON")
	}
	if _, err := Read(bytes.NewReader(out)); err != nil {
		t.Fatalf("Read: %v", err)
	}
}

func TestEmptyListsAreArraysNotNull(t *testing.T) {
	var buf bytes.Buffer
	if err := New().Write(&buf, &finding.Report{}); err != nil {
		t.Fatal(err)
	}
	for _, field := range []string{`"findings": []`, `"rules": []`, `"checks": []`} {
		if !strings.Contains(buf.String(), field) {
			t.Errorf("report without findings lacks %s:\n%s", field, buf.String())
		}
	}
}

func TestReadBoundsSizeAndNesting(t *testing.T) {
	small := `{"schemaVersion": 1, "target": "https://x.example/"}`
	if _, err := read(strings.NewReader(small), int64(len(small))); err != nil {
		t.Fatalf("a report of exactly the bound: %v", err)
	}
	// An endless reader: the bound, not the reader, ends the read.
	endless := io.MultiReader(strings.NewReader(`{"schemaVersion": 1, "notes": ["`), neverEnding('a'))
	if _, err := read(endless, 1<<20); err == nil || !strings.Contains(err.Error(), "larger than 1048576 bytes") {
		t.Errorf("endless report: %v", err)
	}
	deep := func(n int) string {
		return `{"schemaVersion": 1, "notes": ` + strings.Repeat("[", n-1) + strings.Repeat("]", n-1) + `}`
	}
	if _, err := Read(strings.NewReader(deep(MaxDepth))); err == nil || strings.Contains(err.Error(), "nested") {
		// 64 levels pass the bound; the notes are then of the wrong type.
		t.Errorf("%d levels: %v; want the decoder's type error", MaxDepth, err)
	}
	if _, err := Read(strings.NewReader(deep(MaxDepth + 1))); err == nil || !strings.Contains(err.Error(), "nested deeper than 64") {
		t.Errorf("%d levels: %v", MaxDepth+1, err)
	}
	// Brackets inside strings, escaped quotes included, are not nesting.
	inString := `{"schemaVersion": 1, "notes": ["\"` + strings.Repeat("[{", 200) + `"]}`
	if r, err := Read(strings.NewReader(inString)); err != nil || len(r.Notes) != 1 {
		t.Errorf("brackets in a string: %v", err)
	}
}

type neverEnding byte

func (b neverEnding) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(b)
	}
	return len(p), nil
}
