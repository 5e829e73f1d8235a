package activeplan

import (
	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/internal/hypermedia"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
)

// What the checks of the active probes share. Each walks what the scan
// recorded for one kind of probe (Answered, or Sequences for the kinds that
// re-read the node), pairs each probe with the crawled resource it was
// planned from (PlannedFrom), and sorts the answer (OutcomeOf); a check
// keeps only its own judgement of each.

// Judge is the walk of a check of an active probe: once the scan was
// active, the finding judge gives each of probes, in the order sent. With
// no probe to judge, the check does not apply, for the reason none.
func Judge[P any](in *checks.Input, probes []P, none string, judge func(P) *finding.Finding) ([]finding.Finding, error) {
	if err := in.NeedActive(); err != nil {
		return nil, err
	}
	if len(probes) == 0 {
		return nil, checks.Skip(none)
	}
	var out []finding.Finding
	for _, p := range probes {
		if f := judge(p); f != nil {
			out = append(out, *f)
		}
	}
	return out, nil
}

// Answered lists rec's probes of purpose that were answered, in the order
// sent.
func Answered(rec *exchange.Recording, purpose string) []*exchange.Exchange {
	if rec == nil {
		return nil
	}
	var out []*exchange.Exchange
	for _, x := range rec.Exchanges {
		if x.Purpose == purpose && x.Response != nil {
			out = append(out, x)
		}
	}
	return out
}

// Operation names a probe's operation by method and path shape, the same
// for every resource it was sent to: what tells the findings of a check
// apart.
func Operation(x *exchange.Exchange) string {
	return x.Request.Method + " " + exchange.PathShape(exchange.PathOf(x.Request.URL))
}

// PlannedFrom is the crawl's exchange of the resource probe x was planned
// from (its BasedOn), when the crawl could read it; nil otherwise.
func PlannedFrom(rec *exchange.Recording, x *exchange.Exchange) *exchange.Exchange {
	for _, c := range rec.Exchanges {
		if c.Purpose == exchange.PurposeCrawl && c.Request.URL == x.BasedOn && hypermedia.Judgeable(c) {
			return c
		}
	}
	return nil
}

// Outcome sorts the answer to a probe that the server should refuse.
type Outcome int

const (
	// Executed is a 2xx: the server carried out what it should have
	// refused.
	Executed Outcome = iota
	// Refused is a refusal with a status the kind of probe asks for, as
	// problem+json.
	Refused
	// RefusedWithoutProblem is a refusal with a status the kind asks for
	// whose body is not problem+json.
	RefusedWithoutProblem
	// OtherStatus is any other answer: a redirect, or a status the kind
	// does not ask for.
	OtherStatus
)

// OutcomeOf sorts x's answer; refuses reports the statuses its kind of
// probe asks a refusal to have (RefusesOffList, RefusesTransition, …).
func OutcomeOf(x *exchange.Exchange, refuses func(status int) bool) Outcome {
	switch st := x.Response.Status; {
	case st >= 200 && st < 300:
		return Executed
	case !refuses(st):
		return OtherStatus
	case x.Response.MediaType() != "application/problem+json":
		return RefusedWithoutProblem
	}
	return Refused
}
