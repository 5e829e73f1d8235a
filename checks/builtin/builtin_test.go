package builtin_test

import (
	"go/token"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/builtin"
)

// The CLI reaches the active probes' planning only through ActiveAllowList:
// it keeps the entries as written, for the report, and refuses one that is
// neither a method and path nor an operationId.
func TestActiveAllowList(t *testing.T) {
	entries := []string{"POST /orders/*/cancel", "cancelOrder"}
	p, err := builtin.ActiveAllowList(entries)
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Strings(); !slices.Equal(got, entries) {
		t.Errorf("Strings() = %q, want %q", got, entries)
	}
	if _, err := builtin.ActiveAllowList([]string{"POST orders"}); err == nil {
		t.Error("an entry whose path does not start with / was accepted")
	}
}

// TestEveryCheckSaysSinceWhen: a built-in check names the release it first
// appeared in, which the registry has checked is a version.
func TestEveryCheckSaysSinceWhen(t *testing.T) {
	if _, err := builtin.Registry(); err != nil {
		t.Fatal(err)
	}
	var without []string
	for _, c := range builtin.All() {
		if c.Meta().Since == "" {
			without = append(without, c.Meta().ID)
		}
	}
	if len(without) > 0 {
		t.Errorf("%d checks without Since, among them %v", len(without), without[:min(5, len(without))])
	}
}

// TestEveryCheckIsATypeOfItsOwn holds the checks to CONTRIBUTING's one style:
// each is a struct type of its own, exported by its family's package, whose
// zero value is the check. A check told apart by a field (a kind, a closure,
// metadata built elsewhere) would share its type with others, and reading
// the type would no longer be reading the check.
func TestEveryCheckIsATypeOfItsOwn(t *testing.T) {
	const families = "github.com/agentready/agentready/checks/"
	owner := map[reflect.Type]string{}
	for _, c := range builtin.All() {
		id, typ := c.Meta().ID, reflect.TypeOf(c)
		if typ.Kind() != reflect.Struct || !token.IsExported(typ.Name()) {
			t.Errorf("%s is a %s: a check is an exported struct type", id, typ)
			continue
		}
		if pkg := strings.TrimPrefix(typ.PkgPath(), families); pkg == typ.PkgPath() || strings.Contains(pkg, "/") {
			t.Errorf("%s is declared in %s, not in its family's package under checks/", id, typ.PkgPath())
		}
		if other, ok := owner[typ]; ok {
			t.Errorf("%s and %s share the type %s", other, id, typ)
		}
		owner[typ] = id
		if zero := reflect.Zero(typ).Interface().(checks.Check); !reflect.DeepEqual(zero.Meta(), c.Meta()) {
			t.Errorf("%s: the zero %s is %q, another check; its metadata must be the type's, not a field's", id, typ, zero.Meta().ID)
		}
	}
}
