package checks

import (
	"fmt"
	"strings"

	"github.com/agentready/agentready/internal/bounded"
	"github.com/agentready/agentready/internal/finding"
)

// MaxFindings bounds what one check reports about one document: a generated
// document can repeat a defect 50,000 times, and past the first hundred the
// report only gets longer, not more useful.
const MaxFindings = 100

// Findings collects the findings of one check, keeping at most MaxFindings.
// The zero value is ready to use.
type Findings struct {
	list bounded.List[finding.Finding]
}

// Add keeps f while there is room, and counts it otherwise.
func (fs *Findings) Add(f finding.Finding) {
	fs.list.Max = MaxFindings
	fs.list.Add(f)
}

// List returns the findings kept, once the check is done; when some were
// left out, the last one says how many.
func (fs *Findings) List() []finding.Finding {
	out := fs.list.Items
	if n := fs.list.Dropped; n > 0 {
		out[len(out)-1].Message += fmt.Sprintf(" (%d more findings of this check are not listed)", n)
	}
	return out
}

// maxListed is how many names a message lists before counting the rest.
const maxListed = 10

// JoinFew joins the first names of a list and counts the rest ("a, b and
// 12 more"), so that a message about thousands of operations stays a line.
func JoinFew(names []string) string {
	if len(names) <= maxListed {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:maxListed], ", "), len(names)-maxListed)
}
