package exchange

import (
	"net/http"
	"testing"
)

// What an accepted attempt created: a 201's Location, else the answer's
// self link or id on the item path, only on the request's origin and,
// given the item path, only at it.
func TestCreatedBy(t *testing.T) {
	const items, item = "http://a/items", "http://a/items/{item_id}"
	answer := func(status int, location, body string) *Exchange {
		h := http.Header{"Content-Type": {"application/json"}}
		if location != "" {
			h.Set("Location", location)
		}
		return &Exchange{Request: Request{Method: http.MethodPost, URL: items}, Response: &Response{Status: status, Header: h, Body: []byte(body)}}
	}
	for name, tc := range map[string]struct {
		x        *Exchange
		template string
		want     string
	}{
		"201 Location":               {answer(201, "/items/7", `{}`), item, "http://a/items/7"},
		"201 Location, no item path": {answer(201, "http://a/items/7", ``), "", "http://a/items/7"},
		"Location off the origin":    {answer(201, "http://b/items/7", ``), item, ""},
		"Location off the item path": {answer(201, "/things/7", ``), item, ""},
		"Location on a 200":          {answer(200, "/items/7", ``), "", ""},
		"self link":                  {answer(200, "", `{"_links":{"self":{"href":"/items/9"}}}`), item, "http://a/items/9"},
		"self link, no item path":    {answer(200, "", `{"_links":{"self":{"href":"/items/9"}}}`), "", ""},
		"id named as the variable":   {answer(201, "", `{"item_id":"x 1","id":"other"}`), item, "http://a/items/x%201"},
		"id":                         {answer(201, "", `{"id":12}`), item, "http://a/items/12"},
		"id with a slash":            {answer(201, "", `{"id":"../admin"}`), item, ""},
		"no id":                      {answer(201, "", `{"name":"n"}`), item, ""},
		"refused":                    {answer(409, "/items/7", `{"id":1}`), item, ""},
		"the collection's own link":  {answer(200, "", `{"_links":{"self":{"href":"/items"}}}`), item, ""},
		"two variables in the path":  {answer(201, "", `{"id":3}`), "http://a/users/{u}/items/{id}", ""},
	} {
		if got := CreatedBy(tc.x, tc.template); got != tc.want {
			t.Errorf("%s: %q, want %q", name, got, tc.want)
		}
	}
}
