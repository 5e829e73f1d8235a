package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
)

// stampBuild sets the linker-stamped variables for the test, as a release build
// would, and restores them after it.
func stampBuild(t *testing.T, version, commit, date string) {
	t.Helper()
	saved := [3]string{Version, Commit, Date}
	Version, Commit, Date = version, commit, date
	t.Cleanup(func() { Version, Commit, Date = saved[0], saved[1], saved[2] })
}

func TestBuildOf(t *testing.T) {
	vcs := func(kv ...string) []debug.BuildSetting {
		var s []debug.BuildSetting
		for i := 0; i < len(kv); i += 2 {
			s = append(s, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return s
	}
	const rev, when = "0123456789abcdef0123456789abcdef01234567", "2026-01-02T03:04:05Z"
	tests := []struct {
		name    string
		stamped build
		info    *debug.BuildInfo
		want    build // Name, GoVersion and Platform are checked apart
	}{
		{"no build information at all", build{}, nil, build{Version: "dev", Commit: unknown, Date: unknown}},
		{"go build without VCS stamping", build{},
			&debug.BuildInfo{Main: debug.Module{Version: "(devel)"}},
			build{Version: "dev", Commit: unknown, Date: unknown}},
		{"go install of a tagged version: no VCS metadata in a module zip", build{},
			&debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}},
			build{Version: "v1.2.3", Commit: unknown, Date: unknown}},
		{"go build in a checkout", build{},
			&debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20260102030405-0123456789ab"}, Settings: vcs("vcs.revision", rev, "vcs.time", when, "vcs.modified", "false")},
			build{Version: "v0.0.0-20260102030405-0123456789ab", Commit: rev, Date: when}},
		{"go build in a checkout with changes", build{},
			&debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs("vcs.revision", rev, "vcs.time", when, "vcs.modified", "true")},
			build{Version: "dev", Commit: rev + "-dirty", Date: when}},
		{"the release build's stamps win over the toolchain's", build{Version: "1.2.3", Commit: "fedcba", Date: "2026-02-03T04:05:06Z"},
			&debug.BuildInfo{Main: debug.Module{Version: "v9.9.9"}, Settings: vcs("vcs.revision", rev, "vcs.time", when, "vcs.modified", "true")},
			build{Version: "1.2.3", Commit: "fedcba", Date: "2026-02-03T04:05:06Z"}},
		{"the action stamps the version alone", build{Version: "v1.2.3-rc.1"},
			&debug.BuildInfo{Main: debug.Module{Version: "(devel)"}},
			build{Version: "v1.2.3-rc.1", Commit: unknown, Date: unknown}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := buildOf(tt.stamped, tt.info)
			if got.Name != "agentready" || got.GoVersion != runtime.Version() || got.Platform != runtime.GOOS+"/"+runtime.GOARCH {
				t.Errorf("name %q, Go %q, platform %q: want the running binary's", got.Name, got.GoVersion, got.Platform)
			}
			got.Name, got.GoVersion, got.Platform = "", "", ""
			if got != tt.want {
				t.Errorf("got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

// TestVersionOutputs runs `version` and `--version`, in text and JSON, on a
// stamped build: both print the same, whatever else is on the command line.
func TestVersionOutputs(t *testing.T) {
	stampBuild(t, "1.2.3", "0123456789abcdef0123456789abcdef01234567", "2026-01-02T03:04:05Z")
	platform := runtime.GOOS + "/" + runtime.GOARCH
	wantText := "agentready 1.2.3\n" +
		"  commit    0123456789abcdef0123456789abcdef01234567\n" +
		"  built     2026-01-02T03:04:05Z\n" +
		"  go        " + runtime.Version() + "\n" +
		"  platform  " + platform + "\n"
	for _, args := range [][]string{{"version"}, {"--version"}, {"version", "--format", "text"}, {"--format=text", "--version"}} {
		r := run(t, args...)
		if r.code != ExitOK || r.stdout != wantText || r.stderr != "" {
			t.Errorf("%v: exit %d\nstdout:\n%s\nwant:\n%s\nstderr: %s", args, r.code, r.stdout, wantText, r.stderr)
		}
	}
	for _, args := range [][]string{{"version", "--format", "json"}, {"--version", "--format", "json"}} {
		r := run(t, args...)
		var got map[string]string
		if err := json.Unmarshal([]byte(r.stdout), &got); r.code != ExitOK || err != nil {
			t.Fatalf("%v: exit %d, %v\n%s%s", args, r.code, err, r.stdout, r.stderr)
		}
		want := map[string]string{"name": "agentready", "version": "1.2.3", "commit": "0123456789abcdef0123456789abcdef01234567",
			"date": "2026-01-02T03:04:05Z", "goVersion": runtime.Version(), "platform": platform}
		if len(got) != len(want) {
			t.Errorf("%v: %d members, want %d: %v", args, len(got), len(want), got)
		}
		for k, v := range want {
			if got[k] != v {
				t.Errorf("%v: %s is %q, want %q", args, k, got[k], v)
			}
		}
	}
	for _, args := range [][]string{{"version", "--format", "yaml"}, {"--version", "--format", "yaml"}, {"version", "extra"}} {
		if r := run(t, args...); r.code != ExitUsage || r.stdout != "" {
			t.Errorf("%v: exit %d, stdout %q: want a usage error and nothing printed", args, r.code, r.stdout)
		}
	}
	// -v means verbose wherever it is accepted; it never prints the version.
	if r := run(t, "-v"); r.code != ExitUsage || strings.Contains(r.stdout, "1.2.3") {
		t.Errorf("-v: exit %d, stdout %q", r.code, r.stdout)
	}
}

// TestReportsNameTheVersion: the stamped version is the one every report
// and the recording name, and SARIF's semanticVersion only when it is one.
func TestReportsNameTheVersion(t *testing.T) {
	for _, tt := range []struct{ version, semantic string }{
		{"1.2.3", "1.2.3"},
		{"0.0.0-SNAPSHOT-1b79576", "0.0.0-SNAPSHOT-1b79576"},
		{"dev", ""},
	} {
		t.Run(tt.version, func(t *testing.T) {
			stampBuild(t, tt.version, "", "")
			dir := t.TempDir()
			path := func(name string) string { return filepath.Join(dir, name) }
			r := run(t, "scan", "-q", "--fail-on", "none", "--max-pages", "5", "--record", path("scan.har"),
				"-o", "json="+path("r.json"), "-o", "sarif="+path("r.sarif"), "-o", "html="+path("r.html"), serve(t))
			if r.code != ExitOK {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			var report struct {
				Tool struct{ Version string } `json:"tool"`
			}
			var sarif struct {
				Runs []struct {
					Tool struct {
						Driver struct {
							Version         string  `json:"version"`
							SemanticVersion *string `json:"semanticVersion"`
						} `json:"driver"`
					} `json:"tool"`
				} `json:"runs"`
			}
			var har struct {
				Log struct {
					Creator struct{ Name, Version string } `json:"creator"`
				} `json:"log"`
			}
			for name, v := range map[string]any{"r.json": &report, "r.sarif": &sarif, "scan.har": &har} {
				b, err := os.ReadFile(path(name))
				if err != nil {
					t.Fatal(err)
				}
				if err := json.Unmarshal(b, v); err != nil {
					t.Fatalf("%s: %v", name, err)
				}
			}
			if report.Tool.Version != tt.version {
				t.Errorf("JSON report: tool.version %q", report.Tool.Version)
			}
			if har.Log.Creator.Version != tt.version {
				t.Errorf("HAR: creator.version %q", har.Log.Creator.Version)
			}
			driver := sarif.Runs[0].Tool.Driver
			switch {
			case driver.Version != tt.version:
				t.Errorf("SARIF: version %q", driver.Version)
			case tt.semantic == "" && driver.SemanticVersion != nil:
				t.Errorf("SARIF: semanticVersion %q for a version that is not one", *driver.SemanticVersion)
			case tt.semantic != "" && (driver.SemanticVersion == nil || *driver.SemanticVersion != tt.semantic):
				t.Errorf("SARIF: semanticVersion %v, want %q", driver.SemanticVersion, tt.semantic)
			}
			html, err := os.ReadFile(path("r.html"))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(html), "Generated by agentready "+tt.version+" ") {
				t.Errorf("HTML report does not name agentready %s", tt.version)
			}
		})
	}
}
