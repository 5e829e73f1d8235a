package mcp_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentready/agentready/internal/mcp"
)

func decode(t *testing.T, tools ...string) []mcp.Tool {
	t.Helper()
	ts, problems := mcp.DecodeTools(json.RawMessage(`{"tools":[`+strings.Join(tools, ",")+`]}`), 0, 0)
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	return ts
}

func TestFingerprint(t *testing.T) {
	base := decode(t, `{"name":"a","description":"d","inputSchema":{"type":"object","properties":{"x":{"type":"integer"}}},"annotations":{"readOnlyHint":true}}`)[0]
	reordered := decode(t, `{"annotations":{"readOnlyHint":true},"inputSchema":{"properties":{"x":{"type":"integer"}},"type":"object"},"description":"d","name":"a","title":"ignored"}`)[0]
	if base.Fingerprint() != reordered.Fingerprint() {
		t.Error("key order or title changed the fingerprint")
	}
	for _, changed := range []string{
		`{"name":"b","description":"d","inputSchema":{"type":"object","properties":{"x":{"type":"integer"}}},"annotations":{"readOnlyHint":true}}`,
		`{"name":"a","description":"e","inputSchema":{"type":"object","properties":{"x":{"type":"integer"}}},"annotations":{"readOnlyHint":true}}`,
		`{"name":"a","description":"d","inputSchema":{"type":"object","properties":{"x":{"type":"number"}}},"annotations":{"readOnlyHint":true}}`,
		`{"name":"a","description":"d","inputSchema":{"type":"object","properties":{"x":{"type":"integer"}}},"annotations":{"readOnlyHint":false}}`,
		`{"name":"a","description":"d","inputSchema":{"type":"object","properties":{"x":{"type":"integer"}}}}`,
	} {
		if decode(t, changed)[0].Fingerprint() == base.Fingerprint() {
			t.Errorf("fingerprint unchanged for %s", changed)
		}
	}
	a, b := decode(t, `{"name":"a"}`, `{"name":"b"}`), decode(t, `{"name":"b"}`, `{"name":"a"}`)
	if mcp.CatalogFingerprint(a) != mcp.CatalogFingerprint(b) || mcp.CatalogFingerprint(a) == mcp.CatalogFingerprint(a[:1]) {
		t.Error("the catalog fingerprint depends on order, or not on the set")
	}
}

func TestAnnotationsKeepAbsence(t *testing.T) {
	ts := decode(t, `{"name":"none"}`, `{"name":"ro","annotations":{"readOnlyHint":true}}`, `{"name":"safe","annotations":{"destructiveHint":false,"openWorldHint":false,"idempotentHint":true}}`)
	none, ro, safe := ts[0], ts[1], ts[2]
	if none.ReadOnly() || !none.Destructive() || none.Idempotent() || !none.OpenWorld() {
		t.Error("defaults of a tool without annotations are wrong")
	}
	if !ro.ReadOnly() || ro.Annotations.DestructiveHint != nil {
		t.Error("absent destructiveHint was not kept absent")
	}
	if safe.Destructive() || safe.OpenWorld() || !safe.Idempotent() {
		t.Error("explicit hints were not read")
	}
}

func TestDecodeToolsReportsJunk(t *testing.T) {
	ts, problems := mcp.DecodeTools(json.RawMessage(`{"tools":[1,{"name":7},{"name":"ok","annotations":"x"}]}`), 2, 0)
	if len(ts) != 2 || len(problems) != 1 || ts[0].NameValid || !ts[1].NameValid || ts[1].Annotations != nil || ts[1].Page != 2 || ts[1].Index != 2 {
		t.Errorf("tools %+v problems %v", ts, problems)
	}
}

func TestSchemaSummary(t *testing.T) {
	for raw, want := range map[string]string{
		`{"type":"object","properties":{"b":{"type":"string"},"a":{"type":["integer","null"]},"c":{"$ref":"#/x"}},"required":["b"]}`: "{a: integer|null, b*: string, c: $ref}",
		`{"type":"object"}`: "{}",
		`null`:              "(not an object: null)",
		``:                  "(no inputSchema)",
	} {
		if got := mcp.SchemaSummary(json.RawMessage(raw)); got != want {
			t.Errorf("%s: %q, want %q", raw, got, want)
		}
	}
}

func TestCountTokensIsARealBPE(t *testing.T) {
	n, how := mcp.CountTokens("hello world")
	if how != mcp.Tokenizer || n != 2 {
		t.Errorf("%d tokens by %s; o200k_base gives 2", n, how)
	}
	c := mcp.NewCatalog(decode(t, `{"name":"getOrder","description":"Order","inputSchema":{"type":"object"}}`))
	if c.Tokens == 0 || c.Tokenizer != mcp.Tokenizer || c.Tools[0].Tokens != c.Tokens {
		t.Errorf("catalog %+v", c)
	}
}

func TestParseResponseSSE(t *testing.T) {
	body := "id: 1\ndata:\n\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\ndata: \"id\":3,\"result\":{}}\n\n"
	m, err := mcp.ParseResponse("text/event-stream; charset=utf-8", []byte(body), 3)
	if err != nil || string(m.Result) != "{}" {
		t.Fatalf("%+v %v", m, err)
	}
	if _, err := mcp.ParseResponse("text/event-stream", []byte("data:\n\n"), 1); err == nil {
		t.Error("a stream with only a priming event gave a response")
	}
}

// FuzzHostileAnswers: whatever a server sends, parsing, decoding,
// fingerprinting and summarizing never panic.
func FuzzHostileAnswers(f *testing.F) {
	f.Add("application/json", `{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a","inputSchema":{"type":"object"}}]}}`)
	f.Add("text/event-stream", "data: {\"id\":1,\"result\":{\"tools\":[{\"name\":1}]}}\n\n")
	f.Add("text/event-stream", "id: x\ndata:\n\ndata: [\n\n")
	f.Fuzz(func(t *testing.T, contentType, body string) {
		m, err := mcp.ParseResponse(contentType, []byte(body), 1)
		if err != nil || m.Result == nil {
			return
		}
		tools, _ := mcp.DecodeTools(m.Result, 0, 0)
		for i := range tools {
			_ = tools[i].Fingerprint()
			_ = mcp.SchemaSummary(tools[i].InputSchema)
			_ = tools[i].ContextText()
		}
		_ = mcp.CatalogFingerprint(tools)
	})
}
