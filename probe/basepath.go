package probe

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/agentready/agentready/internal/spec"
)

// PurposeBasePath tags the GETs that decided where the document's operations
// live on the target: under the servers' path, or at the bare path.
const PurposeBasePath = "openapi/base-path"

// Where the base path came from, as the report's notes say.
const (
	BaseFromFlag    = "--base-path"
	BaseFromServers = "servers"
	BaseFromBare    = "bare path"
)

// basePathProbes bounds the operations tried under each candidate: each
// is a request to the user's API.
const basePathProbes = 3

// BasePath says where the document's operations were requested.
type BasePath struct {
	// Path goes before each operation's path; "" is the origin's root.
	Path string
	// How is BaseFromFlag, BaseFromServers or BaseFromBare.
	How string
	// Mismatch is set when neither the servers' path nor the bare path
	// answered anything but 404 to the operations tried.
	Mismatch bool
}

// resolveBasePath decides the prefix of the document's paths: the one the
// user gave, or the servers' path and the bare path tried in turn with a few
// parameterless GET operations, keeping the first that answers 2xx, else the
// first that answers anything but 404.
func (cr *crawler) resolveBasePath(ctx context.Context) {
	s := cr.spec
	if b := s.cfg.BasePath; b != "" {
		s.base = BasePath{Path: trimBase(b), How: BaseFromFlag}
		return
	}
	server := cr.serverPath()
	s.base = BasePath{Path: server, How: BaseFromServers}
	if server == "" {
		return
	}
	probes := cr.baseProbeOps()
	if len(probes) == 0 {
		s.notes = append(s.notes, fmt.Sprintf("the OpenAPI servers path %s is used as declared: no parameterless GET operation could confirm it", server))
		return
	}
	candidates := []BasePath{{Path: server, How: BaseFromServers}, {Path: "", How: BaseFromBare}}
	answered := make([]int, len(candidates)) // best status per candidate, 0 for none
	for i, c := range candidates {
		answered[i] = cr.tryBase(ctx, c.Path, probes)
		if answered[i]/100 == 2 {
			break
		}
	}
	pick := -1
	for i, st := range answered {
		if st/100 == 2 {
			pick = i
			break
		}
	}
	for i, st := range answered {
		if pick < 0 && st != 0 && st != http.StatusNotFound {
			pick = i
		}
	}
	if pick < 0 {
		s.base.Mismatch = true
		s.notes = append(s.notes, fmt.Sprintf("neither the OpenAPI servers path %s nor the bare path answered %s with anything but 404; "+
			"pass --base-path PATH (or --server N) to say where the operations live", server, probes[0].PathTemplate))
		return
	}
	s.base = candidates[pick]
	if pick > 0 {
		s.notes = append(s.notes, fmt.Sprintf("the operations are requested at the bare path: %s answered %d without the OpenAPI servers path %s, which answered 404 (--base-path overrides)",
			probes[0].PathTemplate, answered[pick], server))
	}
}

// tryBase GETs the probe operations under base and returns the best status:
// a 2xx, else the first other than 404, else 404 (0 when none answered).
func (cr *crawler) tryBase(ctx context.Context, base string, ops []*spec.Operation) int {
	best := 0
	for _, op := range ops {
		if ctx.Err() != nil {
			break
		}
		u := *cr.start
		u.Path, u.RawPath, u.RawQuery = joinPath(base, op.PathTemplate), "", ""
		x, _ := cr.client.fetch(ctx, http.MethodGet, normalize(&u).String(), cr.headers)
		x.Purpose, x.Source = PurposeBasePath, "openapi "+op.Key()
		cr.spec.exchanges = append(cr.spec.exchanges, x)
		if x.Response == nil {
			continue
		}
		releaseBody(x.Response)
		st := x.Response.Status
		switch {
		case st/100 == 2:
			return st
		case best == 0 || best == http.StatusNotFound:
			best = st
		}
	}
	return best
}

// baseProbeOps are the first parameterless GET operations in document
// order, the root left out: a root that answers says nothing about the rest.
func (cr *crawler) baseProbeOps() []*spec.Operation {
	doc := cr.spec.doc
	var out []*spec.Operation
	for _, op := range doc.Operations {
		if op.Method == http.MethodGet && op.PathTemplate != "/" && !strings.Contains(op.PathTemplate, "{") && !requiresParameters(op, cr.cfg.Headers) {
			out = append(out, op)
			if len(out) == basePathProbes {
				break
			}
		}
	}
	return out
}

// serverPath is the path of the server chosen with --server N, else the one
// the start URL is inside, else the first declared; "" for the root.
func (cr *crawler) serverPath() string {
	doc, n := cr.spec.doc, cr.spec.cfg.Server
	if n > 0 {
		if n <= len(doc.Servers) {
			return trimBase(spec.ServerPath(doc.Servers[n-1]))
		}
		cr.spec.notes = append(cr.spec.notes, fmt.Sprintf("--server %d: the OpenAPI document declares %d servers; the base path was chosen as without it", n, len(doc.Servers)))
	}
	bases := doc.BasePaths
	for _, b := range bases {
		b = trimBase(b)
		if b != "" && (cr.start.Path == b || strings.HasPrefix(cr.start.Path, b+"/")) {
			return b
		}
	}
	if len(bases) > 0 {
		return trimBase(bases[0])
	}
	return ""
}

// trimBase writes a base path without its trailing slash, "" for the root.
func trimBase(p string) string {
	p = strings.TrimSuffix(strings.TrimSpace(p), "/")
	if p != "" && !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	return p
}
