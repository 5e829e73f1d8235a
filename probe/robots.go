package probe

import (
	"context"
	"fmt"
	"net/http"
	"net/url"

	"github.com/agentready/agentready/internal/robots"
)

// RobotsAgent is the product token the crawl looks for in robots.txt when
// Config.RespectRobots is set; a file that names no group for it is read
// through its "*" groups (RFC 9309 §2.2.1).
const RobotsAgent = "agentready"

// Reasons the robots.txt rules kept a request from being sent, as counted
// in Stats.Skipped.
const (
	skipRobots      = "robots"
	skipProbeRobots = "probe-robots"
)

// robotsRules are what the target's robots.txt allows, read once before the
// crawl. The zero value allows everything: robots.txt is read only when
// the user asks for it.
type robotsRules struct {
	read bool
	file *robots.File
	// closed is set when the file could not be read for a reason that, by
	// RFC 9309 §2.3.1.4, means a complete disallow.
	closed bool
	// source says what was read, for the report's note.
	source string
}

// readRobots fetches /robots.txt on the start's origin, following redirects
// on that origin only, and reads it as RFC 9309 §2.3.1 says: a 2xx is the
// rules, any other 4xx means no rules, and a server error, a network error
// or a redirect that could not be followed means a complete disallow. A 429
// is retried like any request (client.attemptThrottled); one that stays
// throttled is unreachable too, not a 4xx that means no file.
func readRobots(ctx context.Context, c *client, start *url.URL, header http.Header) *robotsRules {
	u := &url.URL{Scheme: start.Scheme, Host: start.Host, Path: "/robots.txt"}
	h := header.Clone()
	h.Set("Accept", "text/plain, */*;q=0.5")
	x, _ := c.fetch(ctx, http.MethodGet, u.String(), h)
	r := &robotsRules{read: true}
	switch {
	case x.Response == nil:
		r.closed, r.source = true, "/robots.txt could not be fetched ("+x.Err+"), which counts as disallowing everything"
	case x.Response.Status >= 200 && x.Response.Status < 300:
		r.file, r.source = robots.Parse(x.Response.Body), fmt.Sprintf("/robots.txt (HTTP %d)", x.Response.Status)
	case x.Response.Throttled():
		// RFC 9309 §2.3.1.4 reads an unreachable file as a complete
		// disallow; a file still throttled after retrying is one.
		r.closed, r.source = true, fmt.Sprintf("/robots.txt answered %d and stayed throttled after retrying, which counts as disallowing everything", x.Response.Status)
	case x.Response.Status >= 400 && x.Response.Status < 500:
		r.source = fmt.Sprintf("/robots.txt answered %d, which allows everything", x.Response.Status)
	default:
		r.closed, r.source = true, fmt.Sprintf("/robots.txt answered %d, which counts as disallowing everything", x.Response.Status)
	}
	return r
}

// disallows reports whether the rules keep the crawl from u. The start URL
// is never kept out: the user named it.
func (r *robotsRules) disallows(u *url.URL, start *url.URL) bool {
	switch {
	case r == nil || !r.read, u.String() == start.String(), u.Path == "/robots.txt":
		return false
	case r.closed:
		return true
	case r.file == nil:
		return false
	}
	allowed, _ := r.file.Verdict(RobotsAgent, u.EscapedPath()+query(u))
	return !allowed
}

func query(u *url.URL) string {
	if u.RawQuery == "" {
		return ""
	}
	return "?" + u.RawQuery
}

// note says what the rules kept out, or "" when they were not read.
func (r *robotsRules) note(skipped map[string]int) string {
	if r == nil || !r.read {
		return ""
	}
	return fmt.Sprintf("--respect-robots: read %s; not sent because it disallows them for %s: %d URL(s) the crawl found, %d planned request(s)",
		r.source, RobotsAgent, skipped[skipRobots], skipped[skipProbeRobots])
}
