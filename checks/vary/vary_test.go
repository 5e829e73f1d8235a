package vary_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/agentready/agentready/checks/checkstest"
	"github.com/agentready/agentready/checks/internal/conneg"
	"github.com/agentready/agentready/checks/vary"
	"github.com/agentready/agentready/internal/exchange"
)

const u = "http://api.test/orders/1"

type answer struct {
	ctype, vary, applied, cacheControl string
}

func exchanges(answers map[string]answer) []*exchange.Exchange {
	var bs []*exchange.Exchange
	for purpose, a := range answers {
		b := checkstest.Exchange(purpose, "GET", u).Status(200).Header("Content-Type", a.ctype).Body("{}")
		if purpose != exchange.PurposeCrawl {
			b.BasedOn(u)
		}
		if a.vary != "" {
			b.Header("Vary", a.vary)
		}
		if a.applied != "" {
			b.Header("Preference-Applied", a.applied)
		}
		if a.cacheControl != "" {
			b.Header("Cache-Control", a.cacheControl)
		}
		if purpose == conneg.PurposePrefer {
			b.ReqHeader("Prefer", "return=minimal")
		}
		bs = append(bs, b.Build())
	}
	return bs
}

func good() map[string]answer {
	hal := answer{ctype: "application/hal+json", vary: "Accept, Prefer"}
	return map[string]answer{
		exchange.PurposeCrawl: hal,
		conneg.PurposeNone:    hal,
		conneg.PurposeOwn:     hal,
		conneg.PurposeAlt:     {ctype: "application/json", vary: "Accept, Prefer"},
		conneg.PurposePrefer:  {ctype: "application/hal+json", vary: "Accept, Prefer", applied: "return=minimal"},
	}
}

func TestVaryChecks(t *testing.T) {
	tests := []struct {
		what   string
		mutate func(map[string]answer)
		want   []string
	}{
		{"conformant", func(map[string]answer) {}, nil},
		{"Vary: * counts", func(a map[string]answer) {
			for k, v := range a {
				v.vary = "*"
				a[k] = v
			}
		}, nil},
		{"default lacks Accept", func(a map[string]answer) {
			a[conneg.PurposeNone] = answer{ctype: "application/hal+json", vary: "Prefer"}
		}, []string{"vary-accept"}},
		{"no-store is not cached", func(a map[string]answer) {
			a[conneg.PurposeNone] = answer{ctype: "application/hal+json", vary: "Prefer", cacheControl: "no-store"}
		}, nil},
		{"prefer applied without Vary: Prefer", func(a map[string]answer) {
			for k, v := range a {
				v.vary = "Accept"
				a[k] = v
			}
		}, []string{"vary-prefer"}},
		{"prefer not applied needs no Vary: Prefer", func(a map[string]answer) {
			for k, v := range a {
				v.vary, v.applied = "Accept", ""
				a[k] = v
			}
		}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.what, func(t *testing.T) {
			a := good()
			tt.mutate(a)
			in := checkstest.Input("http://api.test/", []string{u}, exchanges(a)...)
			var got []string
			for _, c := range vary.All() {
				fs, _ := checkstest.Run(t, c, in)
				got = append(got, checkstest.IDs(fs)...)
				for _, f := range fs {
					if !strings.Contains(f.Message, "Vary lacks") {
						t.Errorf("message %q does not say what is lacking", f.Message)
					}
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("fired %v, want %v", got, tt.want)
			}
		})
	}
}

// TestEverySecondTypeTheScanSawIsAssessed: a second type served to any GET
// of the resource's URL that differs only in Accept makes the resource
// negotiated, whichever family sent it, so its default answer without
// Vary: Accept is reported; a conditional GET does not.
func TestEverySecondTypeTheScanSawIsAssessed(t *testing.T) {
	for _, tt := range []struct {
		what    string
		purpose string
		header  string
		want    []string
	}{
		{"another family's GET asking for HTML", "discovery/markdown-html", "", []string{"vary-accept"}},
		{"a conditional GET", "discovery/markdown-html", "If-None-Match", nil},
	} {
		t.Run(tt.what, func(t *testing.T) {
			a := good()
			delete(a, conneg.PurposeAlt)
			a[conneg.PurposeNone] = answer{ctype: "application/hal+json", vary: "Prefer"}
			b := checkstest.Exchange(tt.purpose, "GET", u).BasedOn(u).Status(200).Header("Content-Type", "text/html").Body("<p>").ReqHeader("Accept", "text/html")
			if tt.header != "" {
				b.ReqHeader(tt.header, `"v1"`)
			}
			in := checkstest.Input("http://api.test/", []string{u}, append(exchanges(a), b.Build())...)
			fs, reason := checkstest.Run(t, vary.Accept{}, in)
			if got := checkstest.IDs(fs); !slices.Equal(got, tt.want) {
				t.Errorf("fired %v (%s), want %v", got, reason, tt.want)
			}
			if len(fs) > 0 && !strings.Contains(fs[0].Message, "application/hal+json, text/html") {
				t.Errorf("message %q does not name both types", fs[0].Message)
			}
		})
	}
}

func TestSingleRepresentationSkipsVaryAccept(t *testing.T) {
	a := good()
	delete(a, conneg.PurposeAlt)
	in := checkstest.Input("http://api.test/", []string{u}, exchanges(a)...)
	if _, reason := checkstest.Run(t, vary.Accept{}, in); reason == "" {
		t.Error("vary-accept judged a resource with one representation")
	}
}

// TestTypesOptionsListedAreVariants: the answer to a type the resource's
// OPTIONS listed (conneg.PlanRendered) is one of its Accept variants, so
// that one without Vary: Accept is reported, where every other has it.
func TestTypesOptionsListedAreVariants(t *testing.T) {
	for _, tt := range []struct {
		what string
		csv  answer
		want []string
	}{
		{"the CSV renderer leaves Vary out", answer{ctype: "text/csv"}, []string{"vary-accept"}},
		{"the CSV renderer sets it", answer{ctype: "text/csv", vary: "Accept"}, nil},
	} {
		t.Run(tt.what, func(t *testing.T) {
			a := good()
			delete(a, conneg.PurposeAlt)
			a[conneg.RenderedPurpose("text/csv")] = tt.csv
			in := checkstest.Input("http://api.test/", []string{u}, exchanges(a)...)
			fs, reason := checkstest.Run(t, vary.Accept{}, in)
			if got := checkstest.IDs(fs); !slices.Equal(got, tt.want) {
				t.Errorf("fired %v (%s), want %v", got, reason, tt.want)
			}
		})
	}
}
