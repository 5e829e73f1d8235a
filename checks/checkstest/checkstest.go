// Package checkstest builds recordings by hand for table tests of checks, so
// a check's logic can be tested without a network.
package checkstest

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"testing"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/internal/conneg"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
)

// Exchange starts a builder for one exchange.
func Exchange(purpose, method, rawURL string) *Builder {
	return &Builder{x: &exchange.Exchange{
		Purpose: purpose,
		Request: exchange.Request{Method: method, URL: rawURL, Header: http.Header{}},
	}}
}

// Builder fills one exchange fluently.
type Builder struct{ x *exchange.Exchange }

// BasedOn sets the sample the probe was derived from.
func (b *Builder) BasedOn(u string) *Builder { b.x.BasedOn = u; return b }

// ReqHeader adds a request header.
func (b *Builder) ReqHeader(k, v string) *Builder { b.x.Request.Header.Add(k, v); return b }

// Status sets the response status, creating the response.
func (b *Builder) Status(code int) *Builder {
	b.resp().Status = code
	return b
}

// Header adds a response header.
func (b *Builder) Header(k, v string) *Builder { b.resp().Header.Add(k, v); return b }

// Body sets the response body.
func (b *Builder) Body(s string) *Builder {
	r := b.resp()
	r.Body = []byte(s)
	r.BodySize = int64(len(s))
	return b
}

// Build returns the exchange.
func (b *Builder) Build() *exchange.Exchange { return b.x }

func (b *Builder) resp() *exchange.Response {
	if b.x.Response == nil {
		b.x.Response = &exchange.Response{Header: http.Header{}}
	}
	return b.x.Response
}

// Input freezes exchanges into an Input, marking samples, and assigns IDs.
func Input(target string, samples []string, xs ...*exchange.Exchange) *checks.Input {
	rec := &exchange.Recording{Target: target, Samples: samples}
	for i, x := range xs {
		x.ID = fmt.Sprintf("x%04d", i+1)
		rec.Exchanges = append(rec.Exchanges, x)
	}
	u, _ := url.Parse(target)
	return checks.NewInput(u, rec)
}

// Run runs one check and returns its findings' check IDs, failing the test on
// an evaluation error. A skip returns nil findings and the reason.
func Run(t *testing.T, c checks.Check, in *checks.Input) ([]finding.Finding, string) {
	t.Helper()
	fs, err := c.Run(context.Background(), in)
	if reason, ok := checks.IsSkip(err); ok {
		return nil, reason
	}
	if err != nil {
		t.Fatalf("%s: %v", c.Meta().ID, err)
	}
	for _, f := range fs {
		if f.CheckID != c.Meta().ID || f.Message == "" || len(f.Evidence) == 0 {
			t.Errorf("%s: malformed finding %+v", c.Meta().ID, f)
		}
	}
	return fs, ""
}

// IDs returns the sorted, unique check IDs of findings.
func IDs(fs []finding.Finding) []string {
	var out []string
	for _, f := range fs {
		if !slices.Contains(out, f.CheckID) {
			out = append(out, f.CheckID)
		}
	}
	slices.Sort(out)
	return out
}

// FiredBy holds every check of a family that names a table case in
// Meta.FiredBy to that case: fire runs the case of that name and returns
// the IDs of the checks it fired, and false when the table has no such case.
func FiredBy(t *testing.T, family []checks.Check, fire func(t *testing.T, name string) ([]string, bool)) {
	t.Helper()
	for _, c := range family {
		m := c.Meta()
		if m.FiredBy == "" {
			continue
		}
		t.Run(m.ID, func(t *testing.T) {
			got, ok := fire(t, m.FiredBy)
			switch {
			case !ok:
				t.Errorf("FiredBy names %q, which is no case of the family's table", m.FiredBy)
			case !slices.Contains(got, m.ID):
				t.Errorf("case %q fired %v, not %s", m.FiredBy, got, m.ID)
			}
		})
	}
}

// Resent returns x as its n-th send (2 and up) with the same answer: what a
// stable server gives when the scan sends a compared request again.
func Resent(x *exchange.Exchange, n int) *exchange.Exchange {
	c := *x
	c.ID = ""
	c.Purpose = conneg.RepeatPurpose(x.Purpose, n)
	if x.Purpose == exchange.PurposeCrawl {
		c.BasedOn = x.Request.URL
	}
	return &c
}

// WithRepeats returns xs followed by each one's repeats, as a stable server
// answers them (conneg.Repeats more sends of each).
func WithRepeats(xs ...*exchange.Exchange) []*exchange.Exchange {
	out := append([]*exchange.Exchange(nil), xs...)
	for _, x := range xs {
		for n := 2; n <= 1+conneg.Repeats; n++ {
			out = append(out, Resent(x, n))
		}
	}
	return out
}
