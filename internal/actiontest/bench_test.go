//go:build unix

package actiontest

import (
	"os"
	"testing"
)

// BenchmarkActionInstall measures getting agentready: each run of the
// action scans an unreachable target, which fails at once, so the time is
// that of its install steps. The release is the stub server's, its
// executable padded with a real agentready build so that the archive has a
// release's size. cold starts from an empty runner cache; warm finds in it
// the release's archive (checked and unpacked again) or the source build;
// source/cold also empties GOCACHE, as on a fresh runner
// (the module cache stays warm, where a runner downloads the modules too).
// source/cold compiles everything at each iteration: give it -benchtime 1x.
//
//	go test ./internal/actiontest -run '^$' -bench ActionInstall -benchtime 3x
func BenchmarkActionInstall(b *testing.B) {
	a, root := loadAction(b)
	built := buildAgentready(b)
	padding, err := os.ReadFile(built)
	if err != nil {
		b.Fatal(err)
	}
	srv := newReleaseServer(b, append([]byte(fakeAgentready+"exit 0\n"), padding...), nil)
	release := map[string]string{"url": unreachable, "version": fakeVersion}
	source := map[string]string{"url": unreachable, "install": "source"}
	env := srv.env(os.DevNull)
	run := func(b *testing.B, temp string, inputs map[string]string, env ...string) {
		if r := runAction(b, a, root, temp, inputs, env...); r.code != 3 {
			b.Fatalf("exit %d, want 3 (unreachable)\n%s", r.code, r.log)
		}
	}
	b.Run("release/cold", func(b *testing.B) {
		for b.Loop() {
			run(b, b.TempDir(), release, env...)
		}
	})
	b.Run("release/warm", func(b *testing.B) {
		temp := b.TempDir()
		run(b, temp, release, env...)
		for b.Loop() {
			run(b, temp, release, env...)
		}
	})
	b.Run("source/warm", func(b *testing.B) {
		temp := b.TempDir()
		run(b, temp, source)
		for b.Loop() {
			run(b, temp, source)
		}
	})
	b.Run("source/cold", func(b *testing.B) {
		for b.Loop() {
			run(b, b.TempDir(), source, "GOCACHE="+b.TempDir())
		}
	})
}
