package cli

import (
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/builtin"
	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/scan"
)

// envPrefix names the environment variables that stand in for flags:
// --max-pages is AGENTREADY_MAX_PAGES.
const envPrefix = "AGENTREADY_"

// usesConfig marks commands that read the configuration file even though
// they have no --fail-on flag.
const usesConfig = "agentready/uses-config"

// loadedConfig is the configuration of this run, once validated.
type loadedConfig struct {
	file *config.File
	// target is the URL from AGENTREADY_TARGET or the file, or "".
	target string
}

// withConfig adds --config and the step that, before any command that
// scans, fills every flag not given on the command line from its
// AGENTREADY_* variable, else from the file. Flags > environment > file >
// defaults, by one rule for every flag.
func withConfig(root *cobra.Command, e *env) {
	var path string
	root.PersistentFlags().StringVar(&path, "config", "", "configuration file (default: "+config.FileName+" in the working directory or a parent; AGENTREADY_CONFIG)")
	root.PersistentPreRunE = func(cmd *cobra.Command, _ []string) error {
		if cmd.Flags().Lookup("fail-on") == nil && cmd.Annotations[usesConfig] == "" {
			return nil
		}
		if path == "" {
			path = e.get(envPrefix + "CONFIG")
		}
		lc, err := loadConfig(path)
		if err != nil {
			return err
		}
		if err := applyEnv(cmd.Flags(), e); err != nil {
			return err
		}
		if err := applyFile(cmd.Flags(), lc.file); err != nil {
			return err
		}
		lc.target = e.get(envPrefix + "TARGET")
		if lc.target == "" {
			lc.target = lc.file.Target
		}
		e.config = lc
		return nil
	}
}

// loadConfig reads the named file, or the one found from the working
// directory, and validates it against this build's checks.
func loadConfig(path string) (*loadedConfig, error) {
	if path == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, usageError("%v", err)
		}
		if path, err = config.Find(wd); err != nil {
			return nil, usageError("looking for %s: %v", config.FileName, err)
		}
	}
	f := &config.File{}
	if path != "" {
		var err error
		if f, err = config.Load(path); err != nil {
			return nil, usageError("configuration: %v", err)
		}
	}
	if err := f.Validate(knownNames()); err != nil {
		where := "configuration"
		if path != "" {
			where = path
		}
		return nil, usageError("%s:\n%v", where, indent(err.Error()))
	}
	return &loadedConfig{file: f}, nil
}

// knownNames lists this build's check IDs and families.
func knownNames() config.Known {
	var k config.Known
	for _, c := range builtin.All() {
		k.Checks = append(k.Checks, c.Meta().ID)
	}
	k.Families = checks.FamilyNames()
	sort.Strings(k.Checks)
	return k
}

// envName is the variable that stands in for a flag.
func envName(flag string) string {
	return envPrefix + strings.ToUpper(strings.ReplaceAll(flag, "-", "_"))
}

// commandLineOnly are the flags no environment variable stands in for:
// turning on state-changing requests, or skipping their confirmation, must
// be visible in the command that runs them, never inherited from a shell.
var commandLineOnly = map[string]bool{"active": true, "yes": true}

// applyEnv sets every flag not given on the command line whose variable is
// set. A repeatable flag takes one value from its variable.
func applyEnv(fs *pflag.FlagSet, e *env) error {
	var err error
	fs.VisitAll(func(f *pflag.Flag) {
		if err != nil || f.Changed || f.Name == "config" || f.Name == "help" || commandLineOnly[f.Name] {
			return
		}
		name := envName(f.Name)
		v, ok := e.vars[name]
		if !ok || v == "" {
			return
		}
		if serr := fs.Set(f.Name, v); serr != nil {
			err = usageError("%s=%q: %v", name, v, serr)
		}
	})
	return err
}

// applyFile sets every flag still unset from the file. Keys whose flag this
// command does not have (start: on demo) do not apply to it.
func applyFile(fs *pflag.FlagSet, f *config.File) error {
	for _, s := range f.Settings() {
		fl := fs.Lookup(s.Flag)
		if fl == nil || fl.Changed {
			continue
		}
		for _, v := range s.Values {
			if err := fs.Set(s.Flag, v); err != nil {
				return usageError("%s: %s: %v", f.Path, s.Key, err)
			}
		}
	}
	return nil
}

// policy is the scan policy of the configuration, or nil without one.
func (lc *loadedConfig) policy() (*scan.Policy, error) {
	if lc == nil || lc.file == nil {
		return nil, nil
	}
	p, err := scan.PolicyFromConfig(lc.file)
	if err != nil {
		return nil, usageError("%v", err)
	}
	return p, nil
}

// targetArg picks the target: the argument, else AGENTREADY_TARGET, else the
// configuration file.
func targetArg(e *env, args []string) (string, error) {
	if len(args) > 0 {
		return args[0], nil
	}
	if e.config != nil && e.config.target != "" {
		return e.config.target, nil
	}
	return "", usageError("no target: give a URL, set %sTARGET, or put target: in %s", envPrefix, config.FileName)
}

func newConfigCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "config",
		Short: "Check the configuration file, or print its JSON Schema",
	}
	cmd.AddCommand(&cobra.Command{
		Use:   "schema",
		Short: "Print the JSON Schema of " + config.FileName + " (for editors)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			b, err := config.Schema(knownNames())
			if err != nil {
				return err
			}
			_, err = e.stdout.Write(b)
			return err
		},
	})
	cmd.AddCommand(&cobra.Command{
		Use:         "check",
		Short:       "Validate the configuration file and print the settings it gives",
		Args:        cobra.NoArgs,
		Annotations: map[string]string{usesConfig: "true"},
		RunE: func(cmd *cobra.Command, _ []string) error {
			f := e.config.file
			if f.Path == "" {
				fmt.Fprintf(e.stdout, "no %s found; the defaults apply\n", config.FileName)
				return nil
			}
			fmt.Fprintf(e.stdout, "%s is valid\n", f.Path)
			for _, s := range f.Settings() {
				fmt.Fprintf(e.stdout, "  %-24s --%s=%s\n", s.Key, s.Flag, strings.Join(s.Values, ","))
			}
			fmt.Fprintf(e.stdout, "  %d severity override(s), %d family setting(s), %d ignore(s), %d identit(ies)\n",
				len(f.Checks), len(f.Families), len(f.Ignores), len(f.Identities))
			return nil
		},
	})
	return cmd
}

func indent(s string) string {
	return "  " + strings.ReplaceAll(s, "\n", "\n  ")
}
