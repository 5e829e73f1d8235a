package x402

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/internal/exchange"
)

// PaymentChallenge is one 402 answer that says it is an x402 challenge,
// per method and path shape.
type PaymentChallenge struct {
	Exchange *exchange.Exchange
	// Challenge is nil when the header does not decode to a JSON object.
	Challenge *Challenge
	// Problem is the first rule it breaks, and Pointer where; "" when none.
	Problem, Pointer string
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

var challengesKey = checks.NewKey[[]PaymentChallenge]()

// PaymentChallenges returns the x402 challenges of every recording of the
// scan (the crawl, the probes, every identity), the first per method and
// path shape. A 402 that carries neither the PAYMENT-REQUIRED header nor a
// body with x402Version is another scheme's refusal and is not read.
func PaymentChallenges(in *checks.Input) []PaymentChallenge {
	return checks.Memo(in, challengesKey, func() []PaymentChallenge {
		seen := map[string]bool{}
		var out []PaymentChallenge
		for _, rec := range in.Recordings() {
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
				if pc, ok := ReadChallenge(x); ok {
					seen[key] = true
					out = append(out, pc)
				}
			}
		}
		return out
	})
}

// ReadChallenge reads the challenge of a 402 where the transport of its
// version puts it: the PAYMENT-REQUIRED header (version 2) or the body
// (version 1). It is false for a 402 of another scheme, which carries
// neither.
func ReadChallenge(x *exchange.Exchange) (PaymentChallenge, bool) {
	pc := PaymentChallenge{Exchange: x}
	var raw []byte
	if h := x.Response.Header.Get(Header); h != "" {
		b, err := DecodeHeader(h)
		if err != nil {
			pc.Problem = Header + " is " + err.Error()
			return pc, true
		}
		raw = b
	} else if x.Response.Whole() && Claims(x.Response.Body) {
		raw = x.Response.Body
	} else {
		return pc, false
	}
	c, err := Parse(raw)
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
	case c.Version == 2 && x.Response.Header.Get(Header) == "":
		pc.Problem = "a version 2 challenge is in the body, but the HTTP transport of version 2 carries it base64-encoded in " + Header
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
