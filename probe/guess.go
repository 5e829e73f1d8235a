package probe

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/agentready/agentready/internal/exchange"
)

// Many JSON APIs answer a collection with its members and no link to any of
// them: a bare array of objects, or an object whose one array holds them,
// each with an identifier ([{"id": "1", "name": "Blue Train"}]). Without an
// OpenAPI document nothing names /items/1, and the items' HEAD, OPTIONS and
// negotiation would never be seen. The crawl then guesses where an item
// lives the way most routers put it, <collection path>/<id>, for the first
// few members that carry an identifier and no link of their own. A guess is
// not the server's word: only an answer of 2xx with a JSON body is crawled,
// and any other answer is dropped without a trace, since a guess that
// misses says nothing against the server.

// Bounds on guessing: the members read of one collection, and an
// identifier's length. The items guessed from one collection are as many
// as the crawl samples of a shape (Config.SamplesPerShape).
const (
	maxMembersRead     = 16
	maxGuessedIDLength = 128
)

// memberIDs are the identifiers of a collection's first members that link
// to nothing, and where they were read ("json [].id").
type memberIDs struct {
	ids    []string
	source string
}

// identifierKeys name a member's identifier, the likeliest first, in any
// case and with any separator ("ID", "_id"); a key made of the
// collection's noun and "id" ("item_id" in /items) comes next, then a key
// that is the member's only one ending in an id suffix. Unlike the
// exploration's identifierFields, which offer values to a parameter the
// document names, these pick the one member a router most likely keys its
// items by: a name or a login is seldom the path.
var identifierKeys = []string{"id", "uuid", "guid"}

// idSuffixes end the keys of other identifiers: snake, kebab and camel
// case.
var idSuffixes = []string{"_id", "-id", "Id", "_uuid", "-uuid", "Uuid"}

// linkKeys are the members by which an object names its own URL (HAL's
// _links and JSON:API's links fold to "links", JSON-LD's @id): a member
// with one has a link, and where it lives is not guessed.
var linkKeys = []string{"links", "link", "self", "href", "url", "uri", "@id"}

// collectionIDs reads a JSON document as a plain collection: a bare array
// of objects, or an object whose single array member holds objects and
// which has no identifier of its own (an item with a list of parts is not
// a collection). noun is what the collection's members are called (see
// pageNoun); at most limit identifiers are read.
func collectionIDs(doc jsonDocument, noun string, limit int) memberIDs {
	name, arr := "", doc.root
	if obj := doc.members; obj != nil {
		if idKey(obj, noun) != "" {
			return memberIDs{}
		}
		var arrays []string
		for k, v := range obj {
			if firstByte(v) == '[' {
				arrays = append(arrays, k)
			}
		}
		if len(arrays) != 1 {
			return memberIDs{}
		}
		name, arr = arrays[0], obj[arrays[0]]
	}
	if firstByte(arr) != '[' {
		return memberIDs{}
	}
	var out memberIDs
	key := ""
	eachElement(arr, maxMembersRead, func(raw json.RawMessage) bool {
		if firstByte(raw) != '{' {
			return false
		}
		m := validMembers(raw)
		if key == "" {
			// The members of one collection share a shape: the first
			// one's identifier names every other's.
			if key = idKey(m, noun); key == "" {
				return false
			}
			out.source = fmt.Sprintf("json %s[].%s (guessed)", name, key)
		}
		if hasLink(m) {
			return true
		}
		if id, ok := identifierValue(m[key]); ok {
			out.ids = append(out.ids, id)
		}
		return len(out.ids) < limit
	})
	return out
}

// idKey is the member of obj that identifies it, or "". Keys are read in
// sorted order: which of two spellings wins must not depend on map order.
func idKey(obj map[string]json.RawMessage, noun string) string {
	keys := slices.Sorted(maps.Keys(obj))
	for _, want := range identifierKeys {
		for _, k := range keys {
			if normName(k) == want {
				return k
			}
		}
	}
	if noun != "" {
		for _, k := range keys {
			if n := normName(k); n == noun+"id" || n == noun+"uuid" {
				return k
			}
		}
	}
	var suffixed []string
	for _, k := range keys {
		if slices.ContainsFunc(idSuffixes, func(s string) bool { return len(k) > len(s) && strings.HasSuffix(k, s) }) {
			suffixed = append(suffixed, k)
		}
	}
	if len(suffixed) == 1 {
		return suffixed[0]
	}
	return ""
}

// hasLink reports a member that names a URL of its own.
func hasLink(obj map[string]json.RawMessage) bool {
	for k := range obj {
		if slices.Contains(linkKeys, normName(k)) {
			return true
		}
	}
	return false
}

// identifierValue is an identifier as it goes in a path segment: a string
// of printable characters, or an integer; not "." or "..", which a path
// resolves away.
func identifierValue(raw json.RawMessage) (string, bool) {
	if s, ok := stringValue(raw); ok {
		if s == "" || s == "." || s == ".." || len(s) > maxGuessedIDLength || !utf8.ValidString(s) ||
			strings.ContainsFunc(s, func(r rune) bool { return !unicode.IsPrint(r) }) {
			return "", false
		}
		return s, true
	}
	n := string(raw[skipSpace(raw, 0):])
	if n == "" || len(n) > maxGuessedIDLength || strings.Trim(n, "0123456789") != "" {
		return "", false
	}
	return n, true
}

// itemGuesses are the item URLs a collection's identifiers give, beneath
// the collection's path (base, where its request ended) without its query.
func itemGuesses(base *url.URL, ids memberIDs) []candidate {
	if base == nil || len(ids.ids) == 0 {
		return nil
	}
	dir := strings.TrimSuffix(base.EscapedPath(), "/")
	out := make([]candidate, 0, len(ids.ids))
	for _, id := range ids.ids {
		out = append(out, candidate{ref: dir + "/" + url.PathEscape(id), source: ids.source, guessed: true})
	}
	return out
}

// answersGuess reports an answer to a guessed URL that is an item: 2xx with
// a JSON body. Anything else (404, a catch-all HTML page, an error) is
// dropped.
func answersGuess(x *exchange.Exchange) bool {
	r := x.Response
	return r != nil && r.Status/100 == 2 && len(r.Body) > 0 && exchange.IsJSONMediaType(r.MediaType())
}

// guessTally counts the guessed item URLs the crawl sent, for the report's
// note: the collections guessed from, the first of them, and how many
// guesses answered.
type guessTally struct {
	collections int
	first       string // "GET /items"
	sent, kept  int
}

// note says what was guessed, or "".
func (g guessTally) note() string {
	if g.sent == 0 {
		return ""
	}
	from := g.first
	if g.collections > 1 {
		from += fmt.Sprintf(" and %d more collections", g.collections-1)
	}
	return fmt.Sprintf("guessed %d item URLs as <collection>/<id> from the identifiers of collections that link to none of their members (%s): %d answered 2xx with JSON and were crawled; the others were dropped, since a guess that misses says nothing about the server",
		g.sent, from, g.kept)
}
