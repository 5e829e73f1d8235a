package cli

import (
	"io"

	"github.com/spf13/pflag"
)

// The values of --color.
const (
	colorAuto   = "auto"
	colorAlways = "always"
	colorNever  = "never"
)

// colorFlags decide whether the terminal report is coloured: --color, and
// --no-color, its older spelling, which workflows and the Action still
// give.
type colorFlags struct {
	mode    string
	noColor bool
}

func (c *colorFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&c.mode, "color", colorAuto, "colour the text report: auto (on a terminal, unless NO_COLOR is set; FORCE_COLOR or CLICOLOR_FORCE force it), always or never")
	fs.BoolVar(&c.noColor, "no-color", false, "the same as --color never")
}

// enabled says whether a text report written to w is coloured. auto
// colours a terminal; NO_COLOR, set to anything, turns that off, and then
// FORCE_COLOR or CLICOLOR_FORCE, set to anything but 0, turn it on
// elsewhere: a user's "no" wins over a tool's "force". The flags win over
// every variable.
func (c *colorFlags) enabled(e *env, w io.Writer) (bool, error) {
	mode := c.mode
	if c.noColor {
		if mode != colorAuto && mode != colorNever {
			return false, usageError("--no-color and --color %s contradict each other", mode)
		}
		mode = colorNever
	}
	switch mode {
	case colorAlways:
		return true, nil
	case colorNever:
		return false, nil
	case colorAuto:
		if e.get("NO_COLOR") != "" {
			return false, nil
		}
		if forced(e.get("FORCE_COLOR")) || forced(e.get("CLICOLOR_FORCE")) {
			return true, nil
		}
		return isTerminal(w), nil
	}
	return false, usageError("--color %q: want auto, always or never", c.mode)
}

// forced reads FORCE_COLOR and CLICOLOR_FORCE as their conventions do: set
// and not 0.
func forced(v string) bool { return v != "" && v != "0" }
