package discovery

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"

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

// PaymentChallenge is one 402 answer that says it is an x402 challenge,
// per method and path shape.
type PaymentChallenge struct {
	Exchange *exchange.Exchange
	// Challenge is nil when the header does not decode to a JSON object.
	Challenge *x402.Challenge
	// Problem is the first rule it breaks, and Pointer where; "" when none.
	Problem, Pointer string
}

// PaymentChallenges returns the x402 challenges of every recording of the
// scan (the crawl, the probes, every identity), the first per method and
// path shape. A 402 that carries neither the PAYMENT-REQUIRED header nor a
// body with x402Version is another scheme's refusal and is not read.
func PaymentChallenges(in *checks.Input) []PaymentChallenge {
	return in.Memo("discovery/x402", func() any {
		seen := map[string]bool{}
		var out []PaymentChallenge
		for _, rec := range allRecordings(in) {
			if rec == nil {
				continue
			}
			for _, x := range rec.Exchanges {
				if x.Response == nil || x.Response.Status != http.StatusPaymentRequired {
					continue
				}
				key := x.Request.Method + " " + exchange.PathShape(exchange.PathOf(x.Request.URL))
				if seen[key] {
					continue
				}
				if pc, ok := readChallenge(x); ok {
					seen[key] = true
					out = append(out, pc)
				}
			}
		}
		return out
	}).([]PaymentChallenge)
}

// readChallenge reads the challenge of a 402 where the transport of its
// version puts it: the PAYMENT-REQUIRED header (version 2) or the body
// (version 1).
func readChallenge(x *exchange.Exchange) (PaymentChallenge, bool) {
	pc := PaymentChallenge{Exchange: x}
	var raw []byte
	if h := x.Response.Header.Get(x402.Header); h != "" {
		b, err := x402.DecodeHeader(h)
		if err != nil {
			pc.Problem = x402.Header + " is " + err.Error()
			return pc, true
		}
		raw = b
	} else if x.Response.Whole() && x402.Claims(x.Response.Body) {
		raw = x.Response.Body
	} else {
		return pc, false
	}
	c, err := x402.Parse(raw)
	if err != nil {
		pc.Problem = "the challenge is " + err.Error()
		return pc, true
	}
	pc.Challenge = c
	switch {
	case len(c.Problems.Items) > 0:
		pc.Problem, pc.Pointer = c.Problems.Items[0].Message, c.Problems.Items[0].Pointer
		if n := len(c.Problems.Items) + c.Problems.Dropped; n > 1 {
			pc.Problem += fmt.Sprintf(" (and %d more)", n-1)
		}
	case c.Version == 2 && x.Response.Header.Get(x402.Header) == "":
		pc.Problem = "a version 2 challenge is in the body, but the HTTP transport of version 2 carries it base64-encoded in " + x402.Header
	default:
		if p := otherResource(x.Request.URL, c.Resource); p != "" {
			pc.Problem, pc.Pointer = "the challenge names "+p+" as the resource, not the path requested", "/resource/url"
			if c.Version == 1 {
				pc.Pointer = "/accepts/0/resource"
			}
		}
	}
	return pc, true
}

// otherResource returns the path of the challenge's resource when it is not
// the one requested; the origin is not compared, since a server behind a
// proxy may know itself by another name.
func otherResource(requested, resource string) string {
	req, err1 := url.Parse(requested)
	res, err2 := url.Parse(resource)
	if err1 != nil || err2 != nil || resource == "" {
		return ""
	}
	res = req.ResolveReference(res)
	if strings.TrimSuffix(res.Path, "/") == strings.TrimSuffix(req.Path, "/") {
		return ""
	}
	return res.Path
}

// Describe names what a well-formed challenge asks for, for the surface
// matrix and observations.
func (pc PaymentChallenge) Describe() string {
	if pc.Challenge == nil || len(pc.Challenge.Accepts) == 0 {
		return "x402"
	}
	r := pc.Challenge.Accepts[0]
	s := fmt.Sprintf("x402 v%d: %s %s on %s", pc.Challenge.Version, r.Scheme, r.Amount, r.Network)
	if n := len(pc.Challenge.Accepts); n > 1 {
		s += fmt.Sprintf(" (+%d more)", n-1)
	}
	return s
}

// X402Challenge reports 402 answers whose x402 challenge a client cannot
// act on.
type X402Challenge struct{ plans }

func (X402Challenge) Meta() checks.Meta {
	return checks.Meta{
		ID: "discovery-x402-challenge", Family: checks.FamilyDiscovery, Severity: finding.SeverityError,
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
	pcs := PaymentChallenges(in)
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
	pcs := PaymentChallenges(in)
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
