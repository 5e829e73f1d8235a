package mcp

import (
	"encoding/json"
	"strings"
)

// LabelAfterRequests labels the last tools/list walk, sent after every other
// request of the examination: a catalog that changed by then varies with
// prior requests.
const LabelAfterRequests = "again, after the other requests"

// Capability returns the member of a capabilities object at path, and
// whether it is there (whatever its value).
func Capability(capabilities json.RawMessage, path ...string) (json.RawMessage, bool) {
	cur := capabilities
	for _, name := range path {
		var obj map[string]json.RawMessage
		if json.Unmarshal(cur, &obj) != nil {
			return nil, false
		}
		next, ok := obj[name]
		if !ok {
			return nil, false
		}
		cur = next
	}
	return cur, true
}

// Declares reports whether a capabilities object declares the capability
// at path: present and not null or false.
func Declares(capabilities json.RawMessage, path ...string) bool {
	raw, ok := Capability(capabilities, path...)
	if !ok {
		return false
	}
	switch strings.TrimSpace(string(raw)) {
	case "null", "false":
		return false
	}
	return true
}

// DeclaresTrue reports whether the capability at path is the boolean true,
// as listChanged and subscribe are declared.
func DeclaresTrue(capabilities json.RawMessage, path ...string) bool {
	raw, ok := Capability(capabilities, path...)
	var b bool
	return ok && json.Unmarshal(raw, &b) == nil && b
}

// UIScheme is the URI scheme of MCP Apps interfaces.
const UIScheme = "ui://"

// UIResourceURIs lists the ui:// URIs a resources/list answer names, in
// order and without repeats; none when the call failed.
func UIResourceURIs(list *Call) []string {
	if list == nil || list.Message == nil || list.Message.Error != nil {
		return nil
	}
	var resources []struct {
		URI string `json:"uri"`
	}
	if !ResultMember(list.Message.Result, "resources", &resources) {
		return nil
	}
	var out []string
	seen := map[string]bool{}
	for _, r := range resources {
		if strings.HasPrefix(strings.ToLower(r.URI), UIScheme) && !seen[r.URI] {
			seen[r.URI] = true
			out = append(out, r.URI)
		}
	}
	return out
}

// ReadURI is the uri a resources/read call asked for, read from the
// recorded request; "" when it cannot be read.
func ReadURI(c *Call) string {
	if c == nil || c.Exchange == nil {
		return ""
	}
	var msg struct {
		Params struct {
			URI string `json:"uri"`
		} `json:"params"`
	}
	if json.Unmarshal([]byte(c.Exchange.Request.Body), &msg) != nil {
		return ""
	}
	return msg.Params.URI
}
