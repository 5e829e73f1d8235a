package mcp

import (
	"bytes"
	"encoding/base64"
	"errors"
	"hash/maphash"
	"math"
	"strings"

	"github.com/dlclark/regexp2"
	"github.com/pkoukk/tiktoken-go-loader/assets"
)

// o200kPattern splits text into the pieces o200k_base encodes one by one,
// as OpenAI's tiktoken defines it.
var o200kPattern = strings.Join([]string{
	`[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?`,
	`[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?`,
	`\p{N}{1,3}`,
	` ?[^\s\p{L}\p{N}]+[\r\n/]*`,
	`\s*[\r\n]+`,
	`\s+(?!\S)`,
	`\s+`,
}, "|")

// counter counts o200k_base tokens. It only counts, so it needs the ranks
// alone: no decoder, no sorted token list. Loading it is one pass over the
// embedded rank file into a flat hash table over one buffer of tokens, a
// tenth of what building a full encoder costs: the first MCP catalog of a
// scan waits for it.
type counter struct {
	ranks   *rankTable
	pattern *regexp2.Regexp
}

func loadCounter() (*counter, error) {
	file, err := assets.Assets.ReadFile(Tokenizer + ".tiktoken")
	if err != nil {
		return nil, err
	}
	ranks, err := parseRanks(file)
	if err != nil {
		return nil, err
	}
	pattern, err := regexp2.Compile(o200kPattern, regexp2.None)
	if err != nil {
		return nil, err
	}
	return &counter{ranks: ranks, pattern: pattern}, nil
}

// parseRanks reads lines of "base64-token rank".
func parseRanks(file []byte) (*rankTable, error) {
	lines := bytes.Count(file, []byte("\n")) + 1
	buf := make([]byte, 0, base64.StdEncoding.DecodedLen(len(file)))
	entries := make([]rankEntry, 0, lines)
	for len(file) > 0 {
		line, rest, _ := bytes.Cut(file, []byte("\n"))
		file = rest
		if len(line) == 0 {
			continue
		}
		token, rank, ok := bytes.Cut(line, []byte(" "))
		if !ok {
			return nil, errors.New("a rank line without a rank")
		}
		start := len(buf)
		buf = buf[:start+base64.StdEncoding.DecodedLen(len(token))]
		n, err := base64.StdEncoding.Decode(buf[start:], token)
		if err != nil {
			return nil, err
		}
		buf = buf[:start+n]
		r, err := atoi(rank)
		if err != nil {
			return nil, err
		}
		entries = append(entries, rankEntry{uint32(start), uint32(len(buf)), r})
	}
	return newRankTable(string(buf), entries), nil
}

type rankEntry struct{ start, end, rank uint32 }

// rankTable maps token bytes to ranks with open addressing: slots hold
// entry indexes plus one, so filling it allocates two flat slices and no
// string per token.
type rankTable struct {
	tokens  string
	entries []rankEntry
	slots   []uint32
	seed    maphash.Seed
}

func newRankTable(tokens string, entries []rankEntry) *rankTable {
	size := 1
	for size < 2*len(entries) {
		size <<= 1
	}
	t := &rankTable{tokens: tokens, entries: entries, slots: make([]uint32, size), seed: maphash.MakeSeed()}
	// Tokens are distinct, so filling needs no comparison: each takes the
	// first free slot.
	mask := uint64(size - 1)
	for i, e := range entries {
		j := maphash.String(t.seed, tokens[e.start:e.end]) & mask
		for t.slots[j] != 0 {
			j = (j + 1) & mask
		}
		t.slots[j] = uint32(i + 1)
	}
	return t
}

// slot is where key is, or the empty slot where it would go.
func (t *rankTable) slot(key string) uint64 {
	mask := uint64(len(t.slots) - 1)
	for j := maphash.String(t.seed, key) & mask; ; j = (j + 1) & mask {
		k := t.slots[j]
		if k == 0 {
			return j
		}
		if e := t.entries[k-1]; t.tokens[e.start:e.end] == key {
			return j
		}
	}
}

func (t *rankTable) rank(key string) (int, bool) {
	k := t.slots[t.slot(key)]
	if k == 0 {
		return 0, false
	}
	return int(t.entries[k-1].rank), true
}

func atoi(b []byte) (uint32, error) {
	if len(b) == 0 || len(b) > 9 {
		return 0, errors.New("a rank out of range")
	}
	var n uint32
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, errors.New("a rank that is not a number")
		}
		n = n*10 + uint32(c-'0')
	}
	return n, nil
}

// count is len(EncodeOrdinary(text)) of tiktoken: each piece the pattern
// matches is one token when it is one, else as many as its byte pairs merge
// into. Matches are in runes, as the pattern engine reports them.
func (c *counter) count(text string) int {
	runes := []rune(text)
	n := 0
	m, _ := c.pattern.FindRunesMatch(runes)
	for m != nil {
		piece := string(runes[m.Index : m.Index+m.Length])
		if _, ok := c.ranks.rank(piece); ok || len(piece) == 1 {
			n++
		} else {
			n += c.mergedParts(piece)
		}
		m, _ = c.pattern.FindNextMatch(m)
	}
	return n
}

// mergedParts merges the lowest-ranked adjacent pair until none is a
// token, and returns how many parts remain: the byte-pair merge of
// tiktoken.
func (c *counter) mergedParts(piece string) int {
	type part struct{ start, rank int }
	parts := make([]part, len(piece)+1)
	for i := range parts {
		parts[i] = part{i, math.MaxInt}
	}
	rank := func(i, skip int) int {
		if i+skip+2 < len(parts) {
			if r, ok := c.ranks.rank(piece[parts[i].start:parts[i+skip+2].start]); ok {
				return r
			}
		}
		return math.MaxInt
	}
	for i := 0; i < len(parts)-2; i++ {
		parts[i].rank = rank(i, 0)
	}
	for len(parts) > 1 {
		minRank, i := math.MaxInt, -1
		for j := 0; j < len(parts)-1; j++ {
			if parts[j].rank < minRank {
				minRank, i = parts[j].rank, j
			}
		}
		if i < 0 {
			break
		}
		parts[i].rank = rank(i, 1)
		if i > 0 {
			parts[i-1].rank = rank(i-1, 1)
		}
		parts = append(parts[:i+1], parts[i+2:]...)
	}
	return len(parts) - 1
}
