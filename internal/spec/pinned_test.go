package spec_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/agentready/agentready/internal/spec"
)

func schemaOf(t *testing.T, text string) map[string]any {
	t.Helper()
	var s map[string]any
	if err := json.Unmarshal([]byte(text), &s); err != nil {
		t.Fatal(err)
	}
	return s
}

func TestPinnedValues(t *testing.T) {
	tests := []struct{ name, schema, want string }{
		{"const", `{"properties":{"type":{"const":"https://x.test/a"}}}`, `[https://x.test/a]`},
		{"enum", `{"properties":{"type":{"enum":["https://x.test/a","https://x.test/b"]}}}`, `[https://x.test/a https://x.test/b]`},
		{"through allOf", `{"allOf":[{"properties":{"type":{"type":"string"}}},{"properties":{"type":{"const":"https://x.test/a"}}}]}`, `[https://x.test/a]`},
		{"every oneOf member", `{"oneOf":[{"properties":{"type":{"const":"https://x.test/a"}}},{"allOf":[{"properties":{"type":{"enum":["https://x.test/b"]}}}]}]}`,
			`[https://x.test/a https://x.test/b]`},
		{"a oneOf member left open", `{"oneOf":[{"properties":{"type":{"const":"https://x.test/a"}}},{"properties":{"type":{"type":"string"}}}]}`, `[]`},
		{"unpinned", `{"properties":{"type":{"type":"string","format":"uri"}}}`, `[]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := schemaOf(t, tt.schema)
			if got := fmt.Sprint(spec.PinnedValues(s, "type")); got != tt.want {
				t.Errorf("pinned %s, want %s", got, tt.want)
			}
			before, _ := json.Marshal(s)
			un := spec.Unpinned(s, "type")
			if after, _ := json.Marshal(s); string(after) != string(before) {
				t.Errorf("Unpinned changed its argument: %s", after)
			}
			if got := spec.PinnedValues(un, "type"); got != nil {
				t.Errorf("still pinned after Unpinned: %v", got)
			}
		})
	}
	un, _ := json.Marshal(spec.Unpinned(schemaOf(t, `{"allOf":[{"properties":{"type":{"type":"string","const":"https://x.test/a"},"title":{"type":"string"}}}]}`), "type"))
	if want := `{"allOf":[{"properties":{"title":{"type":"string"},"type":{"type":"string"}}}]}`; string(un) != want {
		t.Errorf("Unpinned kept %s, want %s", un, want)
	}
}

func TestIsErrorStatus(t *testing.T) {
	for code, want := range map[string]bool{
		"400": true, "409": true, "503": true, "4XX": true, "5xx": true, "default": true,
		"200": false, "2XX": false, "304": false, "4X1": false, "40": false, "Default": false,
	} {
		if got := spec.IsErrorStatus(code); got != want {
			t.Errorf("IsErrorStatus(%q) = %v, want %v", code, got, want)
		}
	}
}
