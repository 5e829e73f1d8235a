package spec

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"regexp"
	"strconv"
	"strings"

	"github.com/pb33f/libopenapi"
	"github.com/pb33f/libopenapi/datamodel"
	v3high "github.com/pb33f/libopenapi/datamodel/high/v3"
	"github.com/pb33f/libopenapi/index"
	"github.com/pb33f/libopenapi/utils"

	"github.com/agentready/agentready/finding"
)

// MaxFileSize bounds what LoadFile reads: a description larger than this is
// almost certainly not one, and parsing it would hold the whole YAML tree in
// memory several times over.
const MaxFileSize = 128 << 20

// ErrNotOpenAPI is returned when the bytes parse but are neither an OpenAPI
// nor a Swagger document, so that discovery can try the next candidate.
var ErrNotOpenAPI = errors.New("not an OpenAPI or Swagger document")

// LoadFile reads and loads a description from disk. The path is kept as
// written, which is what findings show and what code scanning resolves.
func LoadFile(path string) (*Document, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxFileSize {
		return nil, fmt.Errorf("%s is larger than %d MiB", path, MaxFileSize>>20)
	}
	return Load(data, path, path)
}

// Load parses an OpenAPI 3.0, 3.1 or 3.2 description (or recognizes a
// Swagger 2.0 one) into a Document. Defects of the document become Problems
// with their line: the error is only for input that is not a description at
// all (ErrNotOpenAPI). source is where the bytes came from (path or URL);
// file is the path findings point at, empty when there is none.
//
// Nothing of libopenapi outlives the call: what checks need is copied into
// plain values and the library's document is released, so a 10 MB
// description does not keep its YAML tree and index alive for the whole scan.
func Load(data []byte, source, file string) (*Document, error) {
	d := &Document{Source: source, File: file}
	lib, err := libopenapi.NewDocumentWithConfiguration(data, loadConfig())
	if err != nil {
		return d.parseFailure(data, err)
	}
	defer lib.Release()
	info := lib.GetSpecInfo()
	d.Version = info.Version
	if info.SpecFormat == datamodel.OAS2 {
		d.Swagger2 = true
		d.Notices = append(d.Notices, fmt.Sprintf("%s is a Swagger 2.0 document: it is recognized but not checked "+
			"operation by operation (no x-hal-rel, operationId or path-template checks, no findings located in it); "+
			"convert it to OpenAPI 3.1 to have it checked", displayName(d)))
		return d, nil
	}
	model, buildErr := lib.BuildV3Model()
	d.addBuildProblems(buildErr)
	if model == nil {
		if len(d.Problems) == 0 {
			d.problem(nil, "", "the document could not be built: %v", buildErr)
		}
		return d, nil
	}
	l := &loader{doc: d, root: info.RootNode, conv: newConverter(info.RootNode)}
	l.servers(model.Model.Servers)
	l.securitySchemes(model.Model.Components)
	l.paths(&model.Model)
	d.Problems = append(d.Problems, mixedFeatures(d, info.RootNode)...)
	sortProblems(d.Problems)
	return d, nil
}

// loadConfig keeps the library offline (no file or remote $ref is followed:
// a scan must not read the user's disk or the network on a document's say)
// and quiet (its default logger writes to stdout). The circular-reference
// walk is skipped: a circular schema is legal, we do not report it, and the
// walk dominates load time on large descriptions.
func loadConfig() *datamodel.DocumentConfiguration {
	cfg := datamodel.NewDocumentConfiguration()
	cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	cfg.AllowFileReferences = false
	cfg.AllowRemoteReferences = false
	cfg.SkipCircularReferenceCheck = true
	return cfg
}

var (
	yamlPosition = regexp.MustCompile(`\bL(\d+)\.C(\d+)`)
	linePosition = regexp.MustCompile(`\bline (\d+)`)
	// yamlError is the parser's wording: "go-yaml load error in parser
	// (while parsing X) at L7.C10-L9.C1: did not find expected ','".
	yamlError = regexp.MustCompile(`go-yaml load error in \w+ (\(.*?\) )?at L\d+\.C\d+(-L\d+\.C\d+)?: (.*)`)
)

// parseFailure turns the library's refusal into a Problem, or ErrNotOpenAPI
// when the bytes parse but carry no openapi or swagger field.
func (d *Document) parseFailure(data []byte, err error) (*Document, error) {
	msg := err.Error()
	if strings.Contains(msg, "spec type not supported") || strings.Contains(msg, "no openapi or swagger") {
		return nil, fmt.Errorf("%s: %w", displayName(d), ErrNotOpenAPI)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, fmt.Errorf("%s is empty: %w", displayName(d), ErrNotOpenAPI)
	}
	// Bytes that do not parse and never name the version field are some
	// other document (an HTML page, a JSON error): not a broken description.
	if !bytes.Contains(data, []byte("openapi")) && !bytes.Contains(data, []byte("swagger")) {
		return nil, fmt.Errorf("%s: %w", displayName(d), ErrNotOpenAPI)
	}
	loc := finding.SourceLocation{File: d.File, Line: 1}
	if m := yamlPosition.FindStringSubmatch(msg); m != nil {
		loc.Line, _ = strconv.Atoi(m[1])
		loc.Column, _ = strconv.Atoi(m[2])
	} else if m := linePosition.FindStringSubmatch(msg); m != nil {
		loc.Line, _ = strconv.Atoi(m[1])
	}
	d.Problems = append(d.Problems, Problem{Message: "syntax error: " + cleanLibMessage(msg), Location: loc})
	return d, nil
}

// cleanLibMessage drops the library's wrapping so the message says what is
// wrong in the document's terms.
func cleanLibMessage(msg string) string {
	if m := yamlError.FindStringSubmatch(msg); m != nil {
		msg = m[3]
		if m[1] != "" {
			msg += " " + strings.TrimSpace(m[1])
		}
		return msg
	}
	for _, prefix := range []string{"unable to parse specification: ", "failed to decode YAML to JSON: "} {
		msg = strings.TrimPrefix(msg, prefix)
	}
	return strings.TrimSpace(msg)
}

// addBuildProblems records what BuildV3Model reported alongside a model:
// unresolvable references with the line of the $ref. Circular references are
// legal in OpenAPI and are not reported.
func (d *Document) addBuildProblems(err error) {
	for _, e := range utils.UnwrapErrors(err) {
		var idx *index.IndexingError
		var res *index.ResolvingError
		switch {
		case errors.As(e, &idx):
			d.problem(idx.Node, "", "unresolvable reference: %s", idx.Err)
		case errors.As(e, &res):
			if res.CircularReference != nil {
				continue
			}
			d.problem(res.Node, "", "unresolvable reference: %s", res.ErrorRef)
		default:
			d.problem(nil, "", "%s", e)
		}
	}
}

func displayName(d *Document) string {
	if d.Source != "" {
		return d.Source
	}
	return "the OpenAPI document"
}

// servers derives the base paths stripped before matching. A server URL's
// variables take their defaults; a relative URL is a path on the target.
func (l *loader) servers(servers []*v3high.Server) {
	seen := map[string]bool{}
	for _, s := range servers {
		if s == nil {
			continue
		}
		raw := s.URL
		if s.Variables != nil {
			for name, v := range s.Variables.FromOldest() {
				if v != nil {
					raw = strings.ReplaceAll(raw, "{"+name+"}", v.Default)
				}
			}
		}
		p := serverPath(raw)
		if !seen[p] {
			seen[p] = true
			l.doc.BasePaths = append(l.doc.BasePaths, p)
		}
	}
}

func serverPath(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "/"
	}
	p := u.EscapedPath()
	if u.Host == "" && !strings.HasPrefix(p, "/") {
		// "example.com/v1" or "{scheme}://..." left unexpanded: no usable path.
		if i := strings.Index(p, "/"); i >= 0 && u.Scheme == "" {
			p = p[i:]
		} else {
			p = "/"
		}
	}
	if p == "" {
		p = "/"
	}
	return p
}

func (l *loader) securitySchemes(c *v3high.Components) {
	if c == nil || c.SecuritySchemes == nil {
		return
	}
	for name, s := range c.SecuritySchemes.FromOldest() {
		if s == nil {
			continue
		}
		if l.doc.SecuritySchemes == nil {
			l.doc.SecuritySchemes = map[string]SecurityScheme{}
		}
		l.doc.SecuritySchemes[name] = SecurityScheme{Type: s.Type, Scheme: strings.ToLower(s.Scheme), In: s.In, Name: s.Name}
	}
}
