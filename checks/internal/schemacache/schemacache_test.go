package schemacache

import (
	"strconv"
	"strings"
	"sync"
	"testing"
)

func TestGetCompilesEachTextOnce(t *testing.T) {
	var c Cache[string]
	calls := 0
	compile := func(text string) func() string {
		return func() string { calls++; return "compiled " + text }
	}
	for range 3 {
		if got := c.Get(`{"type":"object"}`, compile(`{"type":"object"}`)); got != `compiled {"type":"object"}` {
			t.Fatalf("got %q", got)
		}
	}
	if got := c.Get(`{"type":"string"}`, compile(`{"type":"string"}`)); got != `compiled {"type":"string"}` {
		t.Fatalf("got %q", got)
	}
	if calls != 2 {
		t.Errorf("%d compilations of two texts asked for four times, want 2", calls)
	}
}

func TestGetHoldsNoMoreThanItsBounds(t *testing.T) {
	var c Cache[int]
	for i := range maxEntries + 10 {
		c.Get(strconv.Itoa(i), func() int { return i })
	}
	if len(c.done) != maxEntries {
		t.Errorf("%d texts held, want at most %d", len(c.done), maxEntries)
	}
	calls := 0
	if got := c.Get(strconv.Itoa(maxEntries+5), func() int { calls++; return -1 }); got != -1 || calls != 1 {
		t.Errorf("a text past the bound: got %d after %d compilations, want it compiled again", got, calls)
	}
	huge := strings.Repeat(" ", maxTextSize+1)
	c.Get(huge, func() int { return 0 })
	if _, held := c.done[huge]; held {
		t.Error("a text over the size bound is held")
	}
}

func TestGetIsSafeForConcurrentUse(t *testing.T) {
	var c Cache[string]
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			text := strconv.Itoa(i % 2)
			if got := c.Get(text, func() string { return "v" + text }); got != "v"+text {
				t.Errorf("got %q for %q", got, text)
			}
		})
	}
	wg.Wait()
}
