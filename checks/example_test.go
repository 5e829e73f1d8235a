package checks_test

import (
	"context"
	"fmt"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/checkstest"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
)

// contentTypeDeclared is the smallest complete check: metadata, and a pure
// Run over the recording that returns one finding per offending exchange,
// each with the evidence that proves it. CONTRIBUTING.md walks through
// adding a real one.
type contentTypeDeclared struct{}

func (contentTypeDeclared) Meta() checks.Meta {
	return checks.Meta{
		ID:       "negotiation-content-type-declared",
		Since:    checks.FirstRelease,
		Family:   checks.FamilyNegotiation,
		Title:    "Successful responses declare their media type",
		Severity: finding.SeverityWarning,
		SpecRefs: []finding.SpecRef{{Doc: "RFC 9110", Section: "8.3", Level: "SHOULD",
			URL: "https://www.rfc-editor.org/rfc/rfc9110#section-8.3"}},
		Help: `A response without ` + "`Content-Type`" + ` leaves the agent to guess how to parse it.

**How to fix:** send the media type of every response with content.`,
	}
}

func (c contentTypeDeclared) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	if len(in.Samples) == 0 {
		return nil, checks.Skip("no resource answered 2xx to the crawl")
	}
	var out []finding.Finding
	for _, x := range in.Samples {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if x.Response.Header.Get("Content-Type") != "" {
			continue
		}
		msg := fmt.Sprintf("GET %s answered %d with a body and no Content-Type", x.Request.URL, x.Response.Status)
		out = append(out, checks.New(c.Meta(), "", msg, checks.Evidence(x, nil, []string{"Content-Type"})))
	}
	return out, nil
}

// Example_addingACheck registers a check, runs it over a small recording of
// two crawled resources, one of which omits its media type, and prints what
// the report would say.
func Example_addingACheck() {
	reg, err := checks.NewRegistry(contentTypeDeclared{})
	if err != nil {
		fmt.Println(err)
		return
	}
	const orders, order = "http://api.test/orders", "http://api.test/orders/1"
	in := checkstest.Input("http://api.test/", []string{orders, order},
		checkstest.Exchange(exchange.PurposeCrawl, "GET", orders).Status(200).Header("Content-Type", "application/json").Body("[]").Build(),
		checkstest.Exchange(exchange.PurposeCrawl, "GET", order).Status(200).Body(`{"id": 1}`).Build(),
	)
	for _, c := range reg.All() {
		fs, err := c.Run(context.Background(), in)
		if err != nil {
			fmt.Println(err)
			return
		}
		for _, f := range fs {
			fmt.Println(f.Severity, f.CheckID)
			fmt.Println(f.Message)
			fmt.Println(f.Evidence[0].Curl)
		}
		fmt.Println(c.Meta().DocsURL())
	}
	// Output:
	// warning negotiation-content-type-declared
	// GET http://api.test/orders/1 answered 200 with a body and no Content-Type
	// curl -sS -i http://api.test/orders/1
	// https://github.com/agentready/agentready/blob/main/docs/checks.md#negotiation-content-type-declared
}
