package markdown

import (
	"fmt"
	"strings"

	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/report/internal/view"
)

// interfaces writes what each interface costs an agent as a table, the
// per-kind figures folded below it.
func (d *doc) interfaces(r *finding.Report) {
	s := r.Interfaces
	if s == nil || d.cut {
		return
	}
	d.add(fmt.Sprintf("### Interfaces\n\nCatalog: %s; tokens: %s; medians over %d %s with an operation to choose.\n\n",
		text(view.NonEmpty(s.Catalog, "none"), 20), text(view.NonEmpty(s.Tokenizer, "not counted"), 60), s.Resources, view.Plural(s.Resources, "resource", "resources")))
	d.add("| Interface | " + strings.Join(finding.InterfaceColumns, " | ") + " |\n| --- |" + strings.Repeat(" ---: |", len(finding.InterfaceColumns)) + "\n")
	for _, c := range s.Entries {
		cells := finding.InterfaceRow(c)
		for i := range cells {
			cells[i] = text(cells[i], maxField)
		}
		for len(cells) < len(finding.InterfaceColumns) {
			cells = append(cells, "")
		}
		d.add(fmt.Sprintf("| %s %s | %s |\n", finding.InterfaceLetter(c.Interface), c.Interface, strings.Join(cells, " | ")))
	}
	d.add("\n")
	if len(s.Kinds) == 0 {
		return
	}
	d.add("<details><summary>Per resource kind and state</summary>\n\n| Kind | State | Resources | A static | B referenced | C dynamic |\n| --- | --- | ---: | --- | --- | --- |\n")
	for _, k := range s.Kinds {
		cells := []string{code(k.Kind, 200, true), text(k.State, 100), fmt.Sprint(k.Resources)}
		for _, c := range k.Entries {
			cells = append(cells, finding.KindSummary(c))
		}
		if !d.add("| " + strings.Join(cells, " | ") + " |\n") {
			break
		}
	}
	d.must("\n</details>\n\n")
}
