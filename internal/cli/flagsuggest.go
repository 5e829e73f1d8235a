package cli

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/agentready/agentready/internal/config"
	"github.com/agentready/agentready/internal/textdist"
)

// pflag's wording of an unknown flag: "unknown flag: --name" and
// "unknown shorthand flag: 'x' in -xyz".
var (
	unknownLongFlag  = regexp.MustCompile(`^unknown flag: --([^\s=]+)`)
	unknownShortFlag = regexp.MustCompile(`^unknown shorthand flag: '.' in -([^\s=]+)`)
)

// maxFlagTypo is the most edits a suggested flag may be from the one
// typed: cobra's bound for a mistyped command. The configuration's rule
// alone (half the name) would take --frobnicate for --format.
const maxFlagTypo = 2

// suggestFlag is the commands' flag error function: cobra suggests a
// mistyped command but not a mistyped flag, so this names the command's
// flag closest to it, by the "did you mean" rule of the configuration's
// keys within maxFlagTypo edits. A long flag given with one dash
// (-max-pages) is named with two.
func suggestFlag(cmd *cobra.Command, err error) error {
	var names []string
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if !f.Hidden {
			names = append(names, f.Name)
		}
	})
	typed := ""
	if m := unknownLongFlag.FindStringSubmatch(err.Error()); m != nil {
		typed = m[1]
	} else if m := unknownShortFlag.FindStringSubmatch(err.Error()); m != nil && len(m[1]) > 1 {
		typed = m[1]
	}
	if typed == "" {
		return err
	}
	near := config.Suggest(typed, names)
	if near == "" || textdist.Distance(strings.ToLower(strings.ReplaceAll(typed, "_", "-")), near, maxFlagTypo) > maxFlagTypo {
		return err
	}
	return fmt.Errorf("%w (did you mean --%s?)", err, near)
}
