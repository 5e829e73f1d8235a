// Package config reads .agentready.yaml: what to scan, how to tune the checks
// and when to fail. It is pure data plus validation; the CLI applies it to
// its flags (flags win, then AGENTREADY_* variables, then the file, then the
// defaults) and the scan applies the check policy.
//
// Every field carries three tags: yaml (the key), doc (the description that
// goes into the JSON Schema and the starter file) and, where the setting is
// also a command-line flag, flag (the flag's name, so that precedence is one
// mechanical rule and a key can never drift from its flag). A section tagged
// runs:"true" starts processes, and one tagged secrets:"true" sends
// credentials taken from the user's environment: the CLI applies either only
// from a file the user chose, never from one it merely found above the
// working directory.
package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	yaml "github.com/pb33f/go-yaml"
)

// FileName is looked for in the working directory and then in each parent.
const FileName = ".agentready.yaml"

// CurrentVersion is the only format version this release reads.
const CurrentVersion = 1

// maxFileSize bounds what is read: a config file is hand-written.
const maxFileSize = 1 << 20

// File is the whole configuration file.
type File struct {
	Version    int                 `yaml:"version,omitempty" enum:"1" doc:"Format version of this file. 1 is the only version."`
	Target     string              `yaml:"target,omitempty" flag:"target" doc:"Base URL to scan, used when the command line names none."`
	Targets    []Target            `yaml:"targets,omitempty" doc:"Several targets scanned one after another, each with its own report, when the command line names no URL; each inherits the top-level settings it does not set itself. Not together with target."`
	OpenAPI    string              `yaml:"openapi,omitempty" flag:"openapi" path:"true" doc:"OpenAPI document of the target: a file (relative to this file) or a URL."`
	BasePath   string              `yaml:"base-path,omitempty" flag:"base-path" doc:"Path the OpenAPI operations live under on the target (/ for the root), instead of the servers path or the bare path, whichever answers."`
	Server     *int                `yaml:"server,omitempty" min:"1" flag:"server" doc:"Which entry of the OpenAPI servers list to take the base path from (1 is the first), when it declares several."`
	MCP        string              `yaml:"mcp,omitempty" flag:"mcp" doc:"MCP endpoint of the target, when it is not discoverable from the target itself."`
	Identities []Identity          `yaml:"identities,omitempty" secrets:"true" doc:"Identities to scan as. Credentials are named by environment variable, never written here."`
	Access     map[string][]string `yaml:"access,omitempty" doc:"Operations (operationId, or 'METHOD /path/template') mapped to the roles that may call them, any one sufficing; the leakage family uses it as evidence that an operation refuses an identity."`
	Limits     Limits              `yaml:"limits,omitempty" doc:"Bounds of the crawl, of what an MCP catalog may put into a model's context, and of how far a Markdown twin may differ from its page."`
	Include    []string            `yaml:"include,omitempty" flag:"include" doc:"Crawl only paths matching these patterns (path.Match syntax; a trailing * or /** matches any suffix)."`
	Exclude    []string            `yaml:"exclude,omitempty" flag:"exclude" doc:"Never crawl paths matching these patterns."`
	Robots     *bool               `yaml:"respect-robots,omitempty" flag:"respect-robots" doc:"Read /robots.txt first and skip the paths it disallows for agentready (or *). Off by default: the scanner is meant for your own API, staging included."`
	TLS        TLS                 `yaml:"tls,omitempty" secrets:"true" doc:"TLS of every connection the scan opens (the target, its MCP endpoint, the OAuth token endpoint): a private CA, a client certificate, or no verification. A file found in a parent directory applies it only with --trust-config."`
	Families   map[string]bool     `yaml:"families,omitempty" names:"families" doc:"Check families to run (true) or leave out (false); families not listed run."`
	Checks     map[string]string   `yaml:"checks,omitempty" names:"checks" enum:"error,warning,info,off" doc:"Per-check severity override: error, warning, info, or off to not run the check."`
	Ignores    []Ignore            `yaml:"ignores,omitempty" doc:"Findings to leave out of the report and the gate, each with a reason and optionally an expiry date."`
	Gate       Gate                `yaml:"gate,omitempty" doc:"When the run fails (exit 1)."`
	Baseline   string              `yaml:"baseline,omitempty" flag:"baseline" path:"true" doc:"JSON report of an earlier scan (relative to this file): only findings not in it gate the run."`
	Active     Active              `yaml:"active,omitempty" doc:"Active probes: state-changing requests sent only with --active, and only to what allow names."`
	Trial      Trial               `yaml:"trial,omitempty" doc:"Bounds of a trial (--trial), which plays the tasks the API declares under the consent rules of active probes: active.allow names what it may call, active.ci lets it run in CI."`
	Start      *Start              `yaml:"start,omitempty" runs:"true" doc:"Start the app before scanning it, and stop it afterwards."`
	Rules      map[string]Rule     `yaml:"rules,omitempty" names:"rules" doc:"House rules in Spectral's rule shape, by kebab-case rule ID; each becomes the check custom-<id> of the custom family (docs/custom-rules.md)."`

	// Path is the file this was read from, or "" when no file was found.
	Path string `yaml:"-"`
	// targetLines are the lines the items of targets start on, for errors.
	targetLines []int
}

// Target is one of several targets. Its settings replace the top-level ones
// for this target alone; a setting left out is inherited.
type Target struct {
	Name          string     `yaml:"name,omitempty" doc:"Name of the target in reports, file names ({target} in -o paths) and the SARIF category: letters, digits, '.', '_' and '-' (default: taken from the URL's host and path)."`
	URL           string     `yaml:"url" doc:"Base URL to scan."`
	OpenAPI       string     `yaml:"openapi,omitempty" path:"true" doc:"OpenAPI document of this target: a file (relative to this file) or a URL."`
	BasePath      string     `yaml:"base-path,omitempty" doc:"Path the OpenAPI operations live under on this target."`
	Server        *int       `yaml:"server,omitempty" min:"1" doc:"Which entry of the OpenAPI servers list to take the base path from (1 is the first)."`
	MCP           string     `yaml:"mcp,omitempty" doc:"MCP endpoint of this target, when it is not discoverable from the target itself."`
	Identities    []Identity `yaml:"identities,omitempty" doc:"Identities to scan this target as, instead of the top-level ones; their credentials are sent to this target only."`
	Include       []string   `yaml:"include,omitempty" doc:"Crawl only paths of this target matching these patterns."`
	Exclude       []string   `yaml:"exclude,omitempty" doc:"Never crawl paths of this target matching these patterns."`
	SARIFCategory string     `yaml:"sarif-category,omitempty" doc:"SARIF category (automationDetails.id) of this target's run (default: agentready/NAME), so that GitHub code scanning keeps the targets apart."`
	TLS           TLS        `yaml:"tls,omitempty" doc:"TLS of this target's connections: each key set here replaces the top-level one (and its flag) for this target; cert and key go together. A file found in a parent directory applies it only with --trust-config."`
}

// Identity is a credential the scan may present. Only the name of the
// environment variable holding the secret is written down.
type Identity struct {
	Name        string   `yaml:"name" doc:"Name of the identity, as reports show it."`
	Header      string   `yaml:"header,omitempty" doc:"Request header that carries the credential; default Authorization."`
	Scheme      string   `yaml:"scheme,omitempty" doc:"Prefix of the header value, e.g. Bearer; empty sends the variable's value as it is."`
	Env         string   `yaml:"env,omitempty" names:"env" doc:"Name of the environment variable that holds the credential (e.g. READER_TOKEN), never the credential itself; required unless oauth is given."`
	OAuth       *OAuth   `yaml:"oauth,omitempty" doc:"Get the credential from an OAuth 2.0 token endpoint (client credentials grant) before the scan, and send it as a Bearer token, renewed when it expires; instead of env."`
	Description string   `yaml:"description,omitempty" doc:"What this identity may do, for people reading the file."`
	Roles       []string `yaml:"roles,omitempty" doc:"Roles the identity holds, matched against access and against role names in OpenAPI security requirements; leave out when unknown."`
}

// OAuth is an identity's client credentials grant (RFC 6749 §4.4). The
// client ID and secret are references, env:VAR or file:PATH, resolved when
// the scan starts; the secret is never written here.
type OAuth struct {
	TokenURL     string `yaml:"token-url" doc:"Token endpoint. It may be on another origin than the target: naming it here allows it. It gets the client credentials and nothing else; the token it issues goes to the target's origin only."`
	ClientID     string `yaml:"client-id" doc:"Client ID, as it is or as env:VAR / file:PATH."`
	ClientSecret string `yaml:"client-secret" doc:"Client secret as env:VAR (an environment variable) or file:PATH (a one-line file, relative to this file), never the secret itself."`
	Scope        string `yaml:"scope,omitempty" doc:"Scopes to ask for, separated by spaces."`
	Audience     string `yaml:"audience,omitempty" doc:"Sent as the audience parameter, which some authorization servers require."`
	Auth         string `yaml:"auth,omitempty" enum:"client_secret_basic,client_secret_post" doc:"How the client authenticates: HTTP Basic (client_secret_basic, the default) or in the request body (client_secret_post)."`
}

// IsSecretRef reports a value naming where a secret is, env:VAR or
// file:PATH, rather than holding it.
func IsSecretRef(s string) bool {
	return strings.HasPrefix(s, "env:") || strings.HasPrefix(s, "file:")
}

// TLS is the client side of the scan's TLS connections. The system's CAs
// (or those of SSL_CERT_FILE and SSL_CERT_DIR) stay trusted.
type TLS struct {
	CACert   string `yaml:"cacert,omitempty" flag:"cacert" path:"true" doc:"PEM file of CA certificates trusted besides the system's, e.g. a staging server's private CA (relative to this file)."`
	Cert     string `yaml:"cert,omitempty" flag:"cert" path:"true" doc:"PEM file of the client certificate presented to servers that ask for one; with key (relative to this file)."`
	Key      string `yaml:"key,omitempty" flag:"key" path:"true" doc:"PEM file of the client certificate's private key (relative to this file)."`
	Insecure *bool  `yaml:"insecure,omitempty" flag:"insecure" doc:"Do not verify the servers' certificates. Every report warns; the credentials given are still sent."`
}

// Active configures active probes. They change state on the target, so
// nothing here turns them on: --active does, and the allow-list bounds them.
type Active struct {
	Allow []string `yaml:"allow,omitempty" doc:"Operations active probes may send: 'METHOD /path/glob' (* matches one path segment) or an operationId."`
	CI    bool     `yaml:"ci,omitempty" doc:"Let --active run when the CI environment variable is set; off by default, so a pipeline sends active probes only when this file says so."`
}

// Trial bounds a trial. Nothing here turns one on: --trial does.
type Trial struct {
	Tasks  *int `yaml:"tasks,omitempty" min:"1" doc:"Play at most this many tasks (default 20)."`
	Writes *int `yaml:"writes,omitempty" min:"1" doc:"Send at most this many state-changing requests in all, every player's attempts and repeats counted (default 120)."`
}

// Limits bound the crawl. Pointers tell "not set" apart from an explicit 0.
type Limits struct {
	MaxPages         *int     `yaml:"max-pages,omitempty" min:"1" flag:"max-pages" doc:"Crawl at most this many pages (default 200)."`
	MaxDepth         *int     `yaml:"max-depth,omitempty" min:"0" flag:"max-depth" doc:"Follow links at most this deep (default 5)."`
	Concurrency      *int     `yaml:"concurrency,omitempty" min:"1" flag:"concurrency" doc:"Requests in flight at once (default 4)."`
	Rate             *float64 `yaml:"rate,omitempty" min:"0" flag:"rate" doc:"Requests per second; 0 means unlimited (default 0)."`
	Timeout          string   `yaml:"timeout,omitempty" flag:"timeout" format:"duration" doc:"Timeout per request, e.g. 10s (default 10s)."`
	Budget           string   `yaml:"budget,omitempty" flag:"budget" format:"duration" doc:"Time budget of the whole scan, e.g. 2m (default 2m)."`
	MaxBody          *int64   `yaml:"max-body,omitempty" min:"1" flag:"max-body" doc:"Bytes read of each response body (default 2097152)."`
	MaxLinks         *int     `yaml:"max-links-per-page,omitempty" min:"1" flag:"max-links-per-page" doc:"Links taken from one page, in the order they are read (default 1000)."`
	MaxQueries       *int     `yaml:"max-query-variants,omitempty" min:"1" flag:"max-query-variants" doc:"Distinct query strings crawled per path, so that calendars and sort links cannot flood the crawl (default 5)."`
	MaxSpecSize      *int64   `yaml:"max-spec-size,omitempty" min:"1" flag:"max-spec-size" doc:"Largest OpenAPI document read, from a file or fetched, in bytes (default 33554432); lint uses it too."`
	MaxRecordingSize *int64   `yaml:"max-recording-size,omitempty" min:"1" flag:"max-recording-size" doc:"Largest recording scan --replay reads, in bytes (default 536870912): a replay holds every body it recorded."`
	MCPTools         *int     `yaml:"mcp-max-tools,omitempty" min:"1" doc:"Tools an MCP catalog may list without offering a search tool, before mcp-context-cost warns (default 40)."`
	MCPTokens        *int     `yaml:"mcp-max-tokens,omitempty" min:"1" doc:"Tokens (o200k_base) an MCP catalog may put into every context without offering a search tool, before mcp-context-cost warns (default 15000)."`
	MCPDescription   *int     `yaml:"mcp-description-max-tokens,omitempty" min:"1" doc:"Tokens (o200k_base) one MCP tool's description may cost before mcp-tool-description-length reports it (default 375, one tool's share of mcp-max-tokens over mcp-max-tools)."`
	TwinHeadings     *float64 `yaml:"twin-min-heading-overlap,omitempty" min:"0" max:"1" doc:"Least overlap (Jaccard index, 0 to 1) of the headings of an HTML page and of its Markdown twin, before discovery-markdown-divergent warns (default 0.8)."`
	TwinLinks        *int     `yaml:"twin-max-link-differences,omitempty" min:"0" doc:"Link targets an HTML page and its Markdown twin may have one without the other, before discovery-markdown-divergent warns (default 3)."`
}

// Gate decides the exit status.
type Gate struct {
	FailOn         string `yaml:"fail-on,omitempty" flag:"fail-on" enum:"error,warning,info,none" doc:"Fail on findings of this severity or worse (default error). With a baseline, only new findings count."`
	FailUnder      string `yaml:"fail-under,omitempty" flag:"fail-under" doc:"Fail when the grade is below this letter (e.g. B) or the score below this number (e.g. 80)."`
	StrictBaseline *bool  `yaml:"strict-baseline,omitempty" flag:"strict-baseline" doc:"Fail when the baseline lists a finding that is no longer found, so that the baseline only shrinks."`
	MinCoverage    *int   `yaml:"min-coverage,omitempty" min:"0" max:"100" flag:"min-coverage" doc:"Fail when the scan reached less than this percentage of the OpenAPI document's GET operations, or had no document to count them in (0, the default, is no minimum)."`
	FailOnDrift    string `yaml:"fail-on-drift,omitempty" flag:"fail-on-drift" enum:"breaking,any,none" doc:"With a baseline that records the agent surface: fail on breaking changes to it (default breaking), on any change, or none. Drift findings never count toward fail-on."`
	FailOnTrial    string `yaml:"fail-on-trial,omitempty" flag:"fail-on-trial" enum:"error,warning,info,none" doc:"After a played trial: fail on trial findings of this severity or worse (default error), or none. Trial findings never count toward fail-on."`
}

// Start describes the app the scan starts itself.
type Start struct {
	Command      string            `yaml:"command" flag:"start" doc:"Shell command that starts the app, e.g. go run ./cmd/server or npm start."`
	Ready        string            `yaml:"ready,omitempty" flag:"ready" doc:"Readiness: an http(s) URL that must answer 2xx, or a regular expression matched against each line the app prints."`
	ReadyTimeout string            `yaml:"ready-timeout,omitempty" flag:"ready-timeout" format:"duration" doc:"How long to wait for readiness (default 60s)."`
	Log          string            `yaml:"log,omitempty" flag:"start-log" path:"true" doc:"File the app's output is written to (default: a new file in the temporary directory)."`
	Grace        string            `yaml:"grace,omitempty" flag:"stop-grace" format:"duration" doc:"How long the app has to exit after SIGTERM before it is killed (default 5s)."`
	Env          map[string]string `yaml:"env,omitempty" flag:"start-env" names:"env" doc:"Environment variables added to the app's environment. Keep secrets out: the app inherits the scanner's environment."`
}

// Find returns the path of the configuration file in dir or its nearest
// parent, or "" when there is none.
func Find(dir string) (string, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for {
		p := filepath.Join(dir, FileName)
		st, err := os.Stat(p)
		switch {
		case err == nil && !st.IsDir():
			return p, nil
		case err != nil && !errors.Is(err, fs.ErrNotExist):
			return "", err
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", nil
		}
		dir = parent
	}
}

// Load reads and parses the file at path. It checks the shape of the file
// (unknown keys, types) but not the check IDs, which Validate does.
func Load(path string) (*File, error) {
	data, err := readBounded(path)
	if err != nil {
		return nil, err
	}
	f, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	f.Path = path
	return f, nil
}

func readBounded(path string) ([]byte, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(io.LimitReader(fh, maxFileSize+1)); err != nil {
		return nil, err
	}
	if buf.Len() > maxFileSize {
		return nil, fmt.Errorf("%s: larger than %d bytes; is this really a configuration file?", path, maxFileSize)
	}
	return buf.Bytes(), nil
}

// Parse decodes a configuration document. Unknown keys are errors with a
// "did you mean" hint and the line they are on.
func Parse(data []byte) (*File, error) {
	f := &File{}
	if len(bytes.TrimSpace(data)) == 0 {
		return f, nil
	}
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, fmt.Errorf("not valid YAML: %w", err)
	}
	if len(root.Content) == 0 {
		return f, nil
	}
	if err := checkKeys(root.Content[0], fileShape()); err != nil {
		return nil, err
	}
	// The key walk above gives the friendly errors; strict decoding stays as
	// the safety net for anything it does not model.
	if err := root.Content[0].Load(f, yaml.WithKnownFields()); err != nil {
		return nil, err
	}
	f.targetLines = itemLines(root.Content[0], "targets")
	rulePositions(root.Content[0], f)
	if f.Version != 0 && f.Version != CurrentVersion {
		return nil, fmt.Errorf("version %d: this release reads version %d", f.Version, CurrentVersion)
	}
	return f, nil
}

// itemLines are the lines the items of the top-level list key start on.
func itemLines(doc *yaml.Node, key string) []int {
	if doc.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(doc.Content); i += 2 {
		if doc.Content[i].Value != key || doc.Content[i+1].Kind != yaml.SequenceNode {
			continue
		}
		var lines []int
		for _, item := range doc.Content[i+1].Content {
			lines = append(lines, item.Line)
		}
		return lines
	}
	return nil
}

// Dir is the directory relative paths in the file are resolved against.
func (f *File) Dir() string {
	if f.Path == "" {
		return "."
	}
	return filepath.Dir(f.Path)
}

// Resolve makes a path written in the file relative to the working
// directory. URLs and absolute paths are returned as they are.
func (f *File) Resolve(p string) string {
	if p == "" || strings.Contains(p, "://") || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(f.Dir(), p)
}

// DefaultIdentityHeader carries an identity's credential unless it names
// another header.
const DefaultIdentityHeader = "Authorization"

// Credential resolves an identity through getenv (os.Getenv in the CLI):
// the header to send and its value. ok is false when the variable is unset
// or empty, so the caller can say which identity could not be used.
func (id Identity) Credential(getenv func(string) string) (header, value string, ok bool) {
	header = id.Header
	if header == "" {
		header = DefaultIdentityHeader
	}
	secret := getenv(id.Env)
	if secret == "" {
		return header, "", false
	}
	if id.Scheme != "" {
		return header, id.Scheme + " " + secret, true
	}
	return header, secret, true
}
