package negotiation

import (
	"context"
	"fmt"
	"net/http"
	"strconv"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/sanitize"
)

// HeadBody checks that a HEAD response carries no content: the probe
// records what a server sent after one (exchange.Exchange.AfterHead).
type HeadBody struct{ probes }

func (HeadBody) Meta() checks.Meta {
	return checks.Meta{
		ID:       "negotiation-head-body",
		Family:   checks.FamilyNegotiation,
		Title:    "HEAD responses carry no content",
		Severity: finding.SeverityError,
		SpecRefs: []finding.SpecRef{rfc9110("9.3.2", "MUST NOT")},
		// net/http servers, which every fixture app is, drop a HEAD body
		// themselves; a raw connection sends one in the probe's tests.
		FiredBy: "content after a HEAD response",
		Since:   checks.FirstRelease,
		Help: `The server must not send content in a response to HEAD (RFC 9110 §9.3.2): a
client reads the header and expects the next response to follow it. Bytes
sent after a HEAD response on a kept-alive connection are read as the start
of the next response, which a client must then discard with the connection,
or worse, mistake for the answer to its next request: another caller's data
behind a proxy that shares connections.

**How to fix:** route HEAD to the GET handler through the framework's own
HEAD support, which drops the body, rather than writing the body yourself;
a handler that writes to the connection directly must stop after the
header for HEAD.`,
	}
}

func (c HeadBody) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	var out []finding.Finding
	heads := 0
	m := c.Meta()
	for _, x := range in.Recording.Exchanges {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if x.Request.Method != http.MethodHead || x.Response == nil {
			continue
		}
		heads++
		a := x.AfterHead
		if a == nil || a.Size == 0 {
			continue
		}
		msg := fmt.Sprintf("HEAD %s was answered %d, then %d bytes of content followed the header",
			exchange.PathOf(x.Request.URL), x.Response.Status, a.Size)
		ev := checks.Evidence(x, []string{"Accept"}, []string{"Content-Type", "Content-Length"})
		ev.Actual, ev.Expected = strconv.FormatInt(a.Size, 10)+" bytes after the header", "no content"
		// What followed is the app's and hostile: shown as a bounded,
		// sanitized excerpt of what was kept, credentials already replaced.
		ev.Excerpt = sanitize.Excerpt(a.Bytes, checks.ExcerptLimit)
		out = append(out, checks.New(m, "", msg, ev))
	}
	if heads == 0 {
		return nil, checks.Skip("no HEAD request got a response")
	}
	return out, nil
}
