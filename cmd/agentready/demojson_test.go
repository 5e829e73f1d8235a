package main

import (
	"bytes"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentready/agentready/checks/builtin"
	"github.com/agentready/agentready/fixtures/demo"
	"github.com/agentready/agentready/internal/cli"
	"github.com/agentready/agentready/internal/golden"
	"github.com/agentready/agentready/report/json"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// TestDemoJSONIsTheWholeReportOnStdout: `demo --format json` prints the
// JSON reporter's rendering of its scan and nothing else, valid under the
// published schema, nothing on stderr, exit 0 under the default gate; the
// report holds a result for every check, and the findings are exactly the
// defect's. How the report renders is pinned by the report goldens
// (testdata/golden/demo-no-vary-accept/report.json) and the text of this
// same scan by the demo-no-vary-accept snapshot, so that a new check
// changes neither this test nor a copy of the whole report here.
func TestDemoJSONIsTheWholeReportOnStdout(t *testing.T) {
	r := runCLI(t, "demo", "--defect", string(demo.DefectNoVaryAccept), "--format", "json")
	if r.code != cli.ExitOK || r.stderr != "" {
		t.Fatalf("exit %d, want %d, and stderr %q, want nothing", r.code, cli.ExitOK, r.stderr)
	}
	rep, err := jsonreport.Read(strings.NewReader(r.stdout))
	if err != nil {
		t.Fatalf("stdout is no JSON report: %v", err)
	}
	var again bytes.Buffer
	if err := jsonreport.New().Write(&again, rep); err != nil {
		t.Fatal(err)
	}
	if again.String() != r.stdout {
		t.Errorf("stdout is not the JSON reporter's rendering of its report: %s", golden.FirstDiff([]byte(r.stdout), again.Bytes()))
	}
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(r.stdout))
	if err != nil {
		t.Fatal(err)
	}
	schema := golden.Schema(t, filepath.Join(golden.Root(), "docs", "schema", "agentready-report.schema.json"), jsonreport.SchemaID)
	if err := schema.Validate(doc); err != nil {
		t.Errorf("stdout does not conform to the report schema: %v", err)
	}
	if rep.Tool.Version != "test" || !strings.HasPrefix(rep.Target, "http://127.0.0.1:") {
		t.Errorf("tool version %q, target %q: want the build's version and the demo's loopback URL", rep.Tool.Version, rep.Target)
	}
	if rep.Gate == nil || !rep.Gate.Passed || rep.Score.Grade == "N/A" {
		t.Errorf("gate %+v, grade %q: want a graded scan that passed the default gate", rep.Gate, rep.Score.Grade)
	}
	reg, err := builtin.Registry()
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Checks) != len(reg.All()) {
		t.Errorf("%d check results, want one for each of the %d checks", len(rep.Checks), len(reg.All()))
	}
	var fired []string
	for _, f := range rep.Findings {
		if !slices.Contains(fired, f.CheckID) {
			fired = append(fired, f.CheckID)
		}
	}
	slices.Sort(fired)
	if want := demo.DefectNoVaryAccept.Fires(); !slices.Equal(fired, want) {
		t.Errorf("findings of %v, want of %v", fired, want)
	}
}
