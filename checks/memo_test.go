package checks_test

import (
	"sync"
	"sync/atomic"
	"testing"

	"github.com/agentready/agentready/checks"
)

func TestMemoComputesOncePerScope(t *testing.T) {
	key := checks.NewKey[*[]string]()
	var computed atomic.Int32
	compute := func() *[]string {
		computed.Add(1)
		return &[]string{"analysis"}
	}
	in := &checks.Input{}
	got := make([]*[]string, 16)
	var wg sync.WaitGroup
	for i := range got {
		wg.Go(func() { got[i] = checks.Memo(in, key, compute) })
	}
	wg.Wait()
	if n := computed.Load(); n != 1 {
		t.Fatalf("computed %d times for one Input, want once", n)
	}
	for i, v := range got {
		if v != got[0] {
			t.Fatalf("caller %d got another value than caller 0", i)
		}
	}
	if checks.Memo(&checks.Input{}, key, compute) == got[0] || computed.Load() != 2 {
		t.Error("another Input shared the first one's value")
	}
	if checks.Memo(&checks.PlanInput{}, key, compute) == got[0] || computed.Load() != 3 {
		t.Error("a PlanInput shared an Input's value")
	}
}

func TestMemoKeysAreTheirOwn(t *testing.T) {
	in := &checks.Input{}
	a, b := checks.NewKey[string](), checks.NewKey[string]()
	value := func(v string) func() string { return func() string { return v } }
	if checks.Memo(in, a, value("a")) != "a" || checks.Memo(in, b, value("b")) != "b" {
		t.Error("two keys of one type share a value")
	}
	if checks.Memo(in, a.With("x"), value("ax")) != "ax" || checks.Memo(in, a.With("y"), value("ay")) != "ay" {
		t.Error("two parts of one key share a value")
	}
	if checks.Memo(in, a.With("x"), value("other")) != "ax" {
		t.Error("the same part of a key computed again")
	}
	if checks.Memo(in, a, value("other")) != "a" {
		t.Error("a part replaced the whole key's value")
	}
}

// A key of an interface type whose computation returns nil gives nil back
// rather than failing.
func TestMemoOfNilInterface(t *testing.T) {
	key := checks.NewKey[error]()
	if err := checks.Memo(&checks.Input{}, key, func() error { return nil }); err != nil {
		t.Errorf("got %v, want nil", err)
	}
}
