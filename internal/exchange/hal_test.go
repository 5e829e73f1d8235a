package exchange

import (
	"errors"
	"testing"
)

func TestHALIsReadOnce(t *testing.T) {
	r := &Response{Body: []byte(`{"_links":{"self":{"href":"/"}}}`)}
	first := r.HAL()
	if first.Root == nil || first.Root.SelfHref() != "/" {
		t.Fatalf("view %+v", first)
	}
	if r.HAL() != first {
		t.Error("the body was read twice")
	}
}

func TestHALOfAnIncompleteBody(t *testing.T) {
	for _, r := range []*Response{
		{Body: []byte(`{"_links":{}}`), Truncated: true},
		{Dropped: true},
	} {
		if v := r.HAL(); v.Root != nil || !errors.Is(v.Err, errIncomplete) {
			t.Errorf("view of an incomplete body: %+v", v)
		}
	}
}
