package scan_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/agentready/agentready/internal/scan"
)

// streamAPI is a JSON API whose collection is an items/next_cursor envelope,
// not HAL, and honours limit. Its two defects are those of a server with
// several query decoders: one reads a cursor without percent-decoding it,
// another stops at a parameter without a value.
type streamAPI struct {
	rawCursor, stopsAtFlag bool
}

func (s streamAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	switch r.URL.Path {
	case "/":
		w.Write([]byte(`{"links":{"messages":"/messages"}}`))
	case "/messages":
		s.messages(w, r)
	default:
		w.Header().Set("Content-Type", "application/problem+json")
		w.WriteHeader(http.StatusNotFound)
		w.Write([]byte(`{"title":"Not Found","status":404}`))
	}
}

func (s streamAPI) messages(w http.ResponseWriter, r *http.Request) {
	query := r.URL.Query()
	cursor := query.Get("cursor")
	if s.rawCursor {
		cursor = rawParam(r.URL.RawQuery, "cursor", false)
	}
	limit := query.Get("limit")
	if s.stopsAtFlag {
		limit = rawParam(r.URL.RawQuery, "limit", true)
	}
	all := []string{"s:1", "s:2", "s:3"}
	from := 0
	if cursor != "" {
		from = slices.Index(all, cursor)
		if from < 0 && !strings.Contains(cursor, "%") {
			w.Header().Set("Content-Type", "application/problem+json")
			w.WriteHeader(http.StatusBadRequest)
			w.Write([]byte(`{"title":"Bad Request","status":400,"detail":"unknown cursor"}`))
			return
		}
		if from < 0 {
			from = len(all) // an undecoded cursor matches nothing and reads as past the end
		}
	}
	page := all[from:]
	if n, err := strconv.Atoi(limit); err == nil && n >= 0 && n < len(page) {
		page = page[:n]
	}
	items := make([]map[string]string, len(page))
	for i, id := range page {
		items[i] = map[string]string{"id": id}
	}
	body := map[string]any{"items": items, "next_cursor": nil}
	json.NewEncoder(w).Encode(body)
}

// rawParam is a decoder that reads the raw query: it does not percent-decode,
// and with stopAtFlag it gives up at the first parameter without a value.
func rawParam(raw, name string, stopAtFlag bool) string {
	for _, pair := range strings.Split(raw, "&") {
		k, v, hasValue := strings.Cut(pair, "=")
		if !hasValue && stopAtFlag {
			return ""
		}
		if k == name {
			return v
		}
	}
	return ""
}

// TestQueryDecodersThatDisagree: the items/next_cursor collection is probed
// like a HAL one, and each decoder defect is reported once.
func TestQueryDecodersThatDisagree(t *testing.T) {
	t.Parallel()
	clean := mustScan(t, streamAPI{}, scan.Options{})
	if c := checkResult(clean, "problem-json-query-decoding"); c == nil || c.Status != "pass" {
		t.Fatalf("a conformant collection: %+v", c)
	}
	rep := mustScan(t, streamAPI{rawCursor: true, stopsAtFlag: true}, scan.Options{})
	var got []string
	for _, f := range rep.Findings {
		if f.CheckID == "problem-json-query-decoding" {
			u, _ := url.Parse(f.Evidence[0].URL)
			got = append(got, f.Subject+" "+u.RawQuery)
		}
	}
	want := []string{"encoded colon cursor=a%3Ab", "valueless parameter debug&limit=1"}
	if !slices.Equal(got, want) {
		t.Errorf("findings %q, want %q", got, want)
	}
}
