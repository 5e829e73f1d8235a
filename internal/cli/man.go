package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// newManCmd writes a man page per command, generated from the command tree
// so that the pages say what --help says. It is hidden: packagers run it at
// release time, users read the pages with man.
func newManCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:     "man DIR",
		Short:   "Write a man page for every command into DIR",
		Example: "  agentready man /usr/local/share/man/man1",
		Hidden:  true,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := args[0]
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return usageError("%v", err)
			}
			n := 0
			for _, c := range manCommands(cmd.Root()) {
				path := filepath.Join(dir, manName(c)+".1")
				if err := os.WriteFile(path, []byte(manPage(c)), 0o644); err != nil {
					return &ExitError{Code: ExitIncomplete, Err: err}
				}
				n++
			}
			_, err := fmt.Fprintf(e.stdout, "wrote %d man pages to %s\n", n, dir)
			return err
		},
	}
}

// manCommands are the commands a user meets: the root and every command
// below it that is not hidden, cobra's help and completion included.
func manCommands(root *cobra.Command) []*cobra.Command {
	var out []*cobra.Command
	var walk func(*cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Hidden || (c != root && !c.IsAvailableCommand() && c.Name() != "help") {
			return
		}
		out = append(out, c)
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	return out
}

// manName is the page's name: agentready-report-convert for "agentready
// report convert".
func manName(c *cobra.Command) string {
	return strings.ReplaceAll(c.CommandPath(), " ", "-")
}

// manPage renders c as a roff man page of section 1. It carries no date,
// so that the same build writes the same pages.
func manPage(c *cobra.Command) string {
	var b strings.Builder
	name := manName(c)
	fmt.Fprintf(&b, ".TH %q 1 \"\" \"agentready\" \"agentready manual\"\n", strings.ToUpper(name))
	b.WriteString(".SH NAME\n")
	fmt.Fprintf(&b, "%s \\- %s\n", roff(name), roff(c.Short))
	b.WriteString(".SH SYNOPSIS\n")
	fmt.Fprintf(&b, "\\fB%s\\fP\n", roff(c.UseLine()))
	b.WriteString(".SH DESCRIPTION\n")
	writeText(&b, strings.TrimSpace(c.Long), c.Short)
	writeFlags(&b, "OPTIONS", c.NonInheritedFlags())
	writeFlags(&b, "OPTIONS INHERITED FROM PARENT COMMANDS", c.InheritedFlags())
	if ex := strings.TrimRight(c.Example, "\n"); ex != "" {
		b.WriteString(".SH EXAMPLES\n.PP\n.RS\n.nf\n")
		for _, line := range strings.Split(ex, "\n") {
			b.WriteString(roffLine(strings.TrimPrefix(line, "  ")) + "\n")
		}
		b.WriteString(".fi\n.RE\n")
	}
	var see []string
	if p := c.Parent(); p != nil {
		see = append(see, "\\fB"+roff(manName(p))+"\\fP(1)")
	}
	for _, sub := range c.Commands() {
		if sub.IsAvailableCommand() {
			see = append(see, "\\fB"+roff(manName(sub))+"\\fP(1)")
		}
	}
	if len(see) > 0 {
		b.WriteString(".SH SEE ALSO\n" + strings.Join(see, ", ") + "\n")
	}
	return b.String()
}

// writeText writes paragraphs, keeping indented lines (lists, exit codes)
// as they are.
func writeText(b *strings.Builder, text, fallback string) {
	if text == "" {
		text = fallback
	}
	for _, para := range strings.Split(text, "\n\n") {
		b.WriteString(".PP\n")
		if strings.HasPrefix(para, " ") || strings.Contains(para, "\n ") {
			b.WriteString(".nf\n")
			for _, line := range strings.Split(para, "\n") {
				b.WriteString(roffLine(line) + "\n")
			}
			b.WriteString(".fi\n")
			continue
		}
		b.WriteString(roffLine(strings.Join(strings.Fields(para), " ")) + "\n")
	}
}

func writeFlags(b *strings.Builder, title string, fs *pflag.FlagSet) {
	if !fs.HasAvailableFlags() {
		return
	}
	b.WriteString(".SH " + title + "\n")
	fs.VisitAll(func(f *pflag.Flag) {
		if f.Hidden {
			return
		}
		b.WriteString(".TP\n")
		names := "\\fB\\-\\-" + roff(f.Name) + "\\fP"
		if f.Shorthand != "" {
			names = "\\fB\\-" + roff(f.Shorthand) + "\\fP, " + names
		}
		if varName, _ := pflag.UnquoteUsage(f); varName != "" {
			names += " \\fI" + roff(varName) + "\\fP"
		}
		b.WriteString(names + "\n")
		usage := f.Usage
		if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "[]" && f.DefValue != "0" {
			usage += " (default " + f.DefValue + ")"
		}
		b.WriteString(roffLine(usage) + "\n")
	})
}

// roff escapes the backslashes and hyphens of text for roff.
func roff(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\e`), "-", `\-`)
}

// roffLine is roff(s), made safe as a whole line: a line that starts with a
// period or an apostrophe would be read as a request.
func roffLine(s string) string {
	s = roff(s)
	if strings.HasPrefix(s, ".") || strings.HasPrefix(s, "'") {
		s = `\&` + s
	}
	return s
}
