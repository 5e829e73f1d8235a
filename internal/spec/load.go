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
	"runtime"
	"strconv"
	"strings"

	"github.com/pb33f/libopenapi/datamodel"
	v3high "github.com/pb33f/libopenapi/datamodel/high/v3"
	lowbase "github.com/pb33f/libopenapi/datamodel/low/base"
	v3low "github.com/pb33f/libopenapi/datamodel/low/v3"
	"github.com/pb33f/libopenapi/index"
	"github.com/pb33f/libopenapi/utils"

	"github.com/agentready/agentready/internal/finding"
)

// DefaultMaxSize is the cap on a description's size unless the caller sets
// another. Parsing holds the document as a YAML tree and a model that take
// 15 to 85 times its size, so the cap is what bounds memory: 32 MiB is about
// two and a half times GitHub's REST description.
const DefaultMaxSize = 32 << 20

// collectAbove is the size from which Load collects the library's model
// before converting: below it the model is small, and a collection would
// cost more than the memory it gives back.
const collectAbove = 1 << 20

// ErrNotOpenAPI is returned when the bytes parse but are neither an OpenAPI
// nor a Swagger document, so that discovery can try the next candidate.
var ErrNotOpenAPI = errors.New("not an OpenAPI or Swagger document")

// TooLargeError is a description over the size cap. Size is 0 when the size
// is not known (a stream cut at the cap).
type TooLargeError struct {
	Source    string
	Size, Max int64
}

func (e *TooLargeError) Error() string {
	if e.Size > e.Max {
		return fmt.Sprintf("%s is %s, larger than the %s cap on OpenAPI documents", e.Source, formatSize(e.Size), formatSize(e.Max))
	}
	return fmt.Sprintf("%s is larger than the %s cap on OpenAPI documents", e.Source, formatSize(e.Max))
}

// formatSize writes a byte count in the largest binary unit it reaches,
// with one decimal unless it is a whole number of them.
func formatSize(n int64) string {
	unit, name := int64(1), "bytes"
	switch {
	case n >= 1<<20:
		unit, name = 1<<20, "MiB"
	case n >= 1<<10:
		unit, name = 1<<10, "KiB"
	}
	if n%unit == 0 {
		return fmt.Sprintf("%d %s", n/unit, name)
	}
	return fmt.Sprintf("%.1f %s", float64(n)/float64(unit), name)
}

// LoadFile reads and loads a description from disk, refusing one larger than
// max bytes (a *TooLargeError) before reading it. The path is kept as
// written, which is what findings show and what code scanning resolves.
func LoadFile(path string, max int64) (*Document, error) {
	data, err := readFile(path, max)
	if err != nil {
		return nil, err
	}
	return Load(data, path, path)
}

// LoadFileKeeping is LoadFile with the text kept in the document's Raw.
func LoadFileKeeping(path string, max int64) (*Document, error) {
	data, err := readFile(path, max)
	if err != nil {
		return nil, err
	}
	doc, err := Load(data, path, path)
	if doc != nil {
		doc.Raw = data
	}
	return doc, err
}

// ReadFile reads a file of at most max bytes, refusing a larger one with a
// *TooLargeError.
func ReadFile(path string, max int64) ([]byte, error) { return readFile(path, max) }

func readFile(path string, max int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if st.Size() > max {
		return nil, &TooLargeError{Source: path, Size: st.Size(), Max: max}
	}
	// Sized from the file so that reading does not grow and copy the buffer;
	// the limit still holds for files that grow, pipes and devices.
	buf := bytes.NewBuffer(make([]byte, 0, st.Size()+bytes.MinRead))
	if _, err := buf.ReadFrom(io.LimitReader(f, max+1)); err != nil {
		return nil, err
	}
	if int64(buf.Len()) > max {
		return nil, &TooLargeError{Source: path, Max: max}
	}
	return buf.Bytes(), nil
}

// Load parses an OpenAPI 3.0, 3.1 or 3.2 description (or recognizes a
// Swagger 2.0 one) into a Document. Defects of the document become Problems
// with their line: the error is only for input that is not a description at
// all (ErrNotOpenAPI). source is where the bytes came from (path or URL);
// file is the path findings point at, empty when there is none.
//
// Nothing of libopenapi outlives the call, and its model does not outlive
// the first pass: operations are read from the model with the YAML nodes of
// their schemas and extensions, the model is released, and only then are
// those nodes converted into plain values. Peak memory is then the
// library's own, not the library's plus ours.
func Load(data []byte, source, file string) (*Document, error) {
	return loadWith(data, source, file, libraryConfig())
}

// LoadLocal is Load for a document on the user's own disk whose $refs may
// name other files: those under baseDir (the document's directory) are
// read and resolved, so that a description split into several files is
// judged as the one document it is. Remote references stay unread. A scan
// never uses it: what a served document names on the disk is not its own.
func LoadLocal(data []byte, source, file, baseDir string) (*Document, error) {
	cfg := libraryConfig()
	cfg.AllowFileReferences = true
	cfg.BasePath = baseDir
	return loadWith(data, source, file, cfg)
}

func loadWith(data []byte, source, file string, cfg *datamodel.DocumentConfiguration) (*Document, error) {
	d := &Document{Source: source, File: file}
	info, err := datamodel.ExtractSpecInfoWithConfig(data, cfg)
	if err != nil {
		return d.parseFailure(data, err)
	}
	root := info.RootNode
	d.Version = info.Version
	if info.SpecFormat == datamodel.OAS2 {
		info.Release()
		d.Swagger2 = true
		d.Notices = append(d.Notices, fmt.Sprintf("%s is a Swagger 2.0 document: it is recognized but not checked "+
			"operation by operation (no x-hal-rel, operationId or path-template checks, no findings located in it); "+
			"convert it to OpenAPI 3.1 to have it checked", displayName(d)))
		return d, nil
	}
	d.Problems = append(d.Problems, duplicateKeys(d, root)...)
	l := &loader{doc: d, root: root, conv: newConverter(root)}
	if !l.readModel(info, cfg) {
		sortProblems(d.Problems)
		return d, nil
	}
	if len(data) >= collectAbove {
		// The model is garbage now; collecting it lets the conversion reuse
		// its memory instead of growing the heap past the model's peak.
		runtime.GC()
	}
	l.convert()
	d.Problems = append(d.Problems, mixedFeatures(d, root)...)
	sortProblems(d.Problems)
	return d, nil
}

// readModel builds the library's model and reads from it everything that
// needs no conversion, keeping the YAML nodes to convert. It releases the
// parsed document before returning, and reports whether there was a model
// at all.
func (l *loader) readModel(info *datamodel.SpecInfo, cfg *datamodel.DocumentConfiguration) bool {
	defer info.Release()
	model, buildErr := buildV3Model(info, cfg)
	before := len(l.doc.Problems)
	l.doc.addBuildProblems(buildErr)
	if model == nil {
		if len(l.doc.Problems) == before {
			l.doc.Problems = append(l.doc.Problems, l.doc.problemAt(nil, "the document could not be built: %v", buildErr))
		}
		return false
	}
	l.servers(model.Servers)
	l.securitySchemes(model.Components)
	l.paths(model)
	return true
}

// buildV3Model is what libopenapi's Document.BuildV3Model does, errors
// included, called on the model packages directly: the library's root
// package also holds its Swagger 2, Arazzo, Overlay and document-diff
// models, which this package never uses and which would double the time
// it takes to compile it and its dependencies from an empty cache.
func buildV3Model(info *datamodel.SpecInfo, cfg *datamodel.DocumentConfiguration) (*v3high.Document, error) {
	switch info.SpecFormat {
	case datamodel.OAS3, datamodel.OAS31, datamodel.OAS32:
	default:
		return nil, fmt.Errorf("unable to build openapi document, "+
			"supplied spec is a different version (%v). Try 'BuildV2Model()'", info.SpecFormat)
	}
	lowDoc, docErr := v3low.CreateDocumentFromConfig(info, cfg)
	if lowDoc == nil {
		return nil, docErr
	}
	errs := utils.UnwrapErrors(docErr)
	// Only circular references leave a model to read; the library then
	// reports them alongside it, and addBuildProblems leaves them out.
	for _, err := range errs {
		var refErr *index.ResolvingError
		if errors.As(err, &refErr) && refErr.CircularReference == nil {
			return nil, errors.Join(errs...)
		}
	}
	model := v3high.NewDocument(lowDoc)
	// The library keeps schema hashes in a process-wide cache for the
	// model's build; like its own BuildV3Model, empty it afterwards.
	lowbase.SchemaQuickHashMap.Clear()
	return model, errors.Join(errs...)
}

// BuildLibraryModel is the floor the benchmarks measure Load against:
// libopenapi's parse and model build with the configuration Load gives it,
// and nothing else.
func BuildLibraryModel(data []byte) error {
	cfg := libraryConfig()
	info, err := datamodel.ExtractSpecInfoWithConfig(data, cfg)
	if err != nil {
		return err
	}
	defer info.Release()
	if model, err := buildV3Model(info, cfg); model == nil {
		return fmt.Errorf("no model: %v", err)
	}
	return nil
}

// libraryConfig is the configuration Load gives libopenapi, and
// BuildLibraryModel too, so that benchmarks measure the library alone with
// what Load asks of it. It keeps the library offline (no
// file or remote $ref is followed: a scan must not read the user's disk or
// the network on a document's say) and quiet (its default logger writes to
// stdout). Two of its passes are skipped: the circular-reference walk (a
// circular schema is legal, we do not report it, and the walk dominates load
// time on large descriptions), and the JSON view with its duplicate-key
// check, which compares every pair of keys of a mapping; duplicateKeys does
// that check in linear time.
func libraryConfig() *datamodel.DocumentConfiguration {
	cfg := datamodel.NewDocumentConfiguration()
	cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	cfg.AllowFileReferences = false
	cfg.AllowRemoteReferences = false
	cfg.SkipCircularReferenceCheck = true
	cfg.SkipJSONConversion = true
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
	d.Unparsed = true
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
	list := newProblemList()
	for _, e := range utils.UnwrapErrors(err) {
		var idx *index.IndexingError
		var res *index.ResolvingError
		switch {
		case errors.As(e, &idx):
			list.Add(d.problemAt(idx.Node, "unresolvable reference: %s", idx.Err))
		case errors.As(e, &res):
			if res.CircularReference == nil {
				list.Add(d.problemAt(res.Node, "unresolvable reference: %s", res.ErrorRef))
			}
		default:
			list.Add(d.problemAt(nil, "%s", e))
		}
	}
	d.Problems = append(d.Problems, listed(&list, "problems resolving the document")...)
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
		l.doc.Servers = append(l.doc.Servers, raw)
		p := ServerPath(raw)
		if !seen[p] {
			seen[p] = true
			l.doc.BasePaths = append(l.doc.BasePaths, p)
		}
	}
}

// ServerPath is the path of a server URL ("/" when it has none), the prefix
// its operations' paths go under.
func ServerPath(raw string) string {
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
