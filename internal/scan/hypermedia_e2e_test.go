package scan_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/agentready/agentready/fixtures/demo"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/report"
)

// hypermediaFamilies are the families this file is about.
var hypermediaFamilies = []string{"hal", "hal-forms", "affordance"}

func hypermediaFindings(rep *finding.Report) []finding.Finding {
	var out []finding.Finding
	for _, f := range rep.Findings {
		if slices.Contains(hypermediaFamilies, f.Family) {
			out = append(out, f)
		}
	}
	return out
}

func TestHypermediaFindingsPointAtTheMember(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(demo.New(demo.DefectHALTemplatedString, demo.DefectFormsBadRegex, demo.DefectAffordanceStaleVersion))
	defer srv.Close()
	want := map[string]string{
		"hal-templated-not-boolean":   "/_links/find/templated",
		"hal-forms-regex":             "/_templates/pay/properties/0/regex",
		"affordance-version-mismatch": "/affordances/1/validForVersion",
	}
	got := map[string]string{}
	for _, f := range hypermediaFindings(scanApp(t, srv)) {
		got[f.CheckID] = f.Evidence[0].JSONPointer
		if !strings.HasSuffix(f.PrimaryURL(), "/orders/1") {
			t.Errorf("%s on %s, want order 1", f.CheckID, f.PrimaryURL())
		}
	}
	for id, ptr := range want {
		if got[id] != ptr {
			t.Errorf("%s pointer %q, want %q", id, got[id], ptr)
		}
	}
}

func TestTerminalFindingNamesTheState(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(demo.New(demo.DefectNextActionsTerminal))
	defer srv.Close()
	fs := hypermediaFindings(scanApp(t, srv))
	if len(fs) != 1 || !strings.Contains(fs[0].Message, `"cancelled"`) {
		t.Errorf("findings %+v", fs)
	}
}

// The demo's orders go through every state; the matrix must show that
// cancellation is offered only before shipment, in every form of control.
func TestStateMatrixOfTheDemo(t *testing.T) {
	t.Parallel()
	rep := shared(t, conformantScanned).rep
	var orders *finding.StateMatrix
	for i := range rep.States {
		if rep.States[i].Kind == "/orders/{id}" {
			orders = &rep.States[i]
		}
	}
	if orders == nil {
		t.Fatalf("no matrix for /orders/{id} in %+v", rep.States)
	}
	if want := []string{"pending", "paid", "shipped", "delivered", "cancelled"}; !slices.Equal(orders.States, want) {
		t.Errorf("states %v, want %v", orders.States, want)
	}
	offered := map[string][]string{}
	for _, c := range orders.Controls {
		offered[c.Type+" "+c.Name] = c.OfferedIn
	}
	for _, control := range []string{"link cancel", "template cancel", "affordance cancelOrder", "next-action cancelOrder"} {
		if got := offered[control]; !slices.Equal(got, []string{"pending", "paid"}) {
			t.Errorf("%s offered in %v, want pending and paid", control, got)
		}
	}
	if got := offered["template default (POST /orders/{id}/delivery)"]; !slices.Equal(got, []string{"shipped"}) {
		t.Errorf("delivery template offered in %v", got)
	}

	var text, js bytes.Buffer
	for format, buf := range map[string]*bytes.Buffer{"text": &text, "json": &js} {
		r, err := report.New(format, report.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if err := r.Write(buf, rep); err != nil {
			t.Fatal(err)
		}
	}
	if !strings.Contains(text.String(), "\nStates\n") || !strings.Contains(text.String(), "/orders/{id} — 6 resources by \"state\"") {
		t.Errorf("text report lacks the state matrix:\n%s", text.String())
	}
	var decoded struct{ States []finding.StateMatrix }
	if err := json.Unmarshal(js.Bytes(), &decoded); err != nil || len(decoded.States) != len(rep.States) {
		t.Errorf("JSON report states %v (%v)", decoded.States, err)
	}
}

// springApp serves one employee as Spring HATEOAS renders it: HAL, and with
// templates added inline when HAL-FORMS is asked for. The bodies are the
// documents of the facts sheet (Spring 3: keys named after handler methods,
// no default, upper-case methods; Spring 1.x: lower-case methods).
func springApp(forms string) http.Handler {
	const hal = `{"name":"Frodo Baggins","role":"ring bearer",
 "_links":{"self":{"href":"/employees/0"},"employees":{"href":"/employees"}}}`
	const list = `{"_links":{"self":{"href":"/employees"}},"_embedded":{"employees":[{"name":"Frodo Baggins","_links":{"self":{"href":"/employees/0"}}}]}}`
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, mt := hal, "application/hal+json"
		switch {
		case r.URL.Path == "/" || r.URL.Path == "/employees":
			body = list
		case r.URL.Path != "/employees/0":
			http.NotFound(w, r)
			return
		case strings.Contains(r.Header.Get("Accept"), "application/prs.hal-forms+json"):
			body, mt = forms, "application/prs.hal-forms+json"
		}
		w.Header().Set("Content-Type", mt)
		w.Header().Set("Vary", "Accept")
		_, _ = w.Write([]byte(body))
	})
}

const spring3Forms = `{"name":"Frodo Baggins","role":"ring bearer",
 "_links":{"self":{"href":"/employees/0"},"employees":{"href":"/employees"}},
 "_templates":{
  "updateEmployee":{"method":"PUT","properties":[{"name":"name","required":true,"type":"text"},{"name":"role","type":"text"}]},
  "partiallyUpdateEmployee":{"method":"PATCH","properties":[{"name":"name","type":"text"},{"name":"role","type":"text"}]}}}`

const spring1Forms = `{"name":"Frodo Baggins","role":"ring bearer",
 "_links":{"self":{"href":"/employees/0"},"employees":{"href":"/employees"}},
 "_templates":{
  "default":{"method":"put","properties":[{"name":"name","required":true},{"name":"role"}]},
  "partiallyUpdateEmployee":{"method":"patch","properties":[{"name":"name"},{"name":"role"}]}}}`

func TestSpringHATEOASOutputs(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name  string
		forms string
		want  []string
	}{
		{"Spring HATEOAS 3", spring3Forms, nil},
		{"Spring HATEOAS 1.x", spring1Forms, []string{"hal-forms-method-unrecognized"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(springApp(tt.forms))
			defer srv.Close()
			rep := scanApp(t, srv)
			var got []string
			for _, f := range hypermediaFindings(rep) {
				if f.Severity >= finding.SeverityWarning && !slices.Contains(got, f.CheckID) {
					got = append(got, f.CheckID)
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("errors and warnings %v, want %v", got, tt.want)
			}
			judged := false
			for _, c := range rep.Checks {
				judged = judged || (c.ID == "hal-forms-method-missing" && c.Status != finding.StatusSkip)
			}
			if !judged {
				t.Error("the HAL-FORMS document was never fetched and judged")
			}
		})
	}
}

// TestDemoHypermediaIsJudgedAgainstItsSpec: with the demo's document
// discovered, the checks that compare templates and affordances with it
// run, so the conformant demo's silence is a verdict.
func TestDemoHypermediaIsJudgedAgainstItsSpec(t *testing.T) {
	t.Parallel()
	rep := shared(t, conformantDiscovered).rep
	for _, c := range rep.Checks {
		if (c.ID == "hal-forms-template-operation" || c.ID == "affordance-operation-unresolved") && c.Status != finding.StatusPass {
			t.Errorf("%s with the spec discovered: %s %s", c.ID, c.Status, c.Reason)
		}
	}
}
