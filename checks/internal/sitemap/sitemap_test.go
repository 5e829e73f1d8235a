package sitemap

import (
	"bytes"
	"compress/gzip"
	"errors"
	"strings"
	"testing"

	"github.com/agentready/agentready/internal/longtest"
)

const urlset = `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <url><loc>https://www.example.com/</loc><lastmod>2026-11-01</lastmod></url>
  <url>
    <loc> https://www.example.com/orders?a=1&amp;b=2 </loc>
  </url>
</urlset>`

const index = `<?xml version="1.0" encoding="UTF-8"?>
<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <sitemap><loc>https://www.example.com/sitemap-1.xml.gz</loc></sitemap>
</sitemapindex>`

func TestParse(t *testing.T) {
	f, err := Parse([]byte(urlset))
	if err != nil || f.Kind != KindURLSet || f.Count != 2 || len(f.Problems.Items) != 0 {
		t.Fatalf("%+v %v", f, err)
	}
	if f.Entries[1].Loc != "https://www.example.com/orders?a=1&b=2" || f.Entries[1].Line != 5 {
		t.Errorf("entry %+v", f.Entries[1])
	}
	f, err = Parse([]byte(index))
	if err != nil || f.Kind != KindIndex || f.Count != 1 || f.Entries[0].Loc != "https://www.example.com/sitemap-1.xml.gz" {
		t.Fatalf("%+v %v", f, err)
	}
	f, err = Parse([]byte("https://www.example.com/\r\n\nhttps://www.example.com/a\n"))
	if err != nil || f.Kind != KindText || f.Count != 2 || f.Entries[1].Line != 3 {
		t.Fatalf("%+v %v", f, err)
	}
}

func TestParseGzip(t *testing.T) {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write([]byte(urlset))
	zw.Close()
	f, err := Parse(b.Bytes())
	if err != nil || !f.Compressed || f.Count != 2 || f.Size != len(urlset) {
		t.Fatalf("%+v %v", f, err)
	}
	if _, err := Parse([]byte{0x1f, 0x8b, 0, 0}); err == nil {
		t.Error("a broken gzip body parsed")
	}
}

func TestParseFailures(t *testing.T) {
	for _, body := range []string{
		"",
		"<html><body>Not found</body></html>",
		"<urlset><url><loc>https://a.test/?a=1&b=2</loc></url></urlset>", // unescaped &
		"<urlset><url>",
		"not a url\nhttps://a.test/",
		`<?xml version="1.0" encoding="ISO-8859-1"?><urlset/>`,
	} {
		if f, err := Parse([]byte(body)); err == nil {
			t.Errorf("%q parsed: %+v", body, f)
		}
	}
	if _, err := Parse([]byte("<feed/>")); !errors.Is(err, ErrNotSitemap) {
		t.Errorf("want ErrNotSitemap, got %v", err)
	}
}

func TestProblems(t *testing.T) {
	for _, tt := range []struct{ body, want string }{
		{`<urlset><url><loc>https://a.test/</loc></url></urlset>`, "namespace"},
		{`<urlset xmlns="` + Namespace + `"><url><lastmod>2026-01-01</lastmod></url></urlset>`, "has no <loc>"},
		{`<urlset xmlns="` + Namespace + `"><url><loc>/relative</loc></url></urlset>`, "does not begin with the protocol"},
		{`<urlset xmlns="` + Namespace + `"><url><loc>https://a.test/` + strings.Repeat("a", 2100) + `</loc></url></urlset>`, "2,048"},
		{"https://a.test/\n\xff\n", "not UTF-8"},
	} {
		f, err := Parse([]byte(tt.body))
		if err != nil {
			t.Fatalf("%.40q: %v", tt.body, err)
		}
		if len(f.Problems.Items) == 0 || !strings.Contains(f.Problems.Items[0].Message, tt.want) {
			t.Errorf("%.40q: problems %+v, want %q", tt.body, f.Problems.Items, tt.want)
		}
	}
}

func TestBounds(t *testing.T) {
	longtest.Skip(t, "parses sitemaps of 10 MB")
	entry := "<url><loc>https://a.test/x</loc></url>\n"
	n := 10 << 20 / len(entry)
	big := "<urlset xmlns=\"" + Namespace + "\">\n" + strings.Repeat(entry, n) + "</urlset>"
	f, err := Parse([]byte(big))
	if err != nil {
		t.Fatal(err)
	}
	if f.Count != n || len(f.Entries) != MaxKept || len(f.Problems.Items) != 1 || !strings.Contains(f.Problems.Items[0].Message, "at most 50000") {
		t.Errorf("count %d kept %d problems %+v", f.Count, len(f.Entries), f.Problems.Items)
	}
	bad := "<urlset xmlns=\"" + Namespace + "\">" + strings.Repeat("<url><loc>x</loc></url>", 10<<20/23) + "</urlset>"
	f, err = Parse([]byte(bad))
	if err != nil || len(f.Problems.Items) != MaxProblems || f.Problems.Dropped == 0 {
		t.Errorf("problems kept %d dropped %d err %v", len(f.Problems.Items), f.Problems.Dropped, err)
	}
	deep := strings.Repeat("<a>", 1<<20)
	if _, err := Parse([]byte("<urlset>" + deep)); err == nil {
		t.Error("unterminated nesting parsed")
	}
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write([]byte("https://a.test/\n"))
	zw.Write(bytes.Repeat([]byte(" "), MaxSize+10))
	zw.Close()
	if f, err := Parse(b.Bytes()); err != nil || f.Size != MaxSize+1 || len(f.Problems.Items) == 0 {
		t.Errorf("gzip bomb: %v %+v", err, f)
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(urlset))
	f.Add([]byte(index))
	f.Add([]byte("https://a.test/\nhttps://a.test/b"))
	f.Add([]byte("<urlset><url><loc><![CDATA[x]]></loc><loc/></url></urlset>"))
	f.Fuzz(func(t *testing.T, body []byte) {
		sm, err := Parse(body)
		if err != nil {
			return
		}
		if len(sm.Entries) > MaxKept || sm.Count < len(sm.Entries) || len(sm.Problems.Items) > MaxProblems {
			t.Fatalf("bounds broken: %d kept of %d, %d problems", len(sm.Entries), sm.Count, len(sm.Problems.Items))
		}
		if sm.Kind != KindURLSet && sm.Kind != KindIndex && sm.Kind != KindText {
			t.Fatalf("kind %q", sm.Kind)
		}
	})
}
