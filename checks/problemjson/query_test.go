package problemjson_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/checkstest"
	"github.com/agentready/agentready/checks/internal/conneg"
	"github.com/agentready/agentready/checks/problemjson"
	"github.com/agentready/agentready/internal/exchange"
)

const collection = base + "/messages"

// reply is an answer to one of the query probes.
type reply struct {
	status int
	body   string
}

func page(n int) reply {
	items := make([]string, n)
	for i := range items {
		items[i] = `{"id":"m:` + string(rune('1'+i)) + `"}`
	}
	return reply{200, `{"data":[` + strings.Join(items, ",") + `],"next_cursor":"m:9"}`}
}

var badCursor = reply{400, `{"title":"Bad Request","status":400}`}

// decoding answers a conformant collection of three items that honours
// limit and refuses a cursor it cannot read.
func decoding() map[string]reply {
	return map[string]reply{
		problemjson.PurposeColonCursor:      badCursor,
		problemjson.PurposePlainColonCursor: badCursor,
		problemjson.PurposeValuelessFlag:    page(1),
		problemjson.PurposeLimitOnly:        page(1),
	}
}

var probeURLs = map[string]string{
	problemjson.PurposeColonCursor:      collection + "?cursor=a%3Ab",
	problemjson.PurposePlainColonCursor: collection + "?cursor=a:b",
	problemjson.PurposeValuelessFlag:    collection + "?debug&limit=1",
	problemjson.PurposeLimitOnly:        collection + "?limit=1",
}

// queryInput records the collection and the answers, each sent again as a
// stable server answers it, except where replies names a repeat
// (conneg.RepeatPurpose) with another answer.
func queryInput(replies map[string]reply) *checks.Input {
	return recordQueries(replies, 1+conneg.Repeats)
}

// recordQueries records each answer with its sends up to the last.
func recordQueries(replies map[string]reply, last int) *checks.Input {
	crawl := page(3)
	xs := []*exchange.Exchange{
		checkstest.Exchange(exchange.PurposeCrawl, http.MethodGet, collection).Status(200).
			Header("Content-Type", "application/json").Body(crawl.body).Build(),
	}
	for purpose, u := range probeURLs {
		r, ok := replies[purpose]
		if !ok {
			continue
		}
		x := queryExchange(purpose, u, r)
		xs = append(xs, x)
		for n := 2; n <= last; n++ {
			if other, ok := replies[conneg.RepeatPurpose(purpose, n)]; ok {
				xs = append(xs, queryExchange(conneg.RepeatPurpose(purpose, n), u, other))
				continue
			}
			xs = append(xs, checkstest.Resent(x, n))
		}
	}
	return checkstest.Input(base+"/", []string{collection}, xs...)
}

func queryExchange(purpose, u string, r reply) *exchange.Exchange {
	ctype := "application/json"
	if r.status >= 400 {
		ctype = prob
	}
	return checkstest.Exchange(purpose, http.MethodGet, u).BasedOn(collection).Status(r.status).
		Header("Content-Type", ctype).Body(r.body).Build()
}

func TestQueryDecoding(t *testing.T) {
	tests := []struct {
		what   string
		mutate func(map[string]reply)
		want   []string // subjects of the findings
	}{
		{"conformant", func(map[string]reply) {}, nil},
		{"an encoded colon gives an empty page", func(r map[string]reply) { r[problemjson.PurposeColonCursor] = page(0) }, []string{"encoded colon"}},
		{"an encoded colon gives other items", func(r map[string]reply) {
			r[problemjson.PurposeColonCursor], r[problemjson.PurposePlainColonCursor] = page(0), page(2)
		}, []string{"encoded colon"}},
		{"both spellings ignored alike", func(r map[string]reply) {
			r[problemjson.PurposeColonCursor], r[problemjson.PurposePlainColonCursor] = page(3), page(3)
		}, nil},
		{"a valueless flag drops limit", func(r map[string]reply) { r[problemjson.PurposeValuelessFlag] = page(3) }, []string{"valueless parameter"}},
		{"a valueless flag refused", func(r map[string]reply) { r[problemjson.PurposeValuelessFlag] = badCursor }, []string{"valueless parameter"}},
		{"limit not honoured at all: nothing to compare", func(r map[string]reply) {
			r[problemjson.PurposeValuelessFlag], r[problemjson.PurposeLimitOnly] = page(3), page(3)
		}, nil},
		{"limit refused: nothing to compare", func(r map[string]reply) {
			r[problemjson.PurposeValuelessFlag], r[problemjson.PurposeLimitOnly] = badCursor, badCursor
		}, nil},
		{"a 500 is server-error's to report", func(r map[string]reply) {
			r[problemjson.PurposeColonCursor] = reply{500, `{"title":"Internal Server Error","status":500}`}
		}, nil},
		{"a difference that does not hold on a repeat", func(r map[string]reply) {
			r[problemjson.PurposeColonCursor] = page(0)
			r[conneg.RepeatPurpose(problemjson.PurposeColonCursor, 3)] = badCursor
		}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.what, func(t *testing.T) {
			replies := decoding()
			tt.mutate(replies)
			fs, _ := checkstest.Run(t, problemjson.QueryDecoding{}, queryInput(replies))
			var got []string
			for _, f := range fs {
				got = append(got, f.Subject)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("findings %q, want %q", got, tt.want)
			}
		})
	}
}

// TestQueryDifferenceNeverRepeatedIsNotJudged: when the budget ended before
// the follow-up round, one draw cannot tell a defect from a failure at random.
func TestQueryDifferenceNeverRepeatedIsNotJudged(t *testing.T) {
	replies := decoding()
	replies[problemjson.PurposeColonCursor] = page(0)
	if fs, _ := checkstest.Run(t, problemjson.QueryDecoding{}, recordQueries(replies, 1)); len(fs) != 0 {
		t.Errorf("findings = %+v", fs)
	}
}

func TestQueryDecodingMessage(t *testing.T) {
	replies := decoding()
	replies[problemjson.PurposeColonCursor] = page(0)
	fs, _ := checkstest.Run(t, problemjson.QueryDecoding{}, queryInput(replies))
	want := "GET /messages?cursor=a%3Ab answered 200 with 0 items, but GET /messages?cursor=a:b answered 400; a:b and a%3Ab are the same value once percent-decoded"
	if len(fs) != 1 || fs[0].Message != want || len(fs[0].Evidence) != 2 {
		t.Fatalf("findings = %+v", fs)
	}
}

func TestQueryDecodingSkipsWithoutCollections(t *testing.T) {
	if _, reason := checkstest.Run(t, problemjson.QueryDecoding{}, input()); reason == "" {
		t.Error("ran without a collection")
	}
}

func TestQueryRepeatsArePlannedForDifferences(t *testing.T) {
	replies := decoding()
	replies[problemjson.PurposeColonCursor] = page(0)
	in := queryInput(replies)
	var first []*exchange.Exchange
	for _, x := range in.Recording.Exchanges {
		if x.Purpose != exchange.PurposeCrawl && !conneg.IsRepeat(x.Purpose) {
			first = append(first, x)
		}
	}
	got := problemjson.QueryDecoding{}.PlanFollowUp(&checks.PlanInput{Samples: in.Samples, Probes: first})
	var lines []string
	for _, p := range got {
		lines = append(lines, p.Purpose+" "+p.URL)
	}
	want := []string{
		"problem-json/colon-cursor#2 " + collection + "?cursor=a%3Ab", "problem-json/colon-cursor#3 " + collection + "?cursor=a%3Ab",
		"problem-json/plain-colon-cursor#2 " + collection + "?cursor=a:b", "problem-json/plain-colon-cursor#3 " + collection + "?cursor=a:b",
	}
	if !slices.Equal(lines, want) {
		t.Errorf("follow-up %q, want %q", lines, want)
	}
}
