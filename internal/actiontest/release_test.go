//go:build unix

package actiontest

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// fakeVersion is the release the stub server offers.
const fakeVersion = "0.2.0"

// fakeAgentready stands in for a release's agentready: it records each
// command line, answers version, and makes scan write the report of
// FAKE_AGENTREADY_REPORT (with its Markdown rendered by the real
// agentready, FAKE_AGENTREADY_REAL) and exit FAKE_AGENTREADY_EXIT (3, as for
// an unreachable target, when unset). report runs the real agentready.
const fakeAgentready = `#!/usr/bin/env bash
set -euo pipefail
printf '%s\n' "$*" >> "${FAKE_AGENTREADY_LOG:-/dev/null}"
case "${1:-}" in
  version) echo "agentready v0.2.0" ;;
  scan)
    json='' md=''
    for arg in "$@"; do
      case "$arg" in json=*) json=${arg#json=} ;; markdown=*) md=${arg#markdown=} ;; esac
    done
    if [ -n "${FAKE_AGENTREADY_REPORT:-}" ]; then
      cp "$FAKE_AGENTREADY_REPORT" "$json"
      "$FAKE_AGENTREADY_REAL" report convert --from "$json" --format markdown -o "$md"
    fi
    exit "${FAKE_AGENTREADY_EXIT:-3}" ;;
  report) exec "$FAKE_AGENTREADY_REAL" "$@" ;;
  *) echo "fake agentready: unexpected $*" >&2; exit 2 ;;
esac
`

// releaseServer serves the assets of release v0.2.0 under /v0.2.0/, as
// GitHub does under releases/download, and counts what was fetched.
type releaseServer struct {
	url   string
	mu    sync.Mutex
	files map[string][]byte
	hits  map[string]int
}

// archive is how the release packs the executable: a tar.gz holding
// agentready for Linux and macOS, a zip holding agentready.exe for Windows.
func archive(t testing.TB, goos string, exe []byte) (name string, b []byte) {
	t.Helper()
	var buf bytes.Buffer
	if goos == "windows" {
		zw := zip.NewWriter(&buf)
		w, err := zw.CreateHeader(&zip.FileHeader{Name: "agentready.exe", Method: zip.Deflate})
		if err == nil {
			_, err = w.Write(exe)
		}
		if err == nil {
			err = zw.Close()
		}
		if err != nil {
			t.Fatal(err)
		}
		return "agentready_" + fakeVersion + "_windows_%s.zip", buf.Bytes()
	}
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, f := range []struct {
		name string
		body []byte
	}{{"LICENSE", []byte("license\n")}, {"agentready", exe}} {
		if err := tw.WriteHeader(&tar.Header{Name: f.name, Mode: 0o755, Size: int64(len(f.body)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		tw.Write(f.body)
	}
	tw.Close()
	gz.Close()
	return "agentready_" + fakeVersion + "_" + goos + "_%s.tar.gz", buf.Bytes()
}

// newReleaseServer builds the release's archives for every platform from
// exe, and its checksums.txt; edit changes what is served after the
// checksums were taken (nil serves the release as built).
func newReleaseServer(t testing.TB, exe []byte, edit func(files map[string][]byte)) *releaseServer {
	t.Helper()
	s := &releaseServer{files: map[string][]byte{}, hits: map[string]int{}}
	var sums strings.Builder
	for _, goos := range []string{"linux", "darwin", "windows"} {
		pattern, b := archive(t, goos, exe)
		for _, arch := range []string{"amd64", "arm64"} {
			name := fmt.Sprintf(pattern, arch)
			sum := sha256.Sum256(b)
			fmt.Fprintf(&sums, "%s  %s\n", hex.EncodeToString(sum[:]), name)
			s.files[name] = b
		}
	}
	s.files["checksums.txt"] = []byte(sums.String())
	if edit != nil {
		edit(s.files)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name, ok := strings.CutPrefix(r.URL.Path, "/v"+fakeVersion+"/")
		s.mu.Lock()
		b, found := s.files[name]
		s.hits[name]++
		s.mu.Unlock()
		if !ok || !found {
			http.NotFound(w, r)
			return
		}
		w.Write(b)
	}))
	t.Cleanup(srv.Close)
	s.url = srv.URL
	return s
}

// fetched is how many times each asset was downloaded.
func (s *releaseServer) fetched() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]int{}
	for k, v := range s.hits {
		out[k] = v
	}
	return out
}

// releaseEnv is the runner's environment for a run that installs from s,
// with the fake's command lines recorded in log.
func (s *releaseServer) env(log string, extra ...string) []string {
	return append([]string{"AGENTREADY_RELEASE_BASE_URL=" + s.url, "FAKE_AGENTREADY_LOG=" + log}, extra...)
}

// TestActionInstallsAVerifiedRelease runs the action with install: release
// against a stub of GitHub's release downloads serving a fake agentready.
func TestActionInstallsAVerifiedRelease(t *testing.T) {
	a, root := loadAction(t)
	srv := newReleaseServer(t, []byte(fakeAgentready), nil)

	for _, c := range []struct {
		os, arch, asset, exe string
	}{
		{"Linux", "X64", "agentready_0.2.0_linux_amd64.tar.gz", "agentready"},
		{"Linux", "ARM64", "agentready_0.2.0_linux_arm64.tar.gz", "agentready"},
		{"macOS", "ARM64", "agentready_0.2.0_darwin_arm64.tar.gz", "agentready"},
		{"macOS", "X64", "agentready_0.2.0_darwin_amd64.tar.gz", "agentready"},
		{"Windows", "X64", "agentready_0.2.0_windows_amd64.zip", "agentready.exe"},
	} {
		t.Run(c.os+" "+c.arch+", cold then warm", func(t *testing.T) {
			temp, log := t.TempDir(), filepath.Join(t.TempDir(), "fake.log")
			before := srv.fetched()
			inputs := map[string]string{"url": unreachable, "version": "v" + fakeVersion}
			env := srv.env(log, "RUNNER_OS="+c.os, "RUNNER_ARCH="+c.arch)
			r := runAction(t, a, root, temp, inputs, env...)
			if r.code != 3 || !strings.Contains(r.log, "::error title=agentready::the scan wrote no report (exit 3)") {
				t.Fatalf("exit %d, want 3 from the fake's scan\n%s", r.code, r.log)
			}
			bin := r.steps["key"]["bin"]
			if filepath.Base(bin) != c.exe || r.steps["key"]["asset"] != c.asset || r.steps["key"]["key"] != "agentready-release-0.2.0-"+releasePlatform(c.asset) {
				t.Errorf("key step outputs %v", r.steps["key"])
			}
			if !strings.Contains(r.log, "matches checksums.txt") || !strings.Contains(r.log, "agentready: installed agentready v0.2.0") {
				t.Errorf("no checksum verified or no version printed:\n%s", r.log)
			}
			got := srv.fetched()
			if got[c.asset]-before[c.asset] != 1 || got["checksums.txt"]-before["checksums.txt"] != 1 {
				t.Errorf("fetched %v (before %v), want the archive and checksums.txt once", got, before)
			}
			if calls, _ := os.ReadFile(log); !strings.Contains(string(calls), "scan --no-color") {
				t.Errorf("the release's agentready did not run the scan: %q", calls)
			}
			if strings.Contains(r.log, "##[step] Set up Go") || strings.Contains(r.log, "##[step] Build agentready") {
				t.Error("Go was set up or agentready built for a release install")
			}
			if !strings.Contains(r.log, "##[step] Save agentready to the cache") {
				t.Error("the downloaded binary was not saved to the cache before the scan")
			}

			if entries, _ := os.ReadDir(r.steps["key"]["dir"]); len(entries) != 1 || entries[0].Name() != c.asset {
				t.Errorf("the cached directory holds %v, want the archive alone", entries)
			}

			// A warm cache: the archive is there, checked again against a
			// fresh checksums.txt, and not downloaded.
			r = runAction(t, a, root, temp, inputs, env...)
			if r.code != 3 || strings.Contains(r.log, "##[step] Save agentready") || !strings.Contains(r.log, "from the runner cache") ||
				!strings.Contains(r.log, "matches checksums.txt") || !strings.Contains(r.log, "agentready: installed agentready v0.2.0") {
				t.Fatalf("warm: exit %d, want 3 after the cached archive was checked\n%s", r.code, r.log)
			}
			if again := srv.fetched(); again[c.asset] != got[c.asset] || again["checksums.txt"] != got["checksums.txt"]+1 {
				t.Errorf("a cache hit fetched %v after %v, want checksums.txt alone", again, got)
			}
		})
	}

	t.Run("the release is the tag the action was pinned by", func(t *testing.T) {
		r := runAction(t, a, root, t.TempDir(), map[string]string{"url": unreachable}, srv.env(filepath.Join(t.TempDir(), "log"), "GITHUB_ACTION_REF=v0.2.0")...)
		if r.code != 3 || r.steps["key"]["version"] != fakeVersion {
			t.Fatalf("exit %d, version %q\n%s", r.code, r.steps["key"]["version"], r.log)
		}
	})

	t.Run("the release is the tag of the directory the runner keeps the action in", func(t *testing.T) {
		// GitHub leaves GITHUB_ACTION_REF empty in a composite action's
		// steps; the runner keeps agentready/agentready@REF in
		// _actions/agentready/agentready/REF.
		for ref, want := range map[string]int{"v0.2.0": 3, "0123456789abcdef0123456789abcdef01234567": 2} {
			kept := filepath.Join(t.TempDir(), "_actions", "agentready", "agentready", ref)
			os.MkdirAll(filepath.Dir(kept), 0o755)
			if err := os.Symlink(root, kept); err != nil {
				t.Fatal(err)
			}
			r := runAction(t, a, root, t.TempDir(), map[string]string{"url": unreachable}, srv.env(filepath.Join(t.TempDir(), "log"), "GITHUB_ACTION_PATH="+kept)...)
			if r.code != want || (want == 3 && r.steps["key"]["version"] != fakeVersion) {
				t.Errorf("kept at %s: exit %d, version %q; want exit %d\n%s", kept, r.code, r.steps["key"]["version"], want, r.log)
			}
		}
	})

	t.Run("an action pinned by commit must name its release", func(t *testing.T) {
		for _, ref := range []string{"0123456789abcdef0123456789abcdef01234567", "main", "v1", ""} {
			before := srv.fetched()
			r := runAction(t, a, root, t.TempDir(), map[string]string{"url": unreachable}, srv.env(filepath.Join(t.TempDir(), "log"), "GITHUB_ACTION_REF="+ref)...)
			if r.code != 2 || !strings.Contains(r.log, "::error title=agentready::install: release needs to know which release") {
				t.Errorf("ref %q: exit %d, want 2 with an error naming the fix\n%s", ref, r.code, r.log)
			}
			if got := srv.fetched(); fmt.Sprint(got) != fmt.Sprint(before) {
				t.Errorf("ref %q: fetched %v", ref, got)
			}
		}
		// Naming it is enough.
		r := runAction(t, a, root, t.TempDir(), map[string]string{"url": unreachable, "version": fakeVersion},
			srv.env(filepath.Join(t.TempDir(), "log"), "GITHUB_ACTION_REF=0123456789abcdef0123456789abcdef01234567")...)
		if r.code != 3 || !strings.Contains(r.log, "matches checksums.txt") {
			t.Errorf("a commit pin with version: exit %d\n%s", r.code, r.log)
		}
	})

	t.Run("what is not a release or a platform it has is refused before any download", func(t *testing.T) {
		for _, c := range []struct {
			name   string
			inputs map[string]string
			env    []string
			want   string
		}{
			{"a branch as version", map[string]string{"version": "main"}, nil, "::error title=agentready::version: with install: release, want a release such as v1.2.3"},
			{"an unknown install", map[string]string{"install": "binary"}, nil, "::error title=agentready::install: want release or source"},
			{"a 32-bit runner", map[string]string{"version": fakeVersion}, []string{"RUNNER_ARCH=X86"}, "::error title=agentready::install: release has no build for the runner's architecture (X86)"},
			{"a plain-http mirror", map[string]string{"version": fakeVersion}, []string{"AGENTREADY_RELEASE_BASE_URL=http://mirror.example.com/releases"}, "::error title=agentready::AGENTREADY_RELEASE_BASE_URL: want an https URL"},
		} {
			before := srv.fetched()
			in := map[string]string{"url": unreachable}
			for k, v := range c.inputs {
				in[k] = v
			}
			r := runAction(t, a, root, t.TempDir(), in, srv.env(filepath.Join(t.TempDir(), "log"), c.env...)...)
			if r.code != 2 || !strings.Contains(r.log, c.want) {
				t.Errorf("%s: exit %d, want 2 and %q\n%s", c.name, r.code, c.want, r.log)
			}
			if got := srv.fetched(); fmt.Sprint(got) != fmt.Sprint(before) {
				t.Errorf("%s: fetched %v", c.name, got)
			}
		}
	})
}

// releasePlatform is the os-arch part of an asset's name.
func releasePlatform(asset string) string {
	parts := strings.Split(strings.TrimSuffix(strings.TrimSuffix(asset, ".zip"), ".tar.gz"), "_")
	return parts[2] + "-" + parts[3]
}

// TestActionRefusesAReleaseThatIsNotTheOneListed serves archives that do
// not match the release's checksums.txt: nothing is unpacked, nothing runs,
// and nothing is left for the cache to keep.
func TestActionRefusesAReleaseThatIsNotTheOneListed(t *testing.T) {
	a, root := loadAction(t)
	const asset = "agentready_0.2.0_linux_amd64.tar.gz"
	pwned := filepath.Join(t.TempDir(), "pwned")
	tampered := []byte("#!/bin/sh\ntouch " + pwned + "\n")
	var symlink bytes.Buffer
	gz := gzip.NewWriter(&symlink)
	tw := tar.NewWriter(gz)
	tw.WriteHeader(&tar.Header{Name: "agentready", Typeflag: tar.TypeSymlink, Linkname: "/bin/sh"})
	tw.Close()
	gz.Close()
	for _, c := range []struct {
		name string
		edit func(files map[string][]byte)
		want string
	}{
		{"a tampered archive", func(files map[string][]byte) {
			_, files[asset] = archive(t, "linux", tampered)
		}, "::error title=agentready::" + asset + " has SHA-256 "},
		{"an archive missing from checksums.txt", func(files map[string][]byte) {
			files["checksums.txt"] = bytes.ReplaceAll(files["checksums.txt"], []byte(asset), []byte("other.tar.gz"))
		}, "::error title=agentready::checksums.txt of the release does not give one SHA-256 for " + asset},
		{"an archive listed twice", func(files map[string][]byte) {
			files["checksums.txt"] = append(files["checksums.txt"], []byte(strings.Repeat("0", 64)+"  "+asset+"\n")...)
		}, "::error title=agentready::checksums.txt of the release does not give one SHA-256 for " + asset},
		{"no checksums.txt", func(files map[string][]byte) {
			delete(files, "checksums.txt")
		}, "::error title=agentready::could not download checksums.txt of release v0.2.0"},
		{"no archive", func(files map[string][]byte) {
			delete(files, asset)
		}, "::error title=agentready::could not download " + asset + " of release v0.2.0"},
		{"an archive whose agentready is a symbolic link", func(files map[string][]byte) {
			sum := sha256.Sum256(symlink.Bytes())
			files[asset] = symlink.Bytes()
			files["checksums.txt"] = []byte(hex.EncodeToString(sum[:]) + "  " + asset + "\n")
		}, "::error title=agentready::" + asset + " holds no file agentready"},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := newReleaseServer(t, []byte(fakeAgentready), c.edit)
			log := filepath.Join(t.TempDir(), "fake.log")
			r := runAction(t, a, root, t.TempDir(), map[string]string{"url": unreachable, "version": fakeVersion}, srv.env(log)...)
			if r.code != 3 || !strings.Contains(r.log, c.want) {
				t.Fatalf("exit %d, want 3 and %q\n%s", r.code, c.want, r.log)
			}
			if strings.Contains(r.log, "##[step] Scan") {
				t.Error("the scan ran after the install failed")
			}
			if _, err := os.Stat(pwned); err == nil {
				t.Error("the tampered binary ran")
			}
			if _, err := os.Stat(log); err == nil {
				t.Error("an agentready ran")
			}
			if entries, _ := os.ReadDir(r.steps["key"]["dir"]); len(entries) != 0 {
				t.Errorf("the cached directory holds %v: the cache would keep a refused install", entries)
			}
		})
	}
}

// TestActionRefusesATamperedCacheEntry: what the runner cache restores is
// checked against the release's checksums.txt again before it runs; an
// archive altered in the cache, or an entry without it, is refused and
// nothing of it runs.
func TestActionRefusesATamperedCacheEntry(t *testing.T) {
	a, root := loadAction(t)
	const asset = "agentready_0.2.0_linux_amd64.tar.gz"
	pwned := filepath.Join(t.TempDir(), "pwned")
	_, tampered := archive(t, "linux", []byte("#!/bin/sh\ntouch "+pwned+"\n"))
	srv := newReleaseServer(t, []byte(fakeAgentready), nil)
	for _, c := range []struct {
		name  string
		alter func(dir string) error
		want  string
	}{
		{"an archive replaced", func(dir string) error {
			return os.WriteFile(filepath.Join(dir, asset), tampered, 0o644)
		}, "::error title=agentready::" + asset + " from the runner cache entry agentready-release-0.2.0-linux-amd64 has SHA-256 "},
		{"the archive gone, an executable in its place", func(dir string) error {
			if err := os.Remove(filepath.Join(dir, asset)); err != nil {
				return err
			}
			return os.WriteFile(filepath.Join(dir, "agentready"), []byte("#!/bin/sh\ntouch "+pwned+"\n"), 0o755)
		}, "::error title=agentready::the runner cache entry agentready-release-0.2.0-linux-amd64 holds no " + asset},
	} {
		t.Run(c.name, func(t *testing.T) {
			temp := t.TempDir()
			inputs := map[string]string{"url": unreachable, "version": fakeVersion}
			log := filepath.Join(t.TempDir(), "fake.log")
			r := runAction(t, a, root, temp, inputs, srv.env(log)...)
			if r.code != 3 || !strings.Contains(r.log, "matches checksums.txt") {
				t.Fatalf("cold: exit %d\n%s", r.code, r.log)
			}
			if err := c.alter(r.steps["key"]["dir"]); err != nil {
				t.Fatal(err)
			}
			os.Remove(log)
			before := srv.fetched()
			r = runAction(t, a, root, temp, inputs, srv.env(log)...)
			if r.code != 3 || !strings.Contains(r.log, c.want) || !strings.Contains(r.log, "gh cache delete agentready-release-0.2.0-linux-amd64") {
				t.Fatalf("exit %d, want 3 and %q with how to delete the entry\n%s", r.code, c.want, r.log)
			}
			if strings.Contains(r.log, "##[step] Scan") {
				t.Error("the scan ran after the cache entry was refused")
			}
			if _, err := os.Stat(pwned); err == nil {
				t.Error("the tampered binary ran")
			}
			if _, err := os.Stat(log); err == nil {
				t.Error("an agentready ran")
			}
			if got := srv.fetched(); got[asset] != before[asset] || got["checksums.txt"] != before["checksums.txt"]+1 {
				t.Errorf("fetched %v after %v, want checksums.txt alone", got, before)
			}
		})
	}
}

// TestActionAnchorsSARIFOnARepositoryFile: results with no place in the
// document point at the sarif-anchor input, else the openapi input when it
// is a file of the checkout, else the configuration file, else the
// workflow file.
func TestActionAnchorsSARIFOnARepositoryFile(t *testing.T) {
	a, root := loadAction(t)
	srv := newReleaseServer(t, []byte(fakeAgentready), nil)
	temp := t.TempDir()
	workspace := t.TempDir()
	for _, f := range []string{"api/openapi.yaml", "ci/agentready.yaml", ".agentready.yaml"} {
		os.MkdirAll(filepath.Join(workspace, filepath.Dir(f)), 0o755)
		os.WriteFile(filepath.Join(workspace, f), []byte("x: 1\n"), 0o644)
	}
	for _, c := range []struct {
		name   string
		inputs map[string]string
		env    []string
		want   string
	}{
		{"the sarif-anchor input", map[string]string{"sarif-anchor": "docs/api.md", "openapi": "api/openapi.yaml", "config": "ci/agentready.yaml"}, nil, "--sarif-anchor docs/api.md"},
		{"the openapi file", map[string]string{"openapi": "api/openapi.yaml", "config": "ci/agentready.yaml"}, nil, "--sarif-anchor api/openapi.yaml"},
		{"the openapi file by its absolute path", map[string]string{"openapi": filepath.Join(workspace, "api/openapi.yaml")}, nil, "--sarif-anchor api/openapi.yaml"},
		{"the config file, the openapi input being a URL", map[string]string{"openapi": "https://api.example.com/openapi.json", "config": "ci/agentready.yaml"}, nil, "--sarif-anchor ci/agentready.yaml"},
		{"the config file agentready finds", map[string]string{"openapi": "../outside.yaml"}, nil, "--sarif-anchor .agentready.yaml"},
		{"the workflow file", map[string]string{"config": "ci/missing.yaml"}, nil, "--sarif-anchor .github/workflows/ci.yml"},
		{"no file at all", map[string]string{"config": "ci/missing.yaml"}, []string{"GITHUB_WORKFLOW_REF="}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			log := filepath.Join(t.TempDir(), "fake.log")
			in := map[string]string{"url": unreachable, "version": fakeVersion}
			for k, v := range c.inputs {
				in[k] = v
			}
			r := runActionIn(t, a, root, temp, workspace, in, srv.env(log, c.env...)...)
			calls, err := os.ReadFile(log)
			if err != nil {
				t.Fatalf("the scan did not run: %v\n%s", err, r.log)
			}
			var scan string
			for _, line := range strings.Split(string(calls), "\n") {
				if strings.HasPrefix(line, "scan ") {
					scan = line
				}
			}
			if got := strings.Contains(scan, "--sarif-anchor"); got != (c.want != "") || (c.want != "" && !strings.Contains(scan, c.want+" ")) {
				t.Errorf("scan %q, want %q", scan, c.want)
			}
		})
	}
}
