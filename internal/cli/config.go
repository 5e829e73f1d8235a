package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/builtin"
	"github.com/agentready/agentready/checks/custom"
	"github.com/agentready/agentready/internal/config"
	"github.com/agentready/agentready/internal/pipeline"
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
	// origin says how the file was chosen (see locateConfig).
	origin string
	// custom are the checks the file's rules compile to.
	custom []checks.Check
}

// How the configuration file was chosen. A file found above the working
// directory may belong to someone else (a shared checkout, a home or /tmp
// directory), so it is the one origin not trusted to start processes or to
// decide where the user's credentials are sent.
const (
	originFlag   = "named with --config"
	originEnv    = "named by " + envPrefix + "CONFIG"
	originHere   = "found in the working directory"
	originParent = "found in a parent directory"
)

// trustConfig is the flag that lets a file found in a parent directory
// start processes and send credentials.
const trustConfig = "trust-config"

// registerTrustConfig adds --trust-config to a command that reads the file.
// Its value is read where the file is applied (applyFile), before the
// command runs.
func registerTrustConfig(fs *pflag.FlagSet) {
	fs.Bool(trustConfig, false, "trust a "+config.FileName+" found in a parent directory to start the app (start:) and send credentials (identities:, or to its target:); without it such a file is refused")
}

// credentialFlags send the user's credentials to the target.
var credentialFlags = []string{"header", "header-for", "oauth-for"}

// withConfig adds --config and the step that, before any command that
// scans, fills every flag not given on the command line from its
// AGENTREADY_* variable, else from the file. Flags > environment > file >
// defaults, by one rule for every flag.
func withConfig(root *cobra.Command, e *env) {
	var path string
	root.PersistentFlags().StringVar(&path, "config", "", "configuration file (default: "+config.FileName+" in the working directory or a parent; AGENTREADY_CONFIG)")
	root.PersistentPreRunE = func(cmd *cobra.Command, args []string) error {
		if cmd.Flags().Lookup("fail-on") == nil && cmd.Annotations[usesConfig] == "" {
			return nil
		}
		found, origin, err := locateConfig(path, e)
		if err != nil {
			return err
		}
		if found != "" {
			// Always, -q or not: the file can change what the run does.
			fmt.Fprintf(e.stderr, "agentready: using config %s (%s)\n", absPath(found), origin)
		}
		lc, err := loadConfig(found)
		if err != nil {
			return err
		}
		lc.origin = origin
		if err := applyEnv(cmd.Flags(), e); err != nil {
			return err
		}
		if err := applyFile(cmd.Flags(), lc); err != nil {
			return err
		}
		lc.target = e.get(envPrefix + "TARGET")
		if lc.target == "" {
			lc.target = lc.file.Target
			if len(args) == 0 {
				if err := lc.checkCredentialTarget(cmd.Flags()); err != nil {
					return err
				}
			}
		}
		e.config = lc
		return nil
	}
}

// locateConfig returns the file named with --config or AGENTREADY_CONFIG,
// else the one found from the working directory upwards (or ""), and how it
// was chosen.
func locateConfig(flagPath string, e *env) (path, origin string, err error) {
	if flagPath != "" {
		return flagPath, originFlag, nil
	}
	if p := e.get(envPrefix + "CONFIG"); p != "" {
		return p, originEnv, nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", "", usageError("%v", err)
	}
	if path, err = config.Find(wd); err != nil {
		return "", "", usageError("looking for %s: %v", config.FileName, err)
	}
	origin = originHere
	if path != "" && filepath.Dir(path) != filepath.Clean(wd) {
		origin = originParent
	}
	return path, origin, nil
}

func absPath(p string) string {
	if abs, err := filepath.Abs(p); err == nil {
		return abs
	}
	return p
}

// loadConfig reads the file at path, if any, and validates it against this
// build's checks.
func loadConfig(path string) (*loadedConfig, error) {
	f := &config.File{}
	if path != "" {
		var err error
		if f, err = config.LoadChecked(path, knownNames()); err != nil {
			return nil, usageError("configuration: %v", err)
		}
	}
	cs, rulesErr := custom.Checks(f.Rules)
	if err := errors.Join(f.Validate(knownNames()), rulesErr); err != nil {
		where := "configuration"
		if path != "" {
			where = path
		}
		return nil, usageError("%s:\n%v", where, indent(err.Error()))
	}
	return &loadedConfig{file: f, custom: cs}, nil
}

// customChecks are the checks of the configuration's rules, none without one.
func (e *env) customChecks() []checks.Check {
	if e.config == nil {
		return nil
	}
	return e.config.custom
}

// registry is every built-in check and the configuration's rules.
func (e *env) registry() (*checks.Registry, error) {
	return checks.NewRegistry(append(builtin.All(), e.customChecks()...)...)
}

// knownNames lists this build's check IDs and families.
func knownNames() config.Known { return namesOf(builtin.All()) }

// namesOf lists the checks' IDs, with the former IDs of renamed checks,
// which a configuration may still name, and the families.
func namesOf(cs []checks.Check) config.Known {
	var k config.Known
	for _, c := range cs {
		k.Checks = append(k.Checks, c.Meta().ID)
		k.Checks = append(k.Checks, c.Meta().Aliases...)
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
// be visible in the command that runs them, never inherited from a shell;
// so must trusting a file found in a parent directory to start the app.
var commandLineOnly = map[string]bool{"active": true, "yes": true, "trial": true, "trial-reset": true, trustConfig: true}

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
func applyFile(fs *pflag.FlagSet, lc *loadedConfig) error {
	f := lc.file
	for _, s := range f.Settings() {
		fl := fs.Lookup(s.Flag)
		if fl == nil || fl.Changed {
			continue
		}
		if s.Runs && !lc.trusted(fs) {
			return lc.untrusted(s.Key, "start processes")
		}
		for _, v := range s.Values {
			if err := fs.Set(s.Flag, v); err != nil {
				return usageError("%s: %s: %v", f.Path, s.Key, err)
			}
		}
	}
	if keys := f.SecretKeys(); len(keys) > 0 && sendsCredentials(fs) && !lc.trusted(fs) {
		return lc.untrusted(keys[0], "send credentials from your environment")
	}
	return nil
}

// checkCredentialTarget refuses to send the command line's credentials to a
// target named by an untrusted file: the file would choose who gets them.
func (lc *loadedConfig) checkCredentialTarget(fs *pflag.FlagSet) error {
	if (lc.file.Target == "" && len(lc.file.Targets) == 0) || lc.trusted(fs) {
		return nil
	}
	key := "target"
	if len(lc.file.Targets) > 0 {
		key = "targets"
	}
	for _, name := range credentialFlags {
		if fl := fs.Lookup(name); fl != nil && fl.Changed {
			return lc.untrusted(key, "choose where the credentials of --"+name+" are sent (or give the URL on the command line)")
		}
	}
	return nil
}

// sendsCredentials reports whether a command can send credentials at all;
// the file's identities mean nothing to the others.
func sendsCredentials(fs *pflag.FlagSet) bool {
	for _, name := range credentialFlags {
		if fs.Lookup(name) != nil {
			return true
		}
	}
	return false
}

// trusted reports whether the file's guarded keys (runs:"true",
// secrets:"true") apply: the user chose the file, or trusted it on the
// command line.
func (lc *loadedConfig) trusted(fs *pflag.FlagSet) bool {
	if lc.origin != originParent {
		return true
	}
	trusted, err := fs.GetBool(trustConfig)
	return err == nil && trusted
}

// untrusted is the error for a guarded key of a file found in a parent
// directory: it names the file and both ways to accept it.
func (lc *loadedConfig) untrusted(key, what string) error {
	p := absPath(lc.file.Path)
	return usageError("%s sets %s, but it was %s, and such a file may not %s: name it with --config %s, or pass --%s",
		p, key, originParent, what, p, trustConfig)
}

// policy is the scan policy of the configuration, or nil without one.
func (lc *loadedConfig) policy() (*pipeline.Policy, error) {
	if lc == nil || lc.file == nil {
		return nil, nil
	}
	p, err := pipeline.PolicyFromConfig(lc.file)
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
		Example: `  agentready config check
  agentready config schema > agentready-config.schema.json`,
	}
	cmd.AddCommand(&cobra.Command{
		Use:     "schema",
		Short:   "Print the JSON Schema of " + config.FileName + " (for editors)",
		Example: "  agentready config schema > agentready-config.schema.json",
		Args:    cobra.NoArgs,
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
		Example:     "  agentready config check\n  agentready --config ci/.agentready.yaml config check",
		Args:        cobra.NoArgs,
		Annotations: map[string]string{usesConfig: "true"},
		RunE: func(cmd *cobra.Command, _ []string) error {
			f := e.config.file
			if f.Path == "" {
				fmt.Fprintf(e.stdout, "no %s found; the defaults apply\n", config.FileName)
				return nil
			}
			fmt.Fprintf(e.stdout, "%s is valid\n", f.Path)
			scanFlags := newScanCmd(e).Flags()
			for _, s := range f.Settings() {
				fmt.Fprintf(e.stdout, "  %-24s %s\n", s.Key, commandLineForm(scanFlags, s))
			}
			for _, t := range f.Targets {
				fmt.Fprintf(e.stdout, "  %-24s %s\n", "target "+t.NameOf(), shownURL(t.URL))
			}
			fmt.Fprintf(e.stdout, "  %d severity override(s), %d family setting(s), %d ignore(s), %d identit(ies), %d rule(s)\n",
				len(f.Checks), len(f.Families), len(f.Ignores), len(f.Identities), len(f.Rules))
			return nil
		},
	})
	return cmd
}

// commandLineForm is how a setting is given on the command line: its flag,
// or, for the target, the URL argument, which no flag stands for.
func commandLineForm(scanFlags *pflag.FlagSet, s config.Setting) string {
	value := strings.Join(s.Values, ",")
	if scanFlags.Lookup(s.Flag) == nil {
		return "the URL argument: " + value
	}
	return "--" + s.Flag + "=" + value
}

func indent(s string) string {
	return "  " + strings.ReplaceAll(s, "\n", "\n  ")
}
