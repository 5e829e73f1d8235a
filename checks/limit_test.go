package checks

import (
	"fmt"
	"strings"
	"testing"

	"github.com/agentready/agentready/internal/finding"
)

func TestFindingsKeepTheFirstAndCountTheRest(t *testing.T) {
	var few Findings
	few.Add(finding.Finding{Message: "only"})
	if got := few.List(); len(got) != 1 || got[0].Message != "only" {
		t.Errorf("under the cap: %+v", got)
	}
	var many Findings
	for i := range MaxFindings + 42 {
		many.Add(finding.Finding{Message: fmt.Sprint(i)})
	}
	got := many.List()
	if len(got) != MaxFindings || got[0].Message != "0" {
		t.Fatalf("%d findings kept, first %q", len(got), got[0].Message)
	}
	if want := fmt.Sprintf("%d (42 more findings of this check are not listed)", MaxFindings-1); got[len(got)-1].Message != want {
		t.Errorf("last message %q, want %q", got[len(got)-1].Message, want)
	}
}

func TestJoinFew(t *testing.T) {
	names := strings.Split("a b c d e f g h i j k l", " ")
	if got := JoinFew(names[:3]); got != "a, b, c" {
		t.Errorf("JoinFew(3) = %q", got)
	}
	if got := JoinFew(names); got != "a, b, c, d, e, f, g, h, i, j and 2 more" {
		t.Errorf("JoinFew(12) = %q", got)
	}
}
