//go:build browser

// The browser test is built only with -tags browser, as .ci/run and
// .ci/regenerate build it: its DevTools client (chromedp and its 60-odd
// packages of protocol bindings) and the demo scan it renders would
// otherwise be compiled and linked by every go test ./..., on machines
// where, without Chromium, it only skips.

package html_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/agentready/agentready/fixtures/demo"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/golden"
	"github.com/agentready/agentready/report/html"
	"github.com/agentready/agentready/report/internal/demoscan"
	"github.com/agentready/agentready/report/internal/sample"
)

// findChrome looks for a Chromium to drive. In CI a missing browser fails
// the test, since the HTML report would then ship untested; on a developer
// machine that builds it with -tags browser the test is skipped with a hint.
func findChrome(t *testing.T) string {
	t.Helper()
	candidates := []string{os.Getenv("AGENTREADY_CHROME"), "chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "headless-shell"}
	for _, c := range candidates {
		if c == "" {
			continue
		}
		if p, err := exec.LookPath(c); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("no Chromium found; CI must install it (apt-get install -y chromium)")
	}
	t.Skip("no Chromium found: install it (apt-get install -y chromium) or set AGENTREADY_CHROME to run the browser test")
	return ""
}

// browser is one headless Chromium with a fresh profile, recording every
// request and dialog of the pages it opens; the pages record their own CSP
// violations (cspWatch).
type browser struct {
	ctx      context.Context
	mu       sync.Mutex
	requests []string
	dialogs  []string
}

// cspWatch records CSP violations. It is injected through the DevTools
// protocol, which the page's policy does not govern.
const cspWatch = `window.__csp = [];
document.addEventListener("securitypolicyviolation", function (e) { window.__csp.push(e.violatedDirective + " " + e.blockedURI); });`

func newBrowser(t *testing.T) *browser {
	t.Helper()
	exe := findChrome(t)
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(exe),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1200, 900),
	)
	// A bound, not a timing assertion: a wedged browser must not hang CI.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	actx, acancel := chromedp.NewExecAllocator(ctx, opts...)
	t.Cleanup(acancel)
	bctx, bcancel := chromedp.NewContext(actx)
	t.Cleanup(bcancel)
	b := &browser{ctx: bctx}
	// Starting the tab first makes the subscriptions below attach to it.
	if err := chromedp.Do(bctx); err != nil {
		t.Fatalf("start Chromium: %v", err)
	}
	// Listen sees every event in order, so a request is recorded before the
	// navigation that caused it returns.
	if err := chromedp.Listen(bctx, func(ev any) {
		if e, ok := ev.(*network.EventRequestWillBeSent); ok {
			b.mu.Lock()
			b.requests = append(b.requests, e.Request.URL)
			b.mu.Unlock()
		}
	}); err != nil {
		t.Fatal(err)
	}
	// A dialog blocks the page until it is closed, so it is recorded and
	// dismissed from another goroutine.
	dialogs := chromedp.Events(bctx, page.JavascriptDialogOpening)
	go func() {
		for ev, err := range dialogs {
			if err != nil {
				return
			}
			b.mu.Lock()
			b.dialogs = append(b.dialogs, ev.Message)
			b.mu.Unlock()
			chromedp.Call(bctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: false})
		}
	}()
	if _, err := chromedp.Call(bctx, network.Enable, network.EnableParams{}); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(bctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: cspWatch}); err != nil {
		t.Fatal(err)
	}
	return b
}

// open loads a report from file:// and checks that loading it asked the
// network for nothing and broke no policy.
func (b *browser) open(t *testing.T, path string) {
	t.Helper()
	abs, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	b.mu.Lock()
	b.requests = nil
	b.mu.Unlock()
	if err := chromedp.Do(b.ctx, chromedp.Navigate("file://"+abs), chromedp.WaitReady(chromedp.CSS("body"))); err != nil {
		t.Fatalf("open %s: %v", path, err)
	}
	b.checkQuiet(t, "file://"+abs)
}

// checkQuiet fails t for any request other than the page itself, any dialog
// and any CSP violation.
func (b *browser) checkQuiet(t *testing.T, self string) {
	t.Helper()
	csp := eval[[]string](t, b, `window.__csp || []`)
	b.mu.Lock()
	defer b.mu.Unlock()
	sawSelf := false
	for _, u := range b.requests {
		if u == self {
			sawSelf = true
			continue
		}
		t.Errorf("the report requested %s; it must load nothing", u)
	}
	if !sawSelf {
		// The page's own load must show up, or the recorder is blind.
		t.Errorf("no request recorded for %s itself", self)
	}
	for _, d := range b.dialogs {
		t.Errorf("a dialog opened: %q", d)
	}
	for _, v := range csp {
		t.Errorf("CSP violation: %s", v)
	}
}

func eval[T any](t *testing.T, b *browser, js string) T {
	t.Helper()
	v, err := chromedp.Run(b.ctx, chromedp.Evaluate[T](js))
	if err != nil {
		t.Fatalf("evaluate %s: %v", js, err)
	}
	return v
}

func (b *browser) do(t *testing.T, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(b.ctx, steps...); err != nil {
		t.Fatal(err)
	}
}

// hidden reports whether the element is not rendered.
func (b *browser) hidden(t *testing.T, id string) bool {
	t.Helper()
	return eval[bool](t, b, `document.getElementById(`+quote(id)+`).offsetParent === null`)
}

func quote(s string) string { return `"` + strings.ReplaceAll(s, `"`, `\"`) + `"` }

// outDir is the repository's testdata/out, which is not committed: the pages
// and the screenshot stay behind there as CI artefacts.
var outDir = filepath.Join("..", "..", "testdata", "out", "html")

// writeReport renders r into outDir.
func writeReport(t *testing.T, name string, r *finding.Report) string {
	t.Helper()
	dir := outDir
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name)
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := html.New(html.Options{}).Write(f, r); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestBrowser(t *testing.T) {
	b := newBrowser(t)

	t.Run("demo", func(t *testing.T) {
		rep, err := demoscan.Scan()
		if err != nil {
			t.Fatal(err)
		}
		b.open(t, writeReport(t, "demo.html", rep))
		b.do(t, chromedp.WaitVisible(chromedp.ID("grade")))
		grade, err := chromedp.Run(b.ctx, chromedp.Text(chromedp.ID("grade")))
		if err != nil {
			t.Fatal(err)
		}
		if grade != rep.Score.Grade {
			t.Errorf("grade shown %q, report says %q", grade, rep.Score.Grade)
		}
	})

	t.Run("broken variant", func(t *testing.T) {
		rep, err := demoscan.Scan(demo.DefectNoVaryAccept)
		if err != nil {
			t.Fatal(err)
		}
		path := writeReport(t, "demo-no-vary-accept.html", rep)
		b.open(t, path)
		const group = "check-vary-accept"
		sev := eval[string](t, b, `document.getElementById("`+group+`").dataset.severity`)
		if sev == "" || b.hidden(t, group) {
			t.Fatalf("the vary-accept finding is not shown (severity %q)", sev)
		}

		// Severity filter: unticking the finding's severity hides it,
		// ticking it again shows it.
		box := chromedp.CSS(`input[name="severity"][value="` + sev + `"]`)
		b.do(t, chromedp.Click(box))
		if !b.hidden(t, group) {
			t.Error("unticking its severity did not hide the finding")
		}
		b.do(t, chromedp.Click(box))
		if b.hidden(t, group) {
			t.Error("ticking its severity again did not show the finding")
		}

		// Family filter, the same way.
		fam := chromedp.CSS(`input[name="family"][value="vary"]`)
		b.do(t, chromedp.Click(fam))
		if !b.hidden(t, group) {
			t.Error("unticking its family did not hide the finding")
		}
		b.do(t, chromedp.Click(fam))
		if b.hidden(t, group) {
			t.Error("ticking its family again did not show the finding")
		}

		// Evidence expands: the response headers are hidden until the
		// summary is clicked.
		details := `#` + group + ` details.evidence`
		if eval[bool](t, b, `document.querySelector("`+details+`").open`) {
			t.Fatal("evidence is expanded before any click")
		}
		if eval[bool](t, b, `document.querySelector("`+details+` table.headers").checkVisibility()`) {
			t.Fatal("response headers are visible before the evidence is expanded")
		}
		b.do(t, chromedp.Click(chromedp.CSS(details+` > summary`)), chromedp.WaitVisible(chromedp.CSS(details+` table.headers`)))
		shown, err := chromedp.Run(b.ctx, chromedp.Text(chromedp.CSS(details)))
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"Request headers", "Response headers", "Content-Type", "curl "} {
			if !strings.Contains(shown, want) {
				t.Errorf("expanded evidence lacks %q:\n%s", want, shown)
			}
		}

		png, err := chromedp.Run(b.ctx, chromedp.FullScreenshot(100))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(outDir, "demo-no-vary-accept.png"), png, 0o644); err != nil {
			t.Fatal(err)
		}
		if golden.Updating() {
			saveREADMEShot(t, b, path)
		}
		b.checkQuiet(t, "file://"+mustAbs(t, path))
	})

	t.Run("hostile", func(t *testing.T) {
		path := writeReport(t, "hostile.html", sample.Hostile())
		b.open(t, path)
		// Open every evidence block, so that nothing stays unrendered.
		n := eval[int](t, b, `(function(){ var d = document.querySelectorAll("details"); d.forEach(function(e){ e.open = true; }); return d.length; })()`)
		if n == 0 {
			t.Fatal("no details in the hostile report")
		}
		if eval[bool](t, b, `typeof window.`+sample.Pwned+` !== "undefined"`) {
			t.Error("a payload from the report ran as script")
		}
		jsLinks := eval[int](t, b, `document.querySelectorAll('a[href^="javascript:" i], [onerror], [onclick], img').length`)
		injected := eval[int](t, b, `document.scripts.length`)
		if jsLinks != 0 {
			t.Errorf("%d javascript: links, handlers or images in the page", jsLinks)
		}
		if injected != 1 {
			t.Errorf("%d script elements; only the report's own may exist", injected)
		}
		if body := eval[string](t, b, `document.body.innerText`); !strings.Contains(body, sample.ScriptPayload) {
			t.Error("the <script> payload is not shown as text")
		}
		b.checkQuiet(t, "file://"+mustAbs(t, path))
	})
}

func mustAbs(t *testing.T, path string) string {
	t.Helper()
	abs, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

// saveREADMEShot refreshes the README's picture of the broken demo's report
// only when the goldens are regenerated (.ci/regenerate), so that ordinary
// runs never touch committed files.
func saveREADMEShot(t *testing.T, b *browser, path string) {
	t.Helper()
	b.open(t, path)
	b.do(t, chromedp.EmulateViewport(1100, 820))
	png, err := chromedp.Run(b.ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join("..", "..", "docs", "img", "html-report.png")
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(out, png, 0o644); err != nil {
		t.Fatal(err)
	}
}
