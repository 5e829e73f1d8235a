package rubric

import (
	"regexp"
	"strings"
	"testing"
)

// foldWords keeps what the pattern [^a-z0-9]+ left of the lowered text,
// which it replaced because it ran on every operation of a document.
func TestFoldWordsKeepsWhatThePatternKept(t *testing.T) {
	nonAlnum := regexp.MustCompile(`[^a-z0-9]+`)
	for _, s := range []string{
		"", "Get an order", "get_order-by ID (v2)!", "/orders/{orderId}/items", "GET /orders/{id}",
		"Crème brûlée 42", "\u212Aelvin", "\u0130stanbul", "ÅNGSTRÖM", "日本語 API", "a\xffb\xc3", "ǅ Dž ǆ",
	} {
		if got, want := foldWords(s), nonAlnum.ReplaceAllString(strings.ToLower(s), ""); got != want {
			t.Errorf("foldWords(%q) = %q, want %q", s, got, want)
		}
	}
}

func FuzzFoldWords(f *testing.F) {
	nonAlnum := regexp.MustCompile(`[^a-z0-9]+`)
	f.Add("List the orders")
	f.Add("\u212A\u0130\xff")
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := foldWords(s), nonAlnum.ReplaceAllString(strings.ToLower(s), ""); got != want {
			t.Errorf("foldWords(%q) = %q, want %q", s, got, want)
		}
	})
}
