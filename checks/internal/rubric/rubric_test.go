package rubric_test

import (
	"slices"
	"testing"

	"github.com/agentready/agentready/checks/internal/rubric"
)

func TestJudgeFindsEachItemWhereItIsSaid(t *testing.T) {
	for _, tc := range []struct {
		text string
		item rubric.Item
		want string // the evidence; "" when the item must not be found
	}{
		{"Pay order: POST /orders/{id}/payment. Allowed while the resource is pending.", rubric.Preconditions, "Allowed while"},
		{"Requires an open session.", rubric.Preconditions, "Requires"},
		{"Call login first, then this.", rubric.Preconditions, "Call login first"},
		{"Refund an order that has not shipped yet.", rubric.Preconditions, "that has"},
		{"Returns the order.", rubric.Preconditions, ""},
		{"Deletes the file.", rubric.SideEffects, "Deletes"},
		{"The weather in Paris.", rubric.SideEffects, ""},
		{"Refused with 409 Conflict when the order has shipped.", rubric.ErrorSemantics, "Refused"},
		{"Answers 409 Conflict when the order has shipped.", rubric.ErrorSemantics, "409 Conflict"},
		{"Returns up to 500 results.", rubric.ErrorSemantics, ""},
		{"Returns up to 500 results.", rubric.Limitations, "up to"},
		{"Returns the matching orders.", rubric.Limitations, ""},
		{"Filter expression, e.g. state:paid.", rubric.Examples, "e.g."},
		{"Filter with `state:paid AND total>10`.", rubric.Examples, "`state:paid AND total>10`"},
		{"Filter expression.", rubric.Examples, ""},
	} {
		j := rubric.Judge(tc.text, rubric.Context{})
		if got := j.Evidence(tc.item); got != tc.want {
			t.Errorf("%s in %q: evidence %q, want %q", tc.item, tc.text, got, tc.want)
		}
		if m := j.Mark(tc.item); m.Found && tc.text[m.Span.Start:m.Span.End] != tc.want {
			t.Errorf("%s in %q: span %v does not hold the evidence", tc.item, tc.text, m.Span)
		}
	}
}

func TestPurposeIsMoreThanTheName(t *testing.T) {
	for _, tc := range []struct {
		text, want string
	}{
		{"", ""},
		{"   ", ""},
		{"get_order", ""},
		{"Get order.", ""},
		{"  Get one order by its id. Refused when unknown.", "Get one order by its id."},
		{"Lists orders\nby state", "Lists orders\n"},
	} {
		j := rubric.Judge(tc.text, rubric.Context{Names: []string{"get_order", "Get order"}})
		if got := j.Evidence(rubric.Purpose); got != tc.want {
			t.Errorf("purpose of %q: %q, want %q", tc.text, got, tc.want)
		}
	}
}

// The context decides what is asked: a read-only operation is never asked
// for preconditions or side effects, and examples only where a value has a
// format the schema leaves open.
func TestMissingListsOnlyWhatTheContextAsks(t *testing.T) {
	const text = "Shows the weather."
	for _, tc := range []struct {
		ctx  rubric.Context
		want []rubric.Item
	}{
		{rubric.Context{}, nil},
		{rubric.Context{StateChanging: true}, []rubric.Item{rubric.Preconditions}},
		{rubric.Context{CanFail: true, Bounded: true, Formatted: true},
			[]rubric.Item{rubric.ErrorSemantics, rubric.Limitations, rubric.Examples}},
	} {
		if got := rubric.Judge(text, tc.ctx).Missing(); !slices.Equal(got, tc.want) {
			t.Errorf("%+v: missing %v, want %v", tc.ctx, got, tc.want)
		}
	}
	if got := rubric.Judge("", rubric.Context{}).Missing(); !slices.Equal(got, []rubric.Item{rubric.Purpose}) {
		t.Errorf("empty text: missing %v, want purpose", got)
	}
}

func TestTokensAreCountedAndBudgeted(t *testing.T) {
	j := rubric.Judge("Lists the orders of one customer.", rubric.Context{})
	if j.Tokens < 5 || j.Tokens > 12 || j.Tokenizer == "" {
		t.Fatalf("tokens %d by %q", j.Tokens, j.Tokenizer)
	}
	if j.OverBudget(j.Tokens) || !j.OverBudget(j.Tokens-1) {
		t.Errorf("a budget of exactly %d tokens must hold the text, one less must not", j.Tokens)
	}
}
