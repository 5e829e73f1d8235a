package checks

import (
	"context"
	"errors"
	"net/url"
	"testing"

	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/spec"
)

func TestEachOperation(t *testing.T) {
	target, _ := url.Parse("http://example.test/")
	ops := []*spec.Operation{{Method: "GET", PathTemplate: "/a"}, {Method: "POST", PathTemplate: "/b"}}
	judge := func(op *spec.Operation) []finding.Finding {
		return []finding.Finding{{Subject: op.Key()}}
	}
	fs, err := NewStaticInput(target, &spec.Document{Operations: ops}).EachOperation(context.Background(), judge)
	if err != nil || len(fs) != 2 || fs[0].Subject != "GET /a" || fs[1].Subject != "POST /b" {
		t.Errorf("findings %+v, %v", fs, err)
	}
	var skip *SkipError
	if _, err := NewStaticInput(target, nil).EachOperation(context.Background(), judge); !errors.As(err, &skip) {
		t.Errorf("without a document: %v, want a skip", err)
	}
	if _, err := NewStaticInput(target, &spec.Document{Swagger2: true}).EachOperation(context.Background(), judge); !errors.As(err, &skip) {
		t.Errorf("Swagger 2.0: %v, want a skip", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if fs, err := NewStaticInput(target, &spec.Document{Operations: ops}).EachOperation(ctx, judge); !errors.Is(err, context.Canceled) || fs != nil {
		t.Errorf("cancelled: %+v, %v", fs, err)
	}
}

func TestAtOperation(t *testing.T) {
	op := &spec.Operation{Method: "POST", PathTemplate: "/orders",
		Location: finding.SourceLocation{File: "openapi.yaml", Line: 7, Column: 5, Pointer: "/paths/~1orders/post"}}
	f := AtOperation(finding.Finding{}, op, "responses", "4XX")
	if f.Location == nil || f.Location.Line != 7 || f.Location.Pointer != "/paths/~1orders/post/responses/4XX" {
		t.Errorf("location %+v", f.Location)
	}
	if op.Location.Pointer != "/paths/~1orders/post" {
		t.Errorf("the operation's own location changed: %+v", op.Location)
	}
	if f := AtOperation(finding.Finding{}, &spec.Operation{}); f.Location != nil {
		t.Errorf("a document without positions gave %+v", f.Location)
	}
}
