package cli

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// allCommands walks the command tree as a user meets it, cobra's own help
// and completion commands included.
func allCommands() []*cobra.Command {
	root := newRoot(&env{vars: map[string]string{}})
	var out []*cobra.Command
	var walk func(*cobra.Command)
	walk = func(c *cobra.Command) {
		out = append(out, c)
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	return out
}

// TestEveryHelpFitsAndHasExamples runs --help on every command and wants
// each line within helpColumns columns and an Examples section.
func TestEveryHelpFitsAndHasExamples(t *testing.T) {
	for _, c := range allCommands() {
		path := strings.Fields(c.CommandPath())[1:]
		t.Run(strings.Join(append([]string{"agentready"}, path...), " "), func(t *testing.T) {
			r := run(t, append(path, "--help")...)
			if r.code != ExitOK {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			for i, line := range strings.Split(r.stdout, "\n") {
				// A tab's width is the terminal's to choose: help has none.
				if !utf8.ValidString(line) || strings.Contains(line, "\t") || ansi.StringWidth(line) > helpColumns {
					t.Errorf("line %d is %d columns wide, or holds a tab:\n%s", i+1, ansi.StringWidth(line), line)
				}
			}
			if c.Example == "" || !strings.Contains(r.stdout, "\nExamples:\n") {
				t.Errorf("no Examples section:\n%s", r.stdout)
			}
		})
	}
}

// TestExamplesParse: every example names a real command with flags it has.
func TestExamplesParse(t *testing.T) {
	for _, c := range allCommands() {
		joined := strings.ReplaceAll(c.Example, "\\\n", " ")
		for _, line := range strings.Split(joined, "\n") {
			words := shellWords(strings.TrimSpace(line))
			if len(words) == 0 || words[0] != "agentready" {
				continue
			}
			root := newRoot(&env{vars: map[string]string{}})
			cmd, rest, err := root.Find(words[1:])
			if err == nil {
				err = cmd.ParseFlags(rest)
			}
			if err != nil {
				t.Errorf("%s: example %q: %v", c.CommandPath(), line, err)
			}
		}
	}
}

// shellWords splits a command line at spaces outside quotes, and stops at a
// redirection or a pipe.
func shellWords(line string) []string {
	var words []string
	var cur strings.Builder
	var quote rune
	inWord := false
	for _, r := range line {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(r)
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case (r == '>' || r == '|') && !inWord:
			return words
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words
}

func TestFitHelpWrapsOnlyWideLines(t *testing.T) {
	wide := "  " + strings.Repeat("word ", 20)
	got := fitHelp("short line\n" + wide + "\n\tindented")
	lines := strings.Split(got, "\n")
	if lines[0] != "short line" || lines[len(lines)-1] != "  indented" {
		t.Errorf("narrow lines changed:\n%s", got)
	}
	for _, l := range lines[1 : len(lines)-1] {
		if ansi.StringWidth(l) > helpColumns || !strings.HasPrefix(l, "  word") {
			t.Errorf("wrapped line %q: over %d columns or lost its indent", l, helpColumns)
		}
	}
	if len(lines) != 4 {
		t.Errorf("%d lines, want the wide one in two:\n%s", len(lines), got)
	}
}

// TestNoFlagHelpStopsMidSentence: a flag's description does not end on a
// word that leaves the sentence open, as --oauth-for's once ended on "must
// be".
func TestNoFlagHelpStopsMidSentence(t *testing.T) {
	open := map[string]bool{"a": true, "an": true, "and": true, "be": true, "by": true, "for": true, "is": true,
		"must": true, "of": true, "or": true, "the": true, "to": true, "with": true}
	for _, c := range allCommands() {
		c.Flags().VisitAll(func(f *pflag.Flag) {
			words := strings.Fields(f.Usage)
			if len(words) == 0 || open[strings.ToLower(words[len(words)-1])] {
				t.Errorf("%s --%s: the description stops mid-sentence: %q", c.CommandPath(), f.Name, f.Usage)
			}
		})
	}
}

// TestScanHelpIsGrouped: scan --help lists its flags under the groups'
// headings, each flag once, and only --help and --trust-config under
// "Other flags"; every flag a group names is a flag of a crawling command.
func TestScanHelpIsGrouped(t *testing.T) {
	r := run(t, "scan", "--help")
	if r.code != ExitOK {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	for _, g := range flagGroups {
		if !strings.Contains(r.stdout, "\n"+g.title+":\n") {
			t.Errorf("scan --help has no %q section", g.title)
		}
	}
	other := r.stdout[strings.Index(r.stdout, "\n"+otherFlags+":\n"):]
	other = other[:strings.Index(other, "\nGlobal Flags:")]
	for _, line := range strings.Split(other, "\n") {
		if f := strings.Fields(line); len(f) > 0 && strings.HasPrefix(f[0], "-") && !strings.Contains(line, "--help") && !strings.Contains(line, "--trust-config") {
			t.Errorf("ungrouped flag in scan --help: %s", line)
		}
	}
	known := map[string]bool{}
	for _, c := range allCommands() {
		if c.Flags().Lookup("max-pages") != nil {
			c.Flags().VisitAll(func(f *pflag.Flag) { known[f.Name] = true })
		}
	}
	seen := map[string]bool{}
	for _, g := range flagGroups {
		for _, name := range g.flags {
			if !known[name] || seen[name] {
				t.Errorf("group %q names --%s, which no crawling command has or another group names", g.title, name)
			}
			seen[name] = true
		}
	}
}
