package hypermedia

import (
	"strings"
	"testing"

	"github.com/agentready/agentready/internal/halview"
	"github.com/agentready/agentready/internal/jsonorder"
)

func decode(t *testing.T, s string) *jsonorder.Value {
	t.Helper()
	d, err := jsonorder.Decode([]byte(s), halview.Limits)
	if err != nil {
		t.Fatal(err)
	}
	return d.Root
}

func TestStateOf(t *testing.T) {
	for body, want := range map[string]string{
		`{"state":"paid","status":"x"}`: "state=paid",
		`{"status":"shipped"}`:          "status=shipped",
		`{"status":404}`:                "=",
		`{"state":""}`:                  "=",
		`[]`:                            "=",
	} {
		m, s := StateOf(decode(t, body))
		if got := m + "=" + s; got != want {
			t.Errorf("StateOf(%s) = %s, want %s", body, got, want)
		}
	}
}

func TestRenderKeepsOrderAndBounds(t *testing.T) {
	v := decode(t, `{"z":[1,"a\"b",null,true],"a":{}}`)
	if got := Render(v, 100); got != `{"z":[1,"a\"b",null,true],"a":{}}` {
		t.Errorf("Render = %s", got)
	}
	long := decode(t, `["`+strings.Repeat("é", 500)+`"]`)
	got := Render(long, 50)
	if len(got) > 50+len("…") || !strings.HasSuffix(got, "…") || !strings.HasPrefix(got, `["`) {
		t.Errorf("Render did not cut cleanly: %q", got)
	}
}
