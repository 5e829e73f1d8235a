// Package sitemap parses sitemaps (sitemaps.org protocol 0.9): the XML
// urlset and sitemapindex formats, gzip-compressed or not, and the text
// format of one URL per line. It is pure and bounded: any input parses in
// linear time without panicking, at most MaxKept entries and MaxProblems
// problems are kept, and a compressed body is inflated up to MaxSize only.
package sitemap

import (
	"bytes"
	"compress/gzip"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/agentready/agentready/internal/bounded"
)

// Limits of the protocol ("Using Sitemap index files").
const (
	MaxEntries = 50000    // URLs per sitemap, sitemaps per index
	MaxSize    = 50 << 20 // bytes, uncompressed
	MaxLocLen  = 2047     // "must be less than 2,048 characters"
)

// Namespace is the protocol's XML namespace.
const Namespace = "http://www.sitemaps.org/schemas/sitemap/0.9"

// Bounds on what is kept from a hostile file.
const (
	MaxKept     = 1000
	MaxProblems = 50
	maxText     = 120
)

// Kinds of sitemap.
const (
	KindURLSet = "urlset"
	KindIndex  = "sitemapindex"
	KindText   = "text"
)

// File is a parsed sitemap.
type File struct {
	Kind string
	// Entries are the first MaxKept loc values, in document order; Count
	// counts them all.
	Entries []Entry
	Count   int
	// Size is the size of the (inflated) document in bytes.
	Size       int
	Compressed bool
	Problems   bounded.List[Problem]
}

// Entry is one URL of a urlset, or one sitemap of an index.
type Entry struct {
	Loc  string
	Line int
}

// Problem is what breaks a rule of the protocol without making the file
// unreadable.
type Problem struct {
	Line    int
	Message string
}

// ErrNotSitemap is wrapped by Parse's error when the body is readable but is
// neither a urlset, a sitemapindex nor a list of URLs.
var ErrNotSitemap = errors.New("not a sitemap")

// Parse reads a sitemap. It fails when the body cannot be read as one: XML
// that is not well-formed, a root element that is neither urlset nor
// sitemapindex, a compressed body that does not inflate, or text lines that
// are not URLs. What parses but breaks a rule is a Problem.
func Parse(body []byte) (*File, error) {
	f := &File{Problems: bounded.List[Problem]{Max: MaxProblems}}
	if bytes.HasPrefix(body, []byte{0x1f, 0x8b}) {
		inflated, err := inflate(body)
		if err != nil {
			return nil, err
		}
		body, f.Compressed = inflated, true
	}
	f.Size = len(body)
	if f.Size > MaxSize {
		f.problem(0, fmt.Sprintf("the sitemap is %d bytes uncompressed; the protocol allows at most %d", f.Size, MaxSize))
	}
	if !utf8.Valid(body) {
		f.problem(0, "the sitemap is not UTF-8")
	}
	body = bytes.TrimPrefix(body, []byte("\xef\xbb\xbf"))
	var err error
	if trimmed := bytes.TrimLeft(body, " \t\r\n"); len(trimmed) > 0 && trimmed[0] == '<' {
		err = f.parseXML(body)
	} else {
		err = f.parseText(body)
	}
	if err != nil {
		return nil, err
	}
	if f.Count > MaxEntries {
		f.problem(0, fmt.Sprintf("the sitemap lists %d entries; the protocol allows at most %d", f.Count, MaxEntries))
	}
	return f, nil
}

// inflate decompresses a gzip body, reading at most one byte past MaxSize so
// that a compression bomb costs no more than a large file.
func inflate(body []byte) ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("the gzip body does not inflate: %w", err)
	}
	out, err := io.ReadAll(io.LimitReader(zr, MaxSize+1))
	if err != nil && len(out) <= MaxSize {
		return nil, fmt.Errorf("the gzip body does not inflate: %w", err)
	}
	return out, nil
}

func (f *File) problem(line int, msg string) { f.Problems.Add(Problem{Line: line, Message: msg}) }

func (f *File) add(loc string, line int) {
	f.Count++
	if len(f.Entries) < MaxKept {
		f.Entries = append(f.Entries, Entry{Loc: loc, Line: line})
	}
	switch {
	case len(loc) > MaxLocLen:
		f.problem(line, fmt.Sprintf("a loc is %d characters long; it must be less than 2,048", len(loc)))
	case !absoluteHTTP(loc):
		f.problem(line, fmt.Sprintf("loc %q does not begin with the protocol (http or https)", clip(loc)))
	}
}

func (f *File) parseXML(body []byte) error {
	d := xml.NewDecoder(bytes.NewReader(body))
	d.CharsetReader = func(label string, r io.Reader) (io.Reader, error) {
		if strings.EqualFold(label, "utf-8") {
			return r, nil
		}
		return nil, fmt.Errorf("encoding %q: the file must be UTF-8", label)
	}
	// The open elements below the root: "url" or "sitemap", then "loc".
	var stack []string
	var loc strings.Builder
	hasLoc, depth := false, 0
	line := func() int { l, _ := d.InputPos(); return l }
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("not well-formed XML: %w", err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			depth++
			if depth == 1 {
				if err := f.root(t, line()); err != nil {
					return err
				}
				continue
			}
			if depth <= 3 {
				stack = append(stack, t.Name.Local)
			}
			if f.entryStart(stack) {
				hasLoc = false
			}
			if f.locStart(stack) {
				loc.Reset()
			}
		case xml.CharData:
			if f.locStart(stack) && loc.Len() <= MaxLocLen {
				loc.Write(t)
			}
		case xml.EndElement:
			if f.locStart(stack) {
				hasLoc = true
				f.add(strings.TrimSpace(loc.String()), line())
			}
			if f.entryStart(stack) && !hasLoc {
				f.problem(line(), fmt.Sprintf("a <%s> entry has no <loc>", stack[0]))
			}
			if depth >= 2 && depth <= 3 {
				stack = stack[:len(stack)-1]
			}
			depth--
		}
	}
	if f.Kind == "" {
		return fmt.Errorf("%w: the document has no root element", ErrNotSitemap)
	}
	return nil
}

func (f *File) root(t xml.StartElement, line int) error {
	switch t.Name.Local {
	case KindURLSet, KindIndex:
		f.Kind = t.Name.Local
	default:
		return fmt.Errorf("%w: the root element is <%s>, not <urlset> or <sitemapindex>", ErrNotSitemap, clip(t.Name.Local))
	}
	if t.Name.Space != Namespace {
		f.problem(line, fmt.Sprintf("<%s> does not declare the namespace %s", f.Kind, Namespace))
	}
	return nil
}

// entryStart reports the stack of an entry: <url> in a urlset, <sitemap>
// in an index.
func (f *File) entryStart(stack []string) bool {
	return len(stack) == 1 && stack[0] == f.entryName()
}

func (f *File) locStart(stack []string) bool {
	return len(stack) == 2 && stack[0] == f.entryName() && stack[1] == "loc"
}

func (f *File) entryName() string {
	if f.Kind == KindIndex {
		return "sitemap"
	}
	return "url"
}

// parseText reads the text format: "one URL per line", fully specified.
func (f *File) parseText(body []byte) error {
	f.Kind = KindText
	n := 0
	for len(body) > 0 {
		var line []byte
		i := bytes.IndexByte(body, '\n')
		if i < 0 {
			line, body = body, nil
		} else {
			line, body = body[:i], body[i+1:]
		}
		n++
		s := strings.TrimSpace(string(line))
		if s == "" {
			continue
		}
		if f.Count == 0 && !absoluteHTTP(s) {
			return fmt.Errorf("%w: line %d %q is neither XML nor a URL", ErrNotSitemap, n, clip(s))
		}
		f.add(s, n)
	}
	if f.Count == 0 {
		return fmt.Errorf("%w: the body is empty", ErrNotSitemap)
	}
	return nil
}

func absoluteHTTP(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

func clip(s string) string {
	if len(s) <= maxText {
		return s
	}
	s = s[:maxText]
	for !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return s + "…"
}
