//go:build interop

// The scanner's findings on the matrix of framework servers, compared with
// what oracle.py recorded those servers doing, apart from the scanner:
//
//	bash internal/interop/matrix/matrix.sh run go test -count=1 -tags interop -run Matrix -v ./internal/interop/
//
// A finding the oracle contradicts fails the test: on the rows the oracle
// decides, precision must be 100%. Findings no row decides are listed, and
// so are the misses, the defects the oracle shows and the scan did not
// report: those are the next work, not failures yet.

package interop_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/agentready/agentready/internal/finding"
)

// oracleRecord is one oracle/<server>.json.
type oracleRecord struct {
	Server string      `json:"server"`
	Kind   string      `json:"kind"`
	Start  string      `json:"start"`
	Spec   string      `json:"spec"`
	Rows   []oracleRow `json:"rows"`
}

// oracleRow is one fact the oracle observed. Defect is nil when the row
// decides nothing (it only records), or when the request could not tell.
type oracleRow struct {
	Family string `json:"family"`
	Check  string `json:"check"`
	// Scope is "site" for a fact about the whole server (an MCP endpoint,
	// OPTIONS answered alike everywhere), "resource" for one path.
	Scope  string `json:"scope"`
	Method string `json:"method"`
	Path   string `json:"path"`
	What   string `json:"what"`
	Defect *bool  `json:"defect"`
	// Status, when set, is the status of the response the row judges; a
	// finding on another status of the same path is not decided by it.
	Status int    `json:"status"`
	Curl   string `json:"curl"`
}

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

func loadOracle(t *testing.T, name string) oracleRecord {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("matrix", "oracle", name+".json"))
	if err != nil {
		t.Fatalf("no oracle record for %s (run matrix.sh run python3 internal/interop/matrix/oracle.py): %v", name, err)
	}
	var rec oracleRecord
	if err := json.Unmarshal(raw, &rec); err != nil {
		t.Fatal(err)
	}
	return rec
}

// verdict is what the oracle says of one finding.
type verdict int

const (
	unclassified verdict = iota
	confirmed            // the oracle shows the defect
	contradicted         // the oracle shows the server conforms
)

// decides reports whether row judges the finding f, found at path.
func (row oracleRow) decides(f *finding.Finding, path string) bool {
	if row.Check != f.CheckID || row.Defect == nil {
		return false
	}
	if row.Scope == "site" {
		return true
	}
	if row.Path != path {
		return false
	}
	if row.Status != 0 && len(f.Evidence) > 0 && f.Evidence[0].Status != 0 {
		return row.Status == f.Evidence[0].Status
	}
	return true
}

// classify judges a finding by the oracle rows that decide it: confirmed
// if any shows the defect, contradicted if every one shows the server
// conforms; the row returned is the one that says so.
func classify(rows []oracleRow, f *finding.Finding) (verdict, *oracleRow) {
	path := requestPath(f.PrimaryURL())
	var conforming *oracleRow
	for i := range rows {
		if !rows[i].decides(f, path) {
			continue
		}
		if *rows[i].Defect {
			return confirmed, &rows[i]
		}
		if conforming == nil {
			conforming = &rows[i]
		}
	}
	if conforming != nil {
		return contradicted, conforming
	}
	return unclassified, nil
}

// missed are the oracle's defects that no finding of the same check
// reports, on the same path unless the row is about the whole site.
func missed(rows []oracleRow, findings []finding.Finding) []oracleRow {
	var out []oracleRow
	seen := map[string]bool{}
	for _, row := range rows {
		if row.Defect == nil || !*row.Defect {
			continue
		}
		key := row.Check + " " + row.Path
		if row.Scope == "site" {
			key = row.Check
		}
		if seen[key] {
			continue
		}
		reported := slices.ContainsFunc(findings, func(f finding.Finding) bool {
			return f.CheckID == row.Check && (row.Scope == "site" || requestPath(f.PrimaryURL()) == row.Path)
		})
		if !reported {
			seen[key] = true
			out = append(out, row)
		}
	}
	return out
}

// tally is one line of a server's table: a check's findings by verdict.
type tally struct {
	count, confirmed, contradicted, unclassified int
	curl                                         string
}

func TestMatrix(t *testing.T) {
	for _, srv := range matrixServers(t) {
		t.Run(srv.name, func(t *testing.T) {
			t.Parallel()
			u, err := url.Parse(srv.base)
			if err != nil || u.Hostname() != "127.0.0.1" {
				t.Fatalf("%s: %q is not a URL on 127.0.0.1", srv.name, srv.base)
			}
			port, _ := strconv.Atoi(u.Port())
			assertLoopbackOnly(t, port)
			rec := loadOracle(t, srv.name)

			target, args := srv.base+srv.start, []string(nil)
			if srv.kind == "mcp" {
				target, args = srv.base+"/", []string{"--mcp", srv.base + srv.start}
			}
			if srv.spec != "-" {
				args = append(args, "--openapi", srv.base+srv.spec)
			}
			s := scanReal(t, target, args...)
			s.stayedOnOrigin(t, target)

			tallies := map[string]*tally{}
			for i := range s.report.Findings {
				f := &s.report.Findings[i]
				tl := tallies[f.CheckID]
				if tl == nil {
					tl = &tally{}
					tallies[f.CheckID] = tl
				}
				tl.count++
				v, row := classify(rec.Rows, f)
				switch v {
				case confirmed:
					tl.confirmed++
					tl.curl = row.Curl
				case contradicted:
					tl.contradicted++
					tl.curl = row.Curl
					t.Errorf("false positive: %s on %s %s (%s); the oracle: %s\n    BASE=%s %s",
						f.CheckID, f.PrimaryMethod(), f.PrimaryURL(), f.Message, row.What, srv.base, row.Curl)
				default:
					tl.unclassified++
					if tl.curl == "" && len(f.Evidence) > 0 {
						tl.curl = f.Evidence[0].Curl
					}
				}
			}
			t.Logf("%s: findings against the oracle\n%s", srv.name, findingsTable(tallies))
			if m := missed(rec.Rows, s.report.Findings); len(m) > 0 {
				t.Logf("%s: MISSES, defects the oracle shows that the scan did not report\n%s", srv.name, missesTable(m, s))
			}
		})
	}
}

// TestMatrixClassify proves the comparison on rows and findings made here:
// a row that shows the defect confirms, one that shows conformance
// contradicts, a row of another path, status or check decides nothing, and
// a defect no finding reports is a miss.
func TestMatrixClassify(t *testing.T) {
	yes, no := true, false
	rows := []oracleRow{
		{Check: "problem-json-media-type", Scope: "resource", Path: "/x", Status: 404, Defect: &yes, Curl: "a"},
		{Check: "negotiation-head-status", Scope: "resource", Path: "/x", Defect: &no, Curl: "b"},
		{Check: "negotiation-head-status", Scope: "resource", Path: "/y", Defect: &yes, Curl: "c"},
		{Check: "mcp-origin-validated", Scope: "site", Path: "/mcp", Defect: &no, Curl: "d"},
		{Check: "mcp-tool-description", Scope: "site", Path: "/mcp", Curl: "e"},
	}
	at := func(check, path string, status int) *finding.Finding {
		return &finding.Finding{CheckID: check, Evidence: []finding.Evidence{{Method: "GET", URL: "http://127.0.0.1:1" + path, Status: status}}}
	}
	for _, c := range []struct {
		f    *finding.Finding
		want verdict
		curl string
	}{
		{at("problem-json-media-type", "/x", 404), confirmed, "a"},
		{at("problem-json-media-type", "/x", 406), unclassified, ""},
		{at("negotiation-head-status", "/x", 0), contradicted, "b"},
		{at("negotiation-head-status", "/z", 0), unclassified, ""},
		{at("mcp-origin-validated", "/", 0), contradicted, "d"},
		{at("mcp-tool-description", "/mcp", 0), unclassified, ""},
		{at("vary-accept", "/x", 0), unclassified, ""},
	} {
		got, row := classify(rows, c.f)
		curl := ""
		if row != nil {
			curl = row.Curl
		}
		if got != c.want || curl != c.curl {
			t.Errorf("%s at %s: verdict %d by row %q, want %d by %q", c.f.CheckID, c.f.PrimaryURL(), got, curl, c.want, c.curl)
		}
	}
	m := missed(rows, []finding.Finding{*at("problem-json-media-type", "/x", 404)})
	if len(m) != 1 || m[0].Curl != "c" {
		t.Errorf("misses %+v, want only the HEAD defect on /y", m)
	}
}

func findingsTable(tallies map[string]*tally) string {
	var b strings.Builder
	fmt.Fprintf(&b, "    %-40s %5s %5s %5s %5s  %s\n", "check", "count", "true", "false", "uncl.", "curl")
	for _, id := range sortedKeys(tallies) {
		tl := tallies[id]
		fmt.Fprintf(&b, "    %-40s %5d %5d %5d %5d  %s\n", id, tl.count, tl.confirmed, tl.contradicted, tl.unclassified, tl.curl)
	}
	return b.String()
}

// missesTable says of each miss whether the scan sent that method to that
// path at all: a miss on a path never requested is one of reach, not of
// judgement.
func missesTable(rows []oracleRow, s *scanned) string {
	var b strings.Builder
	for _, row := range rows {
		reach := "sent"
		if row.Scope != "site" && !slices.ContainsFunc(s.requests, func(r string) bool {
			m, u, _ := strings.Cut(r, " ")
			return m == row.Method && requestPath(u) == row.Path
		}) {
			reach = "never sent"
		}
		fmt.Fprintf(&b, "    %-40s %-7s %-32s %-10s %s\n        %s\n", row.Check, row.Method, row.Path, reach, row.What, row.Curl)
	}
	return b.String()
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
