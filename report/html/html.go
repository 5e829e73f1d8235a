// Package html writes a report as one self-contained HTML file: no CDN, no
// external fonts, images or scripts. The stylesheet and the small filtering
// script are embedded in the binary and inlined, and a content-security
// policy in a meta tag allows exactly those two blocks, by hash, and nothing
// else: no network request, no other script, no plugin, no form target.
//
// The page is built with html/template, so every string from the report (and
// so from the scanned app) is escaped for the context it lands in; links are
// made only from http(s) URLs, and evidence URLs are shown, never linked.
package html

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/base64"
	"errors"
	"fmt"
	"html/template"
	"io"
	"strings"

	"github.com/agentready/agentready/internal/finding"
)

//go:embed assets/report.html.tmpl assets/report.css assets/report.js
var assets embed.FS

var (
	page = template.Must(template.New("report.html.tmpl").ParseFS(assets, "assets/report.html.tmpl"))
	css  = mustRead("assets/report.css")
	js   = mustRead("assets/report.js")
	// CSP forbids everything but the two inline blocks above. It is a
	// constant of the build, so it is computed once.
	CSP = "default-src 'none'; style-src " + hash(css) + "; script-src " + hash(js) +
		"; img-src 'none'; font-src 'none'; connect-src 'none'; object-src 'none'; base-uri 'none'; form-action 'none'"
)

func mustRead(name string) string {
	b, err := assets.ReadFile(name)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// hash is a CSP source expression for an inline block's exact text.
func hash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
}

// DefaultMaxOccurrences bounds the occurrences listed per check; a check
// that fires on thousands of URLs would otherwise make a page no browser
// opens comfortably.
const DefaultMaxOccurrences = 200

// Options shape the page.
type Options struct {
	// MaxOccurrences per check; 0 means DefaultMaxOccurrences.
	MaxOccurrences int
}

// Reporter writes the HTML report.
type Reporter struct{ opts Options }

// New returns an HTML reporter.
func New(opts Options) *Reporter {
	if opts.MaxOccurrences <= 0 {
		opts.MaxOccurrences = DefaultMaxOccurrences
	}
	return &Reporter{opts: opts}
}

// Write renders r.
func (rp *Reporter) Write(w io.Writer, r *finding.Report) error {
	if r == nil {
		return errors.New("html report: nil report")
	}
	data := build(r, rp.opts)
	var buf bytes.Buffer
	if err := page.Execute(&buf, data); err != nil {
		return fmt.Errorf("html report: %w", err)
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// gradeClass picks the color of a grade by its letter.
func gradeClass(g string) string {
	if g == "" {
		return "grade-na"
	}
	switch strings.ToUpper(g[:1]) {
	case "A", "B", "C", "D", "F":
		return "grade-" + strings.ToLower(g[:1])
	}
	return "grade-na"
}
