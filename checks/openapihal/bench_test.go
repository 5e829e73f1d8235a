package openapihal

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/spec"
)

// largeSpec has n resources with a GET, a POST action and x-hal-rel on both
// forms, about the size of a large public API description.
func largeSpec(n int) *spec.Document {
	var ops []*spec.Operation
	for i := range n {
		base := fmt.Sprintf("/r%d/{id}", i)
		ops = append(ops, op(i*10, "GET", base), op(i*10+5, "POST", base+"/act", fmt.Sprintf("r%d:act", i), "act"))
	}
	return doc(ops...)
}

// BenchmarkStaticChecks is what lint adds for this family on a 2000-operation
// document.
func BenchmarkStaticChecks(b *testing.B) {
	d := largeSpec(1000)
	cs := []checks.Check{Malformed{}, Ambiguous{}, BareCollision{}, Unlinked{}}
	for b.Loop() {
		in := checks.NewStaticInput(&url.URL{Scheme: "file", Path: "openapi.yaml"}, d)
		for _, c := range cs {
			if _, err := c.Run(context.Background(), in); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkCoordinateMatching matches 200 representations of 20 links each
// against the same document.
func BenchmarkCoordinateMatching(b *testing.B) {
	d := largeSpec(1000)
	var xs []*exchange.Exchange
	var samples []string
	for i := range 200 {
		var links []string
		for j := range 20 {
			r := (i*20 + j) % 1000
			links = append(links, fmt.Sprintf(`"r%d:act":{"href":"/r%d/%d/act"}`, r, r, i))
		}
		u := fmt.Sprintf("%sr%d/%d", target, i%1000, i)
		samples = append(samples, u)
		xs = append(xs, hal(exchange.PurposeCrawl, u, `{"_links":{`+strings.Join(links, ",")+`}}`))
	}
	for b.Loop() {
		in := input(d, samples, xs...)
		for _, c := range []checks.Check{UnlistedRel{}, WrongCoordinate{}, MethodMismatch{}, NeverOffered{}} {
			if _, err := c.Run(context.Background(), in); err != nil {
				b.Fatal(err)
			}
		}
	}
}
