package cli

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"os"
	"sort"
	"strings"

	"github.com/spf13/pflag"
	"golang.org/x/term"

	"github.com/agentready/agentready/checks/builtin"
	"github.com/agentready/agentready/internal/config"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/sanitize"
	"github.com/agentready/agentready/internal/scan"
)

// activeFlags opt in to active probes: the only requests that may change
// state on the target. Every safeguard is here, before anything is sent:
// an allow-list is required, CI needs the configuration's consent, and the
// exact requests are shown and confirmed.
type activeFlags struct {
	on    bool
	allow []string
	yes   bool
}

func (f *activeFlags) register(fs *pflag.FlagSet) {
	fs.BoolVar(&f.on, "active", false, "also send active probes: state-changing requests, only to what --active-allow names, shown and confirmed first (see README: Active probes)")
	fs.StringArrayVar(&f.allow, "active-allow", nil, "operation active probes may send: 'METHOD /path' (* matches one segment) or an operationId (repeatable; default: active.allow in .agentready.yaml)")
	fs.BoolVar(&f.yes, "yes", false, "send the active probes without asking (they are still printed on stderr)")
}

// ErrActiveDeclined is returned when the user answers no at the prompt.
var errActiveDeclined = usageError("active probes declined: nothing state-changing was sent; run without --active for a passive scan")

// options validates the flags against the configuration and the
// environment, and returns nil when active probes are off.
func (f *activeFlags) options(e *env, trial bool) (*scan.ActiveOptions, error) {
	if !f.on {
		if (len(f.allow) > 0 || f.yes) && !trial {
			return nil, usageError("--active-allow and --yes only apply with --active or --trial")
		}
		return nil, nil
	}
	entries, file := f.allow, e.configFile().Active
	if len(entries) == 0 {
		entries = file.Allow
	}
	if len(entries) == 0 {
		return nil, usageError("--active needs an allow-list: --active-allow 'POST /orders/*/cancel' (or an operationId), or active.allow in %s", configName(e))
	}
	rules, err := builtin.ActiveAllowList(entries)
	if err != nil {
		return nil, usageError("--active-allow %v", err)
	}
	if inCI(e) && !file.CI {
		return nil, usageError("--active refused: this looks like CI and %s does not set active.ci: true; active probes change state on the target, so a pipeline sends them only when its configuration says so", configName(e))
	}
	opts := &scan.ActiveOptions{Allow: rules, Confirmed: "--yes"}
	prompt := f.yes
	if !f.yes {
		if !isTerminal(e.stderr) || !readerIsTerminal(e.stdin) {
			return nil, usageError("--active asks for confirmation on a terminal; pass --yes to send the active probes without asking")
		}
		opts.Confirmed = "prompt"
	}
	opts.Confirm = func(plan []exchange.ActiveRequest) error {
		printPlan(e.stderr, plan)
		if prompt {
			return nil
		}
		return confirm(e.stdin, e.stderr, len(plan))
	}
	return opts, nil
}

func configName(e *env) string {
	if p := e.configFile().Path; p != "" {
		return p
	}
	return ".agentready.yaml"
}

// ciVariables are set by CI services; most set CI, and the others are
// recognized by a variable of their own.
var ciVariables = []string{
	"CI", "CONTINUOUS_INTEGRATION", "BUILD_NUMBER", "RUN_ID", "GITHUB_ACTIONS", "GITLAB_CI", "JENKINS_URL",
	"TF_BUILD", "TEAMCITY_VERSION", "BUILDKITE", "CIRCLECI", "TRAVIS", "BITBUCKET_BUILD_NUMBER",
	"CODEBUILD_BUILD_ID", "DRONE", "APPVEYOR", "SEMAPHORE", "WOODPECKER_CI",
}

// inCI reports a CI environment: any of ciVariables set to anything but
// false or 0. Erring towards CI is the safe side: it only asks for
// active.ci: true.
func inCI(e *env) bool {
	for _, name := range ciVariables {
		v := strings.ToLower(strings.TrimSpace(e.get(name)))
		if v != "" && v != "false" && v != "0" {
			return true
		}
	}
	return false
}

func readerIsTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// printPlan shows exactly what will be sent: every header, with the
// credentials of the identity (and the -H headers) named but redacted, and
// the whole body.
func printPlan(w io.Writer, plan []exchange.ActiveRequest) {
	reads := 0
	for _, r := range plan {
		if r.Method == http.MethodGet {
			reads++
		}
	}
	if reads == 0 {
		fmt.Fprintf(w, "Active probes: %d state-changing request(s) will be sent to the target:\n", len(plan))
	} else {
		fmt.Fprintf(w, "Active probes: %d request(s) will be sent to the target, %d state-changing and %d re-read(s) of what they changed:\n", len(plan), len(plan)-reads, reads)
	}
	for i, r := range plan {
		who := r.Identity
		if who == "" {
			who = "the scan's caller"
		}
		fmt.Fprintf(w, "  %d. %s %s  as %s  [%s]\n", i+1, r.Method, sanitize.Line(r.URL), sanitize.Line(who), r.Purpose)
		sent := r.Shown
		names := make([]string, 0, len(sent))
		for name := range sent {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			fmt.Fprintf(w, "     %s: %s\n", sanitize.Line(name), sanitize.Line(strings.Join(sent[name], ", ")))
		}
		if len(r.Body) > 0 {
			fmt.Fprintf(w, "     body: %s\n", sanitize.Line(string(r.Body)))
		}
		fmt.Fprintf(w, "     why: %s\n", sanitize.Line(r.Why))
	}
}

func confirm(in io.Reader, out io.Writer, n int) error {
	fmt.Fprintf(out, "Send these %d request(s)? [y/N] ", n)
	line, _ := bufio.NewReader(in).ReadString('\n')
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return nil
	}
	return errActiveDeclined
}

// configFile is the loaded configuration, or an empty one for commands that
// load none.
func (e *env) configFile() *config.File {
	if e.config == nil || e.config.file == nil {
		return &config.File{}
	}
	return e.config.file
}
