package spectest

import (
	"encoding/json"
	"testing"
)

func TestGeneratedDocumentsAreJSON(t *testing.T) {
	for name, data := range map[string][]byte{"duplicates": DuplicateOperationIDs(3), "synthetic": Synthetic(64 << 10)} {
		var doc struct {
			Paths map[string]any `json:"paths"`
		}
		if err := json.Unmarshal(data, &doc); err != nil || len(doc.Paths) == 0 {
			t.Errorf("%s: %v, %d paths", name, err, len(doc.Paths))
		}
	}
	if got := len(Synthetic(1 << 20)); got < 1<<20 || got > 1<<20+4096 {
		t.Errorf("Synthetic(1 MiB) is %d bytes", got)
	}
}
