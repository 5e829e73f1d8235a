package scan_test

import (
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/scan"
)

// twinSite is a web site whose pages are HTML with a Markdown twin chosen by
// Accept, ranked as RFC 9110 §12.5.1 says: the most specific range sets a
// type's weight, q=0 excludes, a malformed weight drops its range, and a tie
// keeps HTML. Its only two-representation resources are HTML pages, so the
// probes asking them for Markdown are the very requests the discovery
// family plans for their twins.
type twinSite struct {
	// markdownIfNamed serves Markdown whenever Accept names it at all, as
	// a router that looks for "text/markdown" in the header does.
	markdownIfNamed bool
}

func (s twinSite) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/" && r.URL.Path != "/guide" {
		http.NotFound(w, r)
		return
	}
	switch r.Method {
	case http.MethodOptions:
		w.Header().Set("Allow", "GET, HEAD, OPTIONS")
		w.WriteHeader(http.StatusNoContent)
		return
	case http.MethodGet, http.MethodHead:
	default:
		w.Header().Set("Allow", "GET, HEAD, OPTIONS")
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	w.Header().Set("Vary", "Accept")
	html, md := weight(r.Header.Values("Accept"), "text", "html"), weight(r.Header.Values("Accept"), "text", "markdown")
	named := strings.Contains(strings.Join(r.Header.Values("Accept"), ","), "text/markdown")
	if md > html || (s.markdownIfNamed && named) {
		w.Header().Set("Content-Type", "text/markdown; charset=utf-8")
		w.Write([]byte("# Guide\n\nSee [the guide](/guide).\n"))
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Write([]byte(`<!doctype html><html><head><title>Guide</title></head><body><a href="/guide">guide</a></body></html>`))
}

// weight is the q of typ/sub under Accept: that of the most specific range
// matching it, 1 without Accept.
func weight(accept []string, typ, sub string) float64 {
	if len(accept) == 0 {
		return 1
	}
	best, q := 0, 0.0
	for _, v := range accept {
		for _, el := range strings.Split(v, ",") {
			parts := strings.Split(el, ";")
			t, st, _ := strings.Cut(strings.TrimSpace(parts[0]), "/")
			level := 0
			switch {
			case t == typ && st == sub:
				level = 3
			case t == typ && st == "*":
				level = 2
			case t == "*" && st == "*":
				level = 1
			}
			w, ok := 1.0, true
			for _, p := range parts[1:] {
				if name, val, _ := strings.Cut(strings.TrimSpace(p), "="); name == "q" {
					f, err := strconv.ParseFloat(val, 64)
					w, ok = f, err == nil && f >= 0 && f <= 1
				}
			}
			if ok && level > best {
				best, q = level, w
			}
		}
	}
	return q
}

// TestPreferenceIsJudgedOnMarkdownTwins: the negotiation probe that asks an
// HTML page for Markdown is the discovery family's twin request too; sent
// once, it must still count for both, or every preference check skips.
func TestPreferenceIsJudgedOnMarkdownTwins(t *testing.T) {
	rep := mustScan(t, twinSite{}, scan.Options{})
	for _, id := range []string{"negotiation-preferred-type", "negotiation-q-zero", "negotiation-specificity", "discovery-markdown-twin",
		"negotiation-tie-break", "negotiation-mixed-wildcards", "negotiation-malformed-range"} {
		c := checkResult(rep, id)
		if c == nil || c.Status != finding.StatusPass {
			t.Errorf("%s = %+v, want a pass", id, c)
		}
	}
	for _, f := range rep.Findings {
		if f.Family == "negotiation" {
			t.Errorf("a conformant router has %s: %s", f.CheckID, f.Message)
		}
	}
}

func checkResult(rep *finding.Report, id string) *finding.CheckResult {
	for i := range rep.Checks {
		if rep.Checks[i].ID == id {
			return &rep.Checks[i]
		}
	}
	return nil
}

// TestMarkdownNamedAnywhereLosesTheTie: a router that serves Markdown
// whenever Accept names it gives Markdown to "text/html, text/markdown",
// although it serves HTML by default and the client listed HTML first.
func TestMarkdownNamedAnywhereLosesTheTie(t *testing.T) {
	rep := mustScan(t, twinSite{markdownIfNamed: true}, scan.Options{})
	var msgs []string
	for _, f := range rep.Findings {
		if f.CheckID == "negotiation-tie-break" {
			msgs = append(msgs, f.Message)
		}
	}
	want := `Accept "text/html, text/markdown" was answered with text/markdown, the type listed last at the same weight; without Accept the server serves text/html`
	if len(msgs) != 2 || msgs[0] != want {
		t.Errorf("tie-break findings = %q, want one per page, the first %q", msgs, want)
	}
}
