package mcp

import (
	"encoding/json"
	"sort"
	"strings"
	"sync"
)

// Tokenizer names the BPE used for token counts. o200k_base is the encoding
// of current OpenAI models; its ranks are embedded in the binary, so counting
// needs no network. Other vendors' tokenizers differ by some percent; the
// figure is a measure of scale, not a bill.
const Tokenizer = "o200k_base"

// EstimateLabel is used instead of Tokenizer when the BPE could not be loaded
// and the count is bytes/4.
const EstimateLabel = "estimate (bytes/4)"

// maxTokenizedBytes bounds the text handed to the tokenizer per tool; longer
// texts are counted by extrapolation, since a hostile catalog could otherwise
// cost seconds of CPU.
const maxTokenizedBytes = 256 << 10

var (
	bpeOnce sync.Once
	bpe     *counter
)

func encoder() *counter {
	bpeOnce.Do(func() {
		if c, err := loadCounter(); err == nil {
			bpe = c
		}
	})
	return bpe
}

// WarmTokenizer loads the BPE in the background, so that its load overlaps
// the network exchanges that precede counting. Only a server that speaks
// MCP warrants it.
func WarmTokenizer() { go encoder() }

// CountTokens counts the tokens of s and says how they were counted.
func CountTokens(s string) (int, string) {
	enc := encoder()
	if enc == nil {
		return (len(s) + 3) / 4, EstimateLabel
	}
	if len(s) <= maxTokenizedBytes {
		return enc.count(s), Tokenizer
	}
	head := strings.ToValidUTF8(s[:maxTokenizedBytes], "")
	n := enc.count(head)
	return n * len(s) / max(len(head), 1), Tokenizer + " (extrapolated)"
}

// Catalog is the tool list as a reader of the report sees it.
type Catalog struct {
	Tools       []ToolSummary `json:"tools"`
	Fingerprint string        `json:"fingerprint"`
	Tokens      int           `json:"tokens"`
	Tokenizer   string        `json:"tokenizer"`
}

// ToolSummary is one tool with its hints, a schema summary, its fingerprint
// and its token count.
type ToolSummary struct {
	Name        string   `json:"name"`
	Title       string   `json:"title,omitempty"`
	ReadOnly    bool     `json:"readOnly"`
	Destructive bool     `json:"destructive"`
	Idempotent  bool     `json:"idempotent"`
	OpenWorld   bool     `json:"openWorld"`
	Hints       []string `json:"hints,omitempty"`
	Schema      string   `json:"schema"`
	Fingerprint string   `json:"fingerprint"`
	Tokens      int      `json:"tokens"`
}

// NewCatalog summarizes tools, in the order the server listed them.
func NewCatalog(tools []Tool) Catalog {
	c := Catalog{Tokenizer: Tokenizer}
	fingerprints := make([]string, len(tools))
	for i := range tools {
		t := &tools[i]
		fingerprints[i] = t.Fingerprint()
		n, how := CountTokens(t.ContextText())
		if how != Tokenizer {
			c.Tokenizer = how
		}
		c.Tokens += n
		c.Tools = append(c.Tools, ToolSummary{
			Name: t.Name, Title: t.Title,
			ReadOnly: t.ReadOnly(), Destructive: t.Destructive(), Idempotent: t.Idempotent(), OpenWorld: t.OpenWorld(),
			Hints:       declaredHints(t.Annotations),
			Schema:      SchemaSummary(t.InputSchema),
			Fingerprint: fingerprints[i],
			Tokens:      n,
		})
	}
	c.Fingerprint = catalogFingerprint(tools, fingerprints)
	return c
}

// declaredHints lists the hints the server set explicitly, as name=value.
func declaredHints(a *Annotations) []string {
	if a == nil {
		return nil
	}
	var out []string
	for _, h := range []struct {
		name string
		v    *bool
	}{{"readOnlyHint", a.ReadOnlyHint}, {"destructiveHint", a.DestructiveHint}, {"idempotentHint", a.IdempotentHint}, {"openWorldHint", a.OpenWorldHint}} {
		if h.v != nil {
			if *h.v {
				out = append(out, h.name+"=true")
			} else {
				out = append(out, h.name+"=false")
			}
		}
	}
	return out
}

// SchemaSummary renders an input schema in one line: its properties with
// their types, required ones marked with "*", e.g. "{id*: integer, note: string}".
func SchemaSummary(raw json.RawMessage) string {
	if len(raw) == 0 {
		return "(no inputSchema)"
	}
	var s map[string]any
	if json.Unmarshal(raw, &s) != nil || s == nil {
		return "(not an object: " + truncate(string(raw), 40) + ")"
	}
	props, _ := s["properties"].(map[string]any)
	required := map[string]bool{}
	if req, ok := s["required"].([]any); ok {
		for _, r := range req {
			if name, ok := r.(string); ok {
				required[name] = true
			}
		}
	}
	names := make([]string, 0, len(props))
	for n := range props {
		names = append(names, n)
	}
	sort.Strings(names)
	parts := make([]string, 0, len(names))
	for _, n := range names {
		label := n
		if required[n] {
			label += "*"
		}
		parts = append(parts, label+": "+typeOf(props[n]))
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

func typeOf(v any) string {
	m, ok := v.(map[string]any)
	if !ok {
		return "?"
	}
	switch t := m["type"].(type) {
	case string:
		return t
	case []any:
		var names []string
		for _, x := range t {
			if s, ok := x.(string); ok {
				names = append(names, s)
			}
		}
		return strings.Join(names, "|")
	}
	if _, ok := m["$ref"]; ok {
		return "$ref"
	}
	return "any"
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "…"
}
