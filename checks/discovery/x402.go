package discovery

import (
	"context"
	"fmt"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/internal/x402"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/spec"
)

const x402SpecVersion = "x402 specification v2 and v1 (coinbase/x402 specs/, 2026-04-21)"

func x402Ref(file, section, level string) finding.SpecRef {
	return ref(x402SpecVersion, file+" "+section, level, "https://github.com/coinbase/x402/blob/main/specs/"+file)
}

// X402Challenge reports 402 answers whose x402 challenge a client cannot
// act on.
type X402Challenge struct{ plans }

func (X402Challenge) Meta() checks.Meta {
	return checks.Meta{
		ID: "discovery-x402-challenge", Family: checks.FamilyDiscovery, Severity: finding.SeverityError,
		Since: checks.FirstRelease,
		Title: "A 402 that offers x402 payment carries a well-formed PaymentRequired challenge",
		SpecRefs: []finding.SpecRef{
			x402Ref("x402-specification-v2.md", "§5.1 PaymentRequired Schema", "Required"),
			x402Ref("transports-v2/http.md", "Payment Required Signaling", "Mechanism"),
			x402Ref("x402-specification-v1.md", "§5.1 PaymentRequirementsResponse", "Required"),
		},
		Help: `An operation priced with x402 answers ` + "`402 Payment Required`" + ` with a PaymentRequired
challenge: in version 2, base64-encoded JSON in the ` + "`" + x402.Header + "`" + ` header, with
` + "`x402Version: 2`" + `, a ` + "`resource`" + ` object with its ` + "`url`" + `, and ` + "`accepts`" + `, each entry with
` + "`scheme`" + `, a CAIP-2 ` + "`network`" + `, ` + "`amount`" + ` in atomic units, ` + "`asset`" + `, ` + "`payTo`" + ` and
` + "`maxTimeoutSeconds`" + `; in version 1, the same as the JSON body, with ` + "`maxAmountRequired`" + `,
` + "`resource`" + ` and ` + "`description`" + ` on each entry. A client that meets a challenge missing one of
them cannot form a payment, and an agent stops there.

Every 402 the scan received is read (the crawl, the probes, every identity); a 402 with
neither the header nor a body with ` + "`x402Version`" + ` is another scheme's answer and is not
judged. This checks the declaration only: the scanner never pays, and whether the
` + "`payTo`" + ` address or the asset is real cannot be seen from it.

**How to fix:** answer with every required member, for example with the x402 server
middleware, and name the requested URL as the resource.`,
	}
}

func (c X402Challenge) Run(_ context.Context, in *checks.Input) ([]finding.Finding, error) {
	pcs := x402.PaymentChallenges(in)
	if len(pcs) == 0 {
		return nil, checks.Skip("no response answered 402 with an x402 challenge")
	}
	var fs checks.Findings
	for _, pc := range pcs {
		x := pc.Exchange
		where := x.Request.Method + " " + exchange.PathOf(x.Request.URL)
		if pc.Problem == "" {
			in.Observe(c.Meta().ID, where+" asks for "+pc.Describe())
			continue
		}
		ev := evidence(x, x402.Header)
		ev.Expected, ev.Actual, ev.JSONPointer = "a PaymentRequired challenge with the members its version requires", pc.Problem, pc.Pointer
		if x.Response.Header.Get(x402.Header) != "" {
			ev.Header = x402.Header
		} else {
			ev.Excerpt = checks.Excerpt(x)
		}
		fs.Add(checks.New(c.Meta(), x.Request.Method+" "+exchange.PathShape(exchange.PathOf(x.Request.URL)),
			where+" answered 402 with an x402 challenge a client cannot use: "+pc.Problem, ev))
	}
	return fs.List(), nil
}

// X402Declared reports priced operations whose OpenAPI description hides
// the price behind a 4XX range or default response.
type X402Declared struct{ plans }

func (X402Declared) Meta() checks.Meta {
	return checks.Meta{
		ID: "discovery-x402-declared", Family: checks.FamilyDiscovery, Severity: finding.SeverityWarning,
		Since: checks.FirstRelease,
		Title: "An operation that answers an x402 challenge declares its 402 response",
		SpecRefs: []finding.SpecRef{
			ref("OpenAPI 3.1", "4.8.16 Responses Object", "readiness", "https://spec.openapis.org/oas/v3.1.0#responses-object"),
			x402Ref("transports-v2/http.md", "Payment Required Signaling", "Mechanism"),
		},
		Help: `An agent that plans from the OpenAPI document learns that an operation costs money only
when its responses list ` + "`402`" + `. An operation that answered an x402 challenge, but whose
document covers 402 only with a ` + "`4XX`" + ` range or ` + "`default`" + `, reads as free until the agent
is refused. (An operation that declares neither is reported by
` + "`problem-json-undeclared-status`" + `, not here.)

**How to fix:** declare ` + "`402`" + ` on the operation, with a description that says it is priced
with x402 and, for version 2, the ` + "`" + x402.Header + "`" + ` response header.`,
	}
}

func (c X402Declared) Run(_ context.Context, in *checks.Input) ([]finding.Finding, error) {
	if err := in.NeedSpec(); err != nil {
		return nil, err
	}
	pcs := x402.PaymentChallenges(in)
	if len(pcs) == 0 {
		return nil, checks.Skip("no response answered 402 with an x402 challenge")
	}
	var fs checks.Findings
	for _, pc := range pcs {
		x := pc.Exchange
		op := in.Spec.Index().Match(x.Request.Method, x.Request.URL)
		if op == nil {
			continue
		}
		cover := rangeFor402(op)
		if cover == "" {
			continue
		}
		ev := evidence(x, x402.Header)
		ev.Expected, ev.Actual = "responses.402 on "+op.Key(), "402 covered only by responses."+cover
		f := checks.New(c.Meta(), op.Key(), fmt.Sprintf("%s %s answered an x402 challenge, but %s declares 402 only as %s",
			x.Request.Method, exchange.PathOf(x.Request.URL), op.Key(), cover), ev)
		if op.Location.File != "" {
			loc := op.Location
			f.Location = &loc
		}
		fs.Add(f)
	}
	return fs.List(), nil
}

// rangeFor402 names the response that covers 402 when it is not declared
// itself; "" when 402 is declared, or nothing covers it.
func rangeFor402(op *spec.Operation) string {
	if _, ok := op.Responses["402"]; ok {
		return ""
	}
	for _, k := range []string{"4XX", "4xx", "default"} {
		if _, ok := op.Responses[k]; ok {
			return k
		}
	}
	return ""
}
