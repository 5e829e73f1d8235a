//go:build interop

// The scanner's findings on the matrix of framework servers, each decided
// true or false by what oracle.py recorded those servers doing, apart from
// the scanner, or by hand in matrix/judged.json:
//
//	bash internal/interop/matrix/matrix.sh run go test -count=1 -tags interop -run Matrix -v ./internal/interop/
//
// A finding neither decides fails the test, with the entry to add; so does
// an entry no finding matches, a false positive without its cause, and a
// precision (true over true and false) below matrix.MinPrecision. Each
// server's outcome is held to matrix/results/<server>.json, from which
// docs/frameworks.md is made; MATRIX_UPDATE=1 rewrites those files. The
// misses, defects the oracle shows and the scan did not report, are logged:
// they are the next work, not failures yet.

package interop_test

import (
	"bufio"
	"bytes"
	"fmt"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/agentready/agentready/internal/golden"
	"github.com/agentready/agentready/internal/interop/matrix"
)

// matrixDir is the matrix's folder, from this package's.
const matrixDir = "matrix"

// matrixUpdate rewrites the results files instead of comparing with them.
const matrixUpdate = "MATRIX_UPDATE"

// matrixUpdateCommand is the one command that brings the results files in
// line with the scanner after an intended change.
const matrixUpdateCommand = matrixUpdate + "=1 bash internal/interop/matrix/matrix.sh run go test -count=1 -tags interop -run Matrix ./internal/interop/"

// matrixServer is a line of the manifest matrix.sh writes.
type matrixServer struct {
	name, kind, base, start, spec string
}

func matrixServers(t *testing.T) []matrixServer {
	t.Helper()
	path := os.Getenv("MATRIX_MANIFEST")
	if path == "" {
		missing(t, "MATRIX_MANIFEST is not set; run internal/interop/matrix/matrix.sh run go test ...")
	}
	f, err := os.Open(path)
	if err != nil {
		missing(t, err.Error())
	}
	defer f.Close()
	var out []matrixServer
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Split(sc.Text(), "\t")
		if len(fields) != 5 {
			t.Fatalf("manifest line %q: want 5 tab-separated fields", sc.Text())
		}
		out = append(out, matrixServer{fields[0], fields[1], fields[2], fields[3], fields[4]})
	}
	if len(out) == 0 {
		missing(t, "the manifest lists no server")
	}
	return out
}

// serverOutcome is what one server's scan gave, for the summary.
type serverOutcome struct {
	results        matrix.Results
	byOracle, hand int
}

func TestMatrix(t *testing.T) {
	servers := matrixServers(t)
	judged, err := matrix.ReadJudged(matrixDir)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	outcomes := map[string]serverOutcome{}
	t.Run("servers", func(t *testing.T) {
		for _, srv := range servers {
			t.Run(srv.name, func(t *testing.T) {
				t.Parallel()
				o := scanMatrixServer(t, srv, judged)
				mu.Lock()
				outcomes[srv.name] = o
				mu.Unlock()
			})
		}
	})
	var all []matrix.CheckOutcome
	var md strings.Builder
	byOracle, byHand := 0, 0
	md.WriteString("## Findings on the interop matrix\n")
	for _, srv := range servers {
		o, ok := outcomes[srv.name]
		if !ok {
			continue
		}
		all = append(all, o.results.Findings...)
		byOracle += o.byOracle
		byHand += o.hand
		md.WriteString(findingsMarkdown(o.results))
	}
	precision, any := matrix.Precision(all)
	tot := matrix.CheckOutcome{}
	for _, c := range all {
		tot.Count += c.Count
		tot.True += c.True
		tot.False += c.False
	}
	fmt.Fprintf(&md, "\n**%d findings on %d servers: %d true, %d false, %d undecided; %d decided by the oracle, %d by hand; precision %.1f%%.**\n",
		tot.Count, len(outcomes), tot.True, tot.False, tot.Count-tot.True-tot.False, byOracle, byHand, precision)
	// Markdown for the release note, on stdout: t.Log would indent it into
	// a code block.
	fmt.Print("\n" + md.String())
	if any && precision < matrix.MinPrecision {
		t.Errorf("precision %.1f%% on the matrix, below %.0f%%: %d of %d decided findings are false", precision, matrix.MinPrecision, tot.False, tot.True+tot.False)
	}
}

// scanMatrixServer scans one server, decides each finding, and holds the
// outcome to the committed results file.
func scanMatrixServer(t *testing.T, srv matrixServer, judged []matrix.Judged) serverOutcome {
	u, err := url.Parse(srv.base)
	if err != nil || u.Hostname() != "127.0.0.1" {
		t.Fatalf("%s: %q is not a URL on 127.0.0.1", srv.name, srv.base)
	}
	port, _ := strconv.Atoi(u.Port())
	assertLoopbackOnly(t, port)
	rec, err := matrix.ReadRecord(matrixDir, srv.name)
	if err != nil {
		t.Fatalf("no oracle record for %s (run matrix.sh run python3 internal/interop/matrix/oracle.py): %v", srv.name, err)
	}

	target, args := srv.base+srv.start, []string(nil)
	if srv.kind == "mcp" {
		target, args = srv.base+"/", []string{"--mcp", srv.base + srv.start}
	}
	if srv.spec != "-" {
		args = append(args, "--openapi", srv.base+srv.spec)
	}
	s := scanReal(t, target, args...)
	s.stayedOnOrigin(t, target)

	judge := matrix.NewJudge(srv.name, rec, judged)
	var tally matrix.Tally
	out := serverOutcome{}
	for i := range s.report.Findings {
		f := &s.report.Findings[i]
		d := judge.Decide(f, srv.base)
		tally.Add(f, d)
		switch {
		case d.Problem != "":
			t.Errorf("%s on %s %s (%s): %s", f.CheckID, f.PrimaryMethod(), matrix.RequestTarget(f.PrimaryURL()), f.Message, d.Problem)
		case d.By == "oracle":
			out.byOracle++
		default:
			out.hand++
		}
	}
	for _, e := range judge.Unused() {
		t.Errorf("%s: this entry matches no finding of the scan; remove it, or correct its key (check, method, path, subject): %+v", matrix.JudgedFile, e)
	}
	out.results = matrix.Results{Server: srv.name, Grade: s.report.Score.Grade, Score: s.report.Score.Value, Exit: s.code, Findings: tally.Outcomes()}
	holdResults(t, out.results)
	if m := matrix.Missed(rec.Rows, s.report.Findings); len(m) > 0 {
		t.Logf("%s: MISSES, defects the oracle shows that the scan did not report\n%s", srv.name, missesTable(m, s))
	}
	return out
}

// holdResults compares a server's results with the committed file, or
// rewrites it under MATRIX_UPDATE=1.
func holdResults(t *testing.T, res matrix.Results) {
	t.Helper()
	got, err := matrix.Marshal(res, "  ")
	if err != nil {
		t.Fatal(err)
	}
	path := matrix.ResultsPath(matrixDir, res.Server)
	if os.Getenv(matrixUpdate) == "1" {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err == nil && bytes.Equal(got, want) {
		return
	}
	detail := golden.FirstDiff(got, want)
	if err != nil {
		detail = err.Error()
	}
	t.Errorf("the scan no longer gives what %s records; if the change is intended, run\n    %s\nreview the diff, then %s to regenerate %s\n%s",
		path, matrixUpdateCommand, golden.Command, matrix.PagePath, detail)
}

// findingsMarkdown is a server's table of findings, in Markdown.
func findingsMarkdown(r matrix.Results) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\n### %s: grade %s (%d), exit %d\n\n", r.Server, r.Grade, r.Score, r.Exit)
	if len(r.Findings) == 0 {
		b.WriteString("No finding.\n")
		return b.String()
	}
	b.WriteString("| check | count | true | false | curl |\n| --- | ---: | ---: | ---: | --- |\n")
	for _, c := range r.Findings {
		fmt.Fprintf(&b, "| `%s` | %d | %d | %d | `%s` |\n", c.Check, c.Count, c.True, c.False, strings.ReplaceAll(c.Curl, "|", `\|`))
	}
	return b.String()
}

// missesTable says of each miss whether the scan sent that method to that
// target at all: a miss on a target never requested is one of reach, not
// of judgement.
func missesTable(rows []matrix.Row, s *scanned) string {
	var b strings.Builder
	for _, row := range rows {
		reach := "sent"
		if row.Scope != "site" && !slices.ContainsFunc(s.requests, func(r string) bool {
			m, u, _ := strings.Cut(r, " ")
			return m == row.Method && matrix.RequestTarget(u) == row.Path
		}) {
			reach = "never sent"
		}
		fmt.Fprintf(&b, "    %-40s %-7s %-32s %-10s %s\n        %s\n", row.Check, row.Method, row.Path, reach, row.What, row.Curl)
	}
	return b.String()
}
