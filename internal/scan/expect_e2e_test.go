package scan_test

import (
	"bytes"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/builtin"
	"github.com/agentready/agentready/checks/openapidoc"
	"github.com/agentready/agentready/fixtures/activefix"
	"github.com/agentready/agentready/fixtures/browsable"
	"github.com/agentready/agentready/fixtures/demo"
	"github.com/agentready/agentready/fixtures/expect"
	"github.com/agentready/agentready/fixtures/mcpfix"
	"github.com/agentready/agentready/fixtures/methodlog"
	"github.com/agentready/agentready/fixtures/plainjson"
	"github.com/agentready/agentready/fixtures/seedapp"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/pipeline"
	"github.com/agentready/agentready/internal/scan"
	"github.com/agentready/agentready/probe"
)

// fixtureCases are the expectations of every fixture app that fires checks,
// each declared in the fixture's own package.
func fixtureCases() []expect.Case {
	return slices.Concat(demo.Cases(), activefix.Cases(), mcpfix.RoleCases(), seedapp.Cases(), browsable.Cases(), plainjson.Cases())
}

// scanOptions sets a scan up as s says.
func scanOptions(t *testing.T, s expect.Scan) scan.Options {
	t.Helper()
	opts := scan.Options{Probe: probe.Config{Spec: probe.SpecConfig{Discover: s.Spec}}}
	for _, id := range s.As {
		opts.Identities = append(opts.Identities, probe.Identity{Caller: id.Caller, Header: id.Header()})
	}
	opts.Identities = probe.Describe(opts.Identities, opts.Probe.Headers)
	if len(s.Allow) > 0 {
		opts.Active = allowRules(t, s.Allow...)
	}
	return opts
}

func TestEachFixtureFiresExactlyItsChecks(t *testing.T) {
	t.Parallel()
	for _, c := range fixtureCases() {
		t.Run(c.Name, func(t *testing.T) {
			t.Parallel()
			opts := scanOptions(t, c.Scan)
			if c.Scan.Baseline {
				opts.Policy = &pipeline.Policy{Baseline: baselineOf(t, c.Conformant(), scanOptions(t, c.Scan))}
			}
			log, h := methodlog.Wrap(c.App())
			rep := mustScan(t, h, opts)
			if got, want := firedChecks(rep), slices.Sorted(slices.Values(c.Fires)); !slices.Equal(got, want) {
				for _, f := range rep.Findings {
					t.Logf("%s %s: %s", f.Severity, f.CheckID, f.Message)
				}
				t.Errorf("fired %v, want %v", got, want)
			}
			assertLocated(t, rep)
			assertLeaksNameTheCaller(t, rep, c.Scan)
			for _, req := range assertSentAsListed(t, log, rep) {
				if !slices.ContainsFunc(c.Scan.Allow, func(rule string) bool { return allowedBy(rule, req) }) {
					t.Errorf("sent %s, which the allow-list %v does not name", req, c.Scan.Allow)
				}
			}
		})
	}
}

// baselineOf scans h and reads the report back as a baseline, through the
// file format, as --baseline does.
func baselineOf(t *testing.T, h http.Handler, opts scan.Options) *pipeline.Baseline {
	t.Helper()
	var buf bytes.Buffer
	if err := pipeline.WriteBaseline(&buf, mustScan(t, h, opts)); err != nil {
		t.Fatal(err)
	}
	b, err := pipeline.ReadBaseline(&buf)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// locatedChecks are the checks whose findings are about the OpenAPI
// document or one of its operations, and so point into it.
var locatedChecks = func() map[string]bool {
	m := map[string]bool{
		"openapi-hal-wrong-coordinate": true, "openapi-hal-method-mismatch": true, "openapi-hal-rel-malformed": true,
		"openapi-hal-undeclared-curie": true, "openapi-hal-bare-rel-collision": true, "openapi-hal-rel-ambiguous": true,
		"openapi-hal-rel-never-offered": true, "openapi-hal-unlinked-operation": true, "openapi-hal-undeclared-response": true,
	}
	for _, c := range openapidoc.All() {
		m[c.Meta().ID] = true
	}
	return m
}()

func assertLocated(t *testing.T, rep *finding.Report) {
	t.Helper()
	for _, f := range rep.Findings {
		if locatedChecks[f.CheckID] && (f.Location == nil || f.Location.Line == 0 || f.Location.Column == 0) {
			t.Errorf("%s without a line and column in the document: %+v", f.CheckID, f.Location)
		}
	}
}

// assertLeaksNameTheCaller: a leakage finding is about what a less
// privileged identity was shown, and its subject says which one.
func assertLeaksNameTheCaller(t *testing.T, rep *finding.Report, s expect.Scan) {
	t.Helper()
	lower := s.As[:max(len(s.As)-1, 0)]
	for _, f := range rep.Findings {
		if f.Family != string(checks.FamilyLeakage) {
			continue
		}
		if !slices.ContainsFunc(lower, func(id expect.Identity) bool { return strings.SplitN(f.Subject, " ", 2)[0] == id.Name }) {
			t.Errorf("%s: subject %q names none of the less privileged identities %v", f.CheckID, f.Subject, lower)
		}
	}
}

// allowedBy matches "METHOD /path" against an allow-list entry "METHOD
// /pattern", independently of the scanner's own matching.
func allowedBy(rule, req string) bool {
	ruleMethod, pattern, _ := strings.Cut(rule, " ")
	method, p, _ := strings.Cut(req, " ")
	ok, _ := path.Match(pattern, p)
	return ok && ruleMethod == method
}

func TestEveryCheckFiresSomewhere(t *testing.T) {
	t.Parallel()
	reg, err := builtin.Registry()
	if err != nil {
		t.Fatal(err)
	}
	cases := fixtureCases()
	for _, id := range unfired(reg.All(), cases) {
		t.Errorf("check %s fires nowhere: list it in the Fires of the fixture case that fires it, "+
			"or name in its Meta.FiredBy the case of its family's table test that does", id)
	}
	fired := firedByCases(cases)
	for _, c := range cases {
		for _, id := range c.Fires {
			if _, ok := reg.Get(id); !ok {
				t.Errorf("case %s expects %s, which is no check", c.Name, id)
			}
		}
	}
	for _, c := range reg.All() {
		m := c.Meta()
		switch {
		case m.FiredBy == "":
		case fired[m.ID]:
			t.Errorf("%s names a table case in FiredBy although a fixture fires it: drop FiredBy", m.ID)
		case !testsRunFiredBy(t, c):
			t.Errorf("%s names a table case in FiredBy, but its family's tests do not run such cases (checkstest.FiredBy)", m.ID)
		}
	}
}

// unfired lists the checks that no case fires and that name no table case
// firing them either.
func unfired(all []checks.Check, cases []expect.Case) []string {
	fired := firedByCases(cases)
	var out []string
	for _, c := range all {
		if m := c.Meta(); !fired[m.ID] && m.FiredBy == "" {
			out = append(out, m.ID)
		}
	}
	return out
}

func firedByCases(cases []expect.Case) map[string]bool {
	fired := map[string]bool{}
	for _, c := range cases {
		for _, id := range c.Fires {
			fired[id] = true
		}
	}
	return fired
}

// testsRunFiredBy reports whether the tests of the package that defines c
// hold its FiredBy case to account, as checkstest.FiredBy does.
func testsRunFiredBy(t *testing.T, c checks.Check) bool {
	t.Helper()
	typ := reflect.TypeOf(c)
	if typ.Kind() == reflect.Pointer {
		typ = typ.Elem()
	}
	const module = "github.com/agentready/agentready/"
	dir := filepath.Join("..", "..", filepath.FromSlash(strings.TrimPrefix(typ.PkgPath(), module)))
	files, err := filepath.Glob(filepath.Join(dir, "*_test.go"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(src, []byte("checkstest.FiredBy(")) {
			return true
		}
	}
	return false
}

// withoutFiredBy is a check whose metadata names no table case.
type withoutFiredBy struct{ checks.Check }

func (c withoutFiredBy) Meta() checks.Meta {
	m := c.Check.Meta()
	m.FiredBy = ""
	return m
}

// TestGuardNoticesAMissingExpectation: dropping one check from every
// case's Fires, or one check's FiredBy, leaves that check unfired.
func TestGuardNoticesAMissingExpectation(t *testing.T) {
	t.Parallel()
	reg, err := builtin.Registry()
	if err != nil {
		t.Fatal(err)
	}
	all, cases := reg.All(), fixtureCases()
	if got := unfired(all, cases); len(got) != 0 {
		t.Fatalf("unfired %v before anything was dropped", got)
	}
	const dropped = "vary-accept"
	for i := range cases {
		cases[i].Fires = slices.DeleteFunc(slices.Clone(cases[i].Fires), func(id string) bool { return id == dropped })
	}
	if got := unfired(all, cases); !slices.Equal(got, []string{dropped}) {
		t.Errorf("without %s in any case: unfired %v", dropped, got)
	}

	i := slices.IndexFunc(all, func(c checks.Check) bool { return c.Meta().FiredBy != "" })
	if i < 0 {
		t.Fatal("no check names a table case in FiredBy")
	}
	all = slices.Clone(all)
	id := all[i].Meta().ID
	all[i] = withoutFiredBy{all[i]}
	if got := unfired(all, fixtureCases()); !slices.Equal(got, []string{id}) {
		t.Errorf("without the FiredBy of %s: unfired %v", id, got)
	}
}

// TestFlakyResourceGetsTheSameVerdict scans an app whose one order fails at
// random: every scan must report the same findings and grade, the order once
// as unstable, and no verdict drawn from its unlucky draws.
func TestFlakyResourceGetsTheSameVerdict(t *testing.T) {
	t.Parallel()
	var first []string
	var grade string
	for i := range 3 {
		rep := mustScan(t, demo.New(demo.DefectFlakyOrder), scan.Options{})
		var got []string
		unstable := 0
		for _, f := range rep.Findings {
			got = append(got, f.CheckID+" "+f.Fingerprint)
			if f.CheckID == "negotiation-unstable-resource" {
				unstable++
			}
		}
		if unstable != 1 {
			t.Errorf("scan %d: %d unstable findings, want 1: %v", i+1, unstable, got)
		}
		if i == 0 {
			first, grade = got, rep.Score.Grade
			continue
		}
		if !slices.Equal(got, first) || rep.Score.Grade != grade {
			t.Errorf("scan %d: %s %v, first scan %s %v", i+1, rep.Score.Grade, got, grade, first)
		}
	}
}
