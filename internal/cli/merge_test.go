package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentready/agentready/fixtures/demo"
)

// shardReports scans the target as the given shards ("2/3") and saves each
// JSON report.
func shardReports(t *testing.T, target string, shards ...string) []string {
	t.Helper()
	dir := t.TempDir()
	var paths []string
	for i, shard := range shards {
		path := filepath.Join(dir, fmt.Sprintf("shard-%d.json", i))
		r := run(t, "scan", "-q", "--fail-on", "none", "--shard", shard, "-o", "json="+path, target)
		if r.code != ExitOK {
			t.Fatalf("scan --shard %s: exit %d: %s", shard, r.code, r.stderr)
		}
		paths = append(paths, path)
	}
	return paths
}

// noVaryAcceptShards are the JSON reports of the two shards of one scan of
// the broken demo, which several tests only read.
var noVaryAcceptShards = onceWrittenAll(demo.New(demo.DefectNoVaryAccept),
	[]string{"scan", "-q", "--fail-on", "none", "--shard", "1/2", "-o", "json={file}"},
	[]string{"scan", "-q", "--fail-on", "none", "--shard", "2/2", "-o", "json={file}"})

// savedShards copies noVaryAcceptShards to files of t's.
func savedShards(t *testing.T) []string {
	t.Helper()
	return []string{copyOf(t, nth(noVaryAcceptShards, 0), "shard-1.json"), copyOf(t, nth(noVaryAcceptShards, 1), "shard-2.json")}
}

func TestShardFlagIsValidated(t *testing.T) {
	target := serve(t)
	for _, bad := range []string{"0/2", "3/2", "2", "a/b", "1/0"} {
		r := run(t, "scan", "-q", "--shard", bad, target)
		if r.code != ExitUsage || !strings.Contains(r.stderr, "--shard") {
			t.Errorf("--shard %s: exit %d, stderr %q; want a usage error", bad, r.code, r.stderr)
		}
	}
}

func TestShardReportSaysItIsPartial(t *testing.T) {
	target := serve(t, demo.DefectNoVaryAccept)
	r := run(t, "scan", "--fail-on", "none", "--shard", "2/2", target)
	if r.code != ExitOK || !strings.Contains(r.stdout, "shard 2/2") {
		t.Fatalf("exit %d; the text report does not name the shard:\n%s", r.code, r.stdout)
	}
	path := savedShards(t)[1]
	var rep struct {
		Shard struct{ Index, Total int } `json:"shard"`
		Score struct{ Basis string }     `json:"score"`
	}
	b, _ := os.ReadFile(path)
	if err := json.Unmarshal(b, &rep); err != nil || rep.Shard.Index != 2 || rep.Shard.Total != 2 || !strings.Contains(rep.Score.Basis, "partial") {
		t.Errorf("JSON shard %+v basis %q (%v)", rep.Shard, rep.Score.Basis, err)
	}
}

func TestReportMergeWritesEveryFormatAndGates(t *testing.T) {
	paths, whole := savedShards(t), savedReport(t)
	dir := t.TempDir()
	args := []string{"report", "merge", "-q", "--fail-on", "warning", paths[1], paths[0]}
	for _, f := range []string{"json", "sarif", "markdown", "html", "junit", "text"} {
		args = append(args, "-o", f+"="+filepath.Join(dir, "merged."+f))
	}
	r := run(t, args...)
	if r.code != ExitGateFailed {
		t.Fatalf("merge of a demo with a warning-severity defect, --fail-on warning: exit %d, want %d (the gate); stderr %s", r.code, ExitGateFailed, r.stderr)
	}
	for _, f := range []string{"json", "sarif", "markdown", "html", "junit", "text"} {
		if st, err := os.Stat(filepath.Join(dir, "merged."+f)); err != nil || st.Size() == 0 {
			t.Errorf("%s not written: %v", f, err)
		}
	}
	grade := func(path string) (out struct {
		Score    struct{ Grade string } `json:"score"`
		Findings []struct{ Fingerprint string }
		Shard    *struct{} `json:"shard"`
	}) {
		b, _ := os.ReadFile(path)
		if err := json.Unmarshal(b, &out); err != nil {
			t.Fatal(err)
		}
		return out
	}
	merged, one := grade(filepath.Join(dir, "merged.json")), grade(whole)
	if merged.Score.Grade != one.Score.Grade || len(merged.Findings) != len(one.Findings) || merged.Shard != nil {
		t.Errorf("merged grade %s, %d findings, shard %v; unsharded %s, %d", merged.Score.Grade, len(merged.Findings), merged.Shard, one.Score.Grade, len(one.Findings))
	}
	if r := run(t, "report", "merge", "-q", "--fail-on", "none", paths[0], paths[1]); r.code != ExitOK {
		t.Errorf("--fail-on none: exit %d %s", r.code, r.stderr)
	}
}

func TestReportMergeRefusesWhatIsNotOneScan(t *testing.T) {
	target := serve(t)
	paths := shardReports(t, target, "1/2", "2/2")
	other := shardReports(t, serve(t), "2/2")[0]
	splitInThree := shardReports(t, target, "2/3")[0]
	whole := savedReport(t)
	for _, c := range []struct {
		name string
		args []string
		has  string
	}{
		{"overlap", []string{paths[0], paths[0], paths[1]}, "given twice"},
		{"missing", []string{paths[0]}, "2/2 of 2 not given"},
		{"other target", []string{paths[0], other}, "one target"},
		{"split otherwise", []string{paths[0], splitInThree}, "split it alike"},
		{"not a shard", []string{paths[0], whole}, "not a shard"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := run(t, append([]string{"report", "merge", "-q"}, c.args...)...)
			if r.code != ExitUsage || !strings.Contains(r.stderr, c.has) {
				t.Errorf("exit %d, stderr %q; want %d and %q", r.code, r.stderr, ExitUsage, c.has)
			}
		})
	}
	t.Run("allowed missing", func(t *testing.T) {
		r := run(t, "report", "merge", "--allow-missing", "--fail-on", "none", "--format", "json", paths[1])
		if r.code != ExitOK || !strings.Contains(r.stderr, "partial") || !strings.Contains(r.stdout, "shards 1/2 of 2 missing") {
			t.Errorf("exit %d, stderr %q, stdout %.300s", r.code, r.stderr, r.stdout)
		}
	})
	t.Run("schema version", func(t *testing.T) {
		b, _ := os.ReadFile(paths[1])
		newer := filepath.Join(t.TempDir(), "newer.json")
		os.WriteFile(newer, []byte(strings.Replace(string(b), `"schemaVersion": 1`, `"schemaVersion": 2`, 1)), 0o644)
		r := run(t, "report", "merge", "-q", paths[0], newer)
		if r.code != ExitUsage || !strings.Contains(r.stderr, "schema") {
			t.Errorf("exit %d, stderr %q", r.code, r.stderr)
		}
	})
}
