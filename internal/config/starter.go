package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/sanitize"
)

// StarterInput is what `agentready init` learned from a first scan.
type StarterInput struct {
	// Report is the first scan, or nil when none was run.
	Report *finding.Report
	// Target, OpenAPI and MCP are the settings to write down; OpenAPI and
	// MCP default to what the scan found.
	Target, OpenAPI, MCP string
	// Now dates the file and the suggested expiry of ignores.
	Now time.Time
}

// maxSuggestions bounds the ignore suggestions: past that, a baseline is
// the better tool, and the file says so.
const maxSuggestions = 30

// Starter writes a commented starter file. Every active line is valid; the
// suggestions are commented out with "# " so that uncommenting a block
// gives a valid file too.
func Starter(in StarterInput) []byte {
	var b bytes.Buffer
	w := func(format string, a ...any) { fmt.Fprintf(&b, format+"\n", a...) }
	rep := in.Report
	w("# agentready configuration. Flags and AGENTREADY_* environment variables override it.")
	w("# Reference: https://github.com/agentready/agentready/blob/main/docs/ci.md")
	w("# yaml-language-server: $schema=%s", SchemaID)
	if rep != nil {
		w("# Written by 'agentready init' on %s from a scan of %s (grade %s, %d/100).",
			in.Now.UTC().Format(dateLayout), comment(rep.Target), comment(rep.Score.Grade), rep.Score.Value)
	}
	w("version: %d", CurrentVersion)
	w("")
	target := in.Target
	if target == "" && rep != nil {
		target = rep.Target
	}
	if target != "" {
		w("target: %s", quote(target))
	} else {
		w("# target: \"http://127.0.0.1:8080/\"")
	}
	writeSources(&b, in)
	w("")
	w("# Bounds of the crawl (the defaults are shown).")
	w("# limits:")
	w("#   max-pages: 200")
	w("#   max-depth: 5")
	w("#   concurrency: 4")
	w("#   timeout: 10s")
	w("#   budget: 2m")
	w("")
	writeFamilies(&b, rep)
	w("")
	w("# Per-check severity: error, warning, info, or off to not run the check.")
	w("# checks:")
	w("#   vary-accept: info")
	w("")
	writeIgnores(&b, rep, in.Now)
	w("")
	w("gate:")
	w("  fail-on: error")
	w("  # fail-under: B")
	w("  # min-coverage: 50    # percent of the OpenAPI document's GET operations reached")
	w("  # strict-baseline: true")
	w("")
	w("# Gate on new findings only: write a baseline with 'agentready baseline write', commit it,")
	w("# and name it here.")
	w("# baseline: agentready-baseline.json")
	w("")
	w("# Start the app before scanning it (scan --start), and stop it afterwards.")
	w("# start:")
	w("#   command: \"go run ./cmd/server\"")
	w("#   ready: \"listening on\"")
	w("#   ready-timeout: 60s")
	w("")
	w("# Identities to scan as: the credential stays in the named environment variable.")
	w("# identities:")
	w("#   - name: reader")
	w("#     header: Authorization")
	w("#     scheme: Bearer")
	w("#     env: READER_TOKEN")
	return b.Bytes()
}

func writeSources(b *bytes.Buffer, in StarterInput) {
	spec, mcp := in.OpenAPI, in.MCP
	if rep := in.Report; rep != nil {
		if spec == "" && rep.Spec != nil {
			spec = rep.Spec.Source
		}
		if mcp == "" && rep.MCP != nil && rep.MCP.Era != "none" && rep.MCP.Era != "" {
			mcp = rep.MCP.Endpoint
		}
	}
	if spec != "" {
		fmt.Fprintf(b, "openapi: %s\n", quote(spec))
	} else {
		b.WriteString("# openapi: openapi.yaml  # none was found on the target\n")
	}
	if mcp != "" && isHTTPURL(mcp) {
		fmt.Fprintf(b, "mcp: %s\n", quote(mcp))
	} else {
		b.WriteString("# mcp: \"http://127.0.0.1:8080/mcp\"  # none was found on the target\n")
	}
}

func writeFamilies(b *bytes.Buffer, rep *finding.Report) {
	b.WriteString("# Families run unless set to false here.\n")
	if rep != nil {
		var assessed, not []string
		for _, f := range rep.Score.Families {
			if f.Assessed {
				assessed = append(assessed, fmt.Sprintf("%s (%s)", f.Family, f.Grade))
			} else {
				not = append(not, f.Family)
			}
		}
		if len(assessed) > 0 {
			b.WriteString("# Assessed by the first scan:\n")
			for _, a := range assessed {
				fmt.Fprintf(b, "#   %s\n", comment(a))
			}
		}
		if len(not) > 0 {
			b.WriteString("# Not assessed (nothing to check, or no endpoint found):\n")
			for _, n := range not {
				fmt.Fprintf(b, "#   %s\n", comment(n))
			}
		}
	}
	b.WriteString("# families:\n#   mcp: false\n")
}

// suggestion is one (check, path pattern) pair of the first scan.
type suggestion struct {
	check, pattern, severity, example string
	count                             int
}

func writeIgnores(b *bytes.Buffer, rep *finding.Report, now time.Time) {
	b.WriteString("# Findings to accept, each with a reason and, better, an expiry date.\n")
	sugs := suggestions(rep)
	if len(sugs) == 0 {
		b.WriteString("# ignores:\n#   - check: vary-accept\n#     url: \"/legacy/*\"\n#     reason: \"the legacy API is frozen until its removal\"\n#     expires: \"" +
			now.AddDate(0, 3, 0).UTC().Format(dateLayout) + "\"\n")
		return
	}
	fmt.Fprintf(b, "# The first scan found these; uncomment only what you accept, and say why.\n")
	b.WriteString("# ignores:\n")
	for i, s := range sugs {
		if i == maxSuggestions {
			fmt.Fprintf(b, "# ... and %d more: for many findings, a baseline is the better tool.\n", len(sugs)-maxSuggestions)
			break
		}
		fmt.Fprintf(b, "#   # %s, %d occurrence(s), e.g. %s\n", s.severity, s.count, comment(s.example))
		fmt.Fprintf(b, "#   - check: %s\n", quote(s.check))
		if s.pattern != "" {
			fmt.Fprintf(b, "#     url: %s\n", quote(s.pattern))
		}
		// Left empty on purpose: an ignore uncommented without a reason is
		// refused, so no finding is accepted without someone saying why.
		b.WriteString("#     reason: \"\"  # required: why this is accepted\n")
		fmt.Fprintf(b, "#     expires: \"%s\"\n", now.AddDate(0, 3, 0).UTC().Format(dateLayout))
	}
}

// placeholder is a path segment the fingerprint replaced by a name.
var placeholder = regexp.MustCompile(`\{[^/{}]*\}`)

func suggestions(rep *finding.Report) []suggestion {
	if rep == nil {
		return nil
	}
	byKey := map[[2]string]*suggestion{}
	var order [][2]string
	for _, f := range rep.Findings {
		pattern := shapePattern(f.PrimaryURL())
		k := [2]string{f.CheckID, pattern}
		if s := byKey[k]; s != nil {
			s.count++
			continue
		}
		byKey[k] = &suggestion{check: f.CheckID, pattern: pattern, severity: f.Severity.String(), example: f.Message, count: 1}
		order = append(order, k)
	}
	slices.SortFunc(order, func(a, b [2]string) int {
		if c := strings.Compare(a[0], b[0]); c != 0 {
			return c
		}
		return strings.Compare(a[1], b[1])
	})
	out := make([]suggestion, 0, len(order))
	for _, k := range order {
		out = append(out, *byKey[k])
	}
	return out
}

// shapePattern turns a finding's URL into an ignore pattern: its path, with
// the segments that look like IDs replaced by *.
func shapePattern(raw string) string {
	p := raw
	if i := strings.Index(p, "://"); i >= 0 {
		rest := p[i+3:]
		j := strings.IndexByte(rest, '/')
		if j < 0 {
			return "/"
		}
		p = rest[j:]
	}
	if i := strings.IndexAny(p, "?#"); i >= 0 {
		p = p[:i]
	}
	if p == "" || !strings.HasPrefix(p, "/") {
		return ""
	}
	segs := strings.Split(p, "/")
	for i, s := range segs {
		if looksLikeID(s) || placeholder.MatchString(s) {
			segs[i] = "*"
		} else if strings.ContainsAny(s, `*?[]\`) {
			// A literal that reads as a pattern; match any segment instead of
			// writing a pattern that means something else.
			segs[i] = "*"
		}
	}
	return strings.Join(segs, "/")
}

var idLike = regexp.MustCompile(`^([0-9]+|[0-9a-fA-F-]{16,}|[0-9A-Za-z_-]{20,})$`)

func looksLikeID(s string) bool { return s != "" && idLike.MatchString(s) }

// quote renders s as a YAML double-quoted scalar (JSON strings are valid
// YAML), after removing anything a terminal or editor would interpret.
func quote(s string) string {
	q, _ := json.Marshal(sanitize.Line(s))
	return string(q)
}

// comment makes text from the app safe inside a one-line YAML comment.
func comment(s string) string {
	return sanitize.Truncate(sanitize.Line(s), 100)
}
