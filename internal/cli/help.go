package cli

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
	"github.com/spf13/cobra"
)

// helpColumns is the width of every help text: a terminal's default, which
// help must fit without the reader widening the window.
const helpColumns = 80

func init() {
	cobra.AddTemplateFunc("fitHelp", fitHelp)
}

// helpTemplate and usageTemplate are cobra's, with the text fitted to
// helpColumns and the flags' descriptions wrapped beside their names.
const helpTemplate = `{{with (or .Long .Short)}}{{. | fitHelp | trimTrailingWhitespaces}}

{{end}}{{if or .Runnable .HasSubCommands}}{{.UsageString}}{{end}}`

const usageTemplate = `Usage:{{if .Runnable}}
  {{.UseLine}}{{end}}{{if .HasAvailableSubCommands}}
  {{.CommandPath}} [command]{{end}}{{if gt (len .Aliases) 0}}

Aliases:
  {{.NameAndAliases}}{{end}}{{if .HasExample}}

Examples:
{{.Example | fitHelp}}{{end}}{{if .HasAvailableSubCommands}}

Available Commands:{{range .Commands}}{{if (or .IsAvailableCommand (eq .Name "help"))}}
  {{rpad .Name .NamePadding }} {{.Short}}{{end}}{{end}}{{end}}{{if .HasAvailableLocalFlags}}

{{localFlagSections .}}{{end}}{{if .HasAvailableInheritedFlags}}

Global Flags:
{{.InheritedFlags.FlagUsagesWrapped 80 | trimTrailingWhitespaces}}{{end}}{{if .HasAvailableSubCommands}}

Use "{{.CommandPath}} [command] --help" for more about a command.{{end}}
`

// fitHelp wraps, at spaces, the lines of s wider than helpColumns, each
// continuation indented like its line. The commands' own texts are written
// to fit; this catches what cobra adds (the completion commands' help).
func fitHelp(s string) string {
	lines := strings.Split(s, "\n")
	for i, line := range lines {
		lines[i] = fitLine(line)
	}
	return strings.Join(lines, "\n")
}

// fitLine wraps one line with ansi.Wordwrap, which measures the columns a
// line shows and never cuts a word: a URL wider than a line stays whole.
func fitLine(line string) string {
	// A tab indents cobra's commands by 8 columns; 2, as everywhere else in
	// help, leave them whole.
	body := strings.TrimLeft(line, "\t")
	line = strings.Repeat("  ", len(line)-len(body)) + body
	if ansi.StringWidth(line) <= helpColumns {
		return line
	}
	text := strings.TrimLeft(line, " ")
	indent := line[:len(line)-len(text)]
	wrapped := strings.Split(ansi.Wordwrap(text, helpColumns-len(indent), ""), "\n")
	for i, l := range wrapped {
		wrapped[i] = indent + strings.TrimRight(l, " ")
	}
	return strings.Join(wrapped, "\n")
}

// completeTree adds cobra's help and completion commands now rather than
// when the root runs, so that they get examples like every other command.
// The root writes to e's streams first: the completion commands keep the
// writer they were made with.
func completeTree(root *cobra.Command, e *env) {
	root.SetOut(e.stdout)
	root.SetErr(e.stderr)
	root.SetHelpTemplate(helpTemplate)
	root.SetUsageTemplate(usageTemplate)
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	examples := map[string]string{
		"help":                  "  agentready help scan",
		"completion":            "  agentready completion bash > /etc/bash_completion.d/agentready",
		"completion bash":       "  source <(agentready completion bash)",
		"completion zsh":        "  agentready completion zsh > \"${fpath[1]}/_agentready\"",
		"completion fish":       "  agentready completion fish > ~/.config/fish/completions/agentready.fish",
		"completion powershell": "  agentready completion powershell | Out-String | Invoke-Expression",
	}
	for _, c := range root.Commands() {
		for _, sub := range append([]*cobra.Command{c}, c.Commands()...) {
			name := strings.TrimPrefix(sub.CommandPath(), root.Name()+" ")
			if ex, ok := examples[name]; ok && sub.Example == "" {
				sub.Example = ex
			}
		}
	}
}
