// Package x402 reads the payment challenge an x402 resource server answers
// 402 with: the PaymentRequired object of the x402 specification, protocol
// version 2 (specs/x402-specification-v2.md §5.1, carried base64-encoded in
// the PAYMENT-REQUIRED header by specs/transports-v2/http.md), or version 1
// (specs/x402-specification-v1.md, carried as the JSON body by
// specs/transports-v1/http.md), coinbase/x402 as of 2026-04-21. It
// validates the declaration only: nothing here forms or settles a payment.
// It is pure and bounded: at most MaxAccepts requirements are read and
// MaxProblems problems kept, and a header over MaxHeaderBytes is refused.
//
// PaymentChallenges finds the challenges among a scan's answers, once per
// scan, for the discovery family that judges them and surface that lists
// them.
package x402

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/agentready/agentready/internal/bounded"
)

// Header carries a version 2 challenge.
const Header = "PAYMENT-REQUIRED"

// Bounds on what is read from a hostile challenge.
const (
	MaxAccepts     = 20
	MaxProblems    = 20
	MaxHeaderBytes = 64 << 10
)

// Challenge is a parsed PaymentRequired object.
type Challenge struct {
	Version int
	// Resource is the URL of the protected resource: resource.url in
	// version 2, the first requirement's resource in version 1.
	Resource string
	Accepts  []Requirement // the first MaxAccepts
	Problems bounded.List[Problem]
}

// Requirement is one way to pay that the server accepts.
type Requirement struct {
	Scheme, Network, Amount, Asset, PayTo string
}

// Problem is a member breaking a rule of the specification.
type Problem struct {
	Pointer string // JSON pointer into the PaymentRequired object
	Message string
}

// DecodeHeader decodes a PAYMENT-REQUIRED value; padded or unpadded,
// standard or URL-safe base64 are all read, since servers send each.
func DecodeHeader(v string) ([]byte, error) {
	v = strings.TrimSpace(v)
	if len(v) > MaxHeaderBytes {
		return nil, fmt.Errorf("%d bytes, over the %d read", len(v), MaxHeaderBytes)
	}
	raw := strings.TrimRight(v, "=")
	for _, enc := range []*base64.Encoding{base64.RawStdEncoding, base64.RawURLEncoding} {
		if b, err := enc.DecodeString(raw); err == nil {
			return b, nil
		}
	}
	return nil, errors.New("not base64")
}

// Claims reports whether a JSON body says it is an x402 challenge: an
// object with x402Version. A 402 without it is some other payment scheme's
// refusal, or none.
func Claims(body []byte) bool {
	body = bytes.TrimSpace(body)
	if len(body) == 0 || body[0] != '{' {
		return false
	}
	var probe struct {
		Version json.RawMessage `json:"x402Version"`
	}
	return json.Unmarshal(body, &probe) == nil && probe.Version != nil
}

// Parse reads a PaymentRequired object and checks the members its version
// requires. An error means it is not a JSON object at all.
func Parse(b []byte) (*Challenge, error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(b, &obj); err != nil || obj == nil {
		return nil, errors.New("not a JSON object")
	}
	c := &Challenge{Problems: bounded.List[Problem]{Max: MaxProblems}}
	var version float64
	if err := json.Unmarshal(obj["x402Version"], &version); err != nil || obj["x402Version"] == nil {
		c.problem("/x402Version", "x402Version is missing or not a number")
		return c, nil
	}
	switch version {
	case 1, 2:
		c.Version = int(version)
	default:
		c.problem("/x402Version", "x402Version is %v; the specification defines 1 and 2", version)
		return c, nil
	}
	if c.Version == 2 {
		c.resource(obj["resource"])
	}
	c.accepts(obj["accepts"])
	return c, nil
}

func (c *Challenge) problem(ptr, format string, args ...any) {
	c.Problems.Add(Problem{Pointer: ptr, Message: fmt.Sprintf(format, args...)})
}

// resource checks version 2's ResourceInfo: an object with a url.
func (c *Challenge) resource(raw json.RawMessage) {
	var r map[string]json.RawMessage
	if json.Unmarshal(raw, &r) != nil || r == nil {
		c.problem("/resource", "resource is missing or not an object")
		return
	}
	c.Resource = c.str(r, "/resource", "url", true)
	c.str(r, "/resource", "description", false)
	c.str(r, "/resource", "mimeType", false)
}

// Members each version requires of a PaymentRequirements object, besides
// maxTimeoutSeconds; the amount is amount in version 2 and
// maxAmountRequired in version 1, which also names the resource there.
var required = map[int][]string{
	1: {"scheme", "network", "maxAmountRequired", "asset", "payTo", "resource", "description"},
	2: {"scheme", "network", "amount", "asset", "payTo"},
}

// caip2 is a CAIP-2 chain id, which version 2 requires of network.
var caip2 = regexp.MustCompile(`^[-a-z0-9]{3,8}:[-_a-zA-Z0-9]{1,32}$`)

func (c *Challenge) accepts(raw json.RawMessage) {
	var list []json.RawMessage
	if json.Unmarshal(raw, &list) != nil || raw == nil {
		c.problem("/accepts", "accepts is missing or not an array")
		return
	}
	if len(list) == 0 {
		c.problem("/accepts", "accepts is empty: no way to pay is offered")
		return
	}
	for i, item := range list[:min(len(list), MaxAccepts)] {
		ptr := fmt.Sprintf("/accepts/%d", i)
		var r map[string]json.RawMessage
		if json.Unmarshal(item, &r) != nil || r == nil {
			c.problem(ptr, "accepts[%d] is not an object", i)
			continue
		}
		vals := map[string]string{}
		for _, name := range required[c.Version] {
			vals[name] = c.str(r, ptr, name, true)
		}
		c.str(r, ptr, "mimeType", false)
		req := Requirement{Scheme: vals["scheme"], Network: vals["network"], Asset: vals["asset"], PayTo: vals["payTo"], Amount: vals["amount"]}
		amountName := "amount"
		if c.Version == 1 {
			req.Amount, amountName = vals["maxAmountRequired"], "maxAmountRequired"
			if i == 0 {
				c.Resource = vals["resource"]
			}
		}
		if req.Amount != "" && strings.Trim(req.Amount, "0123456789") != "" {
			c.problem(ptr+"/"+amountName, "%s %q is not a whole number of atomic units", amountName, req.Amount)
		}
		if c.Version == 2 && req.Network != "" && !caip2.MatchString(req.Network) {
			c.problem(ptr+"/network", "network %q is not a CAIP-2 chain id (namespace:reference)", req.Network)
		}
		var timeout float64
		if json.Unmarshal(r["maxTimeoutSeconds"], &timeout) != nil || r["maxTimeoutSeconds"] == nil {
			c.problem(ptr+"/maxTimeoutSeconds", "maxTimeoutSeconds is missing or not a number")
		} else if timeout <= 0 {
			c.problem(ptr+"/maxTimeoutSeconds", "maxTimeoutSeconds is %v, not a positive number", timeout)
		}
		if x, ok := r["extra"]; ok && !isObjectOrNull(x) {
			c.problem(ptr+"/extra", "extra is not an object")
		}
		c.Accepts = append(c.Accepts, req)
	}
}

// str reads a string member; a required one must be present and non-empty
// (version 1's description may be empty, but must be a string).
func (c *Challenge) str(obj map[string]json.RawMessage, ptr, name string, need bool) string {
	raw, ok := obj[name]
	if !ok || string(raw) == "null" {
		if need {
			c.problem(ptr+"/"+name, "%s is missing", name)
		}
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		c.problem(ptr+"/"+name, "%s is not a string", name)
		return ""
	}
	if need && s == "" && name != "description" {
		c.problem(ptr+"/"+name, "%s is empty", name)
	}
	return s
}

func isObjectOrNull(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return string(raw) == "null" || (len(raw) > 0 && raw[0] == '{')
}
