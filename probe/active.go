package probe

import (
	"context"
	"fmt"
	"net/http"

	"github.com/agentready/agentready/internal/exchange"
)

// SendActive sends the active probes the user allowed and confirmed, exactly
// as given: one at a time and in order, because each may change state the
// next depends on. It is the one path on which unsafe methods leave the
// scanner. Redirects are recorded, not followed: a client following a 303
// would turn the answer into a GET the user never allowed. Requests that
// leave the origin are refused with a note, like every planned request.
// When ctx ends, the rest are not sent, and unsent says how many.
func SendActive(ctx context.Context, cfg Config, reqs []exchange.PlannedRequest) (sent []*exchange.Exchange, unsent int, notes []string) {
	cfg = cfg.withDefaults()
	cfg.progress.SetPhase(ctx, PhaseActive)
	start := normalize(cfg.Start)
	c := newClient(cfg, start)
	c.maxHops = 0
	defer c.close()
	for i, p := range reqs {
		if err := validatePlanned(p, start, true); err != nil {
			notes = append(notes, fmt.Sprintf("active probe %s %s (%s) not sent: %v", p.Method, p.URL, p.Purpose, err))
			continue
		}
		if ctx.Err() != nil {
			return sent, len(reqs) - i, notes
		}
		x, _ := c.send(ctx, p.Method, p.URL, plannedHeader(cfg, p), p.Body)
		if x.Err != "" && ctx.Err() != nil {
			// Cut by the end of the scan, the answer says nothing about
			// the app; the request may still have reached it.
			return sent, len(reqs) - i, notes
		}
		x.Purpose, x.BasedOn = p.Purpose, p.BasedOn
		sent = append(sent, x)
	}
	return sent, 0, notes
}

// ActiveHeader is what SendActive sends with p under cfg, the values of the
// user's and the identity's headers redacted (but the plain ones, see
// exchange.RedactedNames): the headers a confirmation
// shows, from the same function that builds the ones sent.
func ActiveHeader(cfg Config, p exchange.PlannedRequest) http.Header {
	cfg = cfg.withDefaults()
	return exchange.RedactHeader(plannedHeader(cfg, p), exchange.RedactedNames(cfg.Headers))
}
