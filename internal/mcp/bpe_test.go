package mcp_test

import (
	"os"
	"strings"
	"testing"

	tiktoken "github.com/pkoukk/tiktoken-go"
	tiktokenloader "github.com/pkoukk/tiktoken-go-loader"

	"github.com/agentready/agentready/internal/mcp"
)

// TestCountTokensAgreesWithTiktoken: the counter loads only what counting
// needs; every count must still be tiktoken's.
func TestCountTokensAgreesWithTiktoken(t *testing.T) {
	tiktoken.SetBpeLoader(tiktokenloader.NewOfflineLoader())
	enc, err := tiktoken.GetEncoding(mcp.Tokenizer)
	if err != nil {
		t.Fatal(err)
	}
	texts := []string{
		"", "a", "hello world", "getOrder(orderId: string) -> Order",
		"I'm sure they'll've DON'T  \t\n\n  trailing   ", "12345678901 3.14159 ١٢٣",
		"naïve café 東京都 こんにちは 🙂👍🏽 Ωμέγα", "\xff\xfe invalid \xc3 utf-8",
		strings.Repeat("zq", 300) + strings.Repeat("!", 50) + strings.Repeat("\u00a0", 20),
		`{"type":"object","properties":{"id":{"type":"integer","minimum":1}},"required":["id"]}`,
	}
	for _, file := range []string{"../../README.md", "../../docs/checks.md"} {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		texts = append(texts, strings.Split(string(b), "\n\n")...)
	}
	for _, s := range texts {
		got, how := mcp.CountTokens(s)
		if want := len(enc.EncodeOrdinary(s)); got != want || how != mcp.Tokenizer {
			t.Errorf("%q: %d tokens by %s, tiktoken counts %d", trim(s), got, how, want)
		}
	}
}

func trim(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}

func BenchmarkLoadCounter(b *testing.B) {
	for b.Loop() {
		mcp.LoadCounterForBench()
	}
}
