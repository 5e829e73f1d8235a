package scan

import (
	"testing"

	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/spec"
	"github.com/agentready/agentready/probe"
)

func TestOperationsNeedAnOpenAPI3Document(t *testing.T) {
	t.Parallel()
	rec := &exchange.Recording{}
	if ops := operationsOf(&probe.Result{Recording: rec}); ops != nil {
		t.Errorf("operations without a document: %+v", ops)
	}
	if ops := operationsOf(&probe.Result{Recording: rec, Spec: &spec.Document{Swagger2: true}}); ops != nil {
		t.Errorf("operations of a Swagger 2.0 document: %+v", ops)
	}
	if ops := operationsOf(&probe.Result{Recording: rec, Spec: &spec.Document{}}); ops == nil {
		t.Error("no operation coverage for an OpenAPI 3 document")
	}
}
