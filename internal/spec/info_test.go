package spec

import "testing"

func TestVersionLabel(t *testing.T) {
	for _, tt := range []struct {
		doc  *Document
		want string
	}{
		{&Document{Swagger2: true, Version: "2.0"}, "Swagger 2.0"},
		{&Document{Version: "3.1.0"}, "OpenAPI 3.1.0"},
		{&Document{}, "version unknown"},
	} {
		if got := tt.doc.VersionLabel(); got != tt.want {
			t.Errorf("%q, want %q", got, tt.want)
		}
	}
	var none *Document
	if none.Info("lint") != nil {
		t.Error("a nil document has no info")
	}
}
