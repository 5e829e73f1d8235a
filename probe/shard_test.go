package probe

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
)

// A shard has the whole page limit for its own shapes, and fetches the
// pages of other shards' shapes, which it only passes through, within the
// limit once per other shard.
func TestShardPageLimitCountsItsOwnShapes(t *testing.T) {
	letters := "ghijklmnopqrstuvwxyz"
	var links []string
	for i := range 40 {
		links = append(links, fmt.Sprintf(`{"href": "/shape-%c%c"}`, letters[i%20], letters[i/20]))
	}
	srv, _ := serve(t, routes{"/": halBody(`{"_links": {"item": [` + strings.Join(links, ",") + `]}}`)})
	const limit = 6
	for _, sh := range []finding.Shard{{Index: 1, Total: 3}, {Index: 3, Total: 3}} {
		res := run(t, Config{Start: mustParse(t, srv.URL), MaxPages: limit, Budget: time.Minute, shard: sh}, nil)
		own, transit := 0, 0
		for _, p := range crawledPaths(res) {
			switch {
			case p == "/":
			case exchange.ShapeShard(exchange.PathShape(p), sh.Total) == sh.Index:
				own++
			default:
				transit++
			}
		}
		// The start page counts against the limit, whoever owns it.
		if own != limit-1 {
			t.Errorf("shard %s: %d pages of its own shapes, want %d", sh, own, limit-1)
		}
		if transit != limit*(sh.Total-1) {
			t.Errorf("shard %s: %d pages of other shapes, want %d", sh, transit, limit*(sh.Total-1))
		}
	}
	whole := run(t, Config{Start: mustParse(t, srv.URL), MaxPages: limit, Budget: time.Minute}, nil)
	if whole.Stats.Pages != limit {
		t.Errorf("whole scan: %d pages, want %d", whole.Stats.Pages, limit)
	}
}
