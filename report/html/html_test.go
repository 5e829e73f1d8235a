package html_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"strings"
	"testing"
	"unicode/utf8"

	xhtml "golang.org/x/net/html"

	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/golden"
	"github.com/agentready/agentready/report/html"
	"github.com/agentready/agentready/report/internal/sample"
)

func render(t *testing.T, r *finding.Report) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := html.New(html.Options{}).Write(&buf, r); err != nil {
		t.Fatalf("Write: %v", err)
	}
	return buf.Bytes()
}

func TestGoldenSample(t *testing.T) {
	golden.Check(t, golden.Path("sample", "report.html"), render(t, sample.Report()))
}

func parse(t *testing.T, b []byte) *xhtml.Node {
	t.Helper()
	doc, err := xhtml.Parse(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

func walk(n *xhtml.Node, f func(*xhtml.Node)) {
	f(n)
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		walk(c, f)
	}
}

func attr(n *xhtml.Node, key string) (string, bool) {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val, true
		}
	}
	return "", false
}

func text(n *xhtml.Node) string {
	var b strings.Builder
	walk(n, func(c *xhtml.Node) {
		if c.Type == xhtml.TextNode {
			b.WriteString(c.Data)
		}
	})
	return b.String()
}

func sha(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
}

// TestSelfContained checks what the browser test checks at run time, from
// the markup: one stylesheet and one script, both inline and allowed by hash
// in a CSP that denies everything else, and nothing that loads a resource.
func TestSelfContained(t *testing.T) {
	doc := parse(t, render(t, sample.Report()))
	var csp string
	var styles, scripts []string
	walk(doc, func(n *xhtml.Node) {
		if n.Type != xhtml.ElementNode {
			return
		}
		switch n.Data {
		case "meta":
			if v, _ := attr(n, "http-equiv"); v == "Content-Security-Policy" {
				csp, _ = attr(n, "content")
			}
		case "style":
			styles = append(styles, text(n))
		case "script":
			scripts = append(scripts, text(n))
		case "link", "iframe", "object", "embed", "img", "base":
			t.Errorf("<%s> element in a self-contained report", n.Data)
		}
		for _, a := range n.Attr {
			if a.Key == "src" || a.Key == "srcset" || a.Key == "action" || a.Key == "style" || strings.HasPrefix(a.Key, "on") {
				t.Errorf("<%s %s=%q>", n.Data, a.Key, a.Val)
			}
		}
	})
	if len(styles) != 1 || len(scripts) != 1 {
		t.Fatalf("%d styles, %d scripts; want one of each", len(styles), len(scripts))
	}
	for _, want := range []string{"default-src 'none'", "style-src " + sha(styles[0]), "script-src " + sha(scripts[0]),
		"connect-src 'none'", "img-src 'none'", "base-uri 'none'", "form-action 'none'"} {
		if !strings.Contains(csp, want) {
			t.Errorf("CSP %q lacks %q", csp, want)
		}
	}
	if strings.Contains(csp, "unsafe") {
		t.Errorf("CSP %q allows unsafe sources", csp)
	}
	for _, s := range append(styles, scripts...) {
		for _, bad := range []string{"url(", "@import", "http://", "https://", "fetch(", "XMLHttpRequest", "import("} {
			if strings.Contains(s, bad) {
				t.Errorf("embedded asset contains %q", bad)
			}
		}
	}
}

func TestContent(t *testing.T) {
	out := string(render(t, sample.Report()))
	for _, want := range []string{
		`id="grade" title="score 75/100">B</div>`,
		`<div id="basis">overall = the lowest of 2 graded families (negotiation, 75); 1 not present</div>`,
		`<strong>75/100</strong> · coverage 50% (2 of 4 GET operations)`,
		`<tr><td class="mono wrap">GET /admin/stats</td><td>needs-credentials</td><td class="num">401</td></tr>`,
		`<rect class="bar grade-b" x="150" y="4" width="150"`, // negotiation 75 → 150 of 200 units
		`data-severity="error" data-family="negotiation"`,
		`<a href="https://www.rfc-editor.org/rfc/rfc9110#section-8.6" rel="noreferrer noopener">RFC 9110 §8.6</a> (MUST)`,
		`<summary><span class="mono">HEAD https://api.example.com/items/1</span> → 200`,
		`<pre class="curl">curl -sS -I -H &#39;Accept: application/json&#39; &#39;https://api.example.com/items/1&#39;</pre>`,
		`<pre class="excerpt">&lt;html&gt;&lt;body&gt;&lt;h1&gt;Not Found&lt;/h1&gt;&lt;/body&gt;&lt;/html&gt;</pre>`,
		`12 pages, 48 requests, 31 probes in 3.25s`,
		`not present: no MCP endpoint was given (--mcp) or found`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q", want)
		}
	}
}

func TestHostileReportIsSafe(t *testing.T) {
	out := render(t, sample.Hostile())
	if !utf8.Valid(out) {
		t.Error("output is not valid UTF-8")
	}
	doc := parse(t, out)
	scripts := 0
	walk(doc, func(n *xhtml.Node) {
		if n.Type != xhtml.ElementNode {
			return
		}
		switch n.Data {
		case "script":
			scripts++
		case "img", "injected":
			t.Errorf("app markup became an element: <%s>", n.Data)
		}
		for _, a := range n.Attr {
			if strings.HasPrefix(a.Key, "on") {
				t.Errorf("event handler attribute %s on <%s>", a.Key, n.Data)
			}
			if (a.Key == "href" || a.Key == "src") && !strings.HasPrefix(a.Val, "https://") && !strings.HasPrefix(a.Val, "http://") {
				t.Errorf("<%s %s=%q>", n.Data, a.Key, a.Val)
			}
		}
	})
	if scripts != 1 {
		t.Errorf("%d <script> elements; only the embedded one may exist", scripts)
	}
	page := text(doc)
	if !strings.Contains(page, sample.ScriptPayload) {
		t.Error("the payload is not shown as text")
	}
	for _, bad := range []string{"\x1b", "\u009b", "\u202e", "hunter2", "secret-token", "session=secret"} {
		if bytes.Contains(out, []byte(bad)) {
			t.Errorf("output contains %q", bad)
		}
	}
	if len(out) > 4<<20 {
		t.Errorf("%d bytes: the 100 KB strings were not bounded", len(out))
	}
}

func TestManyOccurrencesAreBounded(t *testing.T) {
	r := sample.Report()
	for range 500 {
		r.Findings = append(r.Findings, r.Findings[0])
	}
	out := string(render(t, r))
	if !strings.Contains(out, "… and 305 more occurrences") {
		t.Error("occurrences beyond the bound are not summarised")
	}
}

func TestStateMatrix(t *testing.T) {
	r := sample.Report()
	r.States = []finding.StateMatrix{{
		Kind: "/orders/{id}", Member: "state", Resources: 3, States: []string{"placed", "shipped"},
		Controls: []finding.StateControl{
			{Type: "link", Name: "ord:cancel", OfferedIn: []string{"placed"}},
			{Type: "template", Name: sample.ScriptPayload, OfferedIn: []string{"placed", "shipped"}},
		},
	}}
	out := string(render(t, r))
	for _, want := range []string{
		`<caption class="mono">/orders/{id} (state from &#34;state&#34;, 3 resources)</caption>`,
		`<th>placed</th><th>shipped</th>`,
		`<tr><th>link ord:cancel</th><td class="yes">✓</td><td class="no">–</td></tr>`,
		`<tr><th>template &lt;script&gt;`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("state matrix lacks %q", want)
		}
	}
	if strings.Contains(string(render(t, sample.Report())), "<h2>States</h2>") {
		t.Error("a report without states shows a States section")
	}
}

func TestSurfaceMatrixIsRenderedAndEscaped(t *testing.T) {
	r := sample.Report()
	r.Surface = &finding.SurfaceMatrix{
		Projections: []finding.SurfaceProjection{{Name: "OpenAPI", Assessed: true}, {Name: "MCP tools", Assessed: false, Reason: "no endpoint"},
			{Name: "hypermedia", Assessed: true, PerCaller: true}},
		Rows: []finding.SurfaceRow{
			{Operation: "GET /orders/{id}", InOpenAPI: true, Names: [][]string{{"getOrder"}, nil, nil}},
			{Operation: "POST /orders/{id}/refund", InOpenAPI: true, Names: [][]string{{"refundOrder"}, nil, nil}, NotForCaller: "needs <admin>"},
			{Operation: "<script>alert(1)</script>", Names: [][]string{nil, nil, nil}},
		},
	}
	out := string(render(t, r))
	for _, want := range []string{"<h2>Surface</h2>", "getOrder", "not assessed", "&lt;script&gt;alert(1)&lt;/script&gt;",
		`<td class="na" title="needs &lt;admin&gt;">not assessed for this caller</td>`, `<td class="no">–</td>`} {
		if !strings.Contains(out, want) {
			t.Errorf("surface section lacks %q", want)
		}
	}
	if strings.Contains(out, "<script>alert(1)") {
		t.Error("an operation name from the app was not escaped")
	}
	if strings.Contains(string(render(t, sample.Report())), "<h2>Surface</h2>") {
		t.Error("a report without a surface matrix shows a Surface section")
	}
}

func TestInterfacesAreRenderedAndEscaped(t *testing.T) {
	r := sample.Report()
	four, one := 4.0, 1.0
	n := 120
	yes := true
	r.Interfaces = &finding.Interfaces{Catalog: "mcp", Tokenizer: "o200k_base", Resources: 2,
		Entries: []finding.InterfaceCost{
			{Interface: finding.InterfaceStatic, Offered: true, UpfrontTokens: &n, ChoicesPerStep: &four, InvalidChoicesPerStep: &one, CacheStablePrefix: &yes},
			{Interface: finding.InterfaceReferenced, Offered: true, UpfrontTokens: &n, ChoicesPerStep: &one, CacheStablePrefix: &yes},
			{Interface: finding.InterfaceDynamic, Reason: "no HAL-FORMS _templates were discovered"},
		},
		Kinds: []finding.InterfaceKind{{Kind: "/<script>alert(1)</script>/{id}", State: "paid", Resources: 2}}}
	page := string(render(t, r))
	for _, want := range []string{"<h2>Interfaces</h2>", "<svg role=\"img\"", `width="300"`, `width="75"`, `colspan="5"`,
		"not offered: no HAL-FORMS _templates were discovered", "&lt;script&gt;alert(1)&lt;/script&gt;"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if strings.Contains(page, "<script>alert(1)") {
		t.Error("a kind's name reached the page unescaped")
	}
	if strings.Contains(string(render(t, sample.Report())), "<h2>Interfaces</h2>") {
		t.Error("a report without the section shows it")
	}
}

func TestReadinessIsRenderedAndEscaped(t *testing.T) {
	r := sample.Report()
	r.Readiness = &finding.Readiness{Score: finding.Score{Value: 85, Grade: "A-"}, Deductions: 3, Deducted: 2, Operations: 9,
		Hotspots: []finding.Hotspot{
			{Operation: "POST /orders", Deductions: 2, Checks: []string{"openapi-hal-retry-unguarded"}, Location: &finding.SourceLocation{File: "o.yaml", Line: 40}},
			{Operation: "GET /<script>alert(1)</script>", Deductions: 1, Checks: []string{"openapi-hal-pagination-undeclared"}},
		}}
	out := string(render(t, r))
	for _, want := range []string{`id="readiness"`, "Document readiness", "A-", "3 deductions in 2 of 9 operations",
		"<code>POST /orders</code> (line 40): openapi-hal-retry-unguarded", "&lt;script&gt;alert(1)&lt;/script&gt;"} {
		if !strings.Contains(out, want) {
			t.Errorf("readiness section lacks %q", want)
		}
	}
	if strings.Contains(out, "<script>alert(1)") {
		t.Error("an operation path from the document was not escaped")
	}
	if strings.Contains(string(render(t, sample.Report())), `id="readiness"`) {
		t.Error("a report without a readiness grade shows one")
	}
}

func TestTrialsAreRenderedAndEscaped(t *testing.T) {
	r := sample.Report()
	r.Trials = &finding.Trials{Reset: "restart", Tokenizer: "o200k_base",
		Players: []finding.TrialPlayer{{Player: "A", Interface: finding.InterfaceStatic, Tasks: 2, Completed: 2, Requests: 6, Tokens: 900},
			{Player: "B", Interface: finding.InterfaceReferenced, Tasks: 2, Completed: 1, Refused: 1, Requests: 6, Tokens: 300},
			{Player: "C", Interface: finding.InterfaceDynamic}},
		Tasks: []finding.TrialTask{{ID: 1, Kind: "/orders/{id}", State: "pending", Operation: "<script>alert(1)</script>",
			Runs: []finding.TrialRunInfo{{Player: "A", Via: "mcp", Outcome: "completed"}, {Player: "B", Via: "http", Outcome: "refused"}}}},
	}
	out := string(render(t, r))
	for _, want := range []string{"<h2>Trials</h2>", "tokens read", "2 of 2", "1 of 2", "&lt;script&gt;alert(1)&lt;/script&gt;", "B refused (http)"} {
		if !strings.Contains(out, want) {
			t.Errorf("trials section lacks %q", want)
		}
	}
	if strings.Contains(out, "<script>alert(1)") {
		t.Error("an operation name from the app was not escaped")
	}
	if strings.Contains(string(render(t, sample.Report())), "<h2>Trials</h2>") {
		t.Error("a report without a trial shows a Trials section")
	}
}
