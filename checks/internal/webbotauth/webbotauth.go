// Package webbotauth reads an HTTP Message Signatures directory, the key
// set a Web Bot Auth signer publishes at
// /.well-known/http-message-signatures-directory
// (draft-meunier-webbotauth-httpsig-protocol, editor's copy of 2026-08-20;
// adopted as draft-ietf-webbotauth-httpsig-protocol). It validates the
// declaration only: nothing here verifies a signature. It is pure and
// bounded: at most MaxKeys keys and MaxProblems problems are kept.
package webbotauth

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/agentready/agentready/internal/bounded"
	"github.com/agentready/agentready/internal/sanitize"
)

// Path is the well-known location of the directory.
const Path = "/.well-known/http-message-signatures-directory"

// MediaType is the directory's media type; LegacyMediaType is the one of
// draft-meunier-http-message-signatures-directory-00, before "+json".
const (
	MediaType       = "application/http-message-signatures-directory+json"
	LegacyMediaType = "application/http-message-signatures-directory"
)

// Bounds on what is kept from a hostile directory.
const (
	MaxKeys     = 100
	MaxProblems = 20
)

// Algorithms are the HTTP Signature Algorithms registered by RFC 9421 §6.2.2
// that a directory may name in "alg"; hmac-sha256 is registered but shared
// secrets are forbidden ("Implementations MUST NOT use shared HMAC").
var Algorithms = []string{"rsa-pss-sha512", "rsa-v1_5-sha256", "ecdsa-p256-sha256", "ecdsa-p384-sha384", "ed25519"}

// Directory is a parsed key directory.
type Directory struct {
	Keys     int // keys listed
	Problems bounded.List[Problem]
}

// Problem is a key, or the set, breaking a rule of the draft.
type Problem struct {
	Pointer string // JSON pointer into the directory
	Message string
}

// Parse reads a directory body: a JWKS (RFC 7517 §5) whose keys are public
// keys of an allowed algorithm, each kid being its RFC 7638 thumbprint.
func Parse(body []byte) (*Directory, error) {
	var set struct {
		Keys *[]json.RawMessage `json:"keys"`
	}
	if err := json.Unmarshal(body, &set); err != nil {
		return nil, fmt.Errorf("not a JSON Web Key Set: %w", err)
	}
	if set.Keys == nil {
		return nil, errors.New(`not a JSON Web Key Set: no "keys" array`)
	}
	d := &Directory{Keys: len(*set.Keys), Problems: bounded.List[Problem]{Max: MaxProblems}}
	for i, raw := range (*set.Keys)[:min(len(*set.Keys), MaxKeys)] {
		d.key(fmt.Sprintf("/keys/%d", i), raw)
	}
	return d, nil
}

func (d *Directory) problem(ptr, format string, args ...any) {
	d.Problems.Add(Problem{Pointer: ptr, Message: fmt.Sprintf(format, args...)})
}

// thumbprintMembers are the required members of each key type, which the
// RFC 7638 thumbprint covers (§3.2).
var thumbprintMembers = map[string][]string{
	"OKP": {"crv", "kty", "x"},
	"EC":  {"crv", "kty", "x", "y"},
	"RSA": {"e", "kty", "n"},
}

var curves = map[string][]string{"OKP": {"Ed25519"}, "EC": {"P-256", "P-384"}}

func (d *Directory) key(ptr string, raw json.RawMessage) {
	var k map[string]any
	if err := json.Unmarshal(raw, &k); err != nil || k == nil {
		d.problem(ptr, "a key is not a JSON object")
		return
	}
	kty, _ := k["kty"].(string)
	if kty == "oct" {
		d.problem(ptr+"/kty", `a shared secret (kty "oct"): implementations MUST NOT use shared HMAC`)
		return
	}
	members, ok := thumbprintMembers[kty]
	if !ok {
		d.problem(ptr+"/kty", "kty %q is not OKP, EC or RSA", clip(kty))
		return
	}
	for _, m := range members {
		if s, _ := k[m].(string); s == "" {
			d.problem(ptr+"/"+m, "a %s key has no %q", kty, m)
			return
		}
	}
	if _, private := k["d"]; private {
		d.problem(ptr+"/d", "the key carries its private part \"d\"")
	}
	if allowed := curves[kty]; allowed != nil && !contains(allowed, k["crv"].(string)) {
		d.problem(ptr+"/crv", "curve %q is not one of %v", clip(k["crv"].(string)), allowed)
	}
	if alg, present := k["alg"]; present {
		if s, _ := alg.(string); !contains(Algorithms, s) {
			d.problem(ptr+"/alg", "alg %q is not a registered HTTP signature algorithm a directory may use", clip(fmt.Sprint(alg)))
		}
	}
	if kid, present := k["kid"]; present {
		if want := Thumbprint(k, members); kid != want {
			d.problem(ptr+"/kid", "kid %q is not the key's JWK SHA-256 thumbprint %q", clip(fmt.Sprint(kid)), want)
		}
	}
}

// Thumbprint is the RFC 7638 JWK SHA-256 thumbprint, base64url without
// padding, of the members of k named (its type's required members).
func Thumbprint(k map[string]any, members []string) string {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range members {
		if i > 0 {
			b.WriteByte(',')
		}
		name, _ := json.Marshal(m)
		value, _ := json.Marshal(k[m])
		b.Write(name)
		b.WriteByte(':')
		b.Write(value)
	}
	b.WriteByte('}')
	sum := sha256.Sum256(b.Bytes())
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

// clip bounds a value quoted in a problem. Values come from decoded JSON,
// which is valid UTF-8, so a cut on a rune boundary leaves it valid.
func clip(s string) string { return sanitize.Truncate(s, 64) }
