package scan

import (
	"testing"

	"github.com/agentready/agentready/internal/finding"
)

func TestOperationOfADeduction(t *testing.T) {
	at := func(pointer string) *finding.SourceLocation {
		return &finding.SourceLocation{File: "openapi.yaml", Line: 3, Pointer: pointer}
	}
	tests := []struct {
		name    string
		subject string
		loc     *finding.SourceLocation
		want    string
	}{
		{"located under the operation", "POST /orders /paths/~1orders/post", at("/paths/~1orders/post/requestBody"), "POST /orders"},
		{"a parameter declared on the path", "GET /orders/{id} /paths/~1orders~1{id}/parameters/0",
			at("/paths/~1orders~1{id}/parameters/0"), "GET /orders/{id}"},
		{"a parameter under components", "DELETE /orders/{id} /components/parameters/id",
			at("/components/parameters/id"), "DELETE /orders/{id}"},
		{"a subject that is the operation alone", "PATCH /orders/{id}", nil, "PATCH /orders/{id}"},
		{"the whole document", "", at("/components/securitySchemes"), ""},
		{"a subject that names no method", "orders /paths", at("/info"), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := operationOf(&finding.Finding{Subject: tt.subject, Location: tt.loc}); got != tt.want {
				t.Errorf("operationOf = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestReadinessGradesTheOperationsWithoutAGuess(t *testing.T) {
	rules := []finding.RuleInfo{
		{ID: "openapi-hal-input-unconstrained", Family: "openapi-hal", Readiness: true},
		{ID: "openapi-hal-operation-purpose", Family: "openapi-hal", Readiness: true},
		{ID: "vary-accept", Family: "vary"},
	}
	rep := &finding.Report{
		Rules: rules,
		Checks: []finding.CheckResult{
			{ID: "openapi-hal-input-unconstrained", Family: "openapi-hal", Status: finding.StatusFail},
			{ID: "openapi-hal-operation-purpose", Family: "openapi-hal", Status: finding.StatusFail},
			{ID: "vary-accept", Family: "vary", Status: finding.StatusFail},
		},
		Findings: []finding.Finding{
			{CheckID: "openapi-hal-input-unconstrained", Severity: finding.SeverityWarning, Subject: "GET /a/{id} /paths/~1a~1{id}/parameters/0",
				Location: &finding.SourceLocation{Line: 4, Pointer: "/paths/~1a~1{id}/parameters/0"}},
			{CheckID: "openapi-hal-operation-purpose", Severity: finding.SeverityWarning, Subject: "GET /a/{id} /paths/~1a~1{id}/get",
				Location: &finding.SourceLocation{Line: 9, Pointer: "/paths/~1a~1{id}/get"}},
			{CheckID: "openapi-hal-operation-purpose", Severity: finding.SeverityWarning, Subject: "POST /b /paths/~1b/post",
				Location: &finding.SourceLocation{Line: 20, Pointer: "/paths/~1b/post"}},
			{CheckID: "vary-accept", Severity: finding.SeverityError, Subject: "Accept"},
		},
		Spec: &finding.SpecInfo{Operations: 4},
	}
	rd := Readiness(rep)
	if rd == nil {
		t.Fatal("no readiness")
	}
	// GET /a/{id} keeps 50 of 100, POST /b 75, the other two 100.
	if rd.Score.Value != 81 || rd.Score.Grade != "B+" || rd.Deductions != 3 || rd.Deducted != 2 || rd.Operations != 4 {
		t.Errorf("readiness %+v", rd)
	}
	if len(rd.Hotspots) != 2 || rd.Hotspots[0].Operation != "GET /a/{id}" || rd.Hotspots[0].Deductions != 2 ||
		rd.Hotspots[0].Location.Line != 4 || rd.Hotspots[1].Operation != "POST /b" {
		t.Errorf("hotspots %+v", rd.Hotspots)
	}

	rep.Spec.Operations = 0
	rep.Findings = nil
	if rd := Readiness(rep); rd == nil || rd.Score.Grade != finding.GradeNotAssessed {
		t.Errorf("without operations: %+v", rd)
	}
	for i := range rep.Checks {
		rep.Checks[i].Status = finding.StatusSkip
	}
	if rd := Readiness(rep); rd != nil {
		t.Errorf("no readiness check judged, yet %+v", rd)
	}
}
