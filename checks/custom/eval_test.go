package custom

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/theory/jsonpath"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/checkstest"
	"github.com/agentready/agentready/internal/config"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
)

// The walker selects what the library selects, the same values at the same
// paths, on queries of every kind of segment, selector and filter.
func TestWalkerSelectsAsTheLibrary(t *testing.T) {
	const text = `{
	  "store": {
	    "book": [
	      {"category": "reference", "author": "Nigel Rees", "title": "Sayings", "price": 8.95},
	      {"category": "fiction", "author": "Evelyn Waugh", "title": "Sword", "price": 12.99, "tags": ["a", "b"]},
	      {"category": "fiction", "author": "Herman Melville", "title": "Moby Dick", "isbn": "0-553", "price": 8.99},
	      {"category": "fiction", "author": "J. R. R. Tolkien", "title": "The Lord", "isbn": "0-395", "price": 22.99}
	    ],
	    "bicycle": {"color": "red", "price": 399, "parts": [[1, 2], {"x": {"x": 3}}]}
	  },
	  "limit": 10, "empty": {}, "nothing": [], "null": null, "a.b": {"c d": true}
	}`
	var doc any
	if err := json.Unmarshal([]byte(text), &doc); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		"$", "$.store", "$.store.book[0].title", "$.store.book[-1]", "$.store.book[9]", "$['a.b']['c d']",
		"$.store.book[*].author", "$.store.*", "$.*.*", "$.store.book[1:3]", "$.store.book[::-1].price",
		"$.store.book[::2]", "$.store.book[-2:]", "$.store.book[3:0:-2]", "$.store.book[0:4:0]", "$.store.book[0,0,-1]",
		"$..author", "$..*", "$..[0]", "$..x", "$..x.x", "$..*..x", "$.store..price", "$..book[2:]",
		"$.store.book[?@.isbn]", "$.store.book[?!@.isbn]", "$.store.book[?@.price < 10]", "$..[?@.price > 10 && @.category == 'fiction']",
		"$..[?@.price < $.limit]", "$..[?@..x]", "$..[?!@..x]", "$.store.book[?(@.price < 9 || @.tags) && !(@.author == 'Nigel Rees')]",
		"$..[?length(@) > 2]", "$..[?count(@.*) == 2]", "$..[?match(@.author, 'J.*')]", "$..[?search(@.title, 'or')]",
		"$..[?value(@..color) == 'red']", "$..[?@ == 3]", "$.store.book[?@.tags[?@ == 'b']]", "$..[?$..color]",
		"$.store.bicycle.parts[*][*]", "$..parts..*", "$..[?@.*]", "$.empty.*", "$.nothing[*]", "$.null[*]",
	} {
		p, err := jsonpath.Parse(q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		var want []string
		for _, n := range p.SelectLocated(doc) {
			want = append(want, n.Path.String())
		}
		w := newWalker(context.Background(), doc, countValues(doc, 1<<20), 1<<20)
		var got []string
		for _, n := range w.selectAll(compileQuery(p), doc) {
			got = append(got, normalized(n.path))
		}
		if w.stopped {
			t.Errorf("%s: stopped after %d values", q, w.used)
		}
		slices.Sort(want)
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("%s:\n got %q\nwant %q", q, got, want)
		}
	}
}

// The budget is exact: a query runs whole with the visits it takes, and
// one less stops it, at that count.
func TestWalkerStopsAtItsBudget(t *testing.T) {
	doc := map[string]any{"a": []any{1.0, 2.0, map[string]any{"b": 3.0}}, "c": "d"}
	q := compileQuery(jsonpath.MustParse("$..*"))
	whole := newWalker(context.Background(), doc, 6, 1<<20)
	all := whole.selectAll(q, doc)
	if whole.stopped || len(all) != 6 {
		t.Fatalf("whole: %d values, stopped %v", len(all), whole.stopped)
	}
	exact := newWalker(context.Background(), doc, 6, whole.used)
	if got := exact.selectAll(q, doc); exact.stopped || len(got) != 6 {
		t.Errorf("with the budget it used (%d): %d values, stopped %v", whole.used, len(got), exact.stopped)
	}
	short := newWalker(context.Background(), doc, 6, whole.used-1)
	if short.selectAll(q, doc); !short.stopped || short.used != whole.used-1 {
		t.Errorf("with one less: stopped %v after %d", short.stopped, short.used)
	}
}

func TestCostOf(t *testing.T) {
	for _, c := range []struct {
		expr     string
		power    int
		absolute bool
	}{
		{`@["price"] < 10`, 0, false},
		{`@["a"][0] == $["limit"]`, 0, true},
		{`match(@["name"], "a..*?:$")`, 0, false},
		{`count(@[*]) > 1`, 1, false},
		{`count(@..[*]) > 1`, 2, false},
		{`value($..["x"]) == 1`, 1, true},
		{`@ == 3`, 1, false},
		{`length(@) > 'it''s @ ..'`, 1, false},
	} {
		power, absolute := costOf(c.expr)
		if power != c.power || absolute != c.absolute {
			t.Errorf("costOf(%s) = %d, %v; want %d, %v", c.expr, power, absolute, c.power, c.absolute)
		}
	}
}

// A rule's budget for the scan spans its documents: once spent, the
// documents left are not read, and the rule says how many.
func TestScanBudgetSpansDocuments(t *testing.T) {
	f, err := config.Parse([]byte("rules:\n  r:\n    target: exchange\n    given: \"$..*\"\n    then: {function: defined}\n"))
	if err != nil {
		t.Fatal(err)
	}
	cs, err := Checks(f.Rules)
	if err != nil {
		t.Fatal(err)
	}
	rule := cs[0].(*Rule)
	var pages []*exchange.Exchange
	for i := range 5 {
		pages = append(pages, checkstest.Exchange(exchange.PurposeCrawl, "GET", fmt.Sprintf("http://api.test/p%d", i)).Status(200).
			Header("Content-Type", "application/json").Body(`{"a":[1,2,3,{"b":[4,5,6]}]}`).Build())
	}
	in := checkstest.Input("http://api.test/", nil, pages...)
	whole, _ := checks.Evaluate(context.Background(), in, cs)
	if whole[0].Status != finding.StatusPass {
		t.Fatalf("within the default budget: %s %s", whole[0].Status, whole[0].Reason)
	}
	// Two pages and part of a third.
	rule.scanBudget = 100
	res, _ := checks.Evaluate(context.Background(), checkstest.Input("http://api.test/", nil, pages...), cs)
	want := "the rule's budget for the scan (100 values visited) ran out on GET /p2 (200), and 2 more of 5 exchange values were not evaluated, and found no violation in what it evaluated: it cannot pass on what it did not judge"
	if res[0].Status != finding.StatusError || res[0].Reason != want {
		t.Errorf("got %s %q\nwant error %q", res[0].Status, res[0].Reason, want)
	}
}
