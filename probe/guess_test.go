package probe

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
)

func jsonBody(body string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(body))
	}
}

// itemServer serves the collection body at /items and, at /items/<id>, an
// item for each of ids; any other path is a 404.
func itemServer(collection string, ids ...string) routes {
	rt := routes{"/items": jsonBody(collection)}
	for _, id := range ids {
		rt["/items/"+id] = jsonBody(`{"id": "` + id + `"}`)
	}
	return rt
}

// A plain collection whose members carry an identifier and no link gets
// its first items' URLs guessed as <collection>/<id>: those that answer
// 2xx with JSON are crawled, any other answer is dropped unrecorded, and
// nothing is guessed where a member names its own URL or where the page is
// not a collection.
func TestPlainCollectionItemsAreGuessed(t *testing.T) {
	for _, tt := range []struct {
		what    string
		routes  routes
		start   string
		crawled []string
		source  string // of the first guessed page, when any
		sent    int    // requests the server received
	}{
		{"a bare array, string ids: the first three of four", itemServer(`[{"id":"1"},{"id":"2"},{"id":"3"},{"id":"4"}]`, "1", "2", "3", "4"),
			"/items", []string{"/items", "/items/1", "/items/2", "/items/3"}, "json [].id (guessed) of /items", 4},
		{"an envelope, integer ids", itemServer(`{"count": 2, "data": [{"id": 1, "name": "a"}, {"id": 2, "name": "b"}]}`, "1", "2"),
			"/items", []string{"/items", "/items/1", "/items/2"}, "json data[].id (guessed) of /items", 3},
		{"the collection's noun names the key", itemServer(`[{"item_id": "7", "owner_id": "u1"}]`, "7"),
			"/items", []string{"/items", "/items/7"}, "json [].item_id (guessed) of /items", 2},
		{"the one key with an id suffix", itemServer(`[{"skuId": "a-1", "name": "x"}]`, "a-1"),
			"/items", []string{"/items", "/items/a-1"}, "json [].skuId (guessed) of /items", 2},
		{"a query is not part of the item's URL", itemServer(`[{"id": "1"}]`, "1"),
			"/items?page=2", []string{"/items/1", "/items?page=2"}, "json [].id (guessed) of /items", 2},
		{"guesses that miss are dropped", itemServer(`[{"id": "9"}, {"id": "8"}]`),
			"/items", []string{"/items"}, "", 3},
		{"a catch-all HTML page is not an item", routes{"/items": jsonBody(`[{"id": "1"}]`), "/items/1": htmlBody(`<p>app</p>`)},
			"/items", []string{"/items"}, "", 2},
		{"members that link to themselves are followed, not guessed",
			routes{"/items": jsonBody(`[{"id": "1", "self": "/things/1"}, {"id": "2", "_links": {"self": {"href": "/things/2"}}}, {"id": "3", "url": "/things/3"}]`),
				"/things/1": jsonBody(`{"id": "1"}`)},
			"/items", []string{"/items", "/things/1"}, "", 2},
		{"an item with a list of parts is not a collection", itemServer(`{"id": "1", "parts": [{"id": "p"}]}`),
			"/items", []string{"/items"}, "", 1},
		{"an object with two arrays is not a collection", itemServer(`{"a": [{"id": "1"}], "b": [{"id": "2"}]}`, "1", "2"),
			"/items", []string{"/items"}, "", 1},
		{"no identifier", itemServer(`[{"name": "x", "a_id": "1", "b_id": "2"}]`, "1", "2"),
			"/items", []string{"/items"}, "", 1},
		{"identifiers a path cannot hold", itemServer(`[{"id": ".."}, {"id": "a\u0000b"}, {"id": 1.5}, {"id": true}, {"id": "a/b"}]`),
			"/items", []string{"/items"}, "", 2},
	} {
		t.Run(tt.what, func(t *testing.T) {
			srv, rec := serve(t, tt.routes)
			res := run(t, Config{Start: mustParse(t, srv.URL+tt.start)}, nil)
			if got := crawledPaths(res); !slices.Equal(got, tt.crawled) {
				t.Errorf("crawled %v, want %v", got, tt.crawled)
			}
			if n := len(rec.requests()); n != tt.sent {
				t.Errorf("the server received %d requests, want %d", n, tt.sent)
			}
			for x := range res.Recording.Crawled() {
				if x.Response.Status != http.StatusOK {
					t.Errorf("recorded %s answering %d: a guess that misses is dropped", x.Request.URL, x.Response.Status)
				}
				if x.Source != "start" && strings.Contains(x.Source, "guessed") && x.Source != tt.source {
					t.Errorf("source %q, want %q", x.Source, tt.source)
				}
			}
			guessedNote := slices.ContainsFunc(res.Notes, func(n string) bool { return strings.HasPrefix(n, "guessed ") })
			if wantNote := tt.sent > len(tt.crawled) || tt.source != ""; guessedNote != wantNote {
				t.Errorf("note on guesses %v, want %v: %q", guessedNote, wantNote, res.Notes)
			}
		})
	}
}

// Guesses count against the page limit and the depth limit like links, and
// a collection is guessed from once whatever its query.
func TestGuessesAreBounded(t *testing.T) {
	rt := itemServer(`[{"id":"1"},{"id":"2"},{"id":"3"}]`, "1", "2", "3")
	rt["/"] = halBody(`{"_links": {"a": {"href": "/items"}, "b": {"href": "/items?page=2"}}}`)
	for _, tt := range []struct {
		what    string
		cfg     Config
		crawled []string
	}{
		{"once per collection path", Config{}, []string{"/", "/items", "/items/1", "/items/2", "/items/3", "/items?page=2"}},
		{"the page limit", Config{MaxPages: 4}, []string{"/", "/items", "/items/1", "/items?page=2"}},
		{"the depth limit", Config{MaxDepth: 1}, []string{"/", "/items", "/items?page=2"}},
	} {
		t.Run(tt.what, func(t *testing.T) {
			srv, _ := serve(t, rt)
			cfg := tt.cfg
			cfg.Start = mustParse(t, srv.URL+"/")
			res := run(t, cfg, nil)
			if got := crawledPaths(res); !slices.Equal(got, tt.crawled) {
				t.Errorf("crawled %v, want %v", got, tt.crawled)
			}
		})
	}
}

func TestCollectionIDs(t *testing.T) {
	for _, tt := range []struct {
		doc, noun string
		want      []string
		source    string
	}{
		{`[{"ID": 10}, {"ID": 11}]`, "item", []string{"10", "11"}, "json [].ID (guessed)"},
		{`[{"uuid": "0f8fad5b"}, {"id": "x"}]`, "item", []string{"0f8fad5b"}, "json [].uuid (guessed)"},
		{`{"items": [{"order_id": "o1", "user_id": "u1"}]}`, "order", []string{"o1"}, "json items[].order_id (guessed)"},
		{`[{"id": "a b"}]`, "", []string{"a b"}, "json [].id (guessed)"},
		{`["1", "2"]`, "", nil, ""},
		{`[]`, "", nil, ""},
		{`{"id": "1"}`, "item", nil, ""},
		{`[{"id": "1", "links": {"self": "/i/1"}}, {"id": "2"}]`, "", []string{"2"}, "json [].id (guessed)"},
		{`[{"id": "` + strings.Repeat("x", maxGuessedIDLength+1) + `"}]`, "", nil, "json [].id (guessed)"},
	} {
		root := json.RawMessage(tt.doc)
		got := collectionIDs(jsonDocument{root, validMembers(root)}, tt.noun, 3)
		if !slices.Equal(got.ids, tt.want) || (len(got.ids) > 0 && got.source != tt.source) {
			t.Errorf("%s: %q from %q, want %q from %q", tt.doc, got.ids, got.source, tt.want, tt.source)
		}
	}
}
