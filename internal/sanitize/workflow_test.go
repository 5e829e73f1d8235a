package sanitize

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"unicode"
)

// runnerActsOn mirrors how GitHub's runner picks workflow commands out of a
// line: "::" after leading whitespace, or the legacy "##[" anywhere.
func runnerActsOn(line string) bool {
	return strings.HasPrefix(strings.TrimLeftFunc(line, unicode.IsSpace), "::") || strings.Contains(line, "##[")
}

// filterLines is the output as the runner splits it into lines.
func filterLines(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return r == '\n' || r == '\r' })
}

func filtered(t *testing.T, writes ...string) string {
	t.Helper()
	var b bytes.Buffer
	f := NewWorkflowFilter(&b)
	for _, w := range writes {
		if n, err := f.Write([]byte(w)); err != nil || n != len(w) {
			t.Fatalf("Write(%q) = %d, %v", w, n, err)
		}
	}
	if err := f.Flush(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestWorkflowFilter(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"plain text", "Grade A\n  no findings\n", "Grade A\n  no findings\n"},
		{"command at line start", "::error::pwned\n", "\\::error::pwned\n"},
		{"indenting does not defuse it", "    ::set-output name=x::y\n", "    \\::set-output name=x::y\n"},
		{"tabs and Unicode spaces are trimmed too", "\t\u00a0\u3000::error::x", "\t\u00a0\u3000\\::error::x"},
		{"after a carriage return", "ok\r::error::x", "ok\r\\::error::x"},
		{"on every line", "::a::\n::b::\n", "\\::a::\n\\::b::\n"},
		{"inside a line is harmless", "see ::error:: here", "see ::error:: here"},
		{"one colon is not a command", "  :x: and : :\n", "  :x: and : :\n"},
		{"legacy form anywhere", "title ##[error]pwned ##[set-output name=x;]y", "title ##\\[error]pwned ##\\[set-output name=x;]y"},
		{"legacy form at line start", "##[warning]x", "##\\[warning]x"},
		{"more hashes", "###[x]", "###\\[x]"},
		{"hashes broken by a line end", "##\n[x]", "##\n[x]"},
		{"a fragment is not a command", "/docs#[x] #x[", "/docs#[x] #x["},
		{"colons and hashes together", " ::##[x]", " \\::##\\[x]"},
		{"invalid UTF-8 at line start", "\xff::x", "\xff::x"},
		{"lone colon held until flushed", "  :", "  :"},
		{"whitespace-only tail", "a\n \u00a0", "a\n \u00a0"},
		{"empty", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := filtered(t, tt.in); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
			// Byte by byte, as a streaming writer may be fed.
			if got := filtered(t, strings.Split(tt.in, "")...); got != tt.want {
				t.Errorf("byte by byte: got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestWorkflowFilterHoldsBackOnlyWhatItMust(t *testing.T) {
	var b bytes.Buffer
	f := NewWorkflowFilter(&b)
	// A prompt without a newline must reach the terminal before any input.
	f.Write([]byte("Send these 2 request(s)? [y/N] "))
	if b.String() != "Send these 2 request(s)? [y/N] " {
		t.Fatalf("prompt held back: %q", b.String())
	}
	// Split inside the command, and inside a two-byte space.
	f.Write([]byte("\n  \xc2"))
	f.Write([]byte("\xa0:"))
	f.Write([]byte(":error::x\n"))
	if want := "Send these 2 request(s)? [y/N] \n  \u00a0\\::error::x\n"; b.String() != want {
		t.Fatalf("got %q, want %q", b.String(), want)
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestWorkflowFilterReportsWriteErrors(t *testing.T) {
	if _, err := NewWorkflowFilter(failingWriter{}).Write([]byte("x\n")); err == nil {
		t.Fatal("write error lost")
	}
}

func FuzzWorkflowFilter(f *testing.F) {
	for _, seed := range []string{"", "::error::x", " \t::a", "##[x]", "#\n#[", ":\xc2\xa0:", "\u3000::", "\r::", "a::b"} {
		f.Add(seed, 3)
	}
	f.Fuzz(func(t *testing.T, in string, split int) {
		cut := 0
		if len(in) > 0 {
			cut = (split%len(in) + len(in)) % len(in)
		}
		out := filtered(t, in[:cut], in[cut:])
		for _, line := range filterLines(out) {
			if runnerActsOn(line) {
				t.Fatalf("filter(%q) = %q: the runner acts on %q", in, out, line)
			}
		}
		if whole := filtered(t, in); whole != out {
			t.Fatalf("split at %d changes the output: %q vs %q", cut, out, whole)
		}
		if !strings.Contains(in, "::") && !strings.Contains(in, "##[") && out != in {
			t.Fatalf("harmless %q changed to %q", in, out)
		}
	})
}
