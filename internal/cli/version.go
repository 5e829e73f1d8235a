package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
)

// Version, Commit and Date are stamped by the release build (.ci/release.sh)
// with -ldflags "-X github.com/agentready/agentready/internal/cli.Version=1.2.3
// -X ….Commit=<hash> -X ….Date=<RFC 3339>"; the GitHub Action stamps Version
// alone. A build that stamps none of them (go install, go build) reports
// what the Go toolchain recorded in the binary instead: see buildOf.
var (
	Version = ""
	Commit  = ""
	Date    = ""
)

// unknown stands for a commit or date that neither the linker flags nor the
// toolchain recorded, as in a `go install` build, whose module zip has no
// VCS metadata.
const unknown = "unknown"

// build describes the running binary, for `agentready version` and
// `agentready --version`. The JSON names are a contract with scripts.
type build struct {
	Name      string `json:"name"`
	Version   string `json:"version"`
	Commit    string `json:"commit"`
	Date      string `json:"date"`
	GoVersion string `json:"goVersion"`
	Platform  string `json:"platform"`
}

func currentBuild() build {
	info, _ := debug.ReadBuildInfo() // nil when the binary has none
	return buildOf(build{Version: Version, Commit: Commit, Date: Date}, info)
}

// buildOf completes what the linker stamped from the toolchain's build
// information, which info is (nil when the binary has none). `go install
// …@v1.2.3` records the module version; `go build` in a Git checkout records
// the revision and its time (unless -buildvcs=false), and, since Go 1.24, a
// version derived from them. A stamped value always wins, so that a release
// says what its tag says.
func buildOf(stamped build, info *debug.BuildInfo) build {
	b := stamped
	b.Name = "agentready"
	b.GoVersion = runtime.Version()
	b.Platform = runtime.GOOS + "/" + runtime.GOARCH
	if info != nil {
		if b.Version == "" && info.Main.Version != "" && info.Main.Version != "(devel)" {
			b.Version = info.Main.Version
		}
		settings := map[string]string{}
		for _, s := range info.Settings {
			settings[s.Key] = s.Value
		}
		if b.Commit == "" && settings["vcs.revision"] != "" {
			b.Commit = settings["vcs.revision"]
			if settings["vcs.modified"] == "true" {
				// The binary was built from a tree that differs from the commit.
				b.Commit += "-dirty"
			}
		}
		if b.Date == "" {
			b.Date = settings["vcs.time"]
		}
	}
	if b.Version == "" {
		b.Version = "dev"
	}
	if b.Commit == "" {
		b.Commit = unknown
	}
	if b.Date == "" {
		b.Date = unknown
	}
	return b
}

// version is the version every output names: reports, recordings, the
// User-Agent and the MCP client's name.
func version() string { return currentBuild().Version }

// versionFormat is the --format of `version` and `--version`, checked as the
// flag is parsed: cobra prints --version before any command runs, so there
// is no later place to refuse a bad one.
type versionFormat string

func (f *versionFormat) String() string { return string(*f) }
func (f *versionFormat) Type() string   { return "text|json" }
func (f *versionFormat) Set(s string) error {
	if s != "text" && s != "json" {
		return fmt.Errorf("want text or json")
	}
	*f = versionFormat(s)
	return nil
}

// writeBuild prints b as format: the first line "agentready VERSION", as
// before the other lines existed, so that a script reading it still works;
// or one JSON object.
func writeBuild(w io.Writer, format versionFormat, b build) error {
	if format == "json" {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(b)
	}
	var s strings.Builder
	fmt.Fprintf(&s, "%s %s\n", b.Name, b.Version)
	fmt.Fprintf(&s, "  commit    %s\n", b.Commit)
	fmt.Fprintf(&s, "  built     %s\n", b.Date)
	fmt.Fprintf(&s, "  go        %s\n", b.GoVersion)
	fmt.Fprintf(&s, "  platform  %s\n", b.Platform)
	_, err := io.WriteString(w, s.String())
	return err
}

func init() {
	// The root's --version is cobra's: it prints the root's version template
	// before any command runs. The template calls this with the root.
	cobra.AddTemplateFunc("describeBuild", func(root *cobra.Command) (string, error) {
		var s strings.Builder
		format := versionFormat("text")
		if f := root.Flags().Lookup("format"); f != nil {
			format = versionFormat(f.Value.String())
		}
		err := writeBuild(&s, format, currentBuild())
		return s.String(), err
	})
}

// withVersionFlag gives root a --version flag and the --format it prints
// in. The flag is declared here rather than left to cobra, which would also
// make -v print the version, where every command that scans means verbose.
func withVersionFlag(root *cobra.Command) {
	root.Version = version()
	root.SetVersionTemplate("{{describeBuild .}}")
	root.Flags().Bool("version", false, "print the version, commit, build date, Go version and platform")
	format := versionFormat("text")
	root.Flags().Var(&format, "format", "format of --version: text or json")
}

func newVersionCmd(e *env) *cobra.Command {
	format := versionFormat("text")
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print the version, commit, build date, Go version and platform",
		Example: `  agentready version
  agentready version --format json
  agentready --version`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return writeBuild(e.stdout, format, currentBuild())
		},
	}
	cmd.Flags().Var(&format, "format", "output format: text or json")
	return cmd
}
