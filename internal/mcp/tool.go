package mcp

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// Tool is one entry of tools/list, decoded without loss: schemas and _meta
// stay raw so that nothing the server said is dropped or normalized.
type Tool struct {
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	// InputSchema is nil when the member is absent; JSON null is kept as
	// the bytes "null".
	InputSchema  json.RawMessage `json:"inputSchema,omitempty"`
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
	Annotations  *Annotations    `json:"annotations,omitempty"`
	Meta         json.RawMessage `json:"_meta,omitempty"`
	// Raw is the tool object as received.
	Raw json.RawMessage `json:"-"`
	// Page is the index of the page it came from, Index its position on
	// that page (for JSON pointers into the raw result).
	Page  int `json:"-"`
	Index int `json:"-"`
	// NameValid is false when the name member is missing or not a string.
	NameValid bool `json:"-"`
}

// Annotations keeps every hint tri-state: absent is not false, and the
// defaults (destructive and open-world when absent) matter to agents.
type Annotations struct {
	Title           string `json:"title,omitempty"`
	ReadOnlyHint    *bool  `json:"readOnlyHint,omitempty"`
	DestructiveHint *bool  `json:"destructiveHint,omitempty"`
	IdempotentHint  *bool  `json:"idempotentHint,omitempty"`
	OpenWorldHint   *bool  `json:"openWorldHint,omitempty"`
}

// ReadOnly is the effective readOnlyHint (default false).
func (t *Tool) ReadOnly() bool { return t.Annotations != nil && isTrue(t.Annotations.ReadOnlyHint) }

// Destructive is the effective destructiveHint (default true).
func (t *Tool) Destructive() bool {
	return t.Annotations == nil || t.Annotations.DestructiveHint == nil || *t.Annotations.DestructiveHint
}

// Idempotent is the effective idempotentHint (default false).
func (t *Tool) Idempotent() bool { return t.Annotations != nil && isTrue(t.Annotations.IdempotentHint) }

// OpenWorld is the effective openWorldHint (default true).
func (t *Tool) OpenWorld() bool {
	return t.Annotations == nil || t.Annotations.OpenWorldHint == nil || *t.Annotations.OpenWorldHint
}

func isTrue(b *bool) bool { return b != nil && *b }

// MaxTools bounds the tools read from one listing.
const MaxTools = 2000

// DecodeTools reads the tools array of a tools/list result. Entries that are
// not objects are reported, never silently dropped; tools whose annotations
// have the wrong shape keep everything else.
func DecodeTools(result json.RawMessage, page, offset int) ([]Tool, []string) {
	var obj struct {
		Tools []json.RawMessage `json:"tools"`
	}
	if err := json.Unmarshal(result, &obj); err != nil {
		return nil, []string{fmt.Sprintf("page %d: tools is not an array of objects: %v", page+1, err)}
	}
	var tools []Tool
	var problems []string
	for i, raw := range obj.Tools {
		if offset+i >= MaxTools {
			problems = append(problems, fmt.Sprintf("more than %d tools; the rest were not read", MaxTools))
			break
		}
		t, err := decodeTool(raw)
		if err != nil {
			problems = append(problems, fmt.Sprintf("page %d, tool %d: %v", page+1, i+1, err))
			continue
		}
		t.Page, t.Index = page, i
		tools = append(tools, t)
	}
	return tools, problems
}

func decodeTool(raw json.RawMessage) (Tool, error) {
	var members map[string]json.RawMessage
	if err := json.Unmarshal(raw, &members); err != nil || members == nil {
		return Tool{}, fmt.Errorf("not a JSON object")
	}
	t := Tool{Raw: raw, InputSchema: members["inputSchema"], OutputSchema: members["outputSchema"], Meta: members["_meta"]}
	t.NameValid = json.Unmarshal(members["name"], &t.Name) == nil && members["name"] != nil
	_ = json.Unmarshal(members["title"], &t.Title)
	_ = json.Unmarshal(members["description"], &t.Description)
	if a, ok := members["annotations"]; ok {
		var ann Annotations
		if json.Unmarshal(a, &ann) == nil {
			t.Annotations = &ann
		}
	}
	return t, nil
}

// Fingerprint identifies a tool definition: a SHA-256 over its name,
// description, input schema and annotations, each canonicalized so that key
// order and whitespace do not count. It changes when any of them changes,
// and only then.
func (t *Tool) Fingerprint() string {
	var ann json.RawMessage
	if t.Annotations != nil {
		ann, _ = json.Marshal(t.Annotations)
	}
	return digest(t.Name, t.Description, canonical(t.InputSchema), canonical(ann))
}

// CatalogFingerprint identifies a whole catalog: a SHA-256 over the sorted
// set of name and fingerprint pairs, so that order does not count and any
// change to any tool does.
func CatalogFingerprint(tools []Tool) string {
	fingerprints := make([]string, len(tools))
	for i := range tools {
		fingerprints[i] = tools[i].Fingerprint()
	}
	return catalogFingerprint(tools, fingerprints)
}

// catalogFingerprint is CatalogFingerprint of tools whose own fingerprints
// are known already.
func catalogFingerprint(tools []Tool, fingerprints []string) string {
	pairs := make([]string, len(tools))
	for i := range tools {
		pairs[i] = tools[i].Name + "=" + fingerprints[i]
	}
	sort.Strings(pairs)
	return digest(pairs...)
}

func digest(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// EntryFingerprint identifies one entry of a listing other than tools/list
// (a prompt, a resource): a SHA-256 over its canonical JSON, so that member
// order does not count and any change to a member does.
func EntryFingerprint(raw json.RawMessage) string { return digest(canonical(raw)) }

// Canonical is raw re-encoded with sorted keys and no insignificant space,
// numbers in their literal form; nil when raw is empty or not JSON.
func Canonical(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 || !json.Valid(raw) {
		return nil
	}
	return json.RawMessage(canonical(raw))
}

// canonical re-encodes JSON with sorted keys and no insignificant space;
// numbers keep their literal form. Invalid JSON is returned as is.
func canonical(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return string(raw)
	}
	out, err := json.Marshal(v)
	if err != nil {
		return string(raw)
	}
	return string(out)
}

// ContextText is what a host places in a model's context for the tool: its
// name, description and input schema, as compact JSON.
func (t *Tool) ContextText() string {
	var b strings.Builder
	b.WriteString(`{"name":`)
	name, _ := json.Marshal(t.Name)
	b.Write(name)
	if t.Description != "" {
		desc, _ := json.Marshal(t.Description)
		b.WriteString(`,"description":`)
		b.Write(desc)
	}
	if len(t.InputSchema) > 0 {
		b.WriteString(`,"input_schema":`)
		b.WriteString(canonical(t.InputSchema))
	}
	b.WriteByte('}')
	return b.String()
}
