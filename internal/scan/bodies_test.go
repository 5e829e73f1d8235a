package scan_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentready/agentready/checks/builtin"
	"github.com/agentready/agentready/checks/custom"
	"github.com/agentready/agentready/fixtures/large"
	"github.com/agentready/agentready/internal/config"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/golden"
	"github.com/agentready/agentready/internal/scan"
	"github.com/agentready/agentready/probe"
)

// TestUnreadPagesOfAUniformAPIChangeOnlyTheNotes scans a paginated HAL API
// of 607 resources twice (its two item shapes have 300 each):
// once reading every page, once with the default bound on the pages read
// per shape. Its resources of one shape share their serializer and their
// states, so the report is the same, but for the note that counts the
// pages left unread.
func TestUnreadPagesOfAUniformAPIChangeOnlyTheNotes(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(large.Paginated(600))
	defer srv.Close()
	every := scanPaginated(t, srv, func(o *scan.Options) { o.Probe.BodiesPerShape = 1 << 30 })
	bounded := scanPaginated(t, srv, nil)
	note := slices.IndexFunc(bounded.Notes, func(n string) bool { return strings.Contains(n, "were read for their links alone") })
	if note < 0 {
		t.Fatalf("no note on the unread bodies: %q", bounded.Notes)
	}
	if !strings.HasPrefix(bounded.Notes[note], "466 crawled pages") {
		t.Errorf("note %q, want 466 pages: all but the first 67 of each item shape", bounded.Notes[note])
	}
	bounded.Notes = slices.Delete(bounded.Notes, note, note+1)
	a, b := renderJSON(t, every, srv), renderJSON(t, bounded, srv)
	if !bytes.Equal(a, b) {
		t.Errorf("the reports differ beyond the note:\n%s", golden.FirstDiff(b, a))
	}
}

// TestHouseRulesOnExchangesReadEveryPage: a house rule on exchanges may
// name any header, or the body, so a scan with one leaves no page unread:
// a rule that every page sends Cache-Control holds on every page.
func TestHouseRulesOnExchangesReadEveryPage(t *testing.T) {
	t.Parallel()
	paginated := large.Paginated(600)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "max-age=60")
		paginated.ServeHTTP(w, r)
	}))
	defer srv.Close()
	f, err := config.Parse([]byte(`rules:
  cache-control:
    target: exchange
    given: "$.headers"
    severity: warning
    then: {field: Cache-Control, function: truthy}
`))
	if err != nil {
		t.Fatal(err)
	}
	rules, err := custom.Checks(f.Rules)
	if err != nil {
		t.Fatal(err)
	}
	rep := scanPaginated(t, srv, func(o *scan.Options) { o.Checks = append(o.Checks, rules...) })
	if slices.ContainsFunc(rep.Notes, func(n string) bool { return strings.Contains(n, "read for their links alone") }) {
		t.Errorf("notes %q, want every page read", rep.Notes)
	}
	i := slices.IndexFunc(rep.Checks, func(r finding.CheckResult) bool { return r.ID == "custom-cache-control" })
	if i < 0 || rep.Checks[i].Status != finding.StatusPass || rep.Checks[i].Findings != 0 {
		t.Errorf("the house rule did not pass: %+v", rep.Checks)
	}
}

// TestCallersCompareEveryPage: the least URLs of a shape differ from one
// caller's crawl to another's, and comparing callers needs the same pages
// whole for each, so a scan as two callers leaves no page unread.
func TestCallersCompareEveryPage(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(large.Paginated(600))
	defer srv.Close()
	rep := scanPaginated(t, srv, func(o *scan.Options) {
		o.Probe.MaxPages *= 2
		o.Identities = probe.Describe([]probe.Identity{{Caller: exchange.Caller{Name: "anonymous"}}, {Caller: exchange.Caller{Name: "admin"}, Header: http.Header{"Authorization": {"Bearer admin"}}}}, o.Probe.Headers)
	})
	if slices.ContainsFunc(rep.Notes, func(n string) bool { return strings.Contains(n, "read for their links alone") }) {
		t.Errorf("notes %q, want every page read as each caller", rep.Notes)
	}
}

// scanPaginated scans all of large.Paginated(600) served by srv with every
// built-in check, the options changed by edit when it is not nil.
func scanPaginated(t *testing.T, srv *httptest.Server, edit func(*scan.Options)) *finding.Report {
	t.Helper()
	start, _ := url.Parse(srv.URL + "/")
	reg, err := builtin.Registry()
	if err != nil {
		t.Fatal(err)
	}
	want := large.PaginatedResources(600)
	opts := scan.Options{
		Probe: probe.Config{Start: start, MaxPages: want + 10, MaxDepth: 5, Concurrency: 8, Budget: 5 * time.Minute,
			MaxQueryVariants: want, MaxLinksPerPage: want},
		Checks: reg.All(),
		Now:    func() time.Time { return time.Unix(0, 0).UTC() },
	}
	if edit != nil {
		edit(&opts)
	}
	rep, err := scan.Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Stats.Pages != want {
		t.Fatalf("pages = %d, want %d", rep.Stats.Pages, want)
	}
	return rep
}
