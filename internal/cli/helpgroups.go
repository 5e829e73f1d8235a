package cli

import (
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// flagGroup is a heading of the help of the commands that crawl, and the
// flags under it, in the order the headings are printed. A flag in no
// group goes under "Other flags".
type flagGroup struct {
	title string
	flags []string
}

var flagGroups = []flagGroup{
	{"Crawl limits", []string{"max-pages", "max-depth", "concurrency", "rate", "timeout", "budget", "max-body",
		"max-links-per-page", "max-query-variants", "respect-robots", "include", "exclude", "mcp", "shard"}},
	{"OpenAPI document", []string{"openapi", "base-path", "server", "no-openapi-discovery", "no-openapi-seed", "max-spec-size"}},
	{"Identities and credentials", []string{"header", "identity", "header-for", "oauth-for", "least-privileged"}},
	{"TLS", []string{"cacert", "cert", "key", "insecure"}},
	{"Active probes and trials", []string{"active", "active-allow", "yes", "trial", "trial-plan", "trial-reset"}},
	{"Output", []string{"format", "output", "color", "no-color", "quiet", "verbose", "sarif-anchor", "sarif-category",
		"record", "replay", "max-recording-size", "from", "force"}},
	{"Gate", []string{"fail-on", "fail-under", "fail-on-drift", "fail-on-trial", "baseline", "strict-baseline", "min-coverage"}},
	{"Harness (start the app)", []string{"start", "ready", "ready-timeout", "start-log", "start-env", "stop-grace"}},
}

const otherFlags = "Other flags"

func init() {
	cobra.AddTemplateFunc("localFlagSections", localFlagSections)
}

// localFlagSections is the "Flags:" section of c's help: one section per
// group for the commands that crawl (they have --max-pages), whose fifty
// flags in one list hide the few a reader is after; cobra's single list
// for the others.
func localFlagSections(c *cobra.Command) string {
	local := c.LocalFlags()
	if local.Lookup("max-pages") == nil {
		return "Flags:\n" + strings.TrimRight(local.FlagUsagesWrapped(helpColumns), " \n")
	}
	sets := map[string]*pflag.FlagSet{}
	group := map[string]string{}
	for _, g := range flagGroups {
		for _, name := range g.flags {
			group[name] = g.title
		}
	}
	local.VisitAll(func(f *pflag.Flag) {
		title, ok := group[f.Name]
		if !ok {
			title = otherFlags
		}
		if sets[title] == nil {
			sets[title] = pflag.NewFlagSet(title, pflag.ContinueOnError)
		}
		sets[title].AddFlag(f)
	})
	var sections []string
	for _, g := range append(flagGroups, flagGroup{title: otherFlags}) {
		if fs := sets[g.title]; fs != nil && fs.HasAvailableFlags() {
			sections = append(sections, g.title+":\n"+strings.TrimRight(fs.FlagUsagesWrapped(helpColumns), " \n"))
		}
	}
	return strings.Join(sections, "\n\n")
}
