package discovery

import (
	"bytes"
	"fmt"
	"html"
	"net/url"
	"strings"
	"unicode"

	"github.com/PuerkitoBio/goquery"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"

	"github.com/agentready/agentready/internal/exchange"
)

// What discovery-markdown-divergent reads of a page and of its Markdown
// twin: the title, the heading outline and the link targets, each reduced
// to what a converter from HTML to Markdown cannot change (case, spacing,
// punctuation, entities, relative or absolute links, fragments), so that a
// twin generated from the page compares equal to it.

// Bounds on what is read of one document, so that a hostile page cannot
// make the comparison quadratic or the evidence unbounded.
const (
	maxTwinHeadings = 300
	maxTwinLinks    = 1000
	maxTwinText     = 200 // runes of one heading kept for evidence
)

// Bounds on the Markdown a twin may be for it to be parsed at all. CommonMark
// parsers are superlinear in deeply nested containers and in long runs of
// link reference definitions (goldmark takes seconds on 128 KiB of either);
// real twins are far inside these bounds, and one outside is not compared.
const (
	maxTwinMarkdown = 512 << 10 // bytes
	maxTwinNesting  = 16        // block quote and list markers opening one line
	maxTwinIndent   = 128       // columns of indentation of one line
	// maxTwinRefDefWork bounds, summed over paragraphs, the lines that may
	// define a link reference times the lines of their paragraph: the
	// parser reads the rest of a paragraph again for each definition.
	maxTwinRefDefWork = 2000 * 2000
)

// unparsableTwin says why a Markdown body is outside the bounds above, or "".
func unparsableTwin(body []byte) string {
	if len(body) > maxTwinMarkdown {
		return fmt.Sprintf("it is over %d KiB", maxTwinMarkdown>>10)
	}
	work, defs, lines := 0, 0, 0
	// paragraphEnds adds the work of the run of lines that just ended.
	paragraphEnds := func() bool {
		work += defs * lines
		defs, lines = 0, 0
		return work > maxTwinRefDefWork
	}
	for line := range bytes.Lines(body) {
		if len(bytes.TrimSpace(line)) == 0 {
			if paragraphEnds() {
				return "its link reference definitions are too many for their paragraphs"
			}
			continue
		}
		lines++
		nesting, indent, i := 0, 0, 0
	prefix:
		for i < len(line) {
			switch c := line[i]; {
			case c == ' ':
				indent++
			case c == '\t':
				indent += 4
			case c == '>':
				nesting++
			case (c == '-' || c == '*' || c == '+') && i+1 < len(line) && (line[i+1] == ' ' || line[i+1] == '\t'):
				nesting++
			case c >= '0' && c <= '9':
				j := i
				for j < len(line) && line[j] >= '0' && line[j] <= '9' {
					j++
				}
				if j+1 >= len(line) || (line[j] != '.' && line[j] != ')') || (line[j+1] != ' ' && line[j+1] != '\t') {
					break prefix
				}
				nesting, i = nesting+1, j
			default:
				break prefix
			}
			i++
		}
		if nesting > maxTwinNesting || indent > maxTwinIndent {
			return fmt.Sprintf("a line opens %d nested blocks or is indented %d columns", nesting, indent)
		}
		if i < len(line) && line[i] == '[' && bytes.Contains(line[i:], []byte("]:")) {
			defs++
		}
	}
	if paragraphEnds() {
		return "its link reference definitions are too many for their paragraphs"
	}
	return ""
}

// twinDoc is one representation of a page, reduced for comparison.
type twinDoc struct {
	// title is the first H1 (for Markdown, else the front matter's title),
	// normalized; titleText is it as written.
	title, titleText string
	// pageTitle is the HTML <title>, normalized: a twin whose H1 repeats it
	// agrees with the page.
	pageTitle string
	// headings and links are what the comparison judges: normalized text to
	// text as written, and normalized target to target as resolved.
	headings, links orderedSet
	// looseHeadings and looseLinks are the HTML page's chrome (navigation,
	// footers, sidebars, and everything outside <main> where there is one):
	// a twin may carry them or not.
	looseHeadings, looseLinks orderedSet
}

// orderedSet keeps keys in the order first seen, each with how it read.
type orderedSet struct {
	keys []string
	as   map[string]string
}

func (s *orderedSet) add(key, as string, limit int) {
	if key == "" || len(s.keys) >= limit {
		return
	}
	if s.as == nil {
		s.as = map[string]string{}
	}
	if _, ok := s.as[key]; !ok {
		s.as[key] = as
		s.keys = append(s.keys, key)
	}
}

func (s *orderedSet) has(key string) bool { _, ok := s.as[key]; return ok }

// twinText normalizes a title or heading: entities decoded, letters and
// digits lower-cased, everything else (punctuation, emphasis markers, a
// permalink's "#" or "¶") a single space.
func twinText(s string) string {
	s = html.UnescapeString(s)
	var b strings.Builder
	space := false
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			b.WriteRune(unicode.ToLower(r))
			space = false
			continue
		}
		space = true
	}
	return b.String()
}

// asWritten is a heading as shown in evidence: spacing collapsed, without
// the permalink mark a documentation site appends ("Install ¶"), cut.
func asWritten(s string) string {
	f := strings.Fields(html.UnescapeString(s))
	for len(f) > 1 && strings.Contains("¶#§🔗", f[len(f)-1]) {
		f = f[:len(f)-1]
	}
	s = strings.Join(f, " ")
	if r := []rune(s); len(r) > maxTwinText {
		s = string(r[:maxTwinText-1]) + "…"
	}
	return s
}

// twinLinkKey is a link target as both representations would name it:
// absolute, without fragment, with the scheme and host lower-cased and the
// default port dropped, and with the spellings of one page made one: a
// .md twin URL, index.html and a trailing slash name the page itself.
// It is "" for what is no http(s) target.
func twinLinkKey(base *url.URL, ref string) string {
	ref = strings.TrimSpace(html.UnescapeString(ref))
	if ref == "" || strings.HasPrefix(ref, "#") {
		return ""
	}
	r, err := url.Parse(ref)
	if err != nil {
		return ""
	}
	u := base.ResolveReference(r)
	u.Scheme, u.Host = strings.ToLower(u.Scheme), strings.ToLower(u.Host)
	if u.Scheme != "http" && u.Scheme != "https" {
		return ""
	}
	if p := u.Port(); (u.Scheme == "http" && p == "80") || (u.Scheme == "https" && p == "443") {
		u.Host = u.Hostname()
	}
	u.Fragment, u.RawFragment, u.User = "", "", nil
	p := strings.TrimSuffix(u.Path, ".md")
	p = strings.TrimSuffix(p, "index.html")
	p = strings.TrimSuffix(p, "/")
	u.Path, u.RawPath = p, ""
	return u.String()
}

// readHTMLTwin reads the page's HTML answer.
func readHTMLTwin(x *exchange.Exchange) *twinDoc {
	d, err := goquery.NewDocumentFromReader(bytes.NewReader(x.Response.Body))
	if err != nil {
		return nil
	}
	base := htmlBase(d, mustURL(x.Request.URL))
	t := &twinDoc{pageTitle: twinText(d.Find("title").First().Text())}
	if h1 := d.Find("body h1").First(); h1.Length() > 0 {
		t.titleText = asWritten(h1.Text())
		t.title = twinText(t.titleText)
	}
	hasMain := d.Find("main, [role=main]").Length() > 0
	loose := func(s *goquery.Selection) bool {
		if s.ParentsFiltered("nav, footer, aside, [hidden], template").Length() > 0 {
			return true
		}
		if hasMain {
			return s.ParentsFiltered("main, [role=main]").Length() == 0
		}
		return s.ParentsFiltered("header").Length() > 0 && s.ParentsFiltered("article").Length() == 0
	}
	d.Find("body h1, body h2, body h3, body h4, body h5, body h6").EachWithBreak(func(i int, s *goquery.Selection) bool {
		written := asWritten(s.Text())
		if loose(s) {
			t.looseHeadings.add(twinText(written), written, maxTwinHeadings)
		} else {
			t.headings.add(twinText(written), written, maxTwinHeadings)
		}
		return i < maxTwinHeadings*2
	})
	d.Find("body a[href]").EachWithBreak(func(i int, s *goquery.Selection) bool {
		href, _ := s.Attr("href")
		key := twinLinkKey(base, href)
		if loose(s) {
			t.looseLinks.add(key, key, maxTwinLinks)
		} else {
			t.links.add(key, key, maxTwinLinks)
		}
		return i < maxTwinLinks*2
	})
	return t
}

// markdownParser is CommonMark without extensions: what every Markdown
// reader agrees on.
var markdownParser = goldmark.New().Parser()

// readMarkdownTwin reads a Markdown twin: its headings (ATX and setext),
// its links (inline, reference and autolinks; images are not links), and
// the headings and links of the HTML it embeds.
func readMarkdownTwin(x *exchange.Exchange) *twinDoc {
	body, frontTitle := frontMatter(x.Response.Body)
	base := mustURL(x.Request.URL)
	t := &twinDoc{}
	var embedded bytes.Buffer
	doc := markdownParser.Parse(text.NewReader(body))
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Heading:
			written := asWritten(inlineText(n, body))
			if n.Level == 1 && t.title == "" {
				t.title, t.titleText = twinText(written), written
			}
			t.headings.add(twinText(written), written, maxTwinHeadings)
		case *ast.Link:
			key := twinLinkKey(base, unescapeMarkdown(string(n.Destination)))
			t.links.add(key, key, maxTwinLinks)
		case *ast.AutoLink:
			if n.AutoLinkType == ast.AutoLinkURL {
				key := twinLinkKey(base, string(n.URL(body)))
				t.links.add(key, key, maxTwinLinks)
			}
		case *ast.Image:
			return ast.WalkSkipChildren, nil
		case *ast.HTMLBlock:
			lines := n.Lines()
			for i := range lines.Len() {
				seg := lines.At(i)
				embedded.Write(seg.Value(body))
			}
			if n.HasClosure() {
				embedded.Write(n.ClosureLine.Value(body))
			}
		case *ast.RawHTML:
			for i := range n.Segments.Len() {
				seg := n.Segments.At(i)
				embedded.Write(seg.Value(body))
			}
		}
		return ast.WalkContinue, nil
	})
	if t.title == "" && frontTitle != "" {
		t.titleText = asWritten(frontTitle)
		t.title = twinText(t.titleText)
	}
	if embedded.Len() > 0 {
		readEmbeddedHTML(t, base, embedded.Bytes())
	}
	return t
}

// readEmbeddedHTML adds the headings and links of the HTML a Markdown
// document carries (a converter leaves tables and details as HTML).
func readEmbeddedHTML(t *twinDoc, base *url.URL, raw []byte) {
	d, err := goquery.NewDocumentFromReader(bytes.NewReader(raw))
	if err != nil {
		return
	}
	d.Find("h1, h2, h3, h4, h5, h6").Each(func(_ int, s *goquery.Selection) {
		written := asWritten(s.Text())
		t.headings.add(twinText(written), written, maxTwinHeadings)
	})
	d.Find("a[href]").Each(func(_ int, s *goquery.Selection) {
		href, _ := s.Attr("href")
		key := twinLinkKey(base, href)
		t.links.add(key, key, maxTwinLinks)
	})
}

// inlineText is the text of a heading's inline content, without markup;
// images give their alternative text, as an HTML converter writes it.
func inlineText(n ast.Node, src []byte) string {
	var b strings.Builder
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch c := c.(type) {
		case *ast.Text:
			b.Write(c.Segment.Value(src))
			if c.SoftLineBreak() || c.HardLineBreak() {
				b.WriteByte(' ')
			}
		case *ast.String:
			b.Write(c.Value)
		case *ast.AutoLink:
			b.Write(c.Label(src))
		}
		return ast.WalkContinue, nil
	})
	return unescapeMarkdown(b.String())
}

// asciiPunctuation is what CommonMark lets a backslash escape.
const asciiPunctuation = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"

// unescapeMarkdown removes CommonMark's backslash escapes.
func unescapeMarkdown(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && strings.IndexByte(asciiPunctuation, s[i+1]) >= 0 {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// frontMatter splits a leading YAML front matter block ("---" lines) off a
// Markdown document, and returns its title; CommonMark would read the
// block as a thematic break and a setext heading.
func frontMatter(body []byte) (rest []byte, title string) {
	b := bytes.TrimPrefix(body, []byte("\ufeff"))
	first, after, ok := bytes.Cut(b, []byte("\n"))
	if !ok || string(bytes.TrimRight(first, " \r")) != "---" {
		return body, ""
	}
	for lines, n := after, 0; len(lines) > 0 && n < 200; n++ {
		var line []byte
		line, lines, _ = bytes.Cut(lines, []byte("\n"))
		l := strings.TrimRight(string(line), " \r")
		if l == "---" || l == "..." {
			return lines, title
		}
		if v, ok := strings.CutPrefix(l, "title:"); ok && title == "" {
			title = strings.Trim(strings.TrimSpace(v), `"'`)
		}
	}
	return body, ""
}
