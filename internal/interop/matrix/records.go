// Package matrix reads the interop matrix's committed records and judges
// the scanner's findings by them. The matrix is a set of servers written
// with other people's frameworks (matrix.sh starts them); oracle.py records
// what each really does, apart from the scanner, in oracle/<server>.json;
// judged.json decides by hand what no oracle row can (a description's
// quality); the Matrix test (internal/interop, build tag interop) scans each
// server, decides every finding by those two and keeps the outcome in
// results/<server>.json; frameworks.json holds, per framework, what it is
// and the one-line fix of each finding. docs/frameworks.md is rendered from
// these files alone (Page), so that a plain go test can hold it current.
package matrix

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// Record is one oracle/<server>.json.
type Record struct {
	Server string `json:"server"`
	Kind   string `json:"kind"`
	Start  string `json:"start"`
	Spec   string `json:"spec"`
	Rows   []Row  `json:"rows"`
}

// Row is one fact the oracle observed. Defect is nil when the row decides
// nothing (it only records), or when the request could not tell.
type Row struct {
	Family string `json:"family"`
	Check  string `json:"check"`
	// Scope is "site" for a fact about the whole server (an MCP endpoint,
	// OPTIONS answered alike everywhere), "resource" for one request target.
	Scope    string   `json:"scope"`
	Method   string   `json:"method"`
	Path     string   `json:"path"`
	What     string   `json:"what"`
	Observed Observed `json:"observed"`
	Defect   *bool    `json:"defect"`
	Curl     string   `json:"curl"`
	// Status, when set, is the status of the response the row judges; a
	// finding on another status of the same target is not decided by it.
	Status int `json:"status"`
	// Tool, when set, is the MCP tool the row judges; a finding about
	// another tool is not decided by it.
	Tool string `json:"tool"`

	// What some rows add to their observation.
	Served            string         `json:"served"`
	GetStatus         int            `json:"getStatus"`
	HTMLAvailable     bool           `json:"htmlAvailable"`
	Honoured          bool           `json:"honoured"`
	SupportedVersions []string       `json:"supportedVersions"`
	Negotiated        string         `json:"negotiated"`
	SessionID         bool           `json:"sessionId"`
	Error             map[string]any `json:"error"`
	RPCError          *int           `json:"rpcError"`
	Tools             []string       `json:"tools"`
	Template          string         `json:"template"`
	Declared          []string       `json:"declared"`
	Paths             []string       `json:"paths"`
	Link              string         `json:"link"`
}

// Observed is what a row saw: a response's status and headers, or, for the
// rows that judge something other than one response, the facts they judged.
type Observed struct {
	Status        int    `json:"status"`
	ContentType   string `json:"contentType"`
	ContentLength string `json:"content-length"`
	Vary          string `json:"vary"`
	Allow         string `json:"allow"`
	CORSMethods   string `json:"access-control-allow-methods"`
	BodyBytes     int    `json:"bodyBytes"`

	// vary-accept rows: the outcomes of the Accept values asked.
	Outcomes    []string `json:"outcomes"`
	WithoutVary []string `json:"withoutVary"`

	// MCP tool rows.
	Description     string         `json:"description"`
	Undescribed     []string       `json:"undescribed"`
	Annotations     map[string]any `json:"annotations"`
	InputSchemaType string         `json:"inputSchema.type"`
}

// MediaType is the observed Content-Type without its parameters.
func (o Observed) MediaType() string {
	mt, _, _ := strings.Cut(o.ContentType, ";")
	return strings.ToLower(strings.TrimSpace(mt))
}

// Judged is one entry of judged.json: a finding no oracle row decides (or
// one the oracle shows false, whose cause only a person can give), decided
// by hand.
type Judged struct {
	Server  string `json:"server"`
	Check   string `json:"check"`
	Method  string `json:"method"`
	Path    string `json:"path"`
	Subject string `json:"subject,omitempty"`
	// Verdict is "true" (the server has the defect) or "false" (the
	// scanner is wrong).
	Verdict string `json:"verdict"`
	// Cause says in one sentence why: for a false one, why the scanner is
	// wrong.
	Cause string `json:"cause"`
	// Curl shows it; $BASE stands for the server's URL.
	Curl string `json:"curl"`
}

// Key is what the entry decides.
func (j Judged) Key() Key {
	return Key{Server: j.Server, Check: j.Check, Method: j.Method, Path: j.Path, Subject: j.Subject}
}

// Verdicts of a hand entry.
const (
	VerdictTrue  = "true"
	VerdictFalse = "false"
)

// Results is one results/<server>.json: what the scan of a server gave,
// with each check's findings decided true or false. Nothing in it depends
// on the run (ports, timings, request counts).
type Results struct {
	Server   string         `json:"server"`
	Grade    string         `json:"grade"`
	Score    int            `json:"score"`
	Exit     int            `json:"exit"`
	Findings []CheckOutcome `json:"findings"`
}

// CheckOutcome is one check's findings on one server.
type CheckOutcome struct {
	Check    string `json:"check"`
	Severity string `json:"severity"`
	Count    int    `json:"count"`
	True     int    `json:"true"`
	False    int    `json:"false"`
	// At lists where the findings are, "METHOD target", in order.
	At []string `json:"at"`
	// Curl shows the first finding: the line of the oracle row or hand
	// entry that decided it, $BASE standing for the server's URL.
	Curl string `json:"curl"`
}

// Framework is one server's entry in frameworks.json.
type Framework struct {
	Server string `json:"server"`
	// Name is the framework as its users call it ("Express").
	Name     string `json:"name"`
	Language string `json:"language"`
	// Packages are what the app is built with, each "go:MODULE" (its
	// version from goapps/go.mod), "go" (the toolchain goapps/go.mod
	// names), "npm:NAME" (its version from matrix.sh's NPM_PACKAGES) or
	// "debian:NAME=VERSION" (a DEBIAN_PACKAGES entry of matrix.sh, at the
	// version Debian 12 ships).
	Packages []string `json:"packages"`
	// App is the app's source, relative to the matrix folder.
	App string `json:"app"`
	// Fixes is the one-line fix of each check the default app fails.
	Fixes map[string]string `json:"fixes"`
}

// Files are the matrix's committed records, read from its folder.
type Files struct {
	Dir        string
	Servers    []string // in matrix.sh's order
	Records    map[string]Record
	Results    map[string]Results
	Judged     []Judged
	Frameworks []Framework
	script     []byte            // matrix.sh
	versions   map[string]string // "go:MODULE", "npm:NAME", "go" → version
	generators [][2]string       // package path and version of each go:generate go run
}

// Load reads every committed file of the matrix folder dir.
func Load(dir string) (*Files, error) {
	f := &Files{Dir: dir, Records: map[string]Record{}, Results: map[string]Results{}}
	script, err := os.ReadFile(filepath.Join(dir, "matrix.sh"))
	if err != nil {
		return nil, err
	}
	f.Servers = servedNames(script)
	if len(f.Servers) == 0 {
		return nil, fmt.Errorf("%s starts no server (no serve NAME KIND line)", filepath.Join(dir, "matrix.sh"))
	}
	gomod, err := os.ReadFile(filepath.Join(dir, "goapps", "go.mod"))
	if err != nil {
		return nil, err
	}
	f.script, f.versions = script, pinnedVersions(script, gomod)
	sources, err := filepath.Glob(filepath.Join(dir, "goapps", "*", "*.go"))
	if err != nil {
		return nil, err
	}
	for _, src := range sources {
		text, err := os.ReadFile(src)
		if err != nil {
			return nil, err
		}
		// A generator the apps run (oapi-codegen) is pinned on its
		// go:generate line, not in go.mod.
		for _, m := range goGenerate.FindAllSubmatch(text, -1) {
			f.generators = append(f.generators, [2]string{string(m[1]), string(m[2])})
		}
	}
	for _, name := range f.Servers {
		if f.Records[name], err = ReadRecord(dir, name); err != nil {
			return nil, err
		}
		var res Results
		if err := readJSON(ResultsPath(dir, name), &res); err != nil {
			return nil, err
		}
		f.Results[name] = res
	}
	if f.Judged, err = ReadJudged(dir); err != nil {
		return nil, err
	}
	var fw struct {
		Frameworks []Framework `json:"frameworks"`
	}
	if err := readJSON(filepath.Join(dir, "frameworks.json"), &fw); err != nil {
		return nil, err
	}
	f.Frameworks = fw.Frameworks
	return f, nil
}

// ReadRecord reads oracle/<server>.json. The oracle may record more than
// this package reads, so fields it does not know are left out.
func ReadRecord(dir, server string) (Record, error) {
	path := filepath.Join(dir, "oracle", server+".json")
	raw, err := os.ReadFile(path)
	if err != nil {
		return Record{}, err
	}
	var rec Record
	if err := json.Unmarshal(raw, &rec); err != nil {
		return Record{}, fmt.Errorf("%s: %w", path, err)
	}
	return rec, nil
}

// ReadJudged reads judged.json.
func ReadJudged(dir string) ([]Judged, error) {
	var out []Judged
	err := readJSON(filepath.Join(dir, JudgedFile), &out)
	return out, err
}

// PagePath is the page Page renders from these files, relative to the
// repository's root.
const PagePath = "docs/frameworks.md"

// JudgedFile is the hand list, in the matrix folder.
const JudgedFile = "judged.json"

// ResultsPath is where a server's results are committed.
func ResultsPath(dir, server string) string {
	return filepath.Join(dir, "results", server+".json")
}

// readJSON decodes a file written by hand or by the Matrix test strictly:
// a misspelt field is an error, not a value silently left out.
func readJSON(path string, v any) error {
	raw, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// serveLine is a server matrix.sh starts: serve NAME KIND START SPEC CMD...
var serveLine = regexp.MustCompile(`(?m)^\s*(?:[A-Z_]+=\S+\s+)*serve ([a-z0-9-]+) (?:app|mcp) `)

func servedNames(script []byte) []string {
	var out []string
	for _, m := range serveLine.FindAllSubmatch(script, -1) {
		if name := string(m[1]); !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	return out
}

var (
	npmArray   = regexp.MustCompile(`(?s)NPM_PACKAGES=\((.*?)\n\)`)
	goRequire  = regexp.MustCompile(`(?m)^\s*(?:require\s+)?([a-z0-9.\-]+(?:/[A-Za-z0-9.\-_]+)+) (v\S+)(?:\s|$)`)
	goDirectve = regexp.MustCompile(`(?m)^go (\S+)$`)
	goGenerate = regexp.MustCompile(`(?m)^//go:generate go run (\S+)@(\S+)`)
)

// pinnedVersions reads the versions the matrix pins: the npm packages of
// matrix.sh and the modules of goapps/go.mod.
func pinnedVersions(script, gomod []byte) map[string]string {
	out := map[string]string{}
	if m := npmArray.FindSubmatch(script); m != nil {
		for _, field := range strings.Fields(string(m[1])) {
			// @scope/name@version: the version follows the last @.
			if i := strings.LastIndex(field, "@"); i > 0 {
				out["npm:"+field[:i]] = field[i+1:]
			}
		}
	}
	for _, m := range goRequire.FindAllSubmatch(gomod, -1) {
		out["go:"+string(m[1])] = string(m[2])
	}
	if m := goDirectve.FindSubmatch(gomod); m != nil {
		out["go"] = string(m[1])
	}
	return out
}

// Version is the version of a package named as Framework.Packages names
// it, or an error when the matrix does not pin it.
func (f *Files) Version(pkg string) (string, error) {
	if name, version, ok := strings.Cut(strings.TrimPrefix(pkg, "debian:"), "="); ok && strings.HasPrefix(pkg, "debian:") {
		if !regexp.MustCompile(`DEBIAN_PACKAGES=\([^)]*\b` + regexp.QuoteMeta(name) + `\b`).Match(f.script) {
			return "", fmt.Errorf("%s is not in matrix.sh's DEBIAN_PACKAGES", name)
		}
		return version, nil
	}
	if v, ok := f.versions[pkg]; ok {
		return v, nil
	}
	if module, ok := strings.CutPrefix(pkg, "go:"); ok {
		for _, g := range f.generators {
			if g[0] == module || strings.HasPrefix(g[0], module+"/") {
				return g[1], nil
			}
		}
	}
	return "", fmt.Errorf("%s is pinned neither in matrix.sh's NPM_PACKAGES nor in goapps/go.mod or a go:generate line", pkg)
}

// Framework is the frameworks.json entry of a server, or nil.
func (f *Files) Framework(server string) *Framework {
	for i := range f.Frameworks {
		if f.Frameworks[i].Server == server {
			return &f.Frameworks[i]
		}
	}
	return nil
}

// JudgedFor are the hand entries of one server.
func (f *Files) JudgedFor(server string) []Judged {
	var out []Judged
	for _, j := range f.Judged {
		if j.Server == server {
			out = append(out, j)
		}
	}
	return out
}
