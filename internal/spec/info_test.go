package spec_test

import (
	"testing"

	"github.com/agentready/agentready/internal/spec"
)

func TestVersionLabel(t *testing.T) {
	for _, tt := range []struct {
		doc  *spec.Document
		want string
	}{
		{&spec.Document{Swagger2: true, Version: "2.0"}, "Swagger 2.0"},
		{&spec.Document{Version: "3.1.0"}, "OpenAPI 3.1.0"},
		{&spec.Document{}, "version unknown"},
	} {
		if got := tt.doc.VersionLabel(); got != tt.want {
			t.Errorf("%q, want %q", got, tt.want)
		}
	}
	var none *spec.Document
	if none.Info("lint") != nil {
		t.Error("a nil document has no info")
	}
}
