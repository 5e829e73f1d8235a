package diff

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/report/internal/view"
	"github.com/agentready/agentready/report/markdown"
)

// Formats are the formats Write renders.
var Formats = []string{"text", "json", "markdown"}

// maxListed bounds each list a text or Markdown diff shows; JSON has all.
const maxListed = 30

// Write renders d in format.
func Write(w io.Writer, d *Diff, format string) error {
	switch format {
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(d)
	case "text":
		return writeText(w, d)
	case "markdown":
		return writeMarkdown(w, d)
	}
	return fmt.Errorf("unknown format %q (want %s)", format, strings.Join(Formats, ", "))
}

// Verdict says in one line whether the surface broke.
func (d *Diff) Verdict() string {
	switch n := d.breakingCount(); {
	case n > 0:
		return fmt.Sprintf("%d breaking change(s) to the agent surface", n)
	case !d.Drift.Compared:
		return "the agent surface was not compared: " + d.Drift.Reason
	case len(d.Drift.Changes) > 0:
		return fmt.Sprintf("no breaking change to the agent surface (%d compatible)", len(d.Drift.Changes))
	}
	return "no change to the agent surface"
}

func (d *Diff) breakingCount() int {
	n := 0
	for _, c := range d.Drift.Changes {
		if c.Breaking {
			n++
		}
	}
	return n
}

func gradeOf(s Side) string {
	if s.Grade == "" {
		return "no score"
	}
	return fmt.Sprintf("%s (%d)", view.Line(s.Grade, 20), s.Score)
}

func (f *FamilyState) label() string {
	switch {
	case f == nil:
		return "absent"
	case f.State != finding.FamilyGraded:
		return view.Line(f.State, 40)
	}
	return fmt.Sprintf("%s %d", view.Line(f.Grade, 20), f.Value)
}

func (fd FamilyDelta) delta() string {
	if fd.Delta == nil {
		return ""
	}
	return fmt.Sprintf("%+d", *fd.Delta)
}

// moved lists the families whose state or value moved.
func (d *Diff) moved() []FamilyDelta {
	var out []FamilyDelta
	for _, fd := range d.Families {
		if fd.Old.label() != fd.New.label() {
			out = append(out, fd)
		}
	}
	return out
}

func changeLabel(c Change) string {
	if c.Breaking {
		return "breaking"
	}
	return "compatible"
}

func more(n int) string { return fmt.Sprintf("… and %d more", n-maxListed) }

func writeText(w io.Writer, d *Diff) error {
	var b strings.Builder
	line := func(format string, a ...any) { fmt.Fprintf(&b, format+"\n", a...) }
	line("old: %s  %s", view.Line(view.URL(d.Old.Target), 200), gradeOf(d.Old))
	line("new: %s  %s", view.Line(view.URL(d.New.Target), 200), gradeOf(d.New))
	line("")
	if d.Families == nil {
		line("Families: not compared (a report carries no score)")
	} else if moved := d.moved(); len(moved) == 0 {
		line("Families: unchanged")
	} else {
		line("Families:")
		for _, fd := range moved {
			line("  %-14s %-14s → %-14s %s", view.Line(fd.Family, 60), fd.Old.label(), fd.New.label(), fd.delta())
		}
	}
	line("")
	line("Findings: %d new, %d fixed, %d changed", len(d.NewFindings), len(d.FixedFindings), len(d.ChangedFindings))
	for _, l := range []struct {
		label string
		items []Item
	}{{"new", d.NewFindings}, {"fixed", d.FixedFindings}} {
		for i, it := range l.items {
			if i == maxListed {
				line("  %s", more(len(l.items)))
				break
			}
			line("  %-6s %-7s %s: %s%s", l.label, it.Severity, view.Line(it.CheckID, 120), view.Line(it.Message, 200), at(it.URL))
		}
	}
	for i, c := range d.ChangedFindings {
		if i == maxListed {
			line("  %s", more(len(d.ChangedFindings)))
			break
		}
		line("  %-6s %s → %s %s: %s%s", "moved", c.OldSeverity, c.Severity, view.Line(c.CheckID, 120), view.Line(c.Message, 200), at(c.URL))
	}
	line("")
	line("Surface drift: %s", d.Verdict())
	for i, c := range d.Drift.Changes {
		if i == maxListed {
			line("  %s", more(len(d.Drift.Changes)))
			break
		}
		line("  %-10s %s: %s", changeLabel(c), view.Line(c.Check, 120), view.Line(c.Summary, 300))
		for _, pd := range c.Diffs {
			line("      %s: %s → %s", view.Line(pd.Pointer, 200), orAbsent(pd.Before), orAbsent(pd.After))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// at names where a finding was seen, for telling apart the findings of one
// check; credentials in the URL are never shown.
func at(u string) string {
	if u == "" {
		return ""
	}
	return " (" + view.Line(view.URL(u), 200) + ")"
}

func orAbsent(s string) string {
	if s == "" {
		return "(absent)"
	}
	return view.Line(s, 160)
}

func writeMarkdown(w io.Writer, d *Diff) error {
	var b strings.Builder
	line := func(format string, a ...any) { fmt.Fprintf(&b, format+"\n", a...) }
	verdict := markdown.Inline(d.Verdict(), 300)
	if d.Breaking {
		verdict = "**Breaking:** " + verdict
	}
	line("### agentready: changes since the baseline")
	line("")
	line("%s", verdict)
	line("")
	line("| | target | grade |")
	line("| --- | --- | --- |")
	line("| old | %s | %s |", markdown.Code(view.URL(d.Old.Target), 200), markdown.Inline(gradeOf(d.Old), 40))
	line("| new | %s | %s |", markdown.Code(view.URL(d.New.Target), 200), markdown.Inline(gradeOf(d.New), 40))
	line("")
	if moved := d.moved(); len(moved) > 0 {
		line("| family | old | new | Δ |")
		line("| --- | --- | --- | --- |")
		for _, fd := range moved {
			line("| %s | %s | %s | %s |", markdown.Inline(fd.Family, 60), markdown.Inline(fd.Old.label(), 40), markdown.Inline(fd.New.label(), 40), fd.delta())
		}
		line("")
	}
	if len(d.Drift.Changes) > 0 {
		line("**Surface drift**")
		line("")
		line("| | check | change |")
		line("| --- | --- | --- |")
		for i, c := range d.Drift.Changes {
			if i == maxListed {
				line("| | | %s |", more(len(d.Drift.Changes)))
				break
			}
			line("| %s | %s | %s |", changeLabel(c), markdown.Code(c.Check, 60), markdown.Inline(c.Summary, 300))
		}
		line("")
	}
	line("**Findings:** %d new, %d fixed, %d changed severity", len(d.NewFindings), len(d.FixedFindings), len(d.ChangedFindings))
	line("")
	if len(d.NewFindings)+len(d.FixedFindings)+len(d.ChangedFindings) > 0 {
		line("| | severity | check | finding |")
		line("| --- | --- | --- | --- |")
		n := 0
		row := func(state, sev string, it Item) {
			if n == maxListed {
				line("| | | | … |")
			}
			if n < maxListed {
				line("| %s | %s | %s | %s%s |", state, sev, markdown.Code(it.CheckID, 80), markdown.Inline(it.Message, 200), markdown.Inline(at(it.URL), 220))
			}
			n++
		}
		for _, it := range d.NewFindings {
			row("new", it.Severity.String(), it)
		}
		for _, it := range d.FixedFindings {
			row("fixed", it.Severity.String(), it)
		}
		for _, c := range d.ChangedFindings {
			row("changed", c.OldSeverity.String()+" → "+c.Severity.String(), c.Item)
		}
		line("")
	}
	_, err := io.WriteString(w, b.String())
	return err
}
