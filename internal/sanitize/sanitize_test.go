package sanitize

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func TestTerminal(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"plain", "hello, world", "hello, world"},
		{"keeps newline and tab", "a\nb\tc", "a\nb\tc"},
		{"unicode", "café → ✓ 日本", "café → ✓ 日本"},
		{"OSC title with BEL", "a\x1b]0;pwned\x07b", "ab"},
		{"OSC with ST", "a\x1b]8;;https://evil.example/\x1b\\link\x1b]8;;\x1b\\b", "alinkb"},
		{"CSI clear screen", "a\x1b[2J\x1b[Hb", "ab"},
		{"CSI color", "\x1b[1;31mred\x1b[0m", "red"},
		{"unterminated CSI", "a\x1b[12;", "a"},
		{"unterminated OSC", "a\x1b]0;title", "a"},
		{"DCS", "a\x1bPq#0;2;0;0;0\x1b\\b", "ab"},
		{"two-byte escape", "a\x1bcb", "ab"},
		{"lone ESC at end", "a\x1b", "a"},
		{"ESC before a multibyte rune keeps the rune", "a\x1bé", "aé"},
		{"C0 controls", "a\x00b\x07c\x08d\re\x7f", "abcde"},
		{"C1 controls", "a\u0085b\u009bc\u009dd", "abcd"},
		{"raw C1 bytes are invalid UTF-8", "a\x9b31m", "a\uFFFD31m"},
		{"invalid UTF-8", "a\xff\xfeb", "a\uFFFD\uFFFDb"},
		{"bidi override", "admin\u202egnp.exe", "admingnp.exe"},
		{"bidi isolates and marks", "a\u2066b\u2069c\u200ed\u200f", "abcd"},
		// Invisible characters would let a hostile app hide text, or split
		// an echoed credential so that only what is printed reads as it.
		{"zero-width and word joiners", "a\u200bb\u200cc\u200dd\u2060e\ufefff", "abcdef"},
		{"soft hyphen and tag characters", "a\u00adb\U000E0041\U000E007Fc", "abc"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Terminal(tt.in); got != tt.want {
				t.Errorf("Terminal(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestLine(t *testing.T) {
	tests := []struct{ in, want string }{
		{"a\nb\tc\r\nd", "a b c d"},
		{"one line", "one line"},
		{"\x1b[2Ja\n\x1b]0;x\x07b", "a b"},
	}
	for _, tt := range tests {
		if got := Line(tt.in); got != tt.want {
			t.Errorf("Line(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestTruncate(t *testing.T) {
	tests := []struct {
		in   string
		max  int
		want string
	}{
		{"short", 10, "short"},
		{"exactly", 7, "exactly"},
		{"abcdef", 3, "abc…"},
		{"日本語", 4, "日…"},
		{"日本語", 2, "…"},
		{"anything", 0, "anything"},
		{"anything", -1, "anything"},
	}
	for _, tt := range tests {
		if got := Truncate(tt.in, tt.max); got != tt.want {
			t.Errorf("Truncate(%q, %d) = %q, want %q", tt.in, tt.max, got, tt.want)
		}
	}
}

func TestExcerpt(t *testing.T) {
	tests := []struct {
		name string
		body []byte
		max  int
		want string
	}{
		{"folds whitespace", []byte("<h1>\n  Not   Found\n</h1>"), 100, "<h1> Not Found </h1>"},
		{"strips escapes", []byte("a\x1b[2J b"), 100, "a b"},
		{"bounded", []byte(strings.Repeat("x", 50)), 10, "xxxxxxxxxx…"},
		{"cut mid-rune leaves no replacement", []byte(strings.Repeat("é", 100)), 5, "éé…"},
		{"zero max", []byte("body"), 0, ""},
		{"negative max", []byte("body"), -3, ""},
		{"empty", nil, 10, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Excerpt(tt.body, tt.max); got != tt.want {
				t.Errorf("Excerpt = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestHugeInput(t *testing.T) {
	in := strings.Repeat("A\x1b]0;x\x07\x1b[31m\u009b\xff", 100<<10/12)
	out := Terminal(in)
	if strings.ContainsRune(out, 0x1b) || !utf8.ValidString(out) {
		t.Fatal("huge hostile input was not cleaned")
	}
	if got := strings.Count(out, "A"); got != 100<<10/12 {
		t.Errorf("kept %d of %d letters", got, 100<<10/12)
	}
}

// assertSafe is the contract of Terminal: nothing that a terminal would act
// on survives.
func assertSafe(t *testing.T, in, out string) {
	t.Helper()
	if !utf8.ValidString(out) {
		t.Fatalf("Terminal(%q) = %q: invalid UTF-8", in, out)
	}
	for _, r := range out {
		if r == '\n' || r == '\t' {
			continue
		}
		if r < 0x20 || r >= 0x7f && r <= 0x9f || unicode.Is(unicode.Cf, r) {
			t.Fatalf("Terminal(%q) = %q: kept %U", in, out, r)
		}
	}
}

func FuzzTerminal(f *testing.F) {
	for _, seed := range []string{
		"", "plain", "\x1b]0;pwned\x07", "\x1b[2J", "\x1bP\x1b\\", "\u009b1m", "\xff\xfe",
		"\u202e", "a\x1b", "\x1b[", "\x1b]", "\x1bé", "\r\n\t", "日本\x1b[1m語",
	} {
		f.Add(seed, 8)
	}
	f.Fuzz(func(t *testing.T, in string, limit int) {
		out := Terminal(in)
		assertSafe(t, in, out)
		if again := Terminal(out); again != out {
			t.Fatalf("Terminal is not idempotent on %q: %q then %q", in, out, again)
		}
		if len(out) > 3*len(in) {
			// Each input byte becomes at most one U+FFFD.
			t.Fatalf("Terminal(%q) grew to %d bytes", in, len(out))
		}

		line := Line(in)
		assertSafe(t, in, line)
		if strings.ContainsAny(line, "\n\t\r") {
			t.Fatalf("Line(%q) = %q: not one line", in, line)
		}

		limit %= 1 << 12
		if tr := Truncate(out, limit); limit > 0 && len(tr) > limit+len("…") {
			t.Fatalf("Truncate(%q, %d) = %d bytes", out, limit, len(tr))
		} else if !utf8.ValidString(tr) {
			t.Fatalf("Truncate(%q, %d) = %q: invalid UTF-8", out, limit, tr)
		}

		ex := Excerpt([]byte(in), limit)
		assertSafe(t, in, ex)
		if len(ex) > max(0, limit)+len("…") || strings.ContainsAny(ex, "\n\t") {
			t.Fatalf("Excerpt(%q, %d) = %q", in, limit, ex)
		}
	})
}
