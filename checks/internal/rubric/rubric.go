// Package rubric judges a description an agent plans from (an MCP tool's
// description, an OpenAPI operation's summary and description) against the
// planning rubric: does it say the operation's purpose, its preconditions,
// its side effects, its error semantics, its limitations, and give an
// example; and how many tokens does it cost. Each item is a different
// decision a client takes (when to consider the call, which states make it
// meaningful, what else changes, whether to stop, wait, refresh or try
// something else), so each is found, or missed, on its own.
//
// The judgement is lexical and deliberately modest: an item is present when
// the text uses one of the phrasings by which descriptions state it, and the
// evidence is where. It cannot tell a true statement from a false one, and
// asks only what the context says applies (Context), so that a read-only
// operation is never asked for side effects it does not have.
package rubric

import (
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/agentready/agentready/internal/mcp"
)

// Item is one thing the rubric asks a description to say.
type Item string

// The rubric's items, in the order Judge reports them.
const (
	// Purpose: when the operation should be considered at all. Missing
	// when the text is empty or only repeats the operation's name.
	Purpose Item = "purpose"
	// Preconditions: which states of the resource make the call meaningful.
	Preconditions Item = "preconditions"
	// SideEffects: what the call reads or changes. Any verb of reading or
	// changing counts, so that only a description that names no action at
	// all misses it.
	SideEffects Item = "side-effects"
	// ErrorSemantics: what a failure means and what to do about it.
	ErrorSemantics Item = "error-semantics"
	// Limitations: what the operation will not do or return (bounds,
	// pagination, what is unsupported).
	Limitations Item = "limitations"
	// Examples: a sample value or call.
	Examples Item = "examples"
)

// Items lists the rubric's items in the order Judge reports them.
var Items = []Item{Purpose, Preconditions, SideEffects, ErrorSemantics, Limitations, Examples}

// Context is what is known of the operation besides its description; it
// decides which items are asked, so that the rubric says less when unsure.
type Context struct {
	// Names are the operation's name and title: a text that only repeats
	// one of them states no purpose.
	Names []string
	// StateChanging is set when the operation may change state: only then
	// are preconditions and side effects asked.
	StateChanging bool
	// CanFail is set when the operation declares errors, or acts on a
	// resource that may be missing or in the wrong state: only then is
	// error semantics asked.
	CanFail bool
	// Bounded is set when the operation returns a collection: only then are
	// limitations asked.
	Bounded bool
	// Formatted is set when an input takes a value of a format the schema
	// does not constrain (a filter expression, a comma-separated list):
	// only then is an example asked.
	Formatted bool
}

// Span locates evidence in the judged text, in bytes: text[Start:End].
type Span struct{ Start, End int }

// Mark is the rubric's verdict on one item.
type Mark struct {
	Item Item
	// Asked says whether the context makes the item expected.
	Asked bool
	// Found says whether the text states it; Span is where, when it does.
	Found bool
	Span  Span
}

// Judgement is the rubric applied to one description.
type Judgement struct {
	Text  string
	Marks []Mark // one per item, in the order of Items
	// Tokens is the text's length in tokens, counted by Tokenizer (the
	// one the MCP catalog's cost is counted with).
	Tokens    int
	Tokenizer string
}

// Judge applies the rubric to text.
func Judge(text string, c Context) Judgement {
	j := Judgement{Text: text, Marks: make([]Mark, 0, len(Items))}
	for _, it := range Items {
		m := Mark{Item: it, Asked: asked(it, c)}
		if it == Purpose {
			m.Span, m.Found = purpose(text, c.Names)
		} else {
			m.Span, m.Found = Find(text, it)
		}
		j.Marks = append(j.Marks, m)
	}
	j.Tokens, j.Tokenizer = Tokens(text)
	return j
}

// Mark returns the verdict on item it.
func (j Judgement) Mark(it Item) Mark {
	for _, m := range j.Marks {
		if m.Item == it {
			return m
		}
	}
	return Mark{Item: it}
}

// Missing lists the items the context asks and the text does not state.
func (j Judgement) Missing() []Item {
	var out []Item
	for _, m := range j.Marks {
		if m.Asked && !m.Found {
			out = append(out, m.Item)
		}
	}
	return out
}

// Evidence is the text the mark found, or "" when it found none.
func (j Judgement) Evidence(it Item) string {
	m := j.Mark(it)
	if !m.Found {
		return ""
	}
	return j.Text[m.Span.Start:m.Span.End]
}

// OverBudget reports whether the text costs more than budget tokens.
func (j Judgement) OverBudget(budget int) bool { return j.Tokens > budget }

func asked(it Item, c Context) bool {
	switch it {
	case Preconditions, SideEffects:
		return c.StateChanging
	case ErrorSemantics:
		return c.CanFail
	case Limitations:
		return c.Bounded
	case Examples:
		return c.Formatted
	}
	return true
}

// Tokens counts the tokens of text and names how they were counted.
func Tokens(text string) (int, string) { return mcp.CountTokens(text) }

// Find reports where text states item it (any item but Purpose, which needs
// the operation's names: use Judge or Restates).
func Find(text string, it Item) (Span, bool) {
	re := phrasings[it]
	if re == nil {
		return Span{}, false
	}
	loc := re.FindStringIndex(text)
	if loc == nil {
		return Span{}, false
	}
	return Span{loc[0], loc[1]}, true
}

// Restates reports whether text, ignoring case, spaces and punctuation, only
// repeats one of names: a description that says nothing the name did not.
func Restates(text string, names ...string) bool {
	t := foldWords(text)
	for _, n := range names {
		if n != "" && t == foldWords(n) {
			return true
		}
	}
	return false
}

// purpose finds the first sentence of a text that is more than a name.
func purpose(text string, names []string) (Span, bool) {
	start := len(text) - len(strings.TrimLeft(text, " \t\r\n"))
	trimmed := strings.TrimSpace(text)
	if trimmed == "" || Restates(trimmed, names...) {
		return Span{}, false
	}
	end := start + len(trimmed)
	if i := sentenceEnd.FindStringIndex(text[start:end]); i != nil {
		end = start + i[0] + 1
	}
	return Span{start, end}, true
}

var sentenceEnd = regexp.MustCompile(`[.!?](\s|$)|\n`)

// foldWords keeps of s, lowered, its ASCII letters and digits: what is left
// of a text once case, spaces and punctuation are ignored. It runs on every
// operation's summary and description, so it filters bytes rather than
// matching a pattern; a byte below 0x80 is never part of a longer UTF-8
// sequence, so keeping those bytes keeps exactly the characters a-z and 0-9.
// Only a text with other characters is lowered first, because lowering some
// of them gives an ASCII letter (the Kelvin sign gives k).
func foldWords(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			s = strings.ToLower(s)
			break
		}
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case 'a' <= c && c <= 'z', '0' <= c && c <= '9':
			b.WriteByte(c)
		case 'A' <= c && c <= 'Z':
			b.WriteByte(c + 'a' - 'A')
		}
	}
	return b.String()
}

// phrasings are the wordings by which descriptions state each item. They
// are lists of common phrasings, not a grammar: a match is evidence enough
// for advice, and a miss is reported only where the context asks the item.
var phrasings = map[Item]*regexp.Regexp{
	// Deliberately wide: any verb of reading or changing, so that the miss
	// is only the description that names no action at all.
	SideEffects: regexp.MustCompile(`(?i)\b(read|reads|get|gets|list|lists|find|finds|fetch|fetches|retrieve|retrieves|return|returns|search|searches|show|shows|look\s*up|looks\s+up|query|queries|count|counts|check|checks|validate|validates|read-only|no\s+side\s+effects?|` +
		`create|creates|add|adds|insert|inserts|update|updates|modify|modifies|change|changes|set|sets|edit|edits|write|writes|save|saves|store|stores|delete|deletes|remove|removes|cancel|cancels|refund|refunds|pay|pays|charge|charges|send|sends|submit|submits|post|posts|publish|publishes|upload|uploads|move|moves|archive|archives|ship|ships|confirm|confirms|approve|approves|reject|rejects|toggle|toggles|enable|enables|disable|disables|start|starts|stop|stops|run|runs|execute|executes|trigger|triggers|export|exports|import|imports|compress|compresses|generate|generates)\b`),
	Preconditions:  regexp.MustCompile(`(?i)\b(requires?|only\s+(if|when|while|after|before|once|for)|allowed\s+(only\s+)?(while|when|if|after|before|once|for)|must\s+(be|have|already|first|exist)|unless|before\s+(calling|using)|call\s+\S+\s+first|first\s+call|prerequisites?|preconditions?|provided\s+that|as\s+long\s+as|(that|which)\s+(is|are|has|have|was|were)|not\s+yet|(in|from)\s+(the|any|every)\s+(state|status))\b`),
	ErrorSemantics: regexp.MustCompile(`(?i)\b(errors?|fails?|failed|failure|refused?|refuses|rejected|retry|retries|retried|conflicts?|not\s+found|throttled|rate[-\s]limit(ed|s)?|(status|HTTP)\s+[45][0-9]{2}|[45][0-9]{2}\s+(?-i:[A-Z][a-z]+))\b`),
	Limitations:    regexp.MustCompile(`(?i)\b(at\s+most|up\s+to|maximum|no\s+more\s+than|limits?|limited|paginated|pages?|per\s+page|cursor|truncated|capped|only\s+(returns?|the\s+first|supports?)|does\s+not\s+(return|support|include)|cannot|not\s+supported)\b`),
	Examples:       regexp.MustCompile("(?i)(\\be\\.g\\.|\\bfor\\s+(example|instance)\\b|\\bexamples?\\s*:|\\bsuch\\s+as\\b|`[^`\\n]+`)"),
}
